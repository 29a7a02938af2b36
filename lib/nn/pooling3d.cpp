// The 3-D pooling layers as composite ops, the 2-D ones' methods with a depth:
// - max / avg: the N-D sliding windows of the (padded) input reduced with max / sum; max's
//   index is the window's first maximum as a flat (d * H + h) * W + w position, gathered at
//   when the input requires grad so that the gradient goes there.
// - adaptive avg: membership matrices per dim; adaptive and fractional max: lists of flat
//   positions through max_at_positions (a volume read as an (D * H * W) x 1 plane);
//   max unpool: a scatter into zeros.
// Checks follow libtorch 1.13's order and texts.
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <limits>
#include <sstream>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/padding.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"
#include "nn/pooling_internal.h"
#include "nn/sliding_windows.h"
#include "tensor/tensor_factory.h"

namespace ember {

using ember::detail::shape_str;
using ember::detail::torch_name;
using nn::detail::bin_end;
using nn::detail::bin_start;
using nn::detail::check_floating;
using nn::detail::index_table;
using nn::detail::max_at_positions;

namespace {

using Ints3 = std::array<int64_t, 3>;

struct Pool3d {
  Ints3 k, s, p, d;
};

// One int or three (D, H, W); an empty stride is the kernel size.
Ints3 triple(IntArrayRef v, const Ints3& empty = {0, 0, 0}) {
  if (v.empty()) return empty;
  if (v.size() == 1) return {v[0], v[0], v[0]};
  return {v[0], v[1], v[2]};
}

std::vector<int64_t> vec(const Ints3& v) { return {v[0], v[1], v[2]}; }

// libtorch's pool3d_shape_check.
void shape_check(const Tensor& x, const Pool3d& p, const Ints3& out, const char* fn, bool check_input_size) {
  EMBER_CHECK_ARG(p.k[0] > 0 && p.k[1] > 0 && p.k[2] > 0,
                  "kernel size should be greater than zero, but got kT: {} kH: {} kW: {}", p.k[0], p.k[1],
                  p.k[2]);
  EMBER_CHECK_ARG(p.s[0] > 0 && p.s[1] > 0 && p.s[2] > 0,
                  "stride should be greater than zero, but got dT: {} dH: {} dW: {}", p.s[0], p.s[1], p.s[2]);
  EMBER_CHECK_ARG(p.d[0] > 0 && p.d[1] > 0 && p.d[2] > 0,
                  "dilation should be greater than zero, but got dilationT: {} dilationH: {} dilationW: {}",
                  p.d[0], p.d[1], p.d[2]);
  const int64_t nd = x.dim();
  EMBER_CHECK_ARG(nd == 4 || nd == 5, "{}: Expected 4D or 5D tensor for input, but got: {}", fn,
                  shape_str(x.sizes()));
  for (int64_t i = nd == 5 ? 1 : 0; i < nd; ++i)
    // libtorch's text names the dim's size (0), not its index.
    EMBER_CHECK_ARG(
        x.size(i) > 0,
        "{}: Expected input's non-batch dimensions to have positive length, but input has a shape "
        "of {} and non-batch dimension {} has length zero!",
        fn, shape_str(x.sizes()), x.size(i));
  const int64_t t = x.size(-3), h = x.size(-2), w = x.size(-1);
  if (check_input_size)
    EMBER_CHECK_ARG(t >= p.k[0] && h >= p.k[1] && w >= p.k[2],
                    "input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} kH: {} kW: {})", t, h,
                    w, p.k[0], p.k[1], p.k[2]);
  EMBER_CHECK_ARG(p.k[0] / 2 >= p.p[0] && p.k[2] / 2 >= p.p[2] && p.k[1] / 2 >= p.p[1],
                  "pad should be smaller than or equal to half of kernel size, but got kT: {} kW: {} kH: {} "
                  "padT: {} padW: {} padH: {}",
                  p.k[0], p.k[2], p.k[1], p.p[0], p.p[2], p.p[1]);
  const int64_t planes = x.size(-4);
  EMBER_CHECK_ARG(
      out[0] >= 1 && out[1] >= 1 && out[2] >= 1,
      "Given input size: ({}x{}x{}x{}). Calculated output size: ({}x{}x{}x{}). Output size is too "
      "small",
      planes, t, h, w, planes, out[0], out[1], out[2]);
}

// The far padding that the last window reaches into (ceil_mode).
int64_t far_pad(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation, int64_t near) {
  return std::max<int64_t>((out - 1) * stride + (kernel - 1) * dilation + 1 - near - in, 0);
}

// F::pad's sizes for x's last three dims, last first: near and far padding of each.
std::vector<int64_t> pad_sizes(const Tensor& x, const Pool3d& p, const Ints3& out) {
  std::vector<int64_t> pad;
  for (int64_t i = 3; i-- > 0;) {
    const size_t d = size_t(i);
    pad.push_back(p.p[d]);
    pad.push_back(far_pad(x.size(i + 2), out[d], p.k[d], p.s[d], p.d[d], p.p[d]));
  }
  return pad;
}

bool any_nonzero(const std::vector<int64_t>& v) {
  return std::any_of(v.begin(), v.end(), [](int64_t e) { return e != 0; });
}

// The windows of (padded) x as (N, C, OD, OH, OW, kD * kH * kW).
Tensor windows_last(const Tensor& xp, const Pool3d& p, const Ints3& out) {
  const Tensor cols = nn::detail::sliding_windows_nd(xp, {vec(p.k), vec(p.s), vec(p.d)}, vec(out));
  return cols.permute({0, 1, 5, 6, 7, 2, 3, 4})
      .reshape({xp.size(0), xp.size(1), out[0], out[1], out[2], p.k[0] * p.k[1] * p.k[2]});
}

std::tuple<Tensor, Tensor> max_pool3d_core(const Tensor& x, const Pool3d& p, const Ints3& out,
                                           bool want_indices) {
  const int64_t n = x.size(0), c = x.size(1), t = x.size(2), h = x.size(3), w = x.size(4);
  const std::vector<int64_t> pad = pad_sizes(x, p, out);
  const bool padded = any_nonzero(pad);
  const bool grad = GradMode::is_enabled() && x.requires_grad();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor values, pos;
  {
    NoGradGuard no_grad;
    const Tensor xp = padded ? constant_pad_nd(x, pad, -inf) : x;
    Tensor which;
    std::tie(values, which) = windows_last(xp, p, out).max(5);
    if (want_indices || grad) {
      // The flat position: the window's corner plus the chosen element's offset in it.
      std::vector<int64_t> offset, corner, first_inside;
      for (int64_t a = 0; a < p.k[0]; ++a)
        for (int64_t b = 0; b < p.k[1]; ++b)
          for (int64_t e = 0; e < p.k[2]; ++e)
            offset.push_back((a * p.d[0] * h + b * p.d[1]) * w + e * p.d[2]);
      for (int64_t i = 0; i < out[0]; ++i)
        for (int64_t j = 0; j < out[1]; ++j)
          for (int64_t l = 0; l < out[2]; ++l) {
            int64_t t0 = i * p.s[0] - p.p[0], h0 = j * p.s[1] - p.p[1], w0 = l * p.s[2] - p.p[2];
            corner.push_back((t0 * h + h0) * w + w0);
            while (t0 < 0) t0 += p.d[0];
            while (h0 < 0) h0 += p.d[1];
            while (w0 < 0) w0 += p.d[2];
            first_inside.push_back((t0 * h + h0) * w + w0);
          }
      const int64_t l = out[0] * out[1] * out[2];
      pos = tensor(offset).to(x.device()).index_select(0, which.reshape({-1})).view(which.sizes()) +
            index_table(corner, 1, l, x.device()).view({out[0], out[1], out[2]});
      // A window of -inf only keeps its first element inside the input (libtorch's loop
      // starts there), never a padding position.
      if (padded)
        pos = where(values == -inf,
                    index_table(first_inside, 1, l, x.device()).view({out[0], out[1], out[2]}), pos);
    }
  }
  if (grad)
    values = x.reshape({n, c, t * h * w})
                 .gather(2, pos.reshape({n, c, out[0] * out[1] * out[2]}))
                 .view({n, c, out[0], out[1], out[2]});
  return {values, pos};
}

// libtorch's avg_pool3d divisor along one dim, per output position.
std::vector<int64_t> divisors_1d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad,
                                 bool count_include_pad) {
  std::vector<int64_t> div;
  for (int64_t i = 0; i < out; ++i) {
    int64_t start = i * s - pad, end = std::min(start + k, in + pad);
    const int64_t pool = end - start;
    start = std::max<int64_t>(start, 0);
    end = std::min(end, in);
    div.push_back(count_include_pad ? pool : end - start);
  }
  return div;
}

Tensor avg_pool3d_core(const Tensor& x, const Pool3d& p, const Ints3& out, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  const std::vector<int64_t> pad = pad_sizes(x, p, out);
  const Tensor xp = any_nonzero(pad) ? constant_pad_nd(x, pad, 0) : x;
  const Tensor sums = windows_last(xp, p, out).sum(5);
  std::vector<int64_t> div;
  if (divisor_override) {
    div.assign(size_t(out[0] * out[1] * out[2]), *divisor_override);
  } else {
    std::array<std::vector<int64_t>, 3> per_dim;
    for (size_t d = 0; d < 3; ++d)
      per_dim[d] = divisors_1d(x.size(int64_t(d) + 2), out[d], p.k[d], p.s[d], p.p[d], count_include_pad);
    for (int64_t a : per_dim[0])
      for (int64_t b : per_dim[1])
        for (int64_t e : per_dim[2]) div.push_back(a * b * e);
  }
  const bool uniform = std::all_of(div.begin(), div.end(), [&](int64_t v) { return v == div[0]; });
  const auto table = [&](ScalarType t) {
    return index_table(div, 1, int64_t(div.size()), x.device()).view({out[0], out[1], out[2]}).to(t);
  };
  if (x.dtype() == kInt64) {
    // libtorch divides int64 sums in integer arithmetic (truncation).
    const Tensor q = uniform ? sums.to(kDouble) / double(div[0]) : sums.to(kDouble) / table(kDouble);
    return q.trunc().to(kInt64);
  }
  if (uniform) return sums / double(div[0]);
  return sums / table(x.dtype());
}

// Adaptive pooling's bins along one dim as an (out, in) 0/1 matrix, and their sizes.
std::pair<Tensor, std::vector<int64_t>> bin_matrix(int64_t in, int64_t out, const Tensor& like) {
  std::vector<int64_t> member(size_t(out * in), 0), size;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = bin_start(i, in, out), end = bin_end(i, in, out);
    for (int64_t j = start; j < end; ++j) member[size_t(i * in + j)] = 1;
    size.push_back(end - start);
  }
  return {index_table(member, out, in, like.device()).to(like.dtype()), size};
}

