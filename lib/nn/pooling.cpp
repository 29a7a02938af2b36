// Pooling as composite ops over the sliding windows of the (padded) input:
// - max: on devices with a max-pool kernel (the CPU's direct loop, float32/float64), that
//   kernel (Note [Library kernels]); elsewhere windows padded with -inf, max over each window; the index is the window's first
//   maximum as a flat h * W + w position, and when the input requires grad the values are
//   gathered at those positions, so gather's backward routes the gradient as libtorch's.
// - avg: windows of the zero-padded input summed, divided by libtorch's divisor per window.
// - adaptive avg: a mean over equal blocks when the bins tile the input, else membership
//   matrices (bin x position) applied on both sides, divided by the bins' sizes.
// - the 1-D forms are the 2-D ones over a height of 1, as libtorch's; LP pooling is
//   libtorch's formula over avg pooling.
// Checks follow libtorch 1.13's order and texts.
#include "ember/nn/pooling.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/kernel_table.h"
#include "ember/autograd.h"
#include "ember/nn/padding.h"
#include "ember/ops.h"
#include "nn/kernel_applies.h"
#include "nn/pooling_internal.h"
#include "nn/sliding_windows.h"
#include "placement/placement.h"
#include "tensor/memory_format.h"
#include "tensor/tensor_factory.h"

namespace ember {

using ember::detail::shape_str;
using ember::detail::torch_name;
using nn::detail::bin_end;
using nn::detail::bin_start;
using nn::detail::check_floating;
using nn::detail::check_one;
using nn::detail::check_two_or_three_dims;
using nn::detail::index_table;
using nn::detail::pooling_output_size;
using nn::detail::Window2d;

namespace nn::detail {

Tensor index_table(const std::vector<int64_t>& values, int64_t rows, int64_t cols, Device device) {
  return tensor(values).view({rows, cols}).to(device);
}

void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()), NotImplemented, "\"{}\" not implemented for '{}'", op,
                    torch_name(x.dtype()));
}

void check_dim_index(const Tensor& x, int64_t dim) {
  const int64_t d = x.dim();
  EMBER_CHECK_ARG(d > 0, "Dimension specified as {} but tensor has no dimensions", dim);
  EMBER_CHECK_ARG(dim >= -d && dim < d,
                  "Dimension out of range (expected to be in range of [{}, {}], but got {})", -d, d - 1, dim);
}

void check_one(IntArrayRef v, const char* op, const char* name) {
  EMBER_CHECK_ARG(v.size() == 1, "{}() argument '{}' should contain one int (got {})", op, name, v.size());
}

void check_two_or_three_dims(const Tensor& self, const char* op) {
  EMBER_CHECK_ARG(self.dim() >= 2 && self.dim() <= 3,
                  "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while "
                  "checking arguments for {})",
                  self.dim(), op);
}

int64_t pooling_output_shape(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                             bool ceil_mode) {
  EMBER_CHECK_ARG(stride != 0, "stride should not be zero");
  EMBER_CHECK_ARG(pad >= 0, "pad must be non-negative, but got pad: {}", pad);
  EMBER_CHECK_ARG(pad <= kernel / 2,
                  "pad should be at most half of kernel size, but got pad={} and kernel_size={}", pad,
                  kernel);
  return pooling_output_size(in, kernel, pad, pad, stride, dilation, ceil_mode);
}

}  // namespace nn::detail

