// Caching allocator core (lib/memory): pools, split/coalesce, limits, growth, OOM,
// streams, threads, EMBER_ALLOC_CONF and the CPU raw allocator.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "ember/error.h"
#include "memory/alloc_conf.h"
#include "memory/caching_allocator.h"
#include "memory/cpu_raw_allocator.h"

using ember::Device;
using ember::kCPU;
using ember::detail::CachingAllocator;

namespace {

constexpr size_t KiB = size_t{1} << 10;
constexpr size_t MiB = size_t{1} << 20;

// Counts calls and bytes; refuses (returns nullptr) beyond `capacity` bytes in use.
class FakeRaw : public ember::RawAllocator {
 public:
  explicit FakeRaw(size_t capacity = std::numeric_limits<size_t>::max()) : capacity_(capacity) {}
  void* allocate(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls++;
    if (bytes > capacity_ - in_use) {
      refusals++;
      return nullptr;
    }
    in_use += bytes;
    sizes.push_back(bytes);
    return std::malloc(bytes);
  }
  void deallocate(void* ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    deallocs++;
    in_use -= bytes;
    std::free(ptr);
  }
  size_t calls = 0, refusals = 0, deallocs = 0, in_use = 0;
  std::vector<size_t> sizes;  // every successful request

 private:
  std::mutex mutex_;
  size_t capacity_;
};

// Events complete only when the test says so.
class FakeEvents : public ember::detail::StreamEvents {
 public:
  struct Event {
    void* stream;
    bool done = false;
  };
  void* record(void* stream) override {
    events.push_back(std::make_unique<Event>(Event{stream}));
    return events.back().get();
  }
  bool query(void* event) override { return static_cast<Event*>(event)->done; }
  void destroy(void*) override { destroyed++; }
  void complete_all() {
    for (auto& e : events) e->done = true;
  }
  std::vector<std::unique_ptr<Event>> events;
  int destroyed = 0;
};

struct Mem {
  void* ptr = nullptr;
  void* ctx = nullptr;
};

void check_invariants(const CachingAllocator& a) {
  auto s = a.stats();
  REQUIRE(s.allocated_bytes <= s.reserved_bytes);
  REQUIRE(s.reserved_bytes <= s.limit_bytes);
  REQUIRE(s.peak_allocated_bytes >= s.allocated_bytes);
  REQUIRE(s.peak_reserved_bytes >= s.reserved_bytes);
  REQUIRE(s.largest_free_block <= s.reserved_bytes - s.allocated_bytes);
  REQUIRE(s.num_frees <= s.num_allocs);
  REQUIRE(s.num_cache_hits <= s.num_allocs);
  REQUIRE(s.allocated_bytes % CachingAllocator::kRound == 0);
}

Mem alloc(CachingAllocator& a, size_t bytes, void* stream = nullptr) {
  Mem m;
  m.ptr = a.allocate(bytes, stream, &m.ctx);
  REQUIRE(m.ptr != nullptr);
  REQUIRE(m.ctx != nullptr);
  std::memset(m.ptr, 0xab, bytes == 0 ? 1 : bytes);  // ASan checks the block is real
  check_invariants(a);
  return m;
}

void release(CachingAllocator& a, Mem m) {
  CachingAllocator::free(m.ctx, m.ptr);
  check_invariants(a);
}

char* at(const Mem& m) { return static_cast<char*>(m.ptr); }

const Device kDev0(kCPU, 0);
const Device kDev1(kCPU, 1);

}  // namespace

TEST_CASE("allocator: freed blocks are reused without new raw allocations") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem m = alloc(a, 4 * KiB);
  release(a, m);
  Mem n = alloc(a, 4 * KiB);
  CHECK(n.ptr == m.ptr);
  release(a, n);
  auto s = a.stats();
  CHECK(raw.calls == 1);
  CHECK(s.num_allocs == 2);
  CHECK(s.num_frees == 2);
  CHECK(s.num_device_allocs == 1);
  CHECK(s.num_cache_hits == 1);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.peak_allocated_bytes == 4 * KiB);
  CHECK(s.reserved_bytes == 2 * MiB);
  CHECK(s.limit_bytes == 64 * MiB);
  CHECK(s.largest_free_block == 2 * MiB);
}