Tensor adaptive_avg_pool3d_core(const Tensor& x, const Ints3& out) {
  const int64_t n = x.size(0), c = x.size(1), t = x.size(2), h = x.size(3), w = x.size(4);
  if (out[0] > 0 && out[1] > 0 && out[2] > 0 && t % out[0] == 0 && h % out[1] == 0 && w % out[2] == 0)
    return x.reshape({n, c, out[0], t / out[0], out[1], h / out[1], out[2], w / out[2]}).mean({3, 5, 7});
  auto [p_t, t_sizes] = bin_matrix(t, out[0], x);
  auto [p_h, h_sizes] = bin_matrix(h, out[1], x);
  auto [p_w, w_sizes] = bin_matrix(w, out[2], x);
  const Tensor y = matmul(p_h, matmul(x, p_w.t()));  // (N, C, D, OH, OW)
  const Tensor z = matmul(p_t, y.reshape({n, c, t, out[1] * out[2]})).view({n, c, out[0], out[1], out[2]});
  std::vector<int64_t> counts;
  for (int64_t a : t_sizes)
    for (int64_t b : h_sizes)
      for (int64_t e : w_sizes) counts.push_back(a * b * e);
  return z / index_table(counts, 1, int64_t(counts.size()), x.device())
                 .view({out[0], out[1], out[2]})
                 .to(x.dtype());
}