namespace {

struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

int64_t output_shape(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                     bool ceil_mode) {
  return nn::detail::pooling_output_shape(in, kernel, pad, stride, dilation, ceil_mode);
}

// libtorch's pool2d_shape_check (contiguous layout).
void shape_check(const Tensor& x, const Pool2d& p, int64_t oh, int64_t ow) {
  EMBER_CHECK_ARG(p.kw > 0 && p.kh > 0, "kernel size should be greater than zero, but got kH: {} kW: {}",
                  p.kh, p.kw);
  EMBER_CHECK_ARG(p.sw > 0 && p.sh > 0, "stride should be greater than zero, but got dH: {} dW: {}", p.sh,
                  p.sw);
  EMBER_CHECK_ARG(p.dh > 0 && p.dw > 0,
                  "dilation should be greater than zero, but got dilationH: {} dilationW: {}", p.dh, p.dw);
  const int64_t ndim = x.dim();
  const bool valid_dims = x.size(1) != 0 && x.size(2) != 0;
  EMBER_CHECK_ARG(
      (ndim == 3 && x.size(0) != 0 && valid_dims) || (ndim == 4 && valid_dims && x.size(3) != 0),
      "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
      shape_str(x.sizes()));
  EMBER_CHECK_ARG(
      p.kw / 2 >= p.pw && p.kh / 2 >= p.ph,
      "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, "
      "kH = {}",
      p.pw, p.ph, p.kw, p.kh);
  const int64_t planes = x.size(-3), h = x.size(-2), w = x.size(-1);
  EMBER_CHECK_ARG(
      ow >= 1 && oh >= 1,
      "Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output size is too small", planes, h,
      w, planes, oh, ow);
}

// One int, or two (H, W); stride may also be empty (= kernel_size).
int64_t first(IntArrayRef v) { return v[0]; }
int64_t second(IntArrayRef v) { return v.size() == 1 ? v[0] : v[1]; }

// The right and bottom padding that the last window reaches into (ceil_mode).
int64_t far_pad(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation, int64_t near) {
  return std::max<int64_t>((out - 1) * stride + (kernel - 1) * dilation + 1 - near - in, 0);
}

// Runs a pool-family kernel on contiguous `input` (N, C, *): a = the shape fields, the
// output of `out_sizes` returned (indices, when given, filled by the kernel or read by it).
Tensor run_pool_kernel(Op op, const Tensor& input, IntArrayRef out_sizes, PoolArgs a, const Tensor& indices = {}) {
  Tensor ins[1] = {input};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(op, ins, 1, input.dtype());
  auto kernel = ember::detail::lookup_kernel<PoolKernel>(op, dev.device.type(), input.dtype());
  const Tensor x = ins[0].contiguous();
  Tensor out = empty(out_sizes, x.options());
  a.dtype = x.dtype();
  a.input = static_cast<const char*>(x.data_ptr());
  a.output = static_cast<char*>(out.data_ptr());
  a.indices = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
  kernel(a);
  return out;
}

PoolArgs pool_args(int64_t planes, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  PoolArgs a;
  a.planes = planes, a.in_h = h, a.in_w = w, a.out_h = oh, a.out_w = ow;
  return a;
}

// Max pooling as Op::MaxPool2d (the CPU's direct loop): values and indices in one pass,
// recorded as MaxPool2DWithIndicesBackward0. Its backward is Op::MaxPool2dBackward, or
// under create_graph g added at the indices in ordinary ops (double backward).
std::tuple<Tensor, Tensor> max_pool_kernel(const Tensor& x, const Pool2d& p, int64_t oh, int64_t ow) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  PoolArgs a = pool_args(n * c, h, w, oh, ow);
  a.kernel_h = p.kh, a.kernel_w = p.kw, a.stride_h = p.sh, a.stride_w = p.sw;
  a.pad_h = p.ph, a.pad_w = p.pw, a.dilation_h = p.dh, a.dilation_w = p.dw;
  Tensor indices = empty({n, c, oh, ow}, x.options().dtype(kLong));
  Tensor values = run_pool_kernel(Op::MaxPool2d, x, {n, c, oh, ow}, a, indices);
  if (GradMode::is_enabled() && x.requires_grad()) {
    // The indices are saved (not captured): the caller gets them too, and an in-place change
    // is caught as for any saved tensor.
    auto node = autograd::record(
        "MaxPool2DWithIndicesBackward0", {&x}, {&values},
        [a, n, c](autograd::FormulaNode& node, autograd::variable_list& grads) {
          autograd::variable_list out(1);
          const Tensor& g = grads[0];
          if (!g.defined()) return out;
          const Tensor indices = node.saved(0);
          const int64_t h = a.in_h, w = a.in_w, l = a.out_h * a.out_w;
          if (GradMode::is_enabled() || !nn::detail::kernel_applies(Op::MaxPool2dBackward, {&g}))
            out[0] = zeros({n, c, h * w}, g.options())
                         .scatter_add(2, indices.view({n, c, l}), g.reshape({n, c, l}))
                         .view({n, c, h, w});
          else
            out[0] = run_pool_kernel(Op::MaxPool2dBackward, g, {n, c, h, w}, a, indices);
          return out;
        });
    node->saved_[0] = autograd::SavedVariable(indices, false);
  }
  return {values, indices};
}

