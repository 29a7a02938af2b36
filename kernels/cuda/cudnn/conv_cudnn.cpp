// Op::Convolution and Op::ConvolutionBackward on CUDA through cuDNN 9's convolution API
// (Note [Library kernels] in lib/nn/conv_library.cpp): float32, float64, Half and BFloat16,
// 1, 2 or 3 spatial dims (1-D as 2-D with a height of 1, as libtorch), NCHW or channels-last. Algorithms come
// from cuDNN's heuristics (the _v7 queries, as libtorch without cudnn.benchmark), tried in their order until
// one runs; descriptors and the chosen algorithms are cached per thread, keyed by every shape field of
// ConvArgs, so a training loop queries once. Workspaces come from ember's caching allocator through
// ConvArgs::workspace. float32 runs on tensor cores (TF32) only under ember::cuda::set_allow_tf32(true), so
// by default it matches the CPU to float32 rounding. Where cuDNN has no algorithm for a shape (its legacy
// API, kept in cuDNN 9 over the graph API, refuses some) or a sample too large for its int indexing, the
// kernel throws NotImplemented (after one warning per shape) and the front-end runs the portable form. The
// bias gradient is ember's own CUDA Sum (cudnnConvolutionBackwardBias reports NOT_SUPPORTED in cuDNN 9).
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/check.h"
#include "cuda/cuda_context.h"
#include "cuda/cuda_kernels.h"
#include "dispatch/kernel_table.h"
#include "ember/cuda.h"
#include "ember/registry.h"
#include "ember/warning.h"

namespace ember::detail {

namespace {

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  throw DeviceError(fmt::format("cuDNN error {} ({}) in {} at {}:{}", cudnnGetErrorString(status),
                                int(status), call, file, line));
}

#define EMBER_CUDNN_CHECK(call)                                                       \
  do {                                                                                \
    const cudnnStatus_t ember_cudnn_st_ = (call);                                     \
    if (__builtin_expect(ember_cudnn_st_ != CUDNN_STATUS_SUCCESS, 0))                 \
      ::ember::detail::throw_cudnn_error(ember_cudnn_st_, #call, __FILE__, __LINE__); \
  } while (0)

constexpr int kMaxDevices = 64;
constexpr int kNotChosen = -1;    // a Plan's algorithm for a pass not yet searched for
constexpr int kNoAlgorithm = -2;  // a Plan's algorithm for a pass cuDNN cannot run at its shape

// The statuses that mean "not this algorithm" (cuDNN 9 adds sub-codes such as
// NOT_SUPPORTED_SHAPE or BAD_PARAM_MISALIGNED_POINTER within each category).
bool declines(cudnnStatus_t st) {
  const int category = CUDNN_STATUS_CATEGORY(int(st));
  return category == CUDNN_STATUS_NOT_SUPPORTED || category == CUDNN_STATUS_BAD_PARAM;
}

// Handles are never destroyed: a thread's exit may come after the CUDA context is gone
// (one per thread and device, as libtorch's handle pool keeps them).
cudnnHandle_t handle_for(int device) {
  thread_local std::array<cudnnHandle_t, kMaxDevices> handles{};
  if (device < 0 || device >= kMaxDevices)
    EMBER_THROW(DeviceError, "convolution: cuDNN handles exist for devices 0 to {}, got device {}",
                kMaxDevices - 1, device);
  cudnnHandle_t& h = handles[size_t(device)];
  if (!h) EMBER_CUDNN_CHECK(cudnnCreate(&h));
  return h;
}

cudnnDataType_t data_type(ScalarType dtype) {
  switch (dtype) {
    case kFloat:
      return CUDNN_DATA_FLOAT;
    case kDouble:
      return CUDNN_DATA_DOUBLE;
    case kHalf:
      return CUDNN_DATA_HALF;
    case kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      EMBER_THROW(NotImplemented, "convolution: no cuDNN kernel for dtype {}", name(dtype));
  }
}

// Every field that changes a descriptor or an algorithm, compared as one array.
struct ConvKey {
  static constexpr int kFields = 9 + 6 * ConvArgs::kMaxSpatial;
  std::array<int64_t, kFields> f{};
  bool operator==(const ConvKey& o) const { return f == o.f; }
};

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : k.f) h = (h ^ uint64_t(v)) * 1099511628211ull;
    return size_t(h);
  }
};