TEST_CASE("allocator: requests are rounded up to 512 bytes") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem one = alloc(a, 1);
  CHECK(a.stats().allocated_bytes == 512);
  Mem zero = alloc(a, 0);  // a valid minimal block
  CHECK(a.stats().allocated_bytes == 1024);
  CHECK(zero.ptr != one.ptr);
  Mem odd = alloc(a, 513);
  CHECK(a.stats().allocated_bytes == 2048);
  Mem exact = alloc(a, 1024);
  CHECK(a.stats().allocated_bytes == 3072);
  // Carved one after another from the same segment.
  CHECK(at(zero) - at(one) == 512);
  CHECK(at(odd) - at(zero) == 512);
  CHECK(at(exact) - at(odd) == 1024);
  for (Mem m : {one, zero, odd, exact}) release(a, m);
  CHECK(a.stats().allocated_bytes == 0);
  CHECK(raw.calls == 1);
}

TEST_CASE("allocator: small and large pools use their own segment sizes") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem small = alloc(a, 4 * KiB);
  REQUIRE(raw.sizes == std::vector<size_t>{2 * MiB});
  Mem small2 = alloc(a, MiB - 512);  // still small: same segment
  CHECK(raw.sizes.size() == 1);
  // Large: its own segment, rounded to 2 MiB; a remainder of <= 1 MiB is not worth
  // splitting off, so the block (and allocated_bytes) is the whole 2 MiB.
  Mem large = alloc(a, MiB);
  CHECK(raw.sizes.back() == 2 * MiB);
  CHECK(raw.sizes.size() == 2);
  Mem big = alloc(a, 5 * MiB / 2);  // 2.5 MiB -> 4 MiB segment, 1.5 MiB remainder kept
  CHECK(raw.sizes.back() == 4 * MiB);
  CHECK(a.stats().allocated_bytes == 4 * KiB + (MiB - 512) + 2 * MiB + 5 * MiB / 2);
  // The large pool's free 1.5 MiB is not used for small requests while growth is possible.
  Mem small3 = alloc(a, MiB - 512);
  CHECK(raw.sizes.size() == 4);
  CHECK(raw.sizes.back() == 2 * MiB);
  Mem big2 = alloc(a, 3 * MiB);  // 4 MiB segment, 1 MiB remainder not split
  CHECK(raw.sizes.back() == 4 * MiB);
  CHECK(a.stats().allocated_bytes ==
        4 * KiB + (MiB - 512) + 2 * MiB + 5 * MiB / 2 + (MiB - 512) + 4 * MiB);
  CHECK(a.stats().reserved_bytes == 2 * MiB + 2 * MiB + 4 * MiB + 2 * MiB + 4 * MiB);
  for (Mem m : {small, small2, large, big, small3, big2}) release(a, m);
  CHECK(a.stats().allocated_bytes == 0);
}

TEST_CASE("allocator: free blocks are split and coalesced") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  const size_t kPart = 300 * KiB;  // three parts still make a small request
  Mem x = alloc(a, kPart), y = alloc(a, kPart), z = alloc(a, kPart);
  CHECK(at(y) - at(x) == static_cast<ptrdiff_t>(kPart));
  CHECK(at(z) - at(y) == static_cast<ptrdiff_t>(kPart));
  Mem tail1 = alloc(a, 600 * KiB);
  Mem tail2 = alloc(a, 2 * MiB - 3 * kPart - 600 * KiB);  // fills the segment exactly
  CHECK(a.stats().largest_free_block == 0);
  CHECK(raw.calls == 1);

  SECTION("middle first, then the neighbours") {
    release(a, y);
    CHECK(a.stats().largest_free_block == kPart);
    release(a, x);
    CHECK(a.stats().largest_free_block == 2 * kPart);
    release(a, z);
  }
  SECTION("neighbours first, then the middle") {
    release(a, x);
    release(a, z);
    CHECK(a.stats().largest_free_block == kPart);
    release(a, y);
  }
  CHECK(a.stats().largest_free_block == 3 * kPart);
  Mem whole = alloc(a, 3 * kPart - 1000);  // one block spanning all three, no raw call
  CHECK(whole.ptr == x.ptr);
  CHECK(raw.calls == 1);
  CHECK(a.stats().num_cache_hits == 5);
  release(a, whole);
  release(a, tail1);
  release(a, tail2);
  CHECK(a.stats().largest_free_block == 2 * MiB);  // the segment is one block again
}