// Max pooling of a checked (N, C, H, W) input: (values, flat indices); indices only when
// asked for or needed for the gradient.
std::tuple<Tensor, Tensor> max_pool_core(const Tensor& x, const Pool2d& p, int64_t oh, int64_t ow,
                                         bool want_indices) {
  if (nn::detail::kernel_applies(Op::MaxPool2d, {&x})) return max_pool_kernel(x, p, oh, ow);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3), k = p.kh * p.kw;
  const int64_t pb = far_pad(h, oh, p.kh, p.sh, p.dh, p.ph), pr = far_pad(w, ow, p.kw, p.sw, p.dw, p.pw);
  const bool padded = p.ph || p.pw || pb || pr;
  const bool grad = GradMode::is_enabled() && x.requires_grad();
  Tensor values, pos;
  {
    NoGradGuard no_grad;
    const Tensor xp =
        padded ? constant_pad_nd(x, {p.pw, pr, p.ph, pb}, -std::numeric_limits<double>::infinity()) : x;
    using namespace nn::detail;
    const Tensor windows =
        sliding_windows(xp, Window2d{p.kh, p.kw, p.sh, p.sw, p.dh, p.dw}, oh, ow,
                        {kWinBatch, kWinChannel, kWinOutH, kWinOutW, kWinKernelH, kWinKernelW})
            .view({n, c, oh, ow, k});
    Tensor which;
    std::tie(values, which) = windows.max(4);
    if (want_indices || grad) {
      // The flat position: the window's corner plus the chosen element's offset in it.
      std::vector<int64_t> offset(static_cast<size_t>(k)), corner(size_t(oh * ow)),
          first_inside(size_t(oh * ow));
      for (int64_t i = 0; i < p.kh; ++i)
        for (int64_t j = 0; j < p.kw; ++j) offset[size_t(i * p.kw + j)] = i * p.dh * w + j * p.dw;
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          int64_t r0 = r * p.sh - p.ph, q0 = q * p.sw - p.pw;
          corner[size_t(r * ow + q)] = r0 * w + q0;
          while (r0 < 0) r0 += p.dh;
          while (q0 < 0) q0 += p.dw;
          first_inside[size_t(r * ow + q)] = r0 * w + q0;
        }
      }
      pos = tensor(offset).to(x.device()).index_select(0, which.reshape({-1})).view(which.sizes()) +
            index_table(corner, oh, ow, x.device());
      // A window of -inf only keeps its first element inside the input (libtorch's loop
      // starts there), never a padding position.
      if (padded)
        pos = where(values == -std::numeric_limits<double>::infinity(),
                    index_table(first_inside, oh, ow, x.device()), pos);
    }
  }
  if (grad) values = x.reshape({n, c, h * w}).gather(2, pos.view({n, c, oh * ow})).view({n, c, oh, ow});
  return {values, pos};
}

// The divisor of each window, libtorch's: the window clipped to the padded input, or (not
// count_include_pad) to the input itself.
std::vector<int64_t> avg_divisors(const Pool2d& p, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                  bool count_include_pad) {
  std::vector<int64_t> div(size_t(oh * ow));
  for (int64_t r = 0; r < oh; ++r) {
    for (int64_t q = 0; q < ow; ++q) {
      int64_t h0 = r * p.sh - p.ph, w0 = q * p.sw - p.pw;
      int64_t h1 = std::min(h0 + p.kh, h + p.ph), w1 = std::min(w0 + p.kw, w + p.pw);
      const int64_t pool = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, h), w1 = std::min(w1, w);
      div[size_t(r * ow + q)] = count_include_pad ? pool : (h1 - h0) * (w1 - w0);
    }
  }
  return div;
}