// The sizes of a tensor [N, C, spatial...] and its strides in NCHW or channels-last order.
struct Layout {
  int dims = 0;
  int size[ConvArgs::kMaxSpatial + 2] = {};
  int stride[ConvArgs::kMaxSpatial + 2] = {};
};

Layout layout_of(int64_t n, int64_t c, const int64_t* spatial_sizes, int spatial, bool channels_last) {
  Layout l;
  l.dims = spatial + 2;
  l.size[0] = int(n);
  l.size[1] = int(c);
  for (int d = 0; d < spatial; ++d) l.size[d + 2] = int(spatial_sizes[d]);
  // Innermost first: W, H, (D), then C for NCHW; C, then W, H, (D) for channels-last.
  int64_t s = 1;
  if (channels_last) {
    l.stride[1] = 1;
    s = c;
  }
  for (int d = l.dims - 1; d >= 2; --d) {
    l.stride[d] = int(s);
    s *= l.size[d];
  }
  if (!channels_last) {
    l.stride[1] = int(s);
    s *= c;
  }
  l.stride[0] = int(s);
  return l;
}

// Descriptors of one convolution shape and the algorithms chosen for it.
struct Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnTensorDescriptor_t w_plain = nullptr,
                          w_channels_last = nullptr;  // the weight as a tensor, for transforms
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  bool channels_last = false;
  int forward_algo = kNotChosen, backward_data_algo = kNotChosen, backward_filter_algo = kNotChosen;
  cudnnMathType_t forward_math = CUDNN_DEFAULT_MATH, backward_data_math = CUDNN_DEFAULT_MATH,
                  backward_filter_math = CUDNN_DEFAULT_MATH;

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {  // host-side objects only: safe at thread exit
    for (cudnnTensorDescriptor_t t : {x, y, bias, w_plain, w_channels_last})
      if (t) cudnnDestroyTensorDescriptor(t);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

cudnnTensorDescriptor_t tensor_descriptor(cudnnDataType_t type, const Layout& l) {
  cudnnTensorDescriptor_t t;
  EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&t));
  EMBER_CUDNN_CHECK(cudnnSetTensorNdDescriptor(t, type, l.dims, l.size, l.stride));
  return t;
}

// The math the caller allows: tensor cores for Half/BFloat16, TF32 for float32 only when
// ember::cuda::allow_tf32(), plain FMA otherwise.
cudnnMathType_t requested_math(ScalarType dtype) {
  if (dtype == kHalf || dtype == kBFloat16) return CUDNN_TENSOR_OP_MATH;
  if (dtype == kFloat) return cuda::allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// The math an algorithm runs with: the one the heuristics name, except that float32 stays
// on FMA when TF32 is not allowed (libtorch overrides the heuristics' choice the same way).
cudnnMathType_t math_for(cudnnMathType_t requested, cudnnMathType_t algo_math) {
  return requested == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : algo_math;
}

std::unique_ptr<Plan> make_plan(const ConvArgs& a, int64_t batch) {
  auto p = std::make_unique<Plan>();
  const cudnnDataType_t type = data_type(a.dtype);
  const int s = a.spatial;
  p->channels_last = a.channels_last;
  p->x = tensor_descriptor(type, layout_of(batch, a.in_channels, a.input_size, s, a.channels_last));
  p->y = tensor_descriptor(type, layout_of(batch, a.out_channels, a.output_size, s, a.channels_last));
  const int64_t ones[ConvArgs::kMaxSpatial] = {1, 1, 1};
  p->bias = tensor_descriptor(type, layout_of(1, a.out_channels, ones, s, false));
  // The weight [O, I/G, k...]: cuDNN wants it in the activations' layout.
  const int64_t per_group = a.in_channels / a.groups;
  p->w_plain = tensor_descriptor(type, layout_of(a.out_channels, per_group, a.kernel, s, false));
  p->w_channels_last = tensor_descriptor(type, layout_of(a.out_channels, per_group, a.kernel, s, true));
  int wdims[ConvArgs::kMaxSpatial + 2] = {int(a.out_channels), int(per_group)};
  int pad[ConvArgs::kMaxSpatial], stride[ConvArgs::kMaxSpatial], dilation[ConvArgs::kMaxSpatial];
  for (int d = 0; d < s; ++d) {
    wdims[d + 2] = int(a.kernel[d]);
    pad[d] = int(a.padding[d]);
    stride[d] = int(a.stride[d]);
    dilation[d] = int(a.dilation[d]);
  }
  EMBER_CUDNN_CHECK(cudnnCreateFilterDescriptor(&p->w));
  EMBER_CUDNN_CHECK(cudnnSetFilterNdDescriptor(
      p->w, type, a.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, s + 2, wdims));
  EMBER_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&p->conv));
  // Cross-correlation, as libtorch's convolution; double accumulates in double, the rest in float.
  EMBER_CUDNN_CHECK(
      cudnnSetConvolutionNdDescriptor(p->conv, s, pad, stride, dilation, CUDNN_CROSS_CORRELATION,
                                      a.dtype == kDouble ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
  EMBER_CUDNN_CHECK(cudnnSetConvolutionGroupCount(p->conv, int(a.groups)));
  p->math = requested_math(a.dtype);
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(p->conv, p->math));
  return p;
}

