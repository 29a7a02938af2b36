// libtorch's side of the benchmarks (compiled only when find_package(Torch) succeeds).
#include <torch/cuda.h>
#include <torch/torch.h>

#include "bench_cases.h"

namespace ember_bench {
namespace torch_resnet {
#define RESNET_LIB ::torch
#include "resnet18.inc"
#undef RESNET_LIB
}  // namespace torch_resnet

namespace {

void add(benchmark::State& state, int64_t n) {
  torch::manual_seed(1);
  torch::Tensor a = torch::rand({n}), b = torch::rand({n});
  for (auto _ : state) {
    torch::Tensor c = a + b;
    benchmark::DoNotOptimize(c.data_ptr());
  }
}

template <class Guard>
void add_guarded(benchmark::State& state, int64_t n) {
  torch::manual_seed(1);
  torch::Tensor a = torch::rand({n}), b = torch::rand({n});
  Guard guard;
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

void autograd(benchmark::State& state, int64_t n) {
  torch::manual_seed(4);
  torch::Tensor x = torch::rand({n}).requires_grad_(), w = torch::rand({n}).requires_grad_();
  for (auto _ : state) {
    torch::Tensor y = ((x * w).tanh() + x * 2).sum();
    y.backward();
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
}

void backward_mlp(benchmark::State& state, int64_t n) {
  torch::manual_seed(5);
  torch::Tensor x = torch::rand({n, n}), w1 = torch::rand({n, n}).requires_grad_(),
                w2 = torch::rand({n, n}).requires_grad_();
  for (auto _ : state) {
    state.PauseTiming();
    torch::Tensor y = x.mm(w1).tanh().mm(w2).sum();
    state.ResumeTiming();
    y.backward();
    benchmark::DoNotOptimize(w1.grad().data_ptr());
  }
}

void adam_step(benchmark::State& state, int64_t) {
  torch::manual_seed(6);
  std::vector<torch::Tensor> params;
  for (const auto& shape : mlp_param_shapes()) {
    params.push_back(torch::rand(shape).requires_grad_());
    params.back().mutable_grad() = torch::rand(shape);
  }
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3));
  for (auto _ : state) {
    opt.step();
    benchmark::DoNotOptimize(params[0].data_ptr());
  }
}

void train_step(benchmark::State& state, int64_t batch) {
  namespace nn = torch::nn;
  torch::manual_seed(7);
  nn::Sequential model(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 10));
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor x = torch::rand({batch, 784}), y = torch::randint(0, 10, {batch});
  for (auto _ : state) {
    opt.zero_grad();
    torch::Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.data_ptr());
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

void gather(benchmark::State& state, int64_t n) {
  torch::manual_seed(4);
  torch::Tensor a = torch::rand({n / 1024, 1024});
  torch::Tensor idx = torch::randint(0, 1024, {n / 1024, 1024});
  for (auto _ : state) {
    torch::Tensor c = torch::gather(a, 1, idx);
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

// Float32 ops beyond add (bench_cases.h).
template <class Fn>
void vector_case(benchmark::State& state, int64_t n, Fn fn) {
  torch::manual_seed(9);
  torch::Tensor x = torch::randn({n});
  for (auto _ : state) {
    torch::Tensor y = fn(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
void exp_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const torch::Tensor& x) { return torch::exp(x); });
}
void sum_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const torch::Tensor& x) { return x.sum(); });
}
void cumsum_case(benchmark::State& state, int64_t n) {
  vector_case(state, n, [](const torch::Tensor& x) { return x.cumsum(0); });
}
void softmax_case(benchmark::State& state, int64_t n) {
  vector_case(state, n * n, [n](const torch::Tensor& x) { return x.view({n, n}).softmax(-1); });
}
void transpose_copy_case(benchmark::State& state, int64_t n) {
  vector_case(state, n * n, [n](const torch::Tensor& x) { return x.view({n, n}).t().contiguous(); });
}
}  // namespace