Tensor avg_pool_core(const Tensor& x, const Pool2d& p, int64_t oh, int64_t ow, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t pb = far_pad(h, oh, p.kh, p.sh, 1, p.ph), pr = far_pad(w, ow, p.kw, p.sw, 1, p.pw);
  const Tensor xp = p.ph || p.pw || pb || pr ? constant_pad_nd(x, {p.pw, pr, p.ph, pb}, 0) : x;
  using namespace nn::detail;
  const Tensor sums = sliding_windows(xp, Window2d{p.kh, p.kw, p.sh, p.sw, 1, 1}, oh, ow,
                                      {kWinBatch, kWinChannel, kWinOutH, kWinOutW, kWinKernelH, kWinKernelW})
                          .view({n, c, oh, ow, p.kh * p.kw})
                          .sum(4);
  std::vector<int64_t> div = divisor_override ? std::vector<int64_t>(size_t(oh * ow), *divisor_override)
                                              : avg_divisors(p, h, w, oh, ow, count_include_pad);
  const bool uniform = std::all_of(div.begin(), div.end(), [&](int64_t d) { return d == div[0]; });
  if (x.dtype() == kInt64) {
    // libtorch divides int64 sums in integer arithmetic (truncation).
    const Tensor q = uniform && !div.empty()
                         ? sums.to(kDouble) / double(div[0])
                         : sums.to(kDouble) / index_table(div, oh, ow, x.device()).to(kDouble);
    return q.trunc().to(kInt64);
  }
  if (uniform && !div.empty()) return sums / double(div[0]);
  return sums / index_table(div, oh, ow, x.device()).to(x.dtype());
}

// The bins of adaptive pooling along one dim as a (out, in) 0/1 matrix, and their sizes.
std::pair<std::vector<int64_t>, std::vector<int64_t>> bins(int64_t in, int64_t out) {
  std::vector<int64_t> member(static_cast<size_t>(out * in), 0), size(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = bin_start(i, in, out), end = bin_end(i, in, out);
    for (int64_t j = start; j < end; ++j) member[size_t(i * in + j)] = 1;
    size[size_t(i)] = end - start;
  }
  return {member, size};
}

// Adaptive pooling's membership form: the (oh, h) and (ow, w) 0/1 bin matrices and the
// (oh, ow) bin sizes, in `like`'s dtype on its device.
struct AdaptiveBins {
  Tensor rows, cols, counts;
};

AdaptiveBins adaptive_bins(int64_t h, int64_t w, int64_t oh, int64_t ow, const Tensor& like) {
  auto [rows, row_sizes] = bins(h, oh);
  auto [cols, col_sizes] = bins(w, ow);
  std::vector<int64_t> counts(size_t(oh * ow));
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) counts[size_t(i * ow + j)] = row_sizes[size_t(i)] * col_sizes[size_t(j)];
  const Device d = like.device();
  const ScalarType t = like.dtype();
  return {index_table(rows, oh, h, d).to(t), index_table(cols, ow, w, d).to(t),
          index_table(counts, oh, ow, d).to(t)};
}

// The gradient of the membership form in ordinary ops: each bin's share (g over the bin's
// size) spread back over the bin.
Tensor adaptive_avg_backward_composite(const Tensor& g, int64_t h, int64_t w) {
  const AdaptiveBins b = adaptive_bins(h, w, g.size(-2), g.size(-1), g);
  return matmul(matmul(b.rows.t(), g / b.counts), b.cols);
}