Plan& plan_for(const ConvArgs& a, int64_t batch, int device) {
  thread_local std::unordered_map<ConvKey, std::unique_ptr<Plan>, ConvKeyHash> plans;
  ConvKey k;
  size_t i = 0;
  for (int64_t v :
       {int64_t(device), int64_t(a.channels_last), int64_t(a.dtype), int64_t(requested_math(a.dtype)),
        int64_t(a.spatial), batch, a.in_channels, a.out_channels, a.groups})
    k.f[i++] = v;
  for (int d = 0; d < ConvArgs::kMaxSpatial; ++d)
    for (int64_t v :
         {a.input_size[d], a.output_size[d], a.kernel[d], a.stride[d], a.padding[d], a.dilation[d]})
      k.f[i++] = v;
  auto it = plans.find(k);
  if (it == plans.end()) it = plans.emplace(k, make_plan(a, batch)).first;
  return *it->second;
}

// A buffer from ember's allocator that stays alive until the kernel returns (null for zero bytes).
void* workspace(const ConvArgs& a, size_t bytes) {
  return bytes ? a.workspace(a.workspace_ctx, bytes) : nullptr;
}

// The algorithms' workspace, one per call: every pass and slice reuses it (stream order
// keeps them apart), and it grows only when a pass needs more.
class Scratch {
 public:
  explicit Scratch(const ConvArgs& a) : args_(a) {}
  void* get(size_t bytes) {
    if (bytes > capacity_) {
      ptr_ = workspace(args_, bytes);
      capacity_ = bytes;
    }
    return bytes ? ptr_ : nullptr;
  }

 private:
  const ConvArgs& args_;
  void* ptr_ = nullptr;
  size_t capacity_ = 0;
};

// The warning for a shape cuDNN runs no algorithm for, with the statuses met looking for one.
std::string describe_failure(const char* what, const std::string& tried) {
  return fmt::format(
      "convolution {}: cuDNN ran no algorithm for this shape ({}); the portable form runs instead", what,
      tried.empty() ? "the heuristics offered none" : tried);
}

[[noreturn]] void throw_no_algorithm(const char* what) {
  EMBER_THROW(NotImplemented, "convolution {}: cuDNN has no algorithm for this shape", what);
}

