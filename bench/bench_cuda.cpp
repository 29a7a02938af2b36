// GPU cases (registered only when a CUDA device is present), each with ember, libtorch
// (when the linked libtorch has CUDA) and a bound side by side: memory-bound ops against
// a device-to-device copy of the same bytes, matmul against cuBLAS called directly, and
// the tiny-op launch + dispatch cost against torch's.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <ember/ember.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_cases.h"

namespace ember_bench {
namespace ember_resnet {
#define RESNET_LIB ::ember
#include "resnet18.inc"
#undef RESNET_LIB
}  // namespace ember_resnet

namespace {

ember::ScalarType dtype_of(const std::string& name) {
  return name == "bf16" ? ember::kBFloat16 : name == "fp16" ? ember::kHalf : ember::kFloat;
}

ember::TensorOptions gpu_opts(const std::string& type) {
  return ember::TensorOptions(dtype_of(type)).device(ember::Device("cuda:0"));
}

// ember's side of a case: makes the inputs, returns the op.
GpuOp ember_case(const GpuCase& c) {
  const auto opts = gpu_opts(c.dtype);
  const int64_t n = c.n;
  const bool tf32 = c.dtype == "tf32";
  switch (c.kind) {
    case GpuCase::Add:
    case GpuCase::TinyAdd: {
      ember::Tensor a = ember::rand({n}, opts), b = ember::rand({n}, opts);
      return [a, b] { benchmark::DoNotOptimize((a + b).data_ptr()); };
    }
    case GpuCase::TinyAddGrad: {
      ember::Tensor a = ember::rand({n}, opts).requires_grad_(), b = ember::rand({n}, opts).requires_grad_();
      return [a, b] {
        ember::AutoGradMode grad_on(true);
        benchmark::DoNotOptimize((a + b).data_ptr());
      };
    }
    case GpuCase::Sum: {
      ember::Tensor x = ember::rand({n}, opts);
      return [x] { benchmark::DoNotOptimize(x.sum().data_ptr()); };
    }
    case GpuCase::SumDim0: {
      ember::Tensor x = ember::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(x.sum(0).data_ptr()); };
    }
    case GpuCase::Softmax: {
      ember::Tensor x = ember::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(ember::softmax(x, -1).data_ptr()); };
    }
    case GpuCase::Transpose: {
      ember::Tensor x = ember::rand({n, n}, opts);
      return [x] { benchmark::DoNotOptimize(x.transpose(0, 1).contiguous().data_ptr()); };
    }
    case GpuCase::Matmul:
    case GpuCase::Bmm: {
      ember::Tensor a = c.kind == GpuCase::Bmm ? ember::rand({64, n, n}, opts) : ember::rand({n, n}, opts);
      ember::Tensor b = ember::rand_like(a);
      return [a, b, tf32] {
        ember::cuda::set_allow_tf32(tf32);
        benchmark::DoNotOptimize(ember::matmul(a, b).data_ptr());
      };
    }
    case GpuCase::TrainStep: {
      namespace nn = ember::nn;
      ember::manual_seed(7);
      nn::Sequential model(nn::Linear(784, 512), nn::ReLU(), nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 10));
      model->to(ember::Device("cuda:0"));
      auto opt = std::make_shared<ember::optim::Adam>(model->parameters(), ember::optim::AdamOptions(1e-3));
      ember::Tensor x = ember::rand({n, 784}, opts);
      ember::Tensor y = ember::randint(0, 10, {n}, ember::TensorOptions(ember::kInt64).device(ember::Device("cuda:0")));
      return [model, opt, x, y]() mutable {
        opt->zero_grad();
        ember::Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        opt->step();
        benchmark::DoNotOptimize(loss.data_ptr());
      };
    }
    case GpuCase::ResNetStep: {
      ember::manual_seed(7);
      auto model = std::make_shared<ember_resnet::resnet18_impl::Net>();
      model->to(ember::Device("cuda:0"));
      auto opt = std::make_shared<ember::optim::SGD>(model->parameters(), ember::optim::SGDOptions(0.1).momentum(0.9));
      ember::Tensor x = ember::randn({n, 3, 224, 224}, opts);
      ember::Tensor y = ember::randint(0, 1000, {n}, ember::TensorOptions(ember::kInt64).device(ember::Device("cuda:0")));
      return [model, opt, x, y] {
        opt->zero_grad();
        ember::Tensor loss = ember::nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        opt->step();
        benchmark::DoNotOptimize(loss.data_ptr());
      };
    }
  }
  return nullptr;
}

// A device-to-device copy of `bytes` bytes: it reads and writes as much as an op that
// moves 2 * bytes, the bound of memory-bound cases.
GpuOp copy_bound(int64_t bytes) {
  ember::Tensor src = ember::zeros({bytes}, ember::TensorOptions(ember::kUInt8).device(ember::Device("cuda:0")));
  ember::Tensor dst = ember::empty_like(src);
  return [src, dst]() mutable { dst.copy_(src); };
}

// cublasGemmStridedBatchedEx called directly on ember's stream: the matmul bound.
GpuOp cublas_bound(const GpuCase& c) {
  const auto opts = gpu_opts(c.dtype);
  const int64_t n = c.n, batch = c.kind == GpuCase::Bmm ? 64 : 1;
  ember::Tensor a = ember::rand({batch, n, n}, opts), b = ember::rand({batch, n, n}, opts);
  ember::Tensor out = ember::empty({batch, n, n}, opts);
  auto handle = std::make_shared<cublasHandle_t>();
  cublasCreate(handle.get());
  cublasSetStream(*handle, static_cast<cudaStream_t>(ember::cuda::current_stream(0).handle()));
  const cudaDataType t = c.dtype == "bf16" ? CUDA_R_16BF : c.dtype == "fp16" ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t compute = c.dtype == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  return [a, b, out, handle, t, compute, n, batch] {
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
    cublasGemmStridedBatchedEx(*handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, b.data_ptr(), t,
                               int(n), n * n, a.data_ptr(), t, int(n), n * n, &zero, out.data_ptr(), t, int(n),
                               n * n, int(batch), compute, CUBLAS_GEMM_DEFAULT);
  };
}