TEST_CASE("allocator: best fit picks the smallest block that fits") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem b1 = alloc(a, 64 * KiB), s1 = alloc(a, 512);
  Mem b2 = alloc(a, 16 * KiB), s2 = alloc(a, 512);
  Mem b3 = alloc(a, 32 * KiB), s3 = alloc(a, 512);
  release(a, b1);
  release(a, b2);
  release(a, b3);
  Mem m = alloc(a, 20 * KiB);  // 16 KiB too small, 32 KiB is the best fit
  CHECK(m.ptr == b3.ptr);
  for (Mem x : {m, s1, s2, s3}) release(a, x);
  CHECK(raw.calls == 1);
}

TEST_CASE("allocator: limit and fraction cap what is reserved") {
  FakeRaw raw;
  SECTION("explicit limit") {
    CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
    a.set_limit(4 * MiB);
    CHECK(a.stats().limit_bytes == 4 * MiB);
    Mem m1 = alloc(a, MiB);
    Mem m2 = alloc(a, 3 * MiB / 2);
    CHECK(a.stats().reserved_bytes == 4 * MiB);
    CHECK_THROWS_AS(a.allocate(4 * KiB, nullptr, &m1.ctx), ember::OutOfMemory);
    CHECK(raw.calls == 2);  // the limit is checked before the raw allocator is asked
    release(a, m1);
    release(a, m2);
  }
  SECTION("a segment shrinks to the room left under the limit") {
    CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
    a.set_limit(3 * MiB);
    Mem m1 = alloc(a, 3 * MiB / 2);
    Mem m2 = alloc(a, 4 * KiB);
    CHECK(raw.sizes == std::vector<size_t>{2 * MiB, MiB});
    CHECK(a.stats().reserved_bytes == 3 * MiB);
    release(a, m1);
    release(a, m2);
  }
  SECTION("fraction of the device's memory") {
    CachingAllocator a(kDev0, &raw, 100 * MiB, 64 * MiB);
    a.set_fraction(0.1);
    CHECK(a.stats().limit_bytes == 10 * MiB);
    Mem m = alloc(a, 7 * MiB);
    Mem n;
    CHECK_THROWS_AS(a.allocate(3 * MiB, nullptr, &n.ctx), ember::OutOfMemory);
    release(a, m);
  }
  SECTION("an explicit limit wins over a fraction") {
    CachingAllocator a(kDev0, &raw, 100 * MiB, 64 * MiB);
    a.set_limit(6 * MiB);
    a.set_fraction(0.5);
    CHECK(a.stats().limit_bytes == 6 * MiB);
  }
  SECTION("fractions outside (0, 1] are rejected") {
    CachingAllocator a(kDev0, &raw, 100 * MiB, 64 * MiB);
    for (double f : {0.0, -0.5, 1.5, std::nan("")}) {
      CHECK_THROWS_AS(a.set_fraction(f), ember::InvalidArgument);
    }
    CHECK_THROWS_WITH(a.set_fraction(2.0), Catch::Contains("(0, 1]"));
    a.set_fraction(1.0);
    CHECK(a.stats().limit_bytes == 100 * MiB);
  }
}