// Runs `pass` with the cached algorithm, or finds one: cuDNN's heuristic order (queried
// with the requested math: FMA for float32 unless TF32 is allowed), skipping candidates
// that decline the shape or whose workspace does not fit in memory. A cached algorithm
// that declines (a differently aligned pointer, say) starts a new search. With none left
// the pass is marked kNoAlgorithm for the shape and the kernel throws NotImplemented.
template <class Perf, class Query, class Size, class Run>
void run_pass(const char* what, Plan& p, int& algo, cudnnMathType_t& algo_math, Query query, Size size,
              Run run) {
  if (algo == kNoAlgorithm) throw_no_algorithm(what);
  if (algo >= 0) {
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, algo_math));
    size_t bytes = 0;
    EMBER_CUDNN_CHECK(size(algo, &bytes));
    const cudnnStatus_t st = run(algo, bytes);
    if (st == CUDNN_STATUS_SUCCESS) return;
    if (!declines(st)) throw_cudnn_error(st, what, __FILE__, __LINE__);
    algo = kNotChosen;
  }
  EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, p.math));
  constexpr int kCandidates = 16;
  Perf perf[kCandidates];
  int returned = 0;
  EMBER_CUDNN_CHECK(query(kCandidates, &returned, perf));
  std::string tried;  // the failure path only
  for (int i = 0; i < returned; ++i) {
    const int candidate = int(perf[i].algo);
    const char* sep = tried.empty() ? "" : ", ";
    if (perf[i].status != CUDNN_STATUS_SUCCESS) {
      tried += fmt::format("{}algo {}: heuristics {}", sep, candidate, cudnnGetErrorString(perf[i].status));
      continue;
    }
    const cudnnMathType_t math = math_for(p.math, perf[i].mathType);
    EMBER_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, math));
    size_t bytes = 0;
    cudnnStatus_t st = size(candidate, &bytes);
    if (st == CUDNN_STATUS_SUCCESS) {
      try {
        st = run(candidate, bytes);
      } catch (const OutOfMemory&) {  // its workspace does not fit: the next may need less
        tried += fmt::format("{}algo {}: no memory for a workspace of {} bytes", sep, candidate, bytes);
        continue;
      }
    }
    if (st == CUDNN_STATUS_SUCCESS) {
      algo = candidate;
      algo_math = math;
      return;
    }
    tried += fmt::format("{}algo {} math {}: {}", sep, candidate, int(math), cudnnGetErrorString(st));
    if (!declines(st)) throw_cudnn_error(st, what, __FILE__, __LINE__);
  }
  algo = kNoAlgorithm;
  warn(describe_failure(what, tried));
  throw_no_algorithm(what);
}

// alpha and beta in the compute type: double for float64, float otherwise.
struct Scale {
  double d;
  float f;
  explicit Scale(double v) : d(v), f(float(v)) {}
  const void* of(ScalarType dtype) const { return dtype == kDouble ? static_cast<const void*>(&d) : &f; }
};

// Samples per cuDNN call: cuDNN's legacy API indexes tensors with int, so a batch whose
// input or output exceeds INT_MAX elements runs in slices (as libtorch splits it).
int64_t batch_slice(const ConvArgs& a) {
  int64_t in = a.in_channels, out = a.out_channels;
  for (int d = 0; d < a.spatial; ++d) {
    in *= a.input_size[d];
    out *= a.output_size[d];
  }
  const int64_t per_sample = std::max<int64_t>({in, out, 1});
  if (per_sample > INT_MAX)  // the portable form runs it
    EMBER_THROW(NotImplemented, "convolution: cuDNN takes at most {} elements per sample (got {})", INT_MAX,
                per_sample);
  return std::max<int64_t>(1, std::min<int64_t>(a.batch, INT_MAX / per_sample));
}

int64_t sample_bytes(const ConvArgs& a, int64_t channels, const int64_t* sizes) {
  int64_t n = channels * int64_t(element_size(a.dtype));
  for (int d = 0; d < a.spatial; ++d) n *= sizes[d];
  return n;
}

int64_t weight_bytes(const ConvArgs& a) {
  int64_t n = a.out_channels * (a.in_channels / a.groups) * int64_t(element_size(a.dtype));
  for (int d = 0; d < a.spatial; ++d) n *= a.kernel[d];
  return n;
}

// conv1d as conv2d with a height of 1 (cuDNN's convolutions take 4-D or 5-D tensors):
// [N, C, L] and [N, C, 1, L] share their memory in either layout.
ConvArgs as_2d(const ConvArgs& a) {
  if (a.spatial != 1) return a;
  ConvArgs b = a;
  b.spatial = 2;
  for (int64_t* field : {b.input_size, b.output_size, b.kernel, b.stride, b.padding, b.dilation}) {
    field[1] = field[0];
    field[0] = 1;
  }
  b.padding[0] = 0;
  return b;
}

