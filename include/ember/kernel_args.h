#pragma once
/// Plain argument blocks handed to kernels, one per op family. They hold raw pointers
/// and strides only, so the CPU and CUDA backends (and user backends) read the same
/// struct; the CUDA backend passes them to kernels by value.

#include <cstddef>
#include <cstdint>

#include "ember/export.h"
#include "ember/scalar_type.h"

namespace ember {

/// A number handed to a kernel in both forms, so integer kernels stay exact.
struct KernelScalar {
  double f = 0;
  int64_t i = 0;
};

/// Op::RandInt's mode (param[2].i): integers in [param[0].i, param[1].i) (the range is
/// their difference mod 2^64), every int64, or random_()'s [0, max of the dtype].
enum RandIntMode : int64_t { kRandFromTo = 0, kRandFullRange = 1, kRandDefault = 2 };

/// Elementwise, fill, arange and random ops. Operand 0 is the output, then inputs.
/// Dims are stored innermost first and already broadcast and coalesced: operand k's
/// element at multi-index (j0, j1, ...) is data[k] + sum(j_d * strides[k][d]) elements.
struct ElementwiseArgs {
  static constexpr int kMaxOperands = 4;
  static constexpr int kMaxDims = 12;

  // Only dims [0, ndim) of sizes and strides are set: the block is filled per call
  // on the hot path, so the arrays are deliberately left uninitialised.
  char* data[kMaxOperands] = {};
  int64_t strides[kMaxOperands][kMaxDims];
  int64_t sizes[kMaxDims];
  int64_t numel = 0;
  int ndim = 0;
  int ninputs = 0;
  ScalarType dtype = ScalarType::Float;      // every input's dtype (promoted by the front-end)
  ScalarType out_dtype = ScalarType::Float;  // differs for comparisons (Bool) and Copy (cast)
  /// Every operand has stride 1 in a single dim, or 0 if it is a broadcast scalar.
  bool contiguous = false;
  /// Input k is a Scalar, not a tensor: its value is in scalar_value[k] (dtype's bytes)
  /// and data[k] points there with stride 0 (a CUDA launcher reads the value instead).
  bool is_scalar[kMaxOperands] = {};
  alignas(8) char scalar_value[kMaxOperands][8];
  /// Op parameters: alpha (add, sub), min/max (clamp), value (fill, addcmul, lerp weight),
  /// start/step (arange), low/high (random). has_param says which are set (clamp).
  KernelScalar param[3];
  bool has_param[3] = {};
  uint64_t seed = 0, offset = 0;  // random ops: counter-based generator state
  /// CPU random ops: the CPUGeneratorImpl to draw from serially, its lock held by the
  /// front-end; null on other devices (they use seed and offset).
  void* generator = nullptr;
};

/// Reductions over some dims of one input. Kept dims and reduced dims are listed
/// separately (innermost first); output k is the reduction of its input slice.
/// Conventions every backend follows (the CPU's kernels define them):
///  - the front-end casts the input to in_dtype, sorts the reduced dims by stride (not
///    for index-producing ops, whose flat order must stay row-major), always lists at
///    least one reduced dim (size 1, stride 0 when nothing is reduced), and skips the
///    kernel when num_outputs == 0; reduce_size may be 0 (the op's identity is written);
///  - Sum: param[0].i != 0 means mean (divide by reduce_size); out_dtype may differ from
///    in_dtype (int64 for integer and bool sums);
///  - ArgMax / ArgMin: out == nullptr, only out_index (int64) is written; Max / Min with
///    a dim write both out and out_index; amax / amin only out;
///  - Max / Min propagate NaN; the index is the first of the extreme, NaN the extreme;
///  - Var: param[0].f = correction (1 unbiased, 0 biased), param[1].i = take_sqrt (std);
///  - Norm: param[0].f = p (0: count of nonzeros, 1, 2, inf, -inf, any other p);
///  - All / Any: any in_dtype, out_dtype Bool;
///  - accumulation: integer and bool sums and products in wrapping 64-bit integers; the
///    CPU sums floats in double (float32 with AVX2 adds groups of four elements, or two
///    rows, in float first, and redoes a non-finite result all in double), the CUDA
///    backend in float for Half / BFloat16 / Float
///    (double for Double) in a tree order, so the two differ by float rounding.
struct ReduceArgs {
  static constexpr int kMaxDims = ElementwiseArgs::kMaxDims;