TEST_CASE("allocator: growth off reserves the limit at the first allocation") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  a.set_growth(false);
  a.set_limit(8 * MiB);
  CHECK(raw.calls == 0);
  Mem m = alloc(a, 4 * KiB);
  CHECK(raw.sizes == std::vector<size_t>{8 * MiB});
  auto s = a.stats();
  CHECK(s.reserved_bytes == 8 * MiB);
  CHECK(s.num_device_allocs == 1);
  CHECK(s.num_cache_hits == 0);
  // Small and large requests all come from the one region.
  Mem big = alloc(a, 3 * MiB);
  Mem small = alloc(a, 100 * KiB);
  CHECK(raw.calls == 1);
  CHECK(a.stats().num_cache_hits == 2);
  Mem n;
  CHECK_THROWS_WITH(a.allocate(5 * MiB, nullptr, &n.ctx), Catch::Contains("growth is off"));
  CHECK(raw.calls == 1);
  release(a, big);
  release(a, small);
  Mem again = alloc(a, 7 * MiB);  // fits once the freed blocks coalesce with the rest
  CHECK(again.ptr == big.ptr);
  CHECK(raw.calls == 1);
  for (Mem x : {m, again}) release(a, x);
  CHECK(a.stats().largest_free_block == 8 * MiB);
}

TEST_CASE("allocator: growth off fails cleanly when the raw allocator refuses the region") {
  FakeRaw raw(4 * MiB);
  CachingAllocator a(kDev1, &raw, 1024 * MiB, 64 * MiB);
  a.set_growth(false);
  a.set_limit(8 * MiB);
  Mem n;
  CHECK_THROWS_AS(a.allocate(512, nullptr, &n.ctx), ember::OutOfMemory);
  CHECK(raw.refusals == 1);
  auto s = a.stats();
  CHECK(s.reserved_bytes == 0);
  CHECK(s.num_ooms == 1);
  CHECK(s.num_allocs == 0);
  CHECK_FALSE(a.used());
  a.set_limit(2 * MiB);  // nothing was reserved, so settings may still change
  Mem m = alloc(a, 512);
  CHECK(a.stats().reserved_bytes == 2 * MiB);
  release(a, m);
}

TEST_CASE("allocator: settings after the first allocation are rejected naming the device") {
  FakeRaw raw;
  CachingAllocator a(kDev1, &raw, 1024 * MiB, 64 * MiB);
  CHECK_FALSE(a.used());
  Mem m = alloc(a, 100);
  CHECK(a.used());
  CHECK_THROWS_AS(a.set_growth(false), ember::InvalidArgument);
  CHECK_THROWS_AS(a.set_limit(MiB), ember::InvalidArgument);
  CHECK_THROWS_AS(a.set_fraction(0.5), ember::InvalidArgument);
  CHECK_THROWS_WITH(a.set_limit(MiB),
                    Catch::Contains("/job:localhost/replica:0/task:0/device:CPU:1") &&
                        Catch::Contains("cpu:1") && Catch::Contains("set_memory_limit"));
  CHECK_THROWS_WITH(a.set_growth(true), Catch::Contains("set_memory_growth"));
  CHECK(a.stats().limit_bytes == 64 * MiB);
  release(a, m);
  CHECK(a.device() == kDev1);
}