// Runs f on (N, C, ...) and drops the batch dim again for an unbatched (C, ...) input.
template <class F>
std::tuple<Tensor, Tensor> batched(const Tensor& self, F f) {
  if (self.dim() == 5) return f(self);
  auto [values, indices] = f(self.unsqueeze(0));
  return {values.squeeze(0), indices.defined() ? indices.squeeze(0) : indices};
}

// max_at_positions over a volume read as a (D * H * W) x 1 plane: windows (N or 1, C or 1,
// L, k) of flat positions, out the output's spatial sizes.
std::tuple<Tensor, Tensor> max_at_volume_positions(const Tensor& x, const Tensor& windows, const Ints3& out) {
  const int64_t n = x.size(0), c = x.size(1);
  const Tensor plane = x.reshape({n, c, x.size(2) * x.size(3) * x.size(4), 1});
  auto [values, pos] = max_at_positions(plane, windows.unsqueeze(3));
  return {values.view({n, c, out[0], out[1], out[2]}), pos.view({n, c, out[0], out[1], out[2]})};
}

Tensor adaptive_windows_3d(int64_t t, int64_t h, int64_t w, const Ints3& out, Device device) {
  const Ints3 in{t, h, w};
  Ints3 k{1, 1, 1};
  for (size_t d = 0; d < 3; ++d)
    for (int64_t i = 0; i < out[d]; ++i)
      k[d] = std::max(k[d], bin_end(i, in[d], out[d]) - bin_start(i, in[d], out[d]));
  std::vector<int64_t> pos;
  for (int64_t i = 0; i < out[0]; ++i) {
    const int64_t t0 = bin_start(i, t, out[0]), ts = bin_end(i, t, out[0]) - t0;
    for (int64_t j = 0; j < out[1]; ++j) {
      const int64_t h0 = bin_start(j, h, out[1]), hs = bin_end(j, h, out[1]) - h0;
      for (int64_t l = 0; l < out[2]; ++l) {
        const int64_t w0 = bin_start(l, w, out[2]), ws = bin_end(l, w, out[2]) - w0;
        // A shorter bin repeats its last position, which keeps its first maximum first.
        for (int64_t a = 0; a < k[0]; ++a)
          for (int64_t b = 0; b < k[1]; ++b)
            for (int64_t e = 0; e < k[2]; ++e)
              pos.push_back(((t0 + std::min(a, ts - 1)) * h + h0 + std::min(b, hs - 1)) * w + w0 +
                            std::min(e, ws - 1));
      }
    }
  }
  return tensor(pos).to(kInt64).view({1, 1, out[0] * out[1] * out[2], k[0] * k[1] * k[2]}).to(device);
}