  char* out = nullptr;
  char* out_index = nullptr;  // int64 indices (max/min with dim, argmax, argmin) or null
  const char* in = nullptr;
  int64_t num_outputs = 1;
  int64_t reduce_size = 1;
  int nkept = 0, nreduced = 0;
  int64_t kept_sizes[kMaxDims] = {};
  int64_t kept_in_strides[kMaxDims] = {};
  int64_t kept_out_strides[kMaxDims] = {};
  int64_t reduced_sizes[kMaxDims] = {};
  int64_t reduced_in_strides[kMaxDims] = {};
  ScalarType in_dtype = ScalarType::Float;
  ScalarType out_dtype = ScalarType::Float;
  /// norm: p; var/std: correction (1 unbiased, 0 biased); std: take_sqrt set in param[1].i;
  /// sum: param[0].i != 0 for mean.
  KernelScalar param[2];
};

/// Softmax, log_softmax and cumsum along one dim of a contiguous [outer, size, inner] block.
/// in_dtype == out_dtype (the front-end casts and makes the input contiguous first) and
/// the kernel is not called for an empty input. Softmax / log_softmax are stable (max,
/// then the sum of exp(x - max)); cumsum accumulates as Sum does.
struct DimArgs {
  char* out = nullptr;
  const char* in = nullptr;
  int64_t outer = 1, size = 1, inner = 1;
  ScalarType in_dtype = ScalarType::Float;
  ScalarType out_dtype = ScalarType::Float;
};

/// C[b] = alpha * A[b] @ B[b] + beta * C[b] for b < batch, A: m x k, B: k x n, C: m x n.
/// Each matrix has unit stride in its rows or its columns (BLAS layouts); C is row-major
/// (col_stride 1). Strides are in elements; a batch stride of 0 broadcasts.
struct MatmulArgs {
  ScalarType dtype = ScalarType::Float;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const char* a = nullptr;
  const char* b = nullptr;
  char* c = nullptr;
  int64_t a_strides[3] = {};  // batch, row, col
  int64_t b_strides[3] = {};
  int64_t c_strides[3] = {};
  double alpha = 1, beta = 0;
  bool allow_tf32 = false;
};

/// gather and scatter along dim `dim` (Note [Select kernels]). The loop runs over the
/// index's shape (dims innermost first, not coalesced); operand strides are in elements.
/// The indexed operand (gather: in, scatter: out) has stride 0 in `dim` and moves
/// index * indexed_stride along it instead. An index outside [0, dim_size) is never
/// dereferenced: the kernel sets status[0] = 1 and status[1] to the index (status is
/// two int64 on the kernel's device, zeroed by the front-end). Scatter writes nothing
/// when any index is out of range (check first, then write).
struct SelectArgs {
  static constexpr int kMaxDims = ElementwiseArgs::kMaxDims;