// The case's bound, or nullptr (tiny ops: launch + dispatch has no bound but torch's).
GpuOp bound_case(const GpuCase& c) {
  const int64_t n = c.n;
  switch (c.kind) {
    case GpuCase::Add: return copy_bound(6 * n);     // reads 8n bytes, writes 4n
    case GpuCase::Sum: return copy_bound(2 * n);     // reads 4n
    case GpuCase::SumDim0: return copy_bound(2 * n * n);
    case GpuCase::Softmax:
    case GpuCase::Transpose: return copy_bound(4 * n * n);  // reads and writes 4n^2
    case GpuCase::Matmul:
    case GpuCase::Bmm: return cublas_bound(c);
    case GpuCase::TinyAdd:
    case GpuCase::TinyAddGrad:
    case GpuCase::TrainStep:
    case GpuCase::ResNetStep: return nullptr;
  }
  return nullptr;
}

std::string label(int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  return std::to_string(n);
}

std::vector<std::pair<std::string, GpuCase>> gpu_cases(bool short_run) {
  std::vector<std::pair<std::string, GpuCase>> cases = {
      {"gpu add 64M", {GpuCase::Add, 64 << 20}},
      {"gpu sum 64M", {GpuCase::Sum, 64 << 20}},
      {"gpu sum(0) 4096^2", {GpuCase::SumDim0, 4096}},
      {"gpu softmax 4096^2", {GpuCase::Softmax, 4096}},
      {"gpu transpose 4096^2", {GpuCase::Transpose, 4096}},
      {"gpu tiny add 1", {GpuCase::TinyAdd, 1}},
      {"gpu tiny add 1000", {GpuCase::TinyAdd, 1000}},
      {"gpu tiny add 1 requires_grad", {GpuCase::TinyAddGrad, 1}},
      {"gpu bmm 64x256^2", {GpuCase::Bmm, 256}},
      {"gpu train step mlp 784-512-512-10 b128", {GpuCase::TrainStep, 128}},
      {"gpu train step resnet18 b32 224^2", {GpuCase::ResNetStep, 32}},
  };
  for (int64_t m : {256, 512, 1024}) cases.push_back({"gpu matmul " + label(m) + " fp32", {GpuCase::Matmul, m}});
  const std::vector<int64_t> big = short_run ? std::vector<int64_t>{4096} : std::vector<int64_t>{4096, 8192};
  for (int64_t m : big)
    for (const char* type : {"fp32", "tf32", "fp16", "bf16"})
      cases.push_back({"gpu matmul " + label(m) + " " + type, {GpuCase::Matmul, m, type}});
  return cases;
}

// The allocator's cached pair on a GPU (CPU-side cost) against cudaMalloc + cudaFree.
void gpu_allocator_pair(benchmark::State& state) {
  ember::Tensor warm = ember::empty({1024}, ember::Device("cuda:0"));
  warm = ember::Tensor();
  for (auto _ : state) {
    ember::Tensor t = ember::empty({1024}, ember::Device("cuda:0"));
    benchmark::DoNotOptimize(t.data_ptr());
  }
}
void cuda_malloc_pair(benchmark::State& state) {
  for (auto _ : state) {
    void* p = nullptr;
    cudaMalloc(&p, 4096);
    benchmark::DoNotOptimize(p);
    cudaFree(p);
  }
}

}  // namespace

void gpu_synchronize() { cudaDeviceSynchronize(); }

std::vector<RegisteredCase> register_gpu_cases(bool short_run) {
  std::vector<RegisteredCase> names;
  if (ember::cuda::device_count() == 0) return names;
  for (const auto& [name, c] : gpu_cases(short_run)) {
    // Enough calls per timing that launch latency is amortised for small cases.
    const int reps = c.kind == GpuCase::TinyAdd || c.kind == GpuCase::TinyAddGrad ? 1000 : c.kind == GpuCase::TrainStep ? 50 : c.kind == GpuCase::ResNetStep ? 2 : (c.kind == GpuCase::Matmul && c.n >= 4096) ? 3 : 20;
    const GpuOp sides[3] = {ember_case(c), torch_gpu_case(c), bound_case(c)};
    const char* side_names[3] = {"ember", "libtorch", "bound"};
    int registered = 0;
    for (int k = 0; k < 3; ++k) {
      if (!sides[k]) continue;
      ++registered;
      benchmark::RegisterBenchmark((name + " | " + side_names[k]).c_str(),
                                   [op = sides[k], reps](benchmark::State& s) { time_gpu(s, reps, op); })
          ->UseManualTime()
          // Manual time is per call: about 0.05 s of real time per repetition.
          ->MinTime(0.05 / reps)
          ->Unit(benchmark::kMicrosecond);
    }
    names.push_back({name, registered});
  }
  benchmark::RegisterBenchmark("gpu allocator pair | ember", gpu_allocator_pair)->UseRealTime()->Unit(benchmark::kNanosecond);
  benchmark::RegisterBenchmark("gpu allocator pair | bound", cuda_malloc_pair)->UseRealTime()->Unit(benchmark::kNanosecond);
  names.push_back({"gpu allocator pair", 2});
  return names;
}

}  // namespace ember_bench