TEST_CASE("allocator: out of memory reports the situation and the allocator recovers") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  a.set_limit(6 * MiB);
  Mem m1 = alloc(a, 3 * MiB);  // 4 MiB segment; 1 MiB remainder not split
  CHECK(a.stats().allocated_bytes == 4 * MiB);
  auto before = a.stats();
  Mem n;
  try {
    a.allocate(4 * MiB, nullptr, &n.ctx);
    FAIL("expected OutOfMemory");
  } catch (const ember::OutOfMemory& e) {
    std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("4194304") && Catch::Contains("requested"));
    CHECK_THAT(msg, Catch::Contains("Limit 6.00 MiB") && Catch::Contains("6291456"));
    CHECK_THAT(msg, Catch::Contains("reserved 4.00 MiB") && Catch::Contains("allocated 4.00 MiB"));
    CHECK_THAT(msg, Catch::Contains("largest free block 0 B"));
    CHECK_THAT(msg, Catch::Contains("cpu:0") &&
                        Catch::Contains("/job:localhost/replica:0/task:0/device:CPU:0"));
    CHECK_THAT(msg, Catch::Contains("Hint:") && Catch::Contains("set_memory_limit"));
  }
  auto after = a.stats();
  CHECK(after.num_ooms == 1);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.reserved_bytes == before.reserved_bytes);
  CHECK(after.num_allocs == before.num_allocs);
  check_invariants(a);

  Mem m2 = alloc(a, MiB);  // fits in the 2 MiB left
  CHECK(a.stats().reserved_bytes == 6 * MiB);
  release(a, m1);
  Mem m3 = alloc(a, 3 * MiB);  // served from the cache
  CHECK(m3.ptr == m1.ptr);
  release(a, m2);
  release(a, m3);
  CHECK_THROWS_AS(a.allocate(std::numeric_limits<size_t>::max(), nullptr, &n.ctx),
                  ember::OutOfMemory);
  auto s = a.stats();
  CHECK(s.num_ooms == 2);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == s.num_frees);
}

TEST_CASE("allocator: a raw allocator that runs out gives OutOfMemory, not a crash") {
  FakeRaw raw(4 * MiB);
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem m = alloc(a, 3 * MiB);
  Mem n;
  CHECK_THROWS_WITH(a.allocate(KiB, nullptr, &n.ctx),
                    Catch::Contains("refused") && Catch::Contains("1024 bytes"));
  CHECK(a.stats().num_ooms == 1);
  release(a, m);
  // At the device's capacity a small request may borrow the large pool's free block.
  Mem k = alloc(a, KiB);
  CHECK(k.ptr == m.ptr);
  Mem l = alloc(a, 2 * MiB);  // from the rest of that block
  CHECK(raw.refusals == 2);
  release(a, k);
  release(a, l);
  CHECK(a.stats().largest_free_block == 4 * MiB);
}

TEST_CASE("allocator: fragmentation at the limit") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  a.set_limit(8 * MiB);
  std::vector<Mem> blocks;
  for (int i = 0; i < 16; ++i) blocks.push_back(alloc(a, 512 * KiB));  // four small segments
  CHECK(a.stats().reserved_bytes == 8 * MiB);
  for (size_t i = 0; i < blocks.size(); i += 2) release(a, blocks[i]);
  auto s = a.stats();
  CHECK(s.allocated_bytes == 4 * MiB);
  CHECK(s.largest_free_block == 512 * KiB);  // 4 MiB free, in 512 KiB holes
  Mem n;
  CHECK_THROWS_WITH(a.allocate(MiB, nullptr, &n.ctx),
                    Catch::Contains("largest free block 512.00 KiB"));
  release(a, blocks[1]);  // joins blocks 0..2 into one 1.5 MiB hole
  CHECK(a.stats().largest_free_block == 3 * 512 * KiB);
  Mem big = alloc(a, MiB);  // borrowed from the small pool at the limit
  CHECK(big.ptr == blocks[0].ptr);
  CHECK(raw.calls == 4);
  release(a, big);
  for (size_t i = 3; i < blocks.size(); i += 2) release(a, blocks[i]);
  s = a.stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.largest_free_block == 2 * MiB);
  CHECK(s.num_ooms == 1);
  CHECK(s.num_allocs == s.num_frees);
}