// Adaptive average pooling as Op::AdaptiveAvgPool2d (the CPU's direct loop), recorded as
// AdaptiveAvgPool2DBackward0: Op::AdaptiveAvgPool2dBackward, or the membership form under
// create_graph.
Tensor adaptive_avg_kernel(const Tensor& x, int64_t oh, int64_t ow) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const PoolArgs a = pool_args(n * c, h, w, oh, ow);
  Tensor y = run_pool_kernel(Op::AdaptiveAvgPool2d, x, {n, c, oh, ow}, a);
  if (GradMode::is_enabled() && x.requires_grad()) {
    autograd::record("AdaptiveAvgPool2DBackward0", {&x}, {&y},
                     [a, n, c](autograd::FormulaNode&, autograd::variable_list& grads) {
                       autograd::variable_list out(1);
                       const Tensor& g = grads[0];
                       if (!g.defined()) return out;
                       if (GradMode::is_enabled() || !nn::detail::kernel_applies(Op::AdaptiveAvgPool2dBackward, {&g}))
                         out[0] = adaptive_avg_backward_composite(g, a.in_h, a.in_w);
                       else
                         out[0] = run_pool_kernel(Op::AdaptiveAvgPool2dBackward, g, {n, c, a.in_h, a.in_w}, a);
                       return out;
                     });
  }
  return y;
}

Tensor adaptive_avg_core(const Tensor& x, int64_t oh, int64_t ow) {
  if (oh > 0 && ow > 0 && nn::detail::kernel_applies(Op::AdaptiveAvgPool2d, {&x})) return adaptive_avg_kernel(x, oh, ow);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  if (oh > 0 && ow > 0 && h % oh == 0 && w % ow == 0)
    return x.reshape({n, c, oh, h / oh, ow, w / ow}).mean({3, 5});
  const AdaptiveBins b = adaptive_bins(h, w, oh, ow, x);
  return matmul(matmul(b.rows, x), b.cols.t()) / b.counts;
}

// libtorch's size(-3) on fewer than 3 dims (avg_pool2d reads it unchecked).
void check_three_dims(const Tensor& x) { nn::detail::check_dim_index(x, -3); }

// max_pool2d_with_indices' checks; returns the parameters and output size.
std::tuple<Pool2d, int64_t, int64_t> check_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                      IntArrayRef stride, IntArrayRef padding,
                                                      IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK_ARG(self.defined(), "max_pool2d: undefined input tensor");
  EMBER_CHECK_ARG(kernel_size.size() == 1 || kernel_size.size() == 2,
                  "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(stride.size() <= 2,
                  "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(padding.size() == 1 || padding.size() == 2,
                  "max_pool2d: padding must be either be a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(dilation.size() == 1 || dilation.size() == 2,
                  "max_pool2d: dilation must be either a single int, or a tuple of two ints");
  Pool2d p{first(kernel_size), second(kernel_size), 0, 0, first(padding), second(padding),
           first(dilation),    second(dilation)};
  p.sh = stride.empty() ? p.kh : first(stride);
  p.sw = stride.empty() ? p.kw : second(stride);
  EMBER_CHECK_ARG(self.dim() == 3 || self.dim() == 4,
                  "non-empty 3D or 4D (batch mode) tensor expected for input");
  const int64_t oh = output_shape(self.size(-2), p.kh, p.ph, p.sh, p.dh, ceil_mode);
  const int64_t ow = output_shape(self.size(-1), p.kw, p.pw, p.sw, p.dw, ceil_mode);
  shape_check(self, p, oh, ow);
  check_floating(self, "max_pool2d");
  return {p, oh, ow};
}

