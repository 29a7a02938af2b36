#include "memory/caching_allocator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/check.h"
#include "memory/byte_size.h"

namespace ember::detail {

// Note [Caching allocator block lifecycle]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Memory comes from the RawAllocator in segments and is never given back while the
// allocator lives. A segment is a doubly linked list of Blocks in address order
// (prev/next); every byte of it belongs to exactly one Block, which is
//   kFree      cached in its pool's free set, ordered by (stream, size, address);
//   kAllocated handed out by allocate(), owned by a tensor;
//   kPending   freed, but used on extra streams (record_stream): one event was recorded
//              on each at free time, and the block waits in pending_ until all complete.
//
// allocate(n): round n up to 512 B; pick the pool (small: requests < 1 MiB, served from
// 2 MiB segments; large: the rest, from segments rounded up to 2 MiB; with growth off,
// everything from the large pool, which holds the one region reserved at the first
// allocation). Best fit is a lower_bound on (stream, n, 0). If the block found is larger,
// it is split when the remainder is worth keeping (>= 512 B for small requests, > 1 MiB
// for large ones, so large blocks are not chopped into slivers); the remainder stays free.
// With nothing cached, a new segment is reserved, after checking reserved + segment
// <= limit (near the limit the segment shrinks to what is left, if the request fits).
// When no segment can be had (limit reached, or the RawAllocator returns null), the
// request may borrow a free block of the other pool: segments are never released, so
// this is how memory cached in one pool stays usable by the other at the limit. A
// borrowed block still belongs to its segment's pool and returns there. Only then is
// OutOfMemory thrown, before anything has changed.
//
// Note [Recently freed blocks]
// A tensor loop frees and re-allocates the same small sizes over and over; splitting a
// block off a segment and merging it back each time costs four tree operations. So up
// to kRecentSlots small blocks (<= 64 KiB) are parked un-merged on free (kRecent) and
// handed back to an exact-size request on the same stream. They count as free in the
// stats; whenever the free sets must be complete (a miss, stats(), summary()) the
// parked blocks are released normally first, so nothing observable changes.
//
// free(block): kAllocated -> kPending if events are needed, else straight back: it merges
// with free neighbours of the same segment (coalescing) and enters the free set.
// Pending blocks are returned the same way at the start of a later allocate().
//
// Streams: a freed block is tagged with the stream it was allocated on and only requests
// on that stream reuse it (work queued there may still touch it, and stream order makes
// reuse there safe). Memory never used at all is tagged kFreshStream and any stream may
// take it; so the growth-off region, or the tail of a segment, is not captured by the
// stream that happened to reserve it. A merge keeps the freed block's tag and absorbs
// neighbours with the same tag or fresh ones (fresh memory may safely become tagged).
//
// Hot path: a cache hit takes the mutex once and allocates nothing. Block structs are
// recycled through spare_blocks_, and free-set nodes through node_pool_, so a cached
// allocate+free pair does no new/delete.

namespace {

char fresh_tag;
void* const kFreshStream = &fresh_tag;

// Requests above this are refused outright, so rounding cannot overflow.
constexpr size_t kMaxRequest = std::numeric_limits<size_t>::max() / 2;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
size_t round_size(size_t bytes) {
  return bytes == 0 ? CachingAllocator::kRound : round_up(bytes, CachingAllocator::kRound);
}
bool should_split(const Block* block, size_t size) {
  size_t remaining = block->size - size;
  return size < CachingAllocator::kSmallSize ? remaining >= CachingAllocator::kRound
                                             : remaining > CachingAllocator::kSmallSize;
}

}  // namespace

CachingAllocator::CachingAllocator(Device device, RawAllocator* raw, size_t total_bytes,
                                   size_t default_limit, StreamEvents* events)
    : device_(device),
      raw_(raw),
      total_bytes_(total_bytes),
      default_limit_(default_limit),
      events_(events) {
  EMBER_CHECK_ARG(raw != nullptr, "CachingAllocator: null RawAllocator for {}", device.str());
}

CachingAllocator::~CachingAllocator() {
  if (events_) {
    for (auto& pending : pending_) events_->destroy(pending.first);
  }
  for (const Segment& s : segments_) raw_->deallocate(s.ptr, s.size);
}

void* CachingAllocator::allocate(size_t bytes, void* stream, void** context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!pending_.empty()) process_events();
  if (bytes > kMaxRequest) throw_oom(bytes, Shortfall{OomCause::kTooLarge, 0});
  size_t size = round_size(bytes);
  if (num_recent_ > 0) {
    if (Block* block = take_recent(stream, size)) {
      stats_.num_allocs++;
      stats_.num_cache_hits++;
      stats_.allocated_bytes += block->size;
      stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
      *context = block;
      return block->ptr;
    }
  }
  ensure_spares();  // every container growth happens here, before anything changes
  bool hit = true;
  if (!growth_ && segments_.empty()) {
    reserve_region(bytes);
    hit = false;
  }
  FreeSet& pool = pool_for(size);
  Block* block = take_free(pool, stream, size);
  if (block == nullptr && num_recent_ > 0) {
    flush_recent();
    block = take_free(pool, stream, size);
  }
  if (block == nullptr) {
    if (!growth_) throw_oom(bytes, Shortfall{OomCause::kNoGrowth, 0});
    Shortfall why{};
    block = new_segment(pool, size, &why);
    if (block == nullptr) {
      // No new segment: borrow from the other pool before giving up (see the Note).
      FreeSet& other = &pool == &small_free_ ? large_free_ : small_free_;
      block = take_free(other, stream, size);
      if (block == nullptr) throw_oom(bytes, why);
    } else {
      hit = false;
    }
  }
  if (should_split(block, size)) split(block, size);
  block->stream = stream;
  block->state = BlockState::kAllocated;

