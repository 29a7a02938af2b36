#pragma once
// Block: one contiguous piece of a segment, either handed out, cached in a free set, or
// waiting for stream events. See Note [Caching allocator block lifecycle] in
// caching_allocator.cpp.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "memory/node_pool.h"

namespace ember::detail {

class CachingAllocator;
struct Block;

/// What a free-set lookup searches for: the smallest block of `stream` with size >= `size`.
struct BlockKey {
  void* stream;
  size_t size;
  const char* ptr;
};

/// Orders free blocks by (stream, size, address), so lower_bound is a best-fit search.
struct BlockLess {
  using is_transparent = void;
  bool operator()(const Block* a, const Block* b) const;
  bool operator()(const Block* a, const BlockKey& b) const;
  bool operator()(const BlockKey& a, const Block* b) const;
  static bool less(const BlockKey& a, const BlockKey& b) {
    if (a.stream != b.stream) return std::less<void*>()(a.stream, b.stream);
    if (a.size != b.size) return a.size < b.size;
    return std::less<const char*>()(a.ptr, b.ptr);
  }
};

using FreeSet = std::set<Block*, BlockLess, PoolAllocator<Block*>>;

enum class BlockState : uint8_t {
  kFree,       // in its pool's free set
  kAllocated,  // handed out by allocate()
  kPending,    // freed, waiting for events on the streams added by record_stream
  kRecent,     // freed, parked un-merged in the recent list (Note [Recently freed blocks])
};

struct Block {
  char* ptr = nullptr;
  size_t size = 0;
  void* stream = nullptr;  // the stream allocated on, or kFreshStream (never used)
  Block* prev = nullptr;   // address-order neighbours within the same segment
  Block* next = nullptr;
  FreeSet* pool = nullptr;     // the free set this block goes back to
  FreeSet::iterator free_pos;  // valid while state == kFree
  CachingAllocator* owner = nullptr;
  BlockState state = BlockState::kFree;
  int pending_events = 0;
  std::vector<void*> extra_streams;  // from record_stream; capacity is kept on reuse
  Block* next_spare = nullptr;       // link in the allocator's list of unused Block structs

  BlockKey key() const { return BlockKey{stream, size, ptr}; }
};

inline bool BlockLess::operator()(const Block* a, const Block* b) const {
  return less(a->key(), b->key());
}
inline bool BlockLess::operator()(const Block* a, const BlockKey& b) const {
  return less(a->key(), b);
}
inline bool BlockLess::operator()(const BlockKey& a, const Block* b) const {
  return less(a, b->key());
}

}  // namespace ember::detail