TEST_CASE("allocator: a block freed on one stream is not reused by another") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  int stream_a = 0, stream_b = 0;
  Mem x = alloc(a, 4 * KiB, &stream_a);
  Mem hold = alloc(a, 4 * KiB, &stream_a);  // keeps x apart from the unused tail
  release(a, x);                            // a 4 KiB block of stream A
  Mem y = alloc(a, 4 * KiB, &stream_b);     // not x: from the never-used tail
  CHECK(y.ptr != x.ptr);
  CHECK(at(y) - at(hold) == static_cast<ptrdiff_t>(4 * KiB));
  CHECK(raw.calls == 1);
  Mem v = alloc(a, 4 * KiB, &stream_a);  // A reuses its own block
  CHECK(v.ptr == x.ptr);
  release(a, y);                          // merges with the tail, which is stream B's from now on
  Mem w = alloc(a, 64 * KiB, &stream_a);  // nothing of A's or unused is free: a new segment
  CHECK(raw.calls == 2);
  CHECK(w.ptr != y.ptr);
  Mem z = alloc(a, 4 * KiB, &stream_b);
  CHECK(z.ptr != x.ptr);
  CHECK(raw.calls == 2);
  for (Mem m : {hold, v, w, z}) release(a, m);
  CHECK(a.stats().allocated_bytes == 0);
}

TEST_CASE("allocator: record_stream delays reuse until the events complete") {
  FakeRaw raw;
  FakeEvents events;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB, &events);
  int stream_a = 0, stream_b = 0, stream_c = 0;
  Mem x = alloc(a, 4 * KiB, &stream_a);
  CachingAllocator::record_stream(x.ctx, &stream_b);
  CachingAllocator::record_stream(x.ctx, &stream_c);
  CachingAllocator::record_stream(x.ctx, &stream_b);  // once per stream
  CachingAllocator::record_stream(x.ctx, &stream_a);  // its own stream needs no event
  Mem hold = alloc(a, 4 * KiB, &stream_a);            // keeps x from merging away
  release(a, x);
  REQUIRE(events.events.size() == 2);
  CHECK(events.events[0]->stream == &stream_b);
  CHECK(events.events[1]->stream == &stream_c);
  CHECK(a.stats().allocated_bytes == 4 * KiB);  // x no longer counts as allocated
  CHECK(a.stats().num_frees == 1);

  Mem y = alloc(a, 4 * KiB, &stream_a);
  CHECK(y.ptr != x.ptr);  // x is still in use on streams B and C
  events.events[0]->done = true;
  Mem z = alloc(a, 4 * KiB, &stream_a);
  CHECK(z.ptr != x.ptr);
  CHECK(events.destroyed == 1);
  events.events[1]->done = true;
  Mem r = alloc(a, 4 * KiB, &stream_a);
  CHECK(r.ptr == x.ptr);
  CHECK(events.destroyed == 2);
  for (Mem m : {hold, y, z, r}) release(a, m);
  CHECK(events.events.size() == 2);  // no extra streams recorded on the reused block
  CHECK(a.stats().allocated_bytes == 0);
}

TEST_CASE("allocator: record_stream is ignored without stream events") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  int stream_b = 0;
  Mem x = alloc(a, 4 * KiB);
  CachingAllocator::record_stream(x.ctx, &stream_b);
  release(a, x);
  Mem y = alloc(a, 4 * KiB);
  CHECK(y.ptr == x.ptr);
  release(a, y);
}

TEST_CASE("allocator: pending events are destroyed with the allocator") {
  FakeRaw raw;
  FakeEvents events;
  {
    CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB, &events);
    int stream_b = 0;
    Mem x = alloc(a, 4 * KiB);
    CachingAllocator::record_stream(x.ctx, &stream_b);
    release(a, x);
  }
  CHECK(events.destroyed == 1);
  CHECK(raw.deallocs == 1);
  CHECK(raw.in_use == 0);
}