GpuOp torch_gpu_case(const GpuCase& c) {
  if (!torch::cuda::is_available()) return nullptr;
  torch::NoGradGuard no_grad;
  const auto type = c.dtype == "bf16" ? torch::kBFloat16 : c.dtype == "fp16" ? torch::kHalf : torch::kFloat;
  const auto opts = torch::TensorOptions(type).device(torch::Device(torch::kCUDA, 0));
  const int64_t n = c.n;
  const bool tf32 = c.dtype == "tf32";
  switch (c.kind) {
    case GpuCase::Add:
    case GpuCase::TinyAdd: {
      torch::Tensor a = torch::rand({n}, opts), b = torch::rand({n}, opts);
      return [a, b] { benchmark::DoNotOptimize((a + b).data_ptr()); };
    }
    case GpuCase::TinyAddGrad: {
      torch::Tensor a = torch::rand({n}, opts).requires_grad_(), b = torch::rand({n}, opts).requires_grad_();
      return [a, b] {
        torch::AutoGradMode grad_on(true);
        benchmark::DoNotOptimize((a + b).data_ptr());
      };
    }
    case GpuCase::Sum: {
      torch::Tensor x = torch::rand({n}, opts);
      return [x] { benchmark::DoNotOptimize(x.sum().data_ptr()); };
    }
    case GpuCase::SumDim0: {
      torch::Tensor x = torch::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(x.sum(0).data_ptr()); };
    }
    case GpuCase::Softmax: {
      torch::Tensor x = torch::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(torch::softmax(x, -1).data_ptr()); };
    }
    case GpuCase::Transpose: {
      torch::Tensor x = torch::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(x.transpose(0, 1).contiguous().data_ptr()); };
    }
    case GpuCase::Matmul:
    case GpuCase::Bmm: {
      const bool batched = c.kind == GpuCase::Bmm;
      torch::Tensor a = batched ? torch::rand({64, n, n}, opts) : torch::rand({n, n}, opts);
      torch::Tensor b = torch::rand_like(a);
      return [a, b, tf32] {
        at::globalContext().setAllowTF32CuBLAS(tf32);
        benchmark::DoNotOptimize(torch::matmul(a, b).data_ptr());
      };
    }
    case GpuCase::TrainStep: {
      namespace nn = torch::nn;
      torch::manual_seed(7);
      nn::Sequential model(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 10));
      model->to(torch::Device(torch::kCUDA, 0));
      auto opt = std::make_shared<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(1e-3));
      torch::Tensor x = torch::rand({n, 784}, opts);
      torch::Tensor y = torch::randint(0, 10, {n}, torch::TensorOptions(torch::kLong).device(torch::kCUDA, 0));
      return [model, opt, x, y]() mutable {
        torch::AutoGradMode grad_on(true);
        opt->zero_grad();
        torch::Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        opt->step();
        benchmark::DoNotOptimize(loss.data_ptr());
      };
    }
    case GpuCase::ResNetStep: {
      // float32 convolutions without TF32 on both sides (ember's default, not libtorch's).
      at::globalContext().setAllowTF32CuDNN(false);
      torch::manual_seed(7);
      auto model = std::make_shared<torch_resnet::resnet18_impl::Net>();
      model->to(torch::Device(torch::kCUDA, 0));
      auto opt = std::make_shared<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
      torch::Tensor x = torch::randn({n, 3, 224, 224}, opts);
      torch::Tensor y = torch::randint(0, 1000, {n}, torch::TensorOptions(torch::kLong).device(torch::kCUDA, 0));
      return [model, opt, x, y] {
        torch::AutoGradMode grad_on(true);
        opt->zero_grad();
        torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        opt->step();
        benchmark::DoNotOptimize(loss.data_ptr());
      };
    }
  }
  return nullptr;
}

Implementation torch_implementation(bool& available) {
  available = true;
  torch::set_num_threads(bench_threads());
  torch::NoGradGuard no_grad;
  Implementation impl{"libtorch", add, add_out, matmul, gather, index_select, mask_index, autograd, backward_mlp};
  impl.add_no_grad = add_guarded<torch::NoGradGuard>;
  impl.add_inference_mode = add_guarded<c10::InferenceMode>;
  impl.adam_step = adam_step;
  impl.train_step = train_step;
  impl.exp = exp_case;
  impl.sum = sum_case;
  impl.cumsum = cumsum_case;
  impl.softmax = softmax_case;
  impl.transpose_copy = transpose_copy_case;
  return impl;
}

}  // namespace ember_bench