// The weight [O, I/G, k...] in the plan's layout: itself for NCHW, an NHWC copy in a
// workspace for channels-last (cuDNN wants the filter in the activations' layout).
const void* weight_in_layout(cudnnHandle_t h, const ConvArgs& a, const Plan& p) {
  if (!p.channels_last) return a.weight;
  const Scale one(1), zero(0);
  void* w = workspace(a, size_t(weight_bytes(a)));
  EMBER_CUDNN_CHECK(
      cudnnTransformTensor(h, one.of(a.dtype), p.w_plain, a.weight, zero.of(a.dtype), p.w_channels_last, w));
  return w;
}

cudnnHandle_t handle_on_stream(int device) {
  cudnnHandle_t h = handle_for(device);
  EMBER_CUDNN_CHECK(cudnnSetStream(h, cuda_current_stream(device)));
  return h;
}

void convolution_forward(const ConvArgs& args) {
  const ConvArgs a = as_2d(args);
  const int device = cuda_device_of(a.output);
  CudaDeviceGuard guard(device);
  cudnnHandle_t h = handle_on_stream(device);
  const Scale one(1), zero(0);
  const void* alpha = one.of(a.dtype);
  const void* beta = zero.of(a.dtype);
  const int64_t slice = batch_slice(a);
  const int64_t in_step = sample_bytes(a, a.in_channels, a.input_size);
  const int64_t out_step = sample_bytes(a, a.out_channels, a.output_size);
  Scratch scratch(a);
  const void* weight = nullptr;
  for (int64_t b0 = 0; b0 < a.batch; b0 += slice) {
    const int64_t n = std::min(slice, a.batch - b0);
    Plan& p = plan_for(a, n, device);
    if (b0 == 0) weight = weight_in_layout(h, a, p);
    const char* x = a.input + b0 * in_step;
    char* y = a.output + b0 * out_step;
    run_pass<cudnnConvolutionFwdAlgoPerf_t>(
        "forward", p, p.forward_algo, p.forward_math,
        [&](int k, int* got, cudnnConvolutionFwdAlgoPerf_t* perf) {
          return cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, k, got, perf);
        },
        [&](int algo, size_t* bytes) {
          return cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y,
                                                         cudnnConvolutionFwdAlgo_t(algo), bytes);
        },
        [&](int algo, size_t bytes) {
          return cudnnConvolutionForward(h, alpha, p.x, x, p.w, weight, p.conv,
                                         cudnnConvolutionFwdAlgo_t(algo), scratch.get(bytes), bytes, beta,
                                         p.y, y);
        });
    if (a.bias) EMBER_CUDNN_CHECK(cudnnAddTensor(h, alpha, p.bias, a.bias, alpha, p.y, y));
  }
}

// grad_bias[c] = the sum of grad_output over the batch and the spatial dims, through the
// CUDA Sum kernel (float accumulation for Half / BFloat16).
void bias_gradient(const ConvArgs& a) {
  int64_t spatial = 1;
  for (int d = 0; d < a.spatial; ++d) spatial *= a.output_size[d];
  ReduceArgs r;
  r.in = a.grad_output;
  r.out = a.grad_bias;
  r.in_dtype = r.out_dtype = a.dtype;
  r.num_outputs = a.out_channels;
  r.reduce_size = a.batch * spatial;
  r.nkept = 1;
  r.kept_sizes[0] = a.out_channels;
  r.kept_out_strides[0] = 1;
  if (a.channels_last) {  // [N, S..., C]: batch and space are one run of stride C
    r.kept_in_strides[0] = 1;
    r.nreduced = 1;
    r.reduced_sizes[0] = a.batch * spatial;
    r.reduced_in_strides[0] = a.out_channels;
  } else {  // [N, C, S...]: space (fastest), then the batch
    r.kept_in_strides[0] = spatial;
    r.nreduced = 2;
    r.reduced_sizes[0] = spatial;
    r.reduced_in_strides[0] = 1;
    r.reduced_sizes[1] = a.batch;
    r.reduced_in_strides[1] = a.out_channels * spatial;
  }
  lookup_kernel<ReduceKernel>(Op::Sum, kCUDA, a.dtype)(r);
}