TEST_CASE("allocator: concurrent allocation and free from four threads") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 512 * MiB);
  const size_t kSizes[] = {0, 100, 4 * KiB, 64 * KiB, 700 * KiB, 3 * MiB / 2, 3 * MiB};
  auto work = [&](int id) {
    std::mt19937 rng(static_cast<unsigned>(id));
    std::vector<std::pair<Mem, size_t>> live;
    const char tag = static_cast<char>('a' + id);
    for (int i = 0; i < 5000; ++i) {
      if (live.size() < 8 && (live.empty() || rng() % 2 == 0)) {
        size_t bytes = kSizes[rng() % 7];
        Mem m;
        m.ptr = a.allocate(bytes, nullptr, &m.ctx);
        std::memset(m.ptr, tag, bytes == 0 ? 1 : bytes);
        live.emplace_back(m, bytes);
      } else {
        size_t k = rng() % live.size();
        auto [m, bytes] = live[k];
        // Another thread writing into this block would show up here.
        bool intact = at(m)[0] == tag && at(m)[bytes == 0 ? 0 : bytes - 1] == tag;
        if (!intact) std::abort();
        CachingAllocator::free(m.ctx, m.ptr);
        live[k] = live.back();
        live.pop_back();
      }
      if (i % 512 == 0) (void)a.stats();
    }
    for (auto& [m, bytes] : live) CachingAllocator::free(m.ctx, m.ptr);
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id) threads.emplace_back(work, id);
  for (auto& t : threads) t.join();
  auto s = a.stats();
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == s.num_frees);
  CHECK(s.num_allocs > 0);
  CHECK(s.num_device_allocs == raw.sizes.size());
  CHECK(s.num_allocs == s.num_cache_hits + s.num_device_allocs);
  CHECK(s.reserved_bytes == raw.in_use);
  check_invariants(a);
}

TEST_CASE("allocator: the destructor returns every segment") {
  FakeRaw raw;
  {
    CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
    Mem m1 = alloc(a, 4 * KiB);
    Mem m2 = alloc(a, 5 * MiB);
    release(a, m1);
    release(a, m2);
    CHECK(raw.in_use == 8 * MiB);
  }
  CHECK(raw.deallocs == 2);
  CHECK(raw.in_use == 0);
}

TEST_CASE("allocator: summary is a readable table") {
  FakeRaw raw;
  CachingAllocator a(kDev1, &raw, 1024 * MiB, 64 * MiB);
  Mem m = alloc(a, 4 * KiB);
  std::string table = a.summary();
  CHECK_THAT(table, Catch::Contains("cpu:1") && Catch::Contains("Allocated memory") &&
                        Catch::Contains("4.00 KiB") && Catch::Contains("Reserved memory") &&
                        Catch::Contains("2.00 MiB") && Catch::Contains("64.00 MiB"));
  release(a, m);
}

TEST_CASE("allocator: reset_peak_stats brings peaks down to the current values") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  Mem m = alloc(a, 4 * MiB);
  release(a, m);
  CHECK(a.stats().peak_allocated_bytes == 4 * MiB);
  a.reset_peak_stats();
  auto s = a.stats();
  CHECK(s.peak_allocated_bytes == 0);
  CHECK(s.peak_reserved_bytes == 4 * MiB);
  check_invariants(a);
}