  used_ = true;
  stats_.num_allocs++;
  stats_.num_cache_hits += hit;
  stats_.allocated_bytes += block->size;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  *context = block;
  return block->ptr;
}

void CachingAllocator::free(void* context, void* data) {
  auto* block = static_cast<Block*>(context);
  assert(block != nullptr && block->ptr == data && "CachingAllocator::free: wrong block");
  (void)data;
  block->owner->free_block(block);
}

void CachingAllocator::record_stream(void* context, void* stream) {
  auto* block = static_cast<Block*>(context);
  block->owner->add_stream(block, stream);
}

void CachingAllocator::free_block(Block* block) {
  std::lock_guard<std::mutex> lock(mutex_);
  assert(block->state == BlockState::kAllocated && "CachingAllocator::free: double free");
  stats_.num_frees++;
  stats_.allocated_bytes -= block->size;
  if (events_ != nullptr && !block->extra_streams.empty()) {
    block->state = BlockState::kPending;
    pending_.reserve(pending_.size() + block->extra_streams.size());
    for (void* stream : block->extra_streams) {
      pending_.emplace_back(events_->record(stream), block);
      block->pending_events++;
    }
    block->extra_streams.clear();
    return;
  }
  block->extra_streams.clear();
  if (block->size <= kRecentMaxSize && num_recent_ < kRecentSlots) {
    block->state = BlockState::kRecent;
    recent_[num_recent_++] = block;
    return;
  }
  release(block);
}

Block* CachingAllocator::take_recent(void* stream, size_t size) {
  for (int i = num_recent_ - 1; i >= 0; --i) {
    Block* b = recent_[i];
    if (b->size != size || b->stream != stream) continue;
    recent_[i] = recent_[--num_recent_];
    b->state = BlockState::kAllocated;
    return b;
  }
  return nullptr;
}

void CachingAllocator::flush_recent() {
  while (num_recent_ > 0) {
    Block* b = recent_[--num_recent_];
    b->state = BlockState::kAllocated;  // release() expects a block coming back from use
    release(b);
  }
}

void CachingAllocator::add_stream(Block* block, void* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_ == nullptr || stream == block->stream) return;
  auto& extra = block->extra_streams;
  if (std::find(extra.begin(), extra.end(), stream) == extra.end()) extra.push_back(stream);
}

void CachingAllocator::process_events() {
  auto done = [this](std::pair<void*, Block*>& pending) {
    if (!events_->query(pending.first)) return false;
    events_->destroy(pending.first);
    Block* block = pending.second;
    if (--block->pending_events == 0) release(block);
    return true;
  };
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), done), pending_.end());
}