void convolution_backward(const ConvArgs& args) {
  const ConvArgs a = as_2d(args);
  const int device = cuda_device_of(a.grad_output);
  CudaDeviceGuard guard(device);
  cudnnHandle_t h = handle_on_stream(device);
  if (a.grad_bias) bias_gradient(a);
  if (!a.grad_input && !a.grad_weight) return;
  const Scale one(1), zero(0);
  const void* alpha = one.of(a.dtype);
  const int64_t slice = batch_slice(a);
  const int64_t in_step = sample_bytes(a, a.in_channels, a.input_size);
  const int64_t out_step = sample_bytes(a, a.out_channels, a.output_size);
  Scratch scratch(a);
  const void* weight = nullptr;
  void* grad_weight = a.grad_weight;  // channels-last: an NHWC copy, transformed back at the end
  for (int64_t b0 = 0; b0 < a.batch; b0 += slice) {
    const int64_t n = std::min(slice, a.batch - b0);
    Plan& p = plan_for(a, n, device);
    // Later slices add to the weight gradient of the first.
    const void* beta = (b0 == 0 ? zero : one).of(a.dtype);
    if (b0 == 0) {
      if (a.grad_input) weight = weight_in_layout(h, a, p);
      if (a.grad_weight && p.channels_last) grad_weight = workspace(a, size_t(weight_bytes(a)));
    }
    const char* x = a.input + b0 * in_step;
    const char* dy = a.grad_output + b0 * out_step;
    if (a.grad_input) {
      char* dx = a.grad_input + b0 * in_step;
      run_pass<cudnnConvolutionBwdDataAlgoPerf_t>(
          "backward (input)", p, p.backward_data_algo, p.backward_data_math,
          [&](int k, int* got, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x, k, got, perf);
          },
          [&](int algo, size_t* bytes) {
            return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x,
                                                                cudnnConvolutionBwdDataAlgo_t(algo), bytes);
          },
          [&](int algo, size_t bytes) {
            return cudnnConvolutionBackwardData(h, alpha, p.w, weight, p.y, dy, p.conv,
                                                cudnnConvolutionBwdDataAlgo_t(algo), scratch.get(bytes),
                                                bytes, zero.of(a.dtype), p.x, dx);
          });
    }
    if (a.grad_weight) {
      run_pass<cudnnConvolutionBwdFilterAlgoPerf_t>(
          "backward (weight)", p, p.backward_filter_algo, p.backward_filter_math,
          [&](int k, int* got, cudnnConvolutionBwdFilterAlgoPerf_t* perf) {
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.x, p.y, p.conv, p.w, k, got, perf);
          },
          [&](int algo, size_t* bytes) {
            return cudnnGetConvolutionBackwardFilterWorkspaceSize(
                h, p.x, p.y, p.conv, p.w, cudnnConvolutionBwdFilterAlgo_t(algo), bytes);
          },
          [&](int algo, size_t bytes) {
            return cudnnConvolutionBackwardFilter(h, alpha, p.x, x, p.y, dy, p.conv,
                                                  cudnnConvolutionBwdFilterAlgo_t(algo), scratch.get(bytes),
                                                  bytes, beta, p.w, grad_weight);
          });
    }
    if (b0 + n >= a.batch && grad_weight != a.grad_weight)
      EMBER_CUDNN_CHECK(cudnnTransformTensor(h, alpha, p.w_channels_last, grad_weight, zero.of(a.dtype),
                                             p.w_plain, a.grad_weight));
  }
}

}  // namespace

void register_cuda_cudnn_kernels() {
  const DtypeSet dtypes({kHalf, kBFloat16, kFloat, kDouble});
  register_kernel(Op::Convolution, kCUDA, convolution_forward, dtypes);
  register_kernel(Op::ConvolutionBackward, kCUDA, convolution_backward, dtypes);
}

}  // namespace ember::detail