  char* out = nullptr;
  const char* in = nullptr;  // gather: self; scatter: src (unused when in_is_scalar)
  const int64_t* index = nullptr;
  int64_t* status = nullptr;
  int ndim = 0;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t index_strides[kMaxDims] = {};
  int64_t dim_size = 0;        // the indexed operand's size along dim
  int64_t indexed_stride = 0;  // the indexed operand's stride along dim
  ScalarType dtype = ScalarType::Float;
  int reduce = 0;              // scatter: 0 assigns, 1 adds, 2 multiplies, 3 max, 4 min
  bool in_is_scalar = false;   // scatter of a value: it is in scalar_value (dtype's bytes)
  alignas(8) char scalar_value[8] = {};
};

/// sort along one dim of a contiguous [outer, size, inner] block into contiguous values
/// and int64 indices of the same layout. Ascending puts NaN last, descending first
/// (NaN is the largest value, as torch); equal values keep their order (stable).
struct SortArgs {
  char* values = nullptr;
  int64_t* indices = nullptr;
  const char* in = nullptr;
  int64_t outer = 1, size = 1, inner = 1;
  ScalarType dtype = ScalarType::Float;
  bool descending = false;
};

/// Selection along one dim by a list of int64 positions. Tensors are viewed as
/// [outer, size, inner] (self / out) and [outer, nindex, inner] (the selected side), each
/// with its own element strides; `index` holds nindex positions (stride index_stride).
///  - IndexSelect: out[o, j, i] = self[o, index[j], i]; out is the selected side.
///  - IndexCopy / IndexAdd: self[o, index[j], i] = / += src[o, j, i]; src is the selected
///    side, self is written in place (IndexAdd sums duplicates: the CPU in index order).
///  - Nonzero: self is a contiguous bool tensor of `size` elements; out receives the
///    nindex flat int64 positions of its trues in order (the front-end counts them first).
/// Negative positions wrap by `size` when allow_negative is set (advanced indexing) and are
/// out of range otherwise (index_select, index_add_, as in libtorch). Bounds: for a position out of
/// [-size, size) a kernel writes 1 to error[0] and the position to error[1] (device
/// memory, zeroed by the front-end), which then raises a typed error. IndexCopy and
/// IndexAdd check every position before writing anything, so a failed call leaves self
/// unchanged; IndexSelect may have written part of its (fresh) output.
struct IndexArgs {
  ScalarType dtype = ScalarType::Float;  // self's, src's and out's dtype
  char* self = nullptr;
  const char* src = nullptr;
  char* out = nullptr;
  const int64_t* index = nullptr;
  int64_t* error = nullptr;
  int64_t outer = 1, size = 1, inner = 1, nindex = 0;
  int64_t index_stride = 1;
  bool allow_negative = true;
  int64_t self_strides[3] = {};  // outer, dim, inner
  int64_t other_strides[3] = {};  // of src or out
};

/// One optimizer update of one contiguous parameter tensor (Note [Fused optimizer steps]
/// in lib/optim/fused_step.cpp). param, grad and the state buffers share dtype and numel;
/// 16-bit dtypes compute in float. Scalars are libtorch's, computed on the host in double.
///  - SgdStep: g = grad + weight_decay * p; with momentum, buf0 = first_step ? g :
///    momentum * buf0 + (1 - dampening) * g and g = nesterov ? g + momentum * buf0 : buf0;
///    then p -= lr * g.
///  - AdamStep: decoupled (AdamW) first scales p by 1 - lr * weight_decay, else
///    g = grad + weight_decay * p; buf0 (exp_avg) = beta1 * buf0 + (1 - beta1) * g,
///    buf1 (exp_avg_sq) = beta2 * buf1 + (1 - beta2) * g * g; amsgrad keeps
///    buf2 = max(buf2, buf1) and uses it for buf1; p -= step_size * buf0 /
///    (sqrt(buf1) / bias_correction2_sqrt + eps).
///  - RmspropStep: g = grad + weight_decay * p; buf0 (square_avg) = alpha * buf0 + (1 - alpha)
///    * g * g; centered keeps buf2 (grad_avg) = alpha * buf2 + (1 - alpha) * g and avg =
///    sqrt(buf0 - buf2 * buf2) + eps, else avg = sqrt(buf0) + eps; with momentum, buf1 =
///    momentum * buf1 + g / avg and p -= lr * buf1, else p -= lr * g / avg.
///  - AdagradStep: g = grad + weight_decay * p; buf0 (sum) += g * g; p -= step_size * g /
///    (sqrt(buf0) + eps), step_size being the decayed lr.
///  - AmpUnscale (GradScaler::unscale_): param is a gradient, multiplied in place by lr (the
///    inverse scale); buf0 is one float32 on the kernel's device, set to 1 when any element
///    was inf or NaN (never cleared: one flag serves every gradient of a device).
struct OptimArgs {
  ScalarType dtype = ScalarType::Float;
  char* param = nullptr;
  const char* grad = nullptr;
  char* buf0 = nullptr;  // momentum_buffer (SGD), exp_avg (Adam), square_avg (RMSprop), sum (Adagrad)
  char* buf1 = nullptr;  // exp_avg_sq (Adam), momentum_buffer (RMSprop)
  char* buf2 = nullptr;  // max_exp_avg_sq (amsgrad), grad_avg (centered RMSprop)
  int64_t numel = 0;
  double lr = 0, weight_decay = 0;
  double momentum = 0, dampening = 0;                      // SGD
  double beta1 = 0, beta2 = 0, eps = 0;                    // Adam
  double step_size = 0, bias_correction2_sqrt = 1;         // Adam: lr / (1 - beta1^t), sqrt(1 - beta2^t);
                                                           // Adagrad: lr / (1 + (step - 1) * lr_decay)
  double alpha = 0;                                        // RMSprop's smoothing constant
  bool nesterov = false, first_step = false;               // SGD
  bool amsgrad = false, decoupled_weight_decay = false;    // Adam / AdamW
  bool centered = false;                                   // RMSprop
};

/// Convolution with 1 to 3 spatial dims (Note [Library kernels]), on dense contiguous
/// tensors: input (N, C_in, spatial...), weight (C_out, C_in / groups, kernel...), bias
/// (C_out) or null, output (N, C_out, out...). Padding is `padding` zeros before each
/// spatial dim and whatever the output size leaves after it (output_size follows
/// libtorch's floor rule, so the far side may have less padding or none).
///  - Convolution: output = conv(input, weight) + bias.
///  - ConvolutionBackward: from grad_output (the output's shape), writes grad_input,
///    grad_weight and grad_bias, each only when its pointer is set; input and weight are
///    the forward's.
/// With channels_last, input, output and their gradients are laid out channels-last
/// instead (N, spatial..., C: MemoryFormat::ChannelsLast / ChannelsLast3d); the weight stays.
/// Scratch memory comes from `workspace(workspace_ctx, bytes)`: ember's caching allocator
/// on the op's device, valid until the kernel returns.
struct ConvArgs {
  static constexpr int kMaxSpatial = 3;

