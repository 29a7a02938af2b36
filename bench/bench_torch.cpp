// libtorch's side of the benchmarks (compiled only when find_package(Torch) succeeds).
#include <torch/torch.h>

#include "bench_cases.h"

namespace ember_bench {

namespace {

void add(benchmark::State& state, int64_t n) {
  torch::manual_seed(1);
  torch::Tensor a = torch::rand({n}), b = torch::rand({n});
  for (auto _ : state) {
    torch::Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void add_out(benchmark::State& state, int64_t n) {
  torch::manual_seed(2);
  torch::Tensor a = torch::rand({n}), b = torch::rand({n}), c = torch::empty({n});
  for (auto _ : state) {
    at::add_out(c, a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void matmul(benchmark::State& state, int64_t n) {
  torch::manual_seed(3);
  torch::Tensor a = torch::rand({n, n}), b = torch::rand({n, n});
  for (auto _ : state) {
    torch::Tensor c = torch::matmul(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void index_select(benchmark::State& state, int64_t n) {
  torch::manual_seed(4);
  torch::Tensor x = torch::rand({n}), idx = torch::randint(0, n, {n}, torch::TensorOptions(torch::kLong));
  for (auto _ : state) {
    torch::Tensor y = torch::index_select(x, 0, idx);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void mask_index(benchmark::State& state, int64_t n) {
  torch::manual_seed(5);
  torch::Tensor x = torch::rand({n});
  torch::Tensor mask = x > 0.5;
  for (auto _ : state) {
    torch::Tensor y = x.index({mask});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

}  // namespace

Implementation torch_implementation(bool& available) {
  available = true;
  torch::set_num_threads(bench_threads());
  torch::NoGradGuard no_grad;
  return {"libtorch", add, add_out, matmul, index_select, mask_index};
}

}  // namespace ember_bench
