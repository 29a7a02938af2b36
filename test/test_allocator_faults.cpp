// Allocator faults: a raw allocator that refuses every k-th request, under the caching
// allocator of a CPU device and under the "npu" test backend. Every failure is an
// OutOfMemory, statistics balance afterwards, inputs are unchanged, and nothing leaks
// (the ASan build of the suite checks the last part).
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>

#include "fake_accelerator.h"
#include "memory/caching_allocator.h"
#include "test_util.h"

using namespace ember;
using ember::detail::CachingAllocator;
using ember::testing::fake_counters;

namespace {

constexpr size_t MiB = size_t{1} << 20;

// Host memory; every k-th request returns nullptr. Counts what is in use.
class FlakyRaw : public RawAllocator {
 public:
  explicit FlakyRaw(int k) : k_(k) {}
  void* allocate(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (++requests % k_ == 0) {
      ++refused;
      return nullptr;
    }
    in_use += bytes;
    return std::malloc(bytes);
  }
  void deallocate(void* p, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    in_use -= bytes;
    std::free(p);
  }
  int requests = 0, refused = 0;
  size_t in_use = 0;

 private:
  std::mutex mutex_;
  int k_;
};

}  // namespace

TEST_CASE("allocator faults: a raw allocator failing every k-th request gives OutOfMemory, stats balance") {
  for (int k : {2, 3, 5}) {
    INFO("fails every " << k << "-th raw request");
    FlakyRaw raw(k);
    {
      CachingAllocator alloc(Device(kCPU, 0), &raw, size_t(64) << 30, size_t(64) << 30);
      std::mt19937_64 rng{uint64_t(k)};
      std::map<void*, void*> live;  // data -> block handle
      int ooms = 0;
      for (int i = 0; i < 400; ++i) {
        if (!live.empty() && rng() % 3 == 0) {
          auto it = live.begin();
          std::advance(it, long(rng() % live.size()));
          CachingAllocator::free(it->second, it->first);
          live.erase(it);
          continue;
        }
        // Mixed small and large requests, growing so that new segments keep being needed.
        const size_t bytes = rng() % 2 ? 1 + rng() % (512 << 10) : MiB + size_t(i) * (64 << 10);
        void* ctx = nullptr;
        try {
          void* p = alloc.allocate(bytes, nullptr, &ctx);
          live[p] = ctx;
        } catch (const OutOfMemory& e) {
          ++ooms;
          CHECK_THAT(e.what(), Catch::Contains("out of memory"));
        }
      }
      CHECK(ooms > 0);
      CHECK(raw.refused > 0);
      memory::MemoryStats st = alloc.stats();
      CHECK(st.num_ooms == uint64_t(ooms));
      CHECK(st.reserved_bytes == raw.in_use);
      CHECK(st.num_allocs - st.num_frees == live.size());
      for (auto& [p, ctx] : live) CachingAllocator::free(ctx, p);
      st = alloc.stats();
      CHECK(st.allocated_bytes == 0);
      CHECK(st.num_allocs == st.num_frees);
      // Still usable: a request that the cache can serve succeeds whatever the raw side does.
      void* ctx = nullptr;
      void* p = alloc.allocate(1000, nullptr, &ctx);
      CHECK(p != nullptr);
      CachingAllocator::free(ctx, p);
    }
    CHECK(raw.in_use == 0);  // the destructor returned every segment
  }
}

TEST_CASE("allocator faults: ops on a device whose raw allocator fails every k-th request") {
  ember::testing::ensure_fake_accelerator();
  const Device npu("npu:1");
  auto& counters = fake_counters(1);
  const TensorOptions on = TensorOptions(kFloat).device(npu);
  // Inputs made before faults start; each op below needs fresh segments (growing sizes).
  const memory::MemoryStats before = memory::stats(npu);
  int ooms = 0, successes = 0;
  for (int k : {2, 3}) {
    for (int i = 0; i < 12; ++i) {
      const int64_t n = (int64_t(3) << 20) / 4 + int64_t(i + 12 * k) * 40000;
      Tensor a, b;
      counters.fail_every = 0;
      a = full({n}, 1.5, on);
      b = full({n}, 2.0, on);
      counters.fail_every = k;
      const std::vector<std::function<Tensor()>> ops = {
          [&] { return a + b; },
          [&] { return a * 2; },
          [&] { return a.exp(); },
          [&] { return a.view({-1, 8}).sum(1); },
          [&] { return cat({a, b}); },
          [&] { return a.view({-1, 8}).t().contiguous(); },
          [&] { return a.clone(); },
          [&] { return full({n}, 3.0, on); },
          [&] { return a.cpu().to(npu); },
      };
      for (size_t j = 0; j < ops.size(); ++j) {
        INFO("k " << k << " size " << n << " op " << j);
        try {
          Tensor r = ops[j]();
          CHECK(r.device() == npu);
          ++successes;
        } catch (const OutOfMemory& e) {
          ++ooms;
          CHECK_THAT(e.what(), Catch::Contains("npu:1"));
        }
      }
      counters.fail_every = 0;
      CHECK(a.cpu().equal(full({n}, 1.5)));  // a failed op changes no input
      CHECK(b.cpu().equal(full({n}, 2.0)));
    }
  }
  counters.fail_every = 0;
  CHECK(ooms > 0);
  CHECK(successes > 0);
  const memory::MemoryStats after = memory::stats(npu);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.num_allocs - before.num_allocs == after.num_frees - before.num_frees);
  CHECK(after.num_ooms - before.num_ooms == uint64_t(ooms));
  CHECK(int64_t(after.reserved_bytes) == counters.bytes_in_use.load());
}