// The windows of every plane of x (N, C, D, H, W) from samples (N, C, 3): (d, h, w) per plane.
template <class T>
Tensor fractional_windows_3d(const Tensor& x, const Tensor& samples, const Ints3& k, const Ints3& out) {
  const int64_t n = x.size(0), c = x.size(1), t = x.size(2), h = x.size(3), w = x.size(4);
  const Tensor s = samples.detach().to(Device(kCPU)).to(kDouble).contiguous();
  const double* sp = s.data_ptr<double>();
  std::vector<int64_t> pos;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    using nn::detail::fractional_intervals;
    const auto ts = fractional_intervals<T>(static_cast<T>(sp[3 * plane]), t, out[0], k[0]);
    const auto hs = fractional_intervals<T>(static_cast<T>(sp[3 * plane + 1]), h, out[1], k[1]);
    const auto ws = fractional_intervals<T>(static_cast<T>(sp[3 * plane + 2]), w, out[2], k[2]);
    for (int64_t i = 0; i < out[0]; ++i)
      for (int64_t j = 0; j < out[1]; ++j)
        for (int64_t l = 0; l < out[2]; ++l)
          for (int64_t a = 0; a < k[0]; ++a)
            for (int64_t b = 0; b < k[1]; ++b)
              for (int64_t e = 0; e < k[2]; ++e)
                pos.push_back(((ts[size_t(i)] + a) * h + hs[size_t(j)] + b) * w + ws[size_t(l)] + e);
  }
  return tensor(pos).to(kInt64).view({n, c, out[0] * out[1] * out[2], k[0] * k[1] * k[2]}).to(x.device());
}