std::tuple<Tensor, Tensor> max_pool2d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                           bool want_indices) {
  auto [p, oh, ow] = check_max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode);
  const bool batched = self.dim() == 4;
  auto [values, indices] = max_pool_core(batched ? self : self.unsqueeze(0), p, oh, ow, want_indices);
  // A channels-last input gives channels-last values and indices, as libtorch's.
  if (batched)
    return {ember::detail::in_layout_of(self, values),
            indices.defined() ? ember::detail::in_layout_of(self, indices) : indices};
  return {values.squeeze(0), want_indices ? indices.squeeze(0) : indices};
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool2d_impl(self, kernel_size, stride, padding, dilation, ceil_mode, true);
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_impl(self, kernel_size, stride, padding, dilation, ceil_mode, false));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK_ARG(self.defined(), "max_pool1d: undefined input tensor");
  if (stride.empty()) stride = kernel_size;
  check_two_or_three_dims(self, "max_pool1d");
  check_one(kernel_size, "max_pool1d", "kernel_size");
  check_one(stride, "max_pool1d", "stride");
  check_one(padding, "max_pool1d", "padding");
  check_one(dilation, "max_pool1d", "dilation");
  auto [values, indices] = max_pool2d_with_indices(self.unsqueeze(-2), {1, kernel_size[0]}, {1, stride[0]},
                                                   {0, padding[0]}, {1, dilation[0]}, ceil_mode);
  return {values.squeeze(-2), indices.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK_ARG(self.defined(), "max_pool1d: undefined input tensor");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(
      (nd == 2 && self.size(0) != 0 && self.size(1) != 0) ||
          (nd == 3 && self.size(1) != 0 && self.size(2) != 0),
      "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
      "got:{}",
      shape_str(self.sizes()));
  EMBER_CHECK_ARG(
      kernel_size.size() == 1,
      "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size {}",
      kernel_size.size());
  EMBER_CHECK_ARG(
      stride.size() <= 1,
      "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size {}",
      stride.size());
  EMBER_CHECK_ARG(
      padding.size() == 1,
      "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size {}",
      padding.size());
  EMBER_CHECK_ARG(
      dilation.size() == 1,
      "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size {}",
      dilation.size());
  const int64_t k = kernel_size[0], s = stride.empty() ? k : stride[0], pad = padding[0], d = dilation[0];
  EMBER_CHECK_ARG(k > 0, "max_pool1d() kernel_size must be greater than zero, but got {}", k);
  EMBER_CHECK_ARG(s > 0, "max_pool1d() stride must be greater than zero, but got {}", s);
  EMBER_CHECK_ARG(pad >= 0, "max_pool1d() padding must be non-negative, but got {}", pad);
  EMBER_CHECK_ARG(
      pad <= k / 2,
      "max_pool1d() padding should be at most half of kernel size, but got padding={} and kernel_size={}",
      pad, k);
  EMBER_CHECK_ARG(d > 0, "max_pool1d() dilation must be greater than zero, but got {}", d);
  const int64_t ow = pooling_output_size(self.size(-1), k, pad, pad, s, d, ceil_mode);
  EMBER_CHECK_ARG(ow >= 0, "max_pool1d() Invalid computed output size: {}", ow);
  // As libtorch: with a gradient to record, the with_indices path (and its checks).
  if (GradMode::is_enabled() && self.requires_grad())
    return std::get<0>(max_pool1d_with_indices(self, kernel_size, s, padding, dilation, ceil_mode));
  check_floating(self, "max_pool1d_impl");
  const bool batched = nd == 3;
  const Tensor x = (batched ? self : self.unsqueeze(0)).unsqueeze(2);
  Tensor values = std::get<0>(max_pool_core(x, Pool2d{1, k, 1, s, 0, pad, 1, d}, 1, ow, false)).squeeze(2);
  return batched ? values : values.squeeze(0);
}

Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK_ARG(self.defined(), "avg_pool2d: undefined input tensor");
  EMBER_CHECK_ARG(kernel_size.size() == 1 || kernel_size.size() == 2,
                  "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(stride.size() <= 2,
                  "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(padding.size() == 1 || padding.size() == 2,
                  "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  EMBER_CHECK_ARG(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  Pool2d p{first(kernel_size), second(kernel_size), 0, 0, first(padding), second(padding), 1, 1};
  p.sh = stride.empty() ? p.kh : first(stride);
  p.sw = stride.empty() ? p.kw : second(stride);
  check_three_dims(self);
  const int64_t oh = output_shape(self.size(-2), p.kh, p.ph, p.sh, 1, ceil_mode);
  const int64_t ow = output_shape(self.size(-1), p.kw, p.pw, p.sw, 1, ceil_mode);
  shape_check(self, p, oh, ow);
  EMBER_CHECK_TYPED(is_floating_point(self.dtype()) || self.dtype() == kInt64, NotImplemented,
                    "\"avg_pool2d\" not implemented for '{}'", torch_name(self.dtype()));
  const bool batched = self.dim() == 4;
  Tensor y =
      avg_pool_core(batched ? self : self.unsqueeze(0), p, oh, ow, count_include_pad, divisor_override);
  return batched ? ember::detail::in_layout_of(self, y) : y.squeeze(0);
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_avg_pool2d: undefined input tensor");
  EMBER_CHECK_ARG(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  EMBER_CHECK_ARG(
      output_size[0] >= 0 && output_size[1] >= 0,
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, "
      "{}}}",
      output_size[0], output_size[1]);
  // As libtorch: a 1 x 1 output is the mean over the last two dims, whatever the input.
  if (output_size[0] == 1 && output_size[1] == 1) return self.mean({-1, -2}, true);
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(nd == 3 || nd == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {}",
                  shape_str(self.sizes()));
  for (int64_t i : {-2, -1})
    EMBER_CHECK_ARG(
        self.size(i) > 0,
        "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
        "has sizes {} with dimension {} being empty",
        shape_str(self.sizes()), i + nd);
  check_floating(self, "adaptive_avg_pool2d");
  const bool batched = nd == 4;
  Tensor y = adaptive_avg_core(batched ? self : self.unsqueeze(0), output_size[0], output_size[1]);
  return batched ? ember::detail::in_layout_of(self, y) : y.squeeze(0);
}

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  EMBER_CHECK_ARG(self.defined(), "avg_pool1d: undefined input tensor");
  if (stride.empty()) stride = kernel_size;
  check_two_or_three_dims(self, "avg_pool1d");
  check_one(kernel_size, "avg_pool1d", "kernel_size");
  check_one(stride, "avg_pool1d", "stride");
  check_one(padding, "avg_pool1d", "padding");
  return avg_pool2d(self.unsqueeze(-2), {1, kernel_size[0]}, {1, stride[0]}, {0, padding[0]}, ceil_mode,
                    count_include_pad)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_avg_pool1d: undefined input tensor");
  check_two_or_three_dims(self, "adaptive_avg_pool1d");
  check_one(output_size, "adaptive_avg_pool1d", "output_size");
  return adaptive_avg_pool2d(self.unsqueeze(-2), {1, output_size[0]}).squeeze(-2);
}