TEST_CASE("allocator: EMBER_ALLOC_CONF is parsed and applied") {
  using ember::detail::parse_alloc_conf;
  auto conf = parse_alloc_conf("growth:false,limit_mb:2048");
  CHECK(conf.growth == false);
  CHECK(conf.limit_bytes == size_t{2048} * MiB);
  CHECK_FALSE(conf.fraction.has_value());

  conf = parse_alloc_conf(" fraction : 0.5 ");
  CHECK(conf.fraction == 0.5);
  CHECK_FALSE(conf.growth.has_value());
  CHECK(parse_alloc_conf("growth:true,").growth == true);
  CHECK_FALSE(parse_alloc_conf("").limit_bytes.has_value());

  CHECK_THROWS_AS(parse_alloc_conf("grow:false"), ember::InvalidArgument);
  CHECK_THROWS_WITH(
      parse_alloc_conf("growth:false,max_split:4"),
      Catch::Contains("unknown key 'max_split'") && Catch::Contains("growth, limit_mb, fraction"));
  CHECK_THROWS_WITH(parse_alloc_conf("growth:maybe"),
                    Catch::Contains("'maybe'") && Catch::Contains("growth"));
  CHECK_THROWS_WITH(parse_alloc_conf("limit_mb:12abc"), Catch::Contains("'12abc'"));
  CHECK_THROWS_AS(parse_alloc_conf("limit_mb:"), ember::InvalidArgument);
  CHECK_THROWS_AS(parse_alloc_conf("limit_mb:-5"), ember::InvalidArgument);
  CHECK_THROWS_AS(parse_alloc_conf("limit_mb:99999999999999999999"), ember::InvalidArgument);
  CHECK_THROWS_AS(parse_alloc_conf("fraction:1.5"), ember::InvalidArgument);
  CHECK_THROWS_AS(parse_alloc_conf("fraction:0"), ember::InvalidArgument);
  CHECK_THROWS_AS(parse_alloc_conf("fraction:nan"), ember::InvalidArgument);
  CHECK_THROWS_WITH(parse_alloc_conf("growth"), Catch::Contains("key:value"));
  CHECK_THROWS_WITH(parse_alloc_conf("fraction:0.5,fraction:0.6"),
                    Catch::Contains("more than once"));

  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 64 * MiB);
  ember::detail::apply_alloc_conf(parse_alloc_conf("growth:false,limit_mb:4"), a);
  Mem m = alloc(a, KiB);
  CHECK(raw.sizes == std::vector<size_t>{4 * MiB});
  release(a, m);
  CHECK_THROWS_AS(ember::detail::apply_alloc_conf(parse_alloc_conf("fraction:0.5"), a),
                  ember::InvalidArgument);
}

TEST_CASE("allocator: the CPU raw allocator returns 64-byte aligned memory") {
  ember::RawAllocator* raw = ember::detail::cpu_raw_allocator();
  REQUIRE(raw == ember::detail::cpu_raw_allocator());
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, 3 * MiB}) {
    void* p = raw->allocate(bytes);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    std::memset(p, 1, bytes);
    raw->deallocate(p, bytes);
  }
  CachingAllocator a(kDev0, raw, 1024 * MiB, 64 * MiB);
  for (size_t bytes : {size_t{1}, size_t{700}, 5 * MiB}) {
    Mem m = alloc(a, bytes);
    CHECK(reinterpret_cast<uintptr_t>(m.ptr) % 64 == 0);
    release(a, m);
  }
}

TEST_CASE("allocator: recently freed small blocks serve exact-size requests and merge when needed") {
  FakeRaw raw;
  CachingAllocator a(kDev0, &raw, 1024 * MiB, 2 * MiB);  // one small segment is all there is
  void* ctx = nullptr;
  void* first = a.allocate(1000, nullptr, &ctx);
  CachingAllocator::free(ctx, first);
  for (int i = 0; i < 100; ++i) {  // a loop of same-size temporaries: no stats() in between
    void* p = a.allocate(1000, nullptr, &ctx);
    CHECK(p == first);
    CachingAllocator::free(ctx, p);
  }
  // Eight parked blocks of different sizes, then a request that needs them merged.
  std::vector<std::pair<void*, void*>> held;
  for (int i = 1; i <= 8; ++i) {
    void* c = nullptr;
    void* p = a.allocate(size_t(i) * 4 * KiB, nullptr, &c);
    held.push_back({p, c});
  }
  for (auto& [p, c] : held) CachingAllocator::free(c, p);
  void* big_ctx = nullptr;
  void* big = a.allocate(2 * MiB - 512, nullptr, &big_ctx);  // only the whole merged segment fits
  CHECK(big != nullptr);
  CachingAllocator::free(big_ctx, big);
  auto s = a.stats();
  CHECK(raw.calls == 1);
  CHECK(s.num_allocs == 110);
  CHECK(s.num_frees == 110);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.largest_free_block == 2 * MiB);
  CHECK(s.num_ooms == 0);
}