std::tuple<Tensor, Tensor> max_pool3d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                           IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                           bool want_indices) {
  EMBER_CHECK_ARG(self.defined(), "max_pool3d: undefined input tensor");
  EMBER_CHECK_ARG(kernel_size.size() == 1 || kernel_size.size() == 3,
                  "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(stride.empty() || stride.size() == 1 || stride.size() == 3,
                  "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(padding.size() == 1 || padding.size() == 3,
                  "max_pool3d: padding must be either be a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(dilation.size() == 1 || dilation.size() == 3,
                  "max_pool3d: dilation must be either a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(self.dim() == 4 || self.dim() == 5,
                  "non-empty 4D or 5D (batch mode) tensor expected for input");
  Pool3d p{triple(kernel_size), {}, triple(padding), triple(dilation)};
  p.s = triple(stride, p.k);
  Ints3 out;
  for (size_t d = 0; d < 3; ++d)
    out[d] = nn::detail::pooling_output_shape(self.size(int64_t(d) - 3), p.k[d], p.p[d], p.s[d], p.d[d],
                                              ceil_mode);
  shape_check(self, p, out, "max_pool3d_with_indices_out_cpu_template()", false);
  check_floating(self, "max_pool3d_with_indices_cpu");
  return batched(self, [&](const Tensor& x) { return max_pool3d_core(x, p, out, want_indices); });
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return max_pool3d_impl(self, kernel_size, stride, padding, dilation, ceil_mode, true);
}

Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool3d_impl(self, kernel_size, stride, padding, dilation, ceil_mode, false));
}

Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK_ARG(self.defined(), "avg_pool3d: undefined input tensor");
  EMBER_CHECK_ARG(kernel_size.size() == 1 || kernel_size.size() == 3,
                  "avg_pool3d: kernel_size must be a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(stride.empty() || stride.size() == 1 || stride.size() == 3,
                  "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(padding.size() == 1 || padding.size() == 3,
                  "avg_pool3d: padding must be a single int, or a tuple of three ints");
  EMBER_CHECK_ARG(self.dim() == 4 || self.dim() == 5,
                  "non-empty 4D or 5D (batch mode) tensor expected for input");
  EMBER_CHECK_ARG(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  Pool3d p{triple(kernel_size), {}, triple(padding), {1, 1, 1}};
  p.s = triple(stride, p.k);
  Ints3 out;
  for (size_t d = 0; d < 3; ++d)
    out[d] =
        nn::detail::pooling_output_shape(self.size(int64_t(d) - 3), p.k[d], p.p[d], p.s[d], 1, ceil_mode);
  shape_check(self, p, out, "avg_pool3d()", true);
  EMBER_CHECK_TYPED(is_floating_point(self.dtype()) || self.dtype() == kInt64, NotImplemented,
                    "\"avg_pool3d_out_frame\" not implemented for '{}'", torch_name(self.dtype()));
  const bool batched = self.dim() == 5;
  Tensor y = avg_pool3d_core(batched ? self : self.unsqueeze(0), p, out, count_include_pad, divisor_override);
  return batched ? y : y.squeeze(0);
}

Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_avg_pool3d: undefined input tensor");
  EMBER_CHECK_ARG(output_size.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
  EMBER_CHECK_ARG(
      output_size[0] >= 0 && output_size[1] >= 0 && output_size[2] >= 0,
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, "
      "{},{}}}",
      output_size[0], output_size[1], output_size[2]);
  // As libtorch: a 1 x 1 x 1 output is the mean over the last three dims, whatever the input.
  if (output_size[0] == 1 && output_size[1] == 1 && output_size[2] == 1) return self.mean({-1, -2, -3}, true);
  const int64_t nd = self.dim();
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(
        self.size(i) > 0,
        "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input "
        "has sizes {} with dimension {} being empty",
        shape_str(self.sizes()), i);
  EMBER_CHECK_ARG(nd == 4 || nd == 5, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {}",
                  shape_str(self.sizes()));
  check_floating(self, "adaptive_avg_pool3d_cpu");
  const Ints3 out{output_size[0], output_size[1], output_size[2]};
  const bool batched = nd == 5;
  Tensor y = adaptive_avg_pool3d_core(batched ? self : self.unsqueeze(0), out);
  return batched ? y : y.squeeze(0);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_max_pool3d: undefined input tensor");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(nd == 4 || nd == 5, "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {}",
                  shape_str(self.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(
        self.size(i) > 0,
        "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input "
        "has sizes {} with dimension {} being empty",
        shape_str(self.sizes()), i);
  EMBER_CHECK_ARG(output_size.size() == 3,
                  "adaptive_max_pool3d(): internal error: output_size.size() must be 3");
  const Ints3 out{output_size[0], output_size[1], output_size[2]};
  std::vector<int64_t> out_sizes(self.sizes().begin(), self.sizes().end() - 3);
  out_sizes.insert(out_sizes.end(), out.begin(), out.end());
  for (int64_t v : out)
    EMBER_CHECK_ARG(v >= 0, "Trying to create tensor with negative dimension {}: {}", v,
                    shape_str(out_sizes));
  EMBER_CHECK_TYPED(is_floating_point(self.dtype()) && self.dtype() != kHalf, NotImplemented,
                    "\"adaptive_max_pool3d_cpu\" not implemented for '{}'", torch_name(self.dtype()));
  return batched(self, [&](const Tensor& x) {
    return max_at_volume_positions(x, adaptive_windows_3d(x.size(2), x.size(3), x.size(4), out, x.device()),
                                   out);
  });
}

Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  EMBER_CHECK_ARG(self.defined() && indices.defined(), "max_unpool3d: undefined input or indices tensor");
  EMBER_CHECK_ARG(indices.dtype() == kInt64, "elements in indices should be type int64");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(
      nd == 4 || nd == 5,
      "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {} dimensions.", nd);
  EMBER_CHECK_ARG(
      output_size.size() == 3,
      "There should be exactly three elements (depth, height, width) in output_size, but got {} elements.",
      output_size.size());
  EMBER_CHECK_ARG(
      stride.size() == 3,
      "There should be exactly three elements (depth, height, width) in stride, but got: {} elements.",
      stride.size());
  EMBER_CHECK_ARG(
      padding.size() == 3,
      "There should be exactly three elements (depth, height, width) in padding, but got: {} elements.",
      padding.size());
  EMBER_CHECK_ARG(
      self.sizes() == indices.sizes(),
      "Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor "
      "with shape: {}",
      shape_str(self.sizes()), shape_str(indices.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(self.size(i) > 0,
                    "max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                    "dimensions, but got {} with dimension {} being empty.",
                    shape_str(self.sizes()), i);
  EMBER_CHECK_ARG(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
                  "strides should be greater than zero, but got stride: {}", shape_str(stride));
  const int64_t ot = output_size[0], oh = output_size[1], ow = output_size[2];
  EMBER_CHECK_ARG(ot >= 0 && oh >= 0 && ow >= 0, "numel: integer multiplication overflow");  // resize_'s
  const Tensor x = nd == 5 ? self : self.unsqueeze(0), idx = nd == 5 ? indices : indices.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1), volume = x.size(2) * x.size(3) * x.size(4);
  const int64_t out_volume = ot * oh * ow;
  if (n * c * out_volume != 0) {
    // libtorch's kernel (run for a non-empty output only): floating types, and an index
    // outside the volume reported (the last one its loop meets).
    EMBER_CHECK_TYPED(is_floating_point(self.dtype()), NotImplemented,
                      "\"max_unpool3d\" not implemented for '{}'", torch_name(self.dtype()));
    NoGradGuard no_grad;
    const Tensor flat = idx.reshape({-1}), bad = logical_or(flat < 0, flat >= out_volume);
    if (bad.any().item<bool>()) {
      const Tensor at = bad.nonzero().reshape({-1});
      const int64_t value = flat[at[-1].item<int64_t>()].item<int64_t>();
      EMBER_THROW(InvalidArgument, "Found an invalid max index: {} (output volumes are of size {}x{}x{}",
                  value, ot, oh, ow);
    }
  }
  const Tensor out = zeros({n, c, out_volume}, x.options())
                         .scatter(2, idx.reshape({n, c, volume}), x.reshape({n, c, volume}));
  return nd == 5 ? out.view({n, c, ot, oh, ow}) : out.view({c, ot, oh, ow});
}

std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples) {
  EMBER_CHECK_ARG(self.defined(), "fractional_max_pool3d: undefined input tensor");
  EMBER_CHECK_ARG(random_samples.defined(),
                  "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #3 "
                  "'random_samples'");
  EMBER_CHECK_ARG(kernel_size.size() == 3,
                  "fractional_max_pool3d: kernel_size must either be a single Int or tuple of three Ints");
  EMBER_CHECK_ARG(output_size.size() == 3,
                  "fractional_max_pool3d: output_size must either be a single Int or tuple of three Ints");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(nd == 4 || nd == 5, "fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: {}",
                  shape_str(self.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(self.size(i) > 0,
                    "fractional_max_pool3d_out(): Expected input to have non-zero size for non-batch "
                    "dimensions, but got{} with dimension {} being empty.",
                    shape_str(self.sizes()), i);
  const Ints3 k{kernel_size[0], kernel_size[1], kernel_size[2]};
  const Ints3 out{output_size[0], output_size[1], output_size[2]};
  const char* names[] = {"time", "height", "width"};
  for (size_t d = 0; d < 3; ++d) {
    const int64_t in = self.size(int64_t(d) - 3);
    EMBER_CHECK_ARG(out[d] + k[d] - 1 < in,
                    "fractional_max_pool3d_out(): pool {} {} too large relative to input {} {}", names[d],
                    k[d], names[d], in);
  }
  // libtorch runs windows of no element (never read); ember requires them non-empty.
  EMBER_CHECK_ARG(
      k[0] > 0 && k[1] > 0 && k[2] > 0 && out[0] >= 0 && out[1] >= 0 && out[2] >= 0,
      "fractional_max_pool3d(): expected positive kernel_size and non-negative output_size, but got "
      "kernel_size {} and output_size {}",
      shape_str(kernel_size), shape_str(output_size));
  const int64_t n = nd == 5 ? self.size(0) : 1, c = self.size(-4);
  EMBER_CHECK_TYPED(self.dtype() == kFloat || self.dtype() == kDouble, NotImplemented,
                    "\"fractional_max_pool3d_out_frame\" not implemented for '{}'", torch_name(self.dtype()));
  EMBER_CHECK_ARG(random_samples.dtype() == self.dtype(), "expected scalar type {} but found {}",
                  torch_name(self.dtype()), torch_name(random_samples.dtype()));
  // libtorch reads the samples unchecked; ember requires (at least) one triple per plane.
  EMBER_CHECK_ARG(random_samples.dim() == 3 && random_samples.size(0) >= n && random_samples.size(1) >= c &&
                      random_samples.size(2) == 3,
                  "fractional_max_pool3d(): expected random_samples of size [{}, {}, 3], but got {}", n, c,
                  shape_str(random_samples.sizes()));
  const Tensor samples = random_samples.slice(0, 0, n).slice(1, 0, c);
  return batched(self, [&](const Tensor& x) {
    const Tensor windows = x.dtype() == kFloat ? fractional_windows_3d<float>(x, samples, k, out)
                                               : fractional_windows_3d<double>(x, samples, k, out);
    return max_at_volume_positions(x, windows, out);
  });
}

namespace nn::functional {

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return ember::max_pool3d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),
                                        o.ceil_mode());
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return ember::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(),
                           o.count_include_pad(), o.divisor_override());
}