namespace {

// libtorch's LP pooling after the windows' mean s of x^p: sign(s) * relu(|s|) (s, with a
// zero gradient where s = 0), times the kernel's element count, to the power 1/p.
Tensor lp_finish(const Tensor& mean_of_powers, int64_t kernel_elements, double norm_type) {
  return (sign(mean_of_powers) * relu(abs(mean_of_powers))).mul(kernel_elements).pow(1. / norm_type);
}

}  // namespace

namespace nn::functional {

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return ember::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad());
}

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return ember::adaptive_avg_pool1d(input, o.output_size());
}

Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  const Tensor s =
      ember::avg_pool1d(input.pow(o.norm_type()), o.kernel_size(), o.stride(), 0, o.ceil_mode(), true);
  return lp_finish(s, (*o.kernel_size())[0], o.norm_type());
}

Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  const Tensor s = ember::avg_pool2d(input.pow(o.norm_type()), o.kernel_size(), o.stride(), 0, o.ceil_mode(),
                                     true, std::nullopt);
  return lp_finish(s, (*o.kernel_size())[0] * (*o.kernel_size())[1], o.norm_type());
}

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return ember::max_pool1d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return ember::max_pool2d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ember::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad(), o.divisor_override());
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "adaptive_avg_pool2d: undefined input tensor");
  // None keeps the input's size (libtorch's _list_with_default).
  EMBER_CHECK_ARG(input.dim() > 2, "Input dimension should be at least 3");
  const auto& size = *o.output_size();
  const int64_t h = size[0].value_or(input.size(-2)), w = size[1].value_or(input.size(-1));
  return ember::adaptive_avg_pool2d(input, {h, w});
}

}  // namespace nn::functional
}  // namespace ember
