// ember's side of the benchmarks.
#include <ember/ember.h>

#include "bench_cases.h"
#include "memory/caching_allocator.h"
#include "placement/device_table.h"

namespace ember_bench {

namespace {

void add(benchmark::State& state, int64_t n) {
  ember::manual_seed(1);
  ember::Tensor a = ember::rand({n}), b = ember::rand({n});
  for (auto _ : state) {
    ember::Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void add_out(benchmark::State& state, int64_t n) {
  ember::manual_seed(2);
  ember::Tensor a = ember::rand({n}), b = ember::rand({n}), c = ember::empty({n});
  for (auto _ : state) {
    ember::add_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void matmul(benchmark::State& state, int64_t n) {
  ember::manual_seed(3);
  ember::Tensor a = ember::rand({n, n}), b = ember::rand({n, n});
  for (auto _ : state) {
    ember::Tensor c = ember::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void autograd(benchmark::State& state, int64_t n) {
  ember::manual_seed(4);
  ember::Tensor x = ember::rand({n}).requires_grad_(), w = ember::rand({n}).requires_grad_();
  for (auto _ : state) {
    ember::Tensor y = ((x * w).tanh() + x * 2).sum();
    y.backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

}  // namespace

Implementation ember_implementation() { return {"ember", add, add_out, matmul, autograd}; }

void allocator_cached_pair(benchmark::State& state) {
  auto& alloc = ember::detail::allocator_for(ember::Device(ember::kCPU, 0));
  void* ctx = nullptr;
  for (auto _ : state) {
    void* p = alloc.allocate(4096, nullptr, &ctx);
    benchmark::DoNotOptimize(p);
    ember::detail::CachingAllocator::free(ctx, p);
  }
}

}  // namespace ember_bench
