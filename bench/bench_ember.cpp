// ember's side of the benchmarks.
#include <ember/ember.h>
#include <ember/optim.h>

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

template <class Guard>
void add_guarded(benchmark::State& state, int64_t n) {
  ember::manual_seed(1);
  ember::Tensor a = ember::rand({n}), b = ember::rand({n});
  Guard guard;
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

void gather(benchmark::State& state, int64_t n) {
  ember::manual_seed(4);
  ember::Tensor a = ember::rand({n / 1024, 1024});
  ember::Tensor idx = ember::randint(0, 1024, {n / 1024, 1024});
  for (auto _ : state) {
    ember::Tensor c = ember::gather(a, 1, idx);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

void index_select(benchmark::State& state, int64_t n) {
  ember::manual_seed(4);
  ember::Tensor x = ember::rand({n}), idx = ember::randint(0, n, {n}, ember::TensorOptions(ember::kInt64));
  for (auto _ : state) {
    ember::Tensor y = ember::index_select(x, 0, idx);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}

void mask_index(benchmark::State& state, int64_t n) {
  ember::manual_seed(5);
  ember::Tensor x = ember::rand({n});
  ember::Tensor mask = x > 0.5;
  for (auto _ : state) {
    ember::Tensor y = x.index({mask});
    benchmark::DoNotOptimize(y.data_ptr());
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

void backward_mlp(benchmark::State& state, int64_t n) {
  ember::manual_seed(5);
  ember::Tensor x = ember::rand({n, n}), w1 = ember::rand({n, n}).requires_grad_(),
                w2 = ember::rand({n, n}).requires_grad_();
  for (auto _ : state) {
    state.PauseTiming();
    ember::Tensor y = x.mm(w1).tanh().mm(w2).sum();
    state.ResumeTiming();
    y.backward();
    benchmark::DoNotOptimize(w1.grad().data_ptr());
  }
}

void backward_mlp_ops(benchmark::State& state, int64_t n) {
  ember::manual_seed(5);
  ember::Tensor x = ember::rand({n, n}), w1 = ember::rand({n, n}), w2 = ember::rand({n, n});
  ember::Tensor h = x.mm(w1).tanh(), g1 = ember::zeros({n, n}), g2 = ember::zeros({n, n});
  ember::Tensor g = ember::ones({}).expand({n, n});  // what sum's backward hands on
  for (auto _ : state) {
    g2.add_(h.t().mm(g));
    ember::Tensor gh = g.mm(w2.t());
    g1.add_(x.t().mm(gh * (1 - h * h)));
    benchmark::DoNotOptimize(g1.data_ptr());
  }
}

void adam_step(benchmark::State& state, int64_t) {
  ember::manual_seed(6);
  std::vector<ember::Tensor> params;
  for (const auto& shape : mlp_param_shapes()) {
    params.push_back(ember::rand(shape).requires_grad_());
    params.back().mutable_grad() = ember::rand(shape);
  }
  ember::optim::Adam opt(params, ember::optim::AdamOptions(1e-3));
  for (auto _ : state) {
    opt.step();
    benchmark::DoNotOptimize(params[0].data_ptr());
  }
}

void train_step(benchmark::State& state, int64_t batch) {
  namespace nn = ember::nn;
  ember::manual_seed(7);
  nn::Sequential model(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 10));
  ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(1e-3));
  ember::Tensor x = ember::rand({batch, 784}), y = ember::randint(0, 10, {batch});
  for (auto _ : state) {
    opt.zero_grad();
    ember::Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.data_ptr());
  }
}

// Float32 ops beyond add (bench_cases.h).
template <class Fn>
void vector_case(benchmark::State& state, int64_t n, Fn fn) {
  ember::manual_seed(9);
  ember::Tensor x = ember::randn({n});
  for (auto _ : state) {
    ember::Tensor y = fn(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
void exp_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const ember::Tensor& x) { return ember::exp(x); });
}
void sum_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const ember::Tensor& x) { return x.sum(); });
}
void cumsum_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const ember::Tensor& x) { return x.cumsum(0); });
}
void softmax_case(benchmark::State& state, int64_t n) {
  vector_case(state, n * n, [n](const ember::Tensor& x) { return x.view({n, n}).softmax(-1); });
}
void transpose_copy_case(benchmark::State& state, int64_t n) {
  vector_case(state, n * n, [n](const ember::Tensor& x) { return x.view({n, n}).t().contiguous(); });
}
}  // namespace

Implementation ember_implementation() {
  Implementation impl{"ember", add, add_out, matmul, gather, index_select, mask_index, autograd, backward_mlp,
                      backward_mlp_ops};
  impl.add_no_grad = add_guarded<ember::NoGradGuard>;
  impl.add_inference_mode = add_guarded<ember::InferenceMode>;
  impl.adam_step = adam_step;
  impl.train_step = train_step;
  impl.exp = exp_case;
  impl.sum = sum_case;
  impl.cumsum = cumsum_case;
  impl.softmax = softmax_case;
  impl.transpose_copy = transpose_copy_case;
  return impl;
}

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