Block* CachingAllocator::take_free(FreeSet& pool, void* stream, size_t size) {
  // Best fit among this stream's blocks and never-used ones; ties go to the stream's own.
  Block* best = nullptr;
  auto own = pool.lower_bound(BlockKey{stream, size, nullptr});
  if (own != pool.end() && (*own)->stream == stream) best = *own;
  if (num_fresh_free_ > 0) {
    auto fresh = pool.lower_bound(BlockKey{kFreshStream, size, nullptr});
    if (fresh != pool.end() && (*fresh)->stream == kFreshStream &&
        (best == nullptr || (*fresh)->size < best->size)) {
      best = *fresh;
    }
  }
  if (best != nullptr) remove_free(best);
  return best;
}

Block* CachingAllocator::new_segment(FreeSet& pool, size_t size, Shortfall* why) {
  size_t limit = limit_locked();
  size_t reserved = stats_.reserved_bytes;
  size_t want = &pool == &small_free_ ? kSmallSegment : round_up(size, kLargeRound);
  // Near the limit, a smaller segment that still fits the request beats an OOM.
  size_t headroom = limit > reserved ? (limit - reserved) / kRound * kRound : 0;
  size_t segment_bytes = std::min(want, headroom);
  if (segment_bytes < size) {
    *why = Shortfall{OomCause::kLimit, want};
    return nullptr;
  }
  if (segments_.size() == segments_.capacity()) segments_.reserve(2 * segments_.size() + 8);
  void* ptr = raw_->allocate(segment_bytes);
  if (ptr == nullptr) {
    *why = Shortfall{OomCause::kRaw, segment_bytes};
    return nullptr;
  }
  used_ = true;
  segments_.push_back(Segment{static_cast<char*>(ptr), segment_bytes, &pool == &small_free_});
  stats_.num_device_allocs++;
  stats_.reserved_bytes += segment_bytes;
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);

  Block* block = new_block();
  block->ptr = static_cast<char*>(ptr);
  block->size = segment_bytes;
  block->stream = kFreshStream;
  block->pool = &pool;
  return block;
}

void CachingAllocator::reserve_region(size_t requested) {
  size_t limit = limit_locked() / kRound * kRound;
  if (limit == 0) throw_oom(requested, Shortfall{OomCause::kNoGrowth, 0});
  Shortfall why{};
  Block* block = new_segment(large_free_, limit, &why);
  if (block == nullptr) throw_oom(requested, why);
  insert_free(block);
}

void CachingAllocator::split(Block* block, size_t size) {
  Block* rest = new_block();
  rest->ptr = block->ptr + size;
  rest->size = block->size - size;
  rest->stream = block->stream;
  rest->pool = block->pool;
  rest->prev = block;
  rest->next = block->next;
  if (rest->next != nullptr) rest->next->prev = rest;
  block->next = rest;
  block->size = size;
  insert_free(rest);
}

void CachingAllocator::release(Block* block) {
  merge(block, block->prev);
  merge(block, block->next);
  insert_free(block);
}

void CachingAllocator::merge(Block* block, Block* neighbour) {
  if (neighbour == nullptr || neighbour->state != BlockState::kFree) return;
  if (neighbour->stream != block->stream && neighbour->stream != kFreshStream) return;
  remove_free(neighbour);
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev != nullptr) block->prev->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next != nullptr) block->next->prev = block;
  }
  block->size += neighbour->size;
  recycle_block(neighbour);
}

void CachingAllocator::insert_free(Block* block) {
  block->free_pos = block->pool->insert(block).first;
  block->state = BlockState::kFree;
  num_fresh_free_ += block->stream == kFreshStream;
}

void CachingAllocator::remove_free(Block* block) {
  num_fresh_free_ -= block->stream == kFreshStream;
  block->pool->erase(block->free_pos);
}

void CachingAllocator::ensure_spares() {
  // One allocate needs at most two Block structs and two set nodes (the new segment's
  // block and a split remainder); getting them first means nothing throws mid-change.
  while (node_pool_.spare() < 2) {
    small_free_.insert(&node_maker_);
    large_free_.insert(&node_maker_);
    small_free_.erase(&node_maker_);
    large_free_.erase(&node_maker_);
  }
  while (num_spare_blocks_ < 2) recycle_block(&block_storage_.emplace_back());
}

