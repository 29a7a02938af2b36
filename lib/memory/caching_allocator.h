#pragma once
// CachingAllocator: the device-agnostic caching allocator that sits in front of each
// device's RawAllocator (DESIGN.md "Caching allocator", API.md section 6).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/allocator.h"
#include "ember/device.h"
#include "ember/memory.h"
#include "memory/block.h"

namespace ember::detail {

using ember::StreamEvents;

class CachingAllocator {
 public:
  static constexpr size_t kRound = 512;                     // every request is a multiple of this
  static constexpr size_t kSmallSize = size_t{1} << 20;     // requests below go to the small pool
  static constexpr size_t kSmallSegment = size_t{2} << 20;  // small-pool segment size
  static constexpr size_t kLargeRound = size_t{2} << 20;    // large segments are multiples of this

  /// total_bytes: the device's memory (for fractions); default_limit: limit when none is set.
  CachingAllocator(Device device, RawAllocator* raw, size_t total_bytes, size_t default_limit,
                   StreamEvents* events = nullptr);
  /// Returns every segment to the raw allocator (process exit / tests only).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// Memory for `bytes` (0 gives a valid minimal block) usable on `stream` (nullptr = the
  /// default stream / no streams). *context receives the block handle for free().
  /// Throws OutOfMemory and stays consistent.
  void* allocate(size_t bytes, void* stream, void** context);
  /// Matches ember::DataDeleter: returns the block to its allocator.
  static void free(void* context, void* data);
  /// The block is also used on `stream`: its reuse waits for an event recorded there at
  /// free time. Ignored on allocators without StreamEvents.
  static void record_stream(void* context, void* stream);

  // Settings, allowed only before the first allocation (InvalidArgument naming the device
  // after). The limit is the explicit limit if set, else fraction * total, else the default.
  void set_growth(bool enabled);
  void set_limit(size_t bytes);
  void set_fraction(double fraction);  // 0 < fraction <= 1
  bool used() const;                   // any allocation has happened
  bool has_limit() const;              // an explicit limit or fraction was set
  memory::MemoryStats stats() const;
  void reset_peak_stats();
  std::string summary() const;  // readable table like torch.cuda.memory_summary()
  Device device() const { return device_; }

 private:
  enum class OomCause { kNone, kLimit, kRaw, kNoGrowth, kTooLarge };
  struct Shortfall {  // why no new segment could be had
    OomCause cause = OomCause::kNone;
    size_t segment_bytes = 0;
  };
  struct Segment {
    char* ptr;
    size_t size;
    bool small;
  };

  void free_block(Block* block);
  Block* take_recent(void* stream, size_t size);
  void flush_recent();
  void add_stream(Block* block, void* stream);
  void process_events();
  FreeSet& pool_for(size_t size) {
    return growth_ && size < kSmallSize ? small_free_ : large_free_;
  }
  Block* take_free(FreeSet& pool, void* stream, size_t size);
  Block* new_segment(FreeSet& pool, size_t size, Shortfall* why);
  void reserve_region(size_t requested);
  void split(Block* block, size_t size);
  void release(Block* block);
  void merge(Block* block, Block* neighbour);
  void insert_free(Block* block);
  void remove_free(Block* block);
  void ensure_spares();
  Block* new_block();
  void recycle_block(Block* block);
  size_t limit_locked() const;
  size_t largest_free_locked() const;
  void check_settable(const char* setting) const;
  [[noreturn]] void throw_oom(size_t requested, Shortfall shortfall);

  const Device device_;
  RawAllocator* const raw_;
  const size_t total_bytes_, default_limit_;
  StreamEvents* const events_;

  mutable std::mutex mutex_;
  bool growth_ = true, used_ = false;
  std::optional<size_t> limit_;
  std::optional<double> fraction_;

  NodePool node_pool_;  // before the sets: they return their nodes to it
  FreeSet small_free_{BlockLess(), PoolAllocator<Block*>(&node_pool_)};
  FreeSet large_free_{BlockLess(), PoolAllocator<Block*>(&node_pool_)};
  std::deque<Block> block_storage_;  // every Block struct, never freed early
  Block* spare_blocks_ = nullptr;    // unused Block structs
  size_t num_spare_blocks_ = 0;
  size_t num_fresh_free_ = 0;  // free blocks never used by any stream
  Block node_maker_;           // dummy entry used to mint set nodes
  std::vector<Segment> segments_;
  std::vector<std::pair<void*, Block*>> pending_;  // (event, block) awaiting completion
  memory::MemoryStats stats_;  // limit_bytes and largest_free_block filled in by stats()
  static constexpr int kRecentSlots = 8;
  static constexpr size_t kRecentMaxSize = size_t{64} << 10;
  Block* recent_[kRecentSlots] = {};  // Note [Recently freed blocks]
  int num_recent_ = 0;
};

}  // namespace ember::detail