namespace {
// libtorch's _list_with_default: a None element keeps the input's size there.
std::vector<int64_t> with_default(const Tensor& input, const ExpandingArrayWithOptionalElem<3>& size) {
  EMBER_CHECK_ARG(input.dim() > 3, "Input dimension should be at least 4");
  std::vector<int64_t> out;
  for (int64_t d = 0; d < 3; ++d) out.push_back((*size)[size_t(d)].value_or(input.size(d - 3)));
  return out;
}
}  // namespace

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "adaptive_avg_pool3d: undefined input tensor");
  return ember::adaptive_avg_pool3d(input, with_default(input, o.output_size()));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "adaptive_max_pool3d: undefined input tensor");
  return ember::adaptive_max_pool3d(input, with_default(input, o.output_size()));
}

Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, o));
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined() && indices.defined(), "max_unpool3d: undefined input or indices tensor");
  if (input.dim() < 4) return ember::max_unpool3d(input, indices, {0, 0, 0}, o.stride(), o.padding());
  return ember::max_unpool3d(
      input, indices,
      nn::detail::unpool_output_size(input, o.kernel_size(), o.stride(), o.padding(), o.output_size()),
      o.stride(), o.padding());
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "fractional_max_pool3d: undefined input tensor");
  EMBER_CHECK_ARG(o.output_size() || o.output_ratio(),
                  "fractional_max_pool3d requires specifying either an output_size or an output_ratio");
  std::vector<int64_t> size;
  if (o.output_size()) {
    size = {(**o.output_size())[0], (**o.output_size())[1], (**o.output_size())[2]};
  } else {
    nn::detail::check_dim_index(input, -3);
    const auto& ratio = **o.output_ratio();
    for (int64_t d = 0; d < 3; ++d) size.push_back(int64_t(double(input.size(d - 3)) * ratio[size_t(d)]));
  }
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    nn::detail::check_dim_index(input, 0);
    nn::detail::check_dim_index(input, -4);
    samples = rand({input.dim() == 4 ? 1 : input.size(0), input.size(-4), 3}, input.options());
  }
  return ember::fractional_max_pool3d(input, o.kernel_size(), size, samples);
}

Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& o) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, o));
}

}  // namespace nn::functional