  ScalarType dtype = ScalarType::Float;
  int spatial = 2;
  bool channels_last = false;
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  int64_t input_size[kMaxSpatial] = {}, output_size[kMaxSpatial] = {}, kernel[kMaxSpatial] = {};
  int64_t stride[kMaxSpatial] = {}, padding[kMaxSpatial] = {}, dilation[kMaxSpatial] = {};
  const char* input = nullptr;
  const char* weight = nullptr;
  const char* bias = nullptr;
  char* output = nullptr;
  const char* grad_output = nullptr;
  char* grad_input = nullptr;
  char* grad_weight = nullptr;
  char* grad_bias = nullptr;
  void* (*workspace)(void* ctx, size_t bytes) = nullptr;
  void* workspace_ctx = nullptr;
};

/// 2-D pooling on contiguous planes (N * C of them), in_h x in_w in, out_h x out_w out:
///  - MaxPool2d: input -> output and, as int64, each maximum's flat position h * in_w + w
///    in its plane. Window (r, q) reads rows r * stride_h - pad_h + i * dilation_h (i <
///    kernel_h) and columns likewise, skipping those outside the plane (the padding never
///    wins); NaN wins, and among equal values the first in row-major order (libtorch's rule).
///  - MaxPool2dBackward: input is the output's gradient; output, the input's gradient, is
///    zeroed and gets each gradient added at its index.
///  - AdaptiveAvgPool2d: output (r, q) is the mean of rows [floor(r * in_h / out_h),
///    ceil((r + 1) * in_h / out_h)) by the same bins of columns (the kernel fields unused).
///  - AdaptiveAvgPool2dBackward: input is the output's gradient; output, the input's, gets
///    each bin's gradient divided by the bin's size, summed where bins overlap.
struct PoolArgs {
  ScalarType dtype = ScalarType::Float;
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  const char* input = nullptr;
  char* output = nullptr;
  int64_t* indices = nullptr;
};

/// Batch norm's per-channel reductions over a contiguous (N, C, S) tensor x, accumulated
/// in float64 (libtorch's accumulate type on the CPU); results in x's dtype:
///  - BatchNormStats: out0[c] = mean of x over (N, S), out1[c] = biased variance (two
///    passes: the mean, then the squared deviations from it).
///  - BatchNormBackwardReduce: with g of x's shape and mean of C elements,
///    out0[c] = sum of g, out1[c] = sum of g * (x - mean[c]).
struct ChannelStatsArgs {
  ScalarType dtype = ScalarType::Float;
  int64_t n = 0, c = 0, s = 0;
  const char* x = nullptr;
  const char* g = nullptr;
  const char* mean = nullptr;
  char* out0 = nullptr;
  char* out1 = nullptr;
};

}  // namespace ember
