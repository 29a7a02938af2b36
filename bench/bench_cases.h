#pragma once
// The benchmark cases shared by ember's, libtorch's and the bound implementations:
// each side provides the same case functions, and bench_main.cpp registers them
// interleaved so that every ratio comes from one run.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ember_bench {

/// Out-of-place add of two float32 vectors of n elements (c = a + b).
using SizedCase = void (*)(benchmark::State&, int64_t n);

struct Implementation {
  const char* name;         // "ember", "libtorch", "bound"
  SizedCase add = nullptr;  // out of place
  SizedCase add_out = nullptr;
  SizedCase matmul = nullptr;  // square n x n float32
  SizedCase gather = nullptr;  // gather along dim 1 of a float32 [n/1024, 1024], int64 index of the same shape
  SizedCase index_select = nullptr;  // n float32 read at n random int64 positions
  SizedCase mask_index = nullptr;    // x.index({x > 0.5}) on n float32 (about half kept)
  /// Autograd on tiny tensors: y = ((x * w).tanh() + x * 2).sum(), then y.backward().
  SizedCase autograd = nullptr;
  /// Backward alone of sum(tanh(x w1) w2) for n x n float32 (the forward is rebuilt untimed).
  SizedCase backward_mlp = nullptr;
  /// ember only: the ops that backward runs, called by hand without autograd (its bound).
  SizedCase backward_mlp_ops = nullptr;
  /// One Adam step alone over the parameters (with gradients) of an MLP 784-512-512-10
  /// (weights and biases, float32); n is unused.
  SizedCase adam_step = nullptr;
  /// One training step of that MLP (ReLU between the layers) on a batch of n: forward,
  /// cross-entropy loss, backward, Adam step, float32.
  SizedCase train_step = nullptr;
  /// Float32 ops beyond add: exp and the full sum of n elements, cumsum of n along its
  /// only dim, softmax(-1) and x.t().contiguous() of an n x n matrix.
  SizedCase exp = nullptr;
  SizedCase sum = nullptr;
  SizedCase cumsum = nullptr;
  SizedCase softmax = nullptr;
  SizedCase transpose_copy = nullptr;
  /// The add above under a NoGradGuard, and under an InferenceMode guard (the tiny-op cost
  /// of each mode beside the plain add's).
  SizedCase add_no_grad = nullptr;
  SizedCase add_inference_mode = nullptr;
};

/// The parameter shapes of the MLP 784-512-512-10 of the optimizer case.
inline const std::vector<std::vector<int64_t>>& mlp_param_shapes() {
  static const std::vector<std::vector<int64_t>> shapes = {{512, 784}, {512}, {512, 512}, {512}, {10, 512}, {10}};
  return shapes;
}

Implementation ember_implementation();
/// libtorch's side; `available` is false when the bench was built without libtorch.
Implementation torch_implementation(bool& available);
/// Bounds: memcpy of the same bytes (add) and cblas_sgemm called directly (matmul).
Implementation bound_implementation();
/// The caching allocator's cached allocate+free pair vs malloc/free.
void allocator_cached_pair(benchmark::State& state);
void malloc_free_pair(benchmark::State& state);
/// GPU cases (ember, libtorch with CUDA when the linked libtorch has it, and the bound:
/// cuBLAS called directly or a device-to-device copy of the same bytes) when a CUDA
/// device is present. Returns each case's name ("gpu sum 64M") and how many of its sides
/// were registered (as "<case> | ember", "<case> | libtorch", "<case> | bound").
struct RegisteredCase {
  std::string name;
  int sides;
};
std::vector<RegisteredCase> register_gpu_cases(bool short_run);
/// One GPU case, the same for every side. Sizes: n elements (add, sum, tiny add), an
/// n x n matrix (sum(0), softmax over the last dim, transpose-copy, matmul) or a batch
/// of 64 n x n matrices (bmm). dtype: "fp32", "tf32" (float32 on tensor cores), "fp16", "bf16".
struct GpuCase {
  // TrainStep: the MLP training step of Implementation::train_step on a batch of n.
  // TinyAddGrad: TinyAdd on inputs that require grad (the op records its backward node).
  // ResNetStep: a ResNet-18 SGD step (momentum 0.9) on n images of 3x224x224, 1000 classes.
  enum Kind { Add, Sum, SumDim0, Softmax, Transpose, TinyAdd, TinyAddGrad, Matmul, Bmm, TrainStep, ResNetStep } kind;
  int64_t n;
  std::string dtype = "fp32";
};
/// Runs a case's op once, asynchronously; its tensors are made when the op is built.
using GpuOp = std::function<void()>;
/// libtorch's side of a case, or nullptr when libtorch is absent or has no CUDA.
GpuOp torch_gpu_case(const GpuCase& c);
/// Waits for all work on GPU 0 (cudaDeviceSynchronize), whichever library queued it.
void gpu_synchronize();

/// Times `reps` back-to-back calls of fn per iteration, by the wall clock up to a device
/// synchronize, so that ember and libtorch (on their own streams) are timed alike.
template <class Fn>
void time_gpu(benchmark::State& state, int reps, Fn&& fn) {
  fn();
  gpu_synchronize();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) fn();
    gpu_synchronize();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
}
/// Threads each side uses (stated in the report).
int bench_threads();

}  // namespace ember_bench