Block* CachingAllocator::new_block() {
  Block* block = spare_blocks_;
  if (block == nullptr) {
    block = &block_storage_.emplace_back();
  } else {
    spare_blocks_ = block->next_spare;
    num_spare_blocks_--;
  }
  block->prev = block->next = nullptr;
  block->owner = this;
  block->pending_events = 0;
  block->next_spare = nullptr;
  return block;
}

void CachingAllocator::recycle_block(Block* block) {
  block->next_spare = spare_blocks_;
  spare_blocks_ = block;
  num_spare_blocks_++;
}

size_t CachingAllocator::limit_locked() const {
  if (limit_) return *limit_;
  if (fraction_) return static_cast<size_t>(*fraction_ * static_cast<double>(total_bytes_));
  return default_limit_;
}

size_t CachingAllocator::largest_free_locked() const {
  size_t largest = 0;
  for (const FreeSet* pool : {&small_free_, &large_free_}) {
    for (const Block* b : *pool) largest = std::max(largest, b->size);
  }
  return largest;
}

void CachingAllocator::throw_oom(size_t requested, Shortfall shortfall) {
  stats_.num_ooms++;
  size_t segment_bytes = shortfall.segment_bytes;
  size_t limit = limit_locked();
  std::string why;
  std::string hint;
  switch (shortfall.cause) {
    case OomCause::kNone:
    case OomCause::kLimit:
      why = fmt::format("a new segment of {} would exceed the limit", format_bytes(segment_bytes));
      hint =
          "free tensors you no longer need, or raise the limit with set_memory_limit / "
          "set_memory_fraction before the first allocation";
      break;
    case OomCause::kRaw:
      why = fmt::format("the device refused a new segment of {}", format_bytes(segment_bytes));
      hint =
          "the device itself is out of memory: free tensors, or call set_memory_limit so "
          "the allocator stops before the device does";
      break;
    case OomCause::kNoGrowth:
      why = "memory growth is off and no free block in the reserved region is large enough";
      hint =
          "free tensors, raise the limit with set_memory_limit, or enable memory growth "
          "(set_memory_growth) before the first allocation";
      break;
    case OomCause::kTooLarge:
      why = "the request is larger than any device memory";
      hint = "check the tensor's size";
      break;
  }
  EMBER_THROW(OutOfMemory,
              "allocate: out of memory on {} ({}): requested {} bytes ({}); {}. Limit {} ({} "
              "bytes), reserved {}, allocated {}, largest free block {}. Hint: {}.",
              device_.tf_str(), device_.str(), requested, format_bytes(requested), why,
              format_bytes(limit), limit, format_bytes(stats_.reserved_bytes),
              format_bytes(stats_.allocated_bytes), format_bytes(largest_free_locked()), hint);
}

void CachingAllocator::check_settable(const char* setting) const {
  EMBER_CHECK_ARG(!used_,
                  "{}: device {} ({}) has already allocated memory; memory settings must be "
                  "made before the device's first allocation",
                  setting, device_.tf_str(), device_.str());
}

void CachingAllocator::set_growth(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  check_settable("set_memory_growth");
  growth_ = enabled;
}

void CachingAllocator::set_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  check_settable("set_memory_limit");
  limit_ = bytes;
}

void CachingAllocator::set_fraction(double fraction) {
  std::lock_guard<std::mutex> lock(mutex_);
  check_settable("set_memory_fraction");
  EMBER_CHECK_ARG(fraction > 0.0 && fraction <= 1.0,
                  "set_memory_fraction: fraction for {} must be in (0, 1], got {}", device_.str(),
                  fraction);
  fraction_ = fraction;
}

bool CachingAllocator::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

bool CachingAllocator::has_limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_.has_value() || fraction_.has_value();
}

memory::MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  // Parked blocks are merged first so largest_free_block is the coalesced truth; this
  // changes only internal layout, hence the const_cast.
  const_cast<CachingAllocator*>(this)->flush_recent();
  memory::MemoryStats s = stats_;
  s.limit_bytes = limit_locked();
  s.largest_free_block = largest_free_locked();
  return s;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

}  // namespace ember::detail