namespace nn {

Tensor MaxPool3dImpl::forward(const Tensor& input) { return functional::max_pool3d(input, options); }

std::tuple<Tensor, Tensor> MaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool3d_with_indices(input, options);
}

void MaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "MaxPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool3dImpl::forward(const Tensor& input) { return functional::avg_pool3d(input, options); }

Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool3d(input, options);
}

Tensor AdaptiveMaxPool3dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool3d(input, options);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool3d_with_indices(input, options);
}

Tensor MaxUnpool3dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return functional::max_unpool3d(input, indices,
                                  functional::MaxUnpool3dFuncOptions(options.kernel_size())
                                      .stride(options.stride())
                                      .padding(options.padding())
                                      .output_size(output_size));
}

FractionalMaxPool3dImpl::FractionalMaxPool3dImpl(FractionalMaxPool3dOptions options)
    : options(std::move(options)) {
  reset();  // NOLINT(clang-analyzer-optin.cplusplus.VirtualCall): as libtorch's
}

void FractionalMaxPool3dImpl::reset() {
  _random_samples = register_buffer("_random_samples", options._random_samples());
  EMBER_CHECK_ARG(options.output_size() || options.output_ratio(),
                  "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio");
  EMBER_CHECK_ARG(!(options.output_size() && options.output_ratio()),
                  "only one of output_size and output_ratio may be specified");
  if (options.output_ratio()) {
    const ArrayRef<double> ratio = *options.output_ratio();
    std::ostringstream got;
    got << ratio;
    EMBER_CHECK_ARG(
        0 < ratio[0] && ratio[0] < 1 && 0 < ratio[1] && ratio[1] < 1 && 0 < ratio[2] && ratio[2] < 1,
        "output_ratio must be between 0 and 1 (got {})", got.str());
  }
}

Tensor FractionalMaxPool3dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

std::tuple<Tensor, Tensor> FractionalMaxPool3dImpl::forward_with_indices(const Tensor& input) {
  functional::FractionalMaxPool3dFuncOptions o = options;
  o._random_samples(_random_samples);
  return functional::fractional_max_pool3d_with_indices(input, o);
}

void FractionalMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "FractionalMaxPool3d()";
}

}  // namespace nn
}  // namespace ember
