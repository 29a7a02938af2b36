// GPU cases (registered only when a CUDA device is present): add 64M against the
// device-to-device copy bound, matmul against cublasGemmEx called directly, and the
// tiny-op launch + dispatch cost. Timed with CUDA events on the current stream.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <ember/ember.h>

#include <string>

#include "bench_cases.h"

namespace ember_bench {

namespace {

// Times fn with events around `reps` back-to-back calls; reports the time per call.
template <class Fn>
void time_gpu(benchmark::State& state, int reps, Fn fn) {
  ember::cuda::Event start, end;
  fn();
  ember::cuda::synchronize(0);
  for (auto _ : state) {
    start.record(ember::cuda::current_stream(0));
    for (int i = 0; i < reps; ++i) fn();
    end.record(ember::cuda::current_stream(0));
    end.synchronize();
    state.SetIterationTime(start.elapsed_ms(end) / 1e3 / reps);
  }
}

ember::ScalarType dtype_of(const std::string& name) {
  return name == "bf16" ? ember::kBFloat16 : name == "fp16" ? ember::kHalf : ember::kFloat;
}

void gpu_add(benchmark::State& state, int64_t n) {
  ember::Tensor a = ember::rand({n}, ember::Device("cuda:0")), b = ember::rand({n}, ember::Device("cuda:0"));
  time_gpu(state, 10, [&] { benchmark::DoNotOptimize((a + b).data_ptr()); });
}

void gpu_copy_bound(benchmark::State& state, int64_t n) {
  // The bytes an add moves (12 per element) as one device-to-device copy of 6n bytes.
  ember::Tensor src = ember::zeros({n * 6}, ember::TensorOptions(ember::kUInt8).device(ember::Device("cuda:0")));
  ember::Tensor dst = ember::empty_like(src);
  time_gpu(state, 10, [&] { dst.copy_(src); });
}

void gpu_matmul(benchmark::State& state, int64_t n, const std::string& type, bool tf32) {
  ember::cuda::set_allow_tf32(tf32);
  auto opts = ember::TensorOptions(dtype_of(type)).device(ember::Device("cuda:0"));
  ember::Tensor a = ember::rand({n, n}, opts), b = ember::rand({n, n}, opts);
  time_gpu(state, 3, [&] { benchmark::DoNotOptimize(ember::matmul(a, b).data_ptr()); });
  ember::cuda::set_allow_tf32(false);
}

void cublas_matmul(benchmark::State& state, int64_t n, const std::string& type, bool tf32) {
  auto opts = ember::TensorOptions(dtype_of(type)).device(ember::Device("cuda:0"));
  ember::Tensor a = ember::rand({n, n}, opts), b = ember::rand({n, n}, opts), c = ember::empty({n, n}, opts);
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, static_cast<cudaStream_t>(ember::cuda::current_stream(0).handle()));
  const cudaDataType t = type == "bf16" ? CUDA_R_16BF : type == "fp16" ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float one = 1, zero = 0;
  time_gpu(state, 3, [&] {
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, b.data_ptr(), t, int(n),
                 a.data_ptr(), t, int(n), &zero, c.data_ptr(), t, int(n), compute, CUBLAS_GEMM_DEFAULT);
  });
  cublasDestroy(handle);
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

void gpu_tiny_add(benchmark::State& state) {
  ember::Tensor x = ember::ones({1}, ember::Device("cuda:0"));
  time_gpu(state, 1000, [&] { benchmark::DoNotOptimize((x + x).data_ptr()); });
}

}  // namespace

void register_gpu_cases(bool short_run) {
  if (ember::cuda::device_count() == 0) return;
  auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond);
  };
  const int64_t n = 64 << 20;
  reg("gpu add 64M | ember", [n](benchmark::State& s) { gpu_add(s, n); });
  reg("gpu add 64M | bound", [n](benchmark::State& s) { gpu_copy_bound(s, n); });
  const std::vector<int64_t> sizes = short_run ? std::vector<int64_t>{4096} : std::vector<int64_t>{1024, 4096, 8192};
  for (int64_t m : sizes)
    for (std::string type : {"fp32", "tf32", "fp16", "bf16"}) {
      const bool tf32 = type == "tf32";
      const std::string store = tf32 ? "fp32" : type;
      const std::string kase = "gpu matmul " + std::to_string(m) + " " + type;
      reg(kase + " | ember", [=](benchmark::State& s) { gpu_matmul(s, m, store, tf32); });
      reg(kase + " | bound", [=](benchmark::State& s) { cublas_matmul(s, m, store, tf32); });
    }
  reg("gpu tiny add | ember", gpu_tiny_add);
  benchmark::RegisterBenchmark("gpu allocator pair | ember", gpu_allocator_pair)->UseRealTime()->Unit(benchmark::kNanosecond);
  benchmark::RegisterBenchmark("gpu allocator pair | bound", cuda_malloc_pair)->UseRealTime()->Unit(benchmark::kNanosecond);
}

std::vector<std::string> gpu_case_names(bool short_run) {
  std::vector<std::string> names;
  if (ember::cuda::device_count() == 0) return names;
  names.push_back("gpu add 64M");
  const std::vector<int64_t> sizes = short_run ? std::vector<int64_t>{4096} : std::vector<int64_t>{1024, 4096, 8192};
  for (int64_t m : sizes)
    for (const char* type : {"fp32", "tf32", "fp16", "bf16"}) names.push_back("gpu matmul " + std::to_string(m) + " " + type);
  names.push_back("gpu tiny add");
  names.push_back("gpu allocator pair");
  return names;
}

}  // namespace ember_bench
