// The pooling ops whose windows are lists of positions rather than a regular grid, and
// max unpooling, composed from ordinary ops:
// - adaptive max: each bin's flat positions (a shorter bin repeating its last one) gathered
//   and reduced with max; the first maximum's position is the index, as libtorch's
//   row-major scan with a strict '>'.
// - fractional max: kernel_size windows starting where libtorch's interval sequence puts
//   them, computed in the input's float type from each plane's (w, h) samples.
// - max unpool: a scatter of the values into zeros at their flat indices, whose gradient
//   (a gather at the indices) is libtorch's max_unpool2d backward.
// Checks follow libtorch 1.13's order and texts.
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"
#include "nn/pooling_internal.h"
#include "tensor/tensor_factory.h"

namespace ember {

using ember::detail::shape_str;
using ember::detail::torch_name;
using nn::detail::bin_end;
using nn::detail::bin_start;
using nn::detail::check_floating;
using nn::detail::check_one;
using nn::detail::check_two_or_three_dims;
using nn::detail::max_at_positions;
using nn::detail::unpool_output_size;

namespace nn::detail {

std::tuple<Tensor, Tensor> max_at_positions(const Tensor& x, const Tensor& windows) {
  const int64_t n = x.size(0), c = x.size(1), oh = windows.size(2), ow = windows.size(3), k = windows.size(4);
  const Tensor flat = x.reshape({n, c, x.size(2) * x.size(3)});
  Tensor values, pos;
  {
    NoGradGuard no_grad;
    const Tensor sites = windows.expand({n, c, oh, ow, k}).reshape({n, c, oh * ow * k});
    const Tensor candidates = flat.gather(2, sites).view({n, c, oh, ow, k});
    Tensor which;
    std::tie(values, which) = candidates.max(4);
    if (is_floating_point(x.dtype()) && values.isnan().any().item<bool>()) {
      // libtorch's scan ('>' or isnan) ends on a window's last NaN.
      const Tensor nan_at =
          candidates.isnan().to(kInt64) * arange(1, k + 1, TensorOptions(kInt64).device(x.device()));
      const Tensor last_nan = std::get<1>(nan_at.max(4));
      which = where(values.isnan(), last_nan, which);
    }
    pos = sites.view({n, c, oh, ow, k}).gather(4, which.unsqueeze(4)).squeeze(4);
  }
  if (GradMode::is_enabled() && x.requires_grad())
    values = flat.gather(2, pos.reshape({n, c, oh * ow})).view({n, c, oh, ow});
  return {values, pos};
}

// Reads the last D dims of the input as Python's, so that unbatched inputs work.
std::vector<int64_t> unpool_output_size(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding,
                                        const std::optional<std::vector<int64_t>>& output_size) {
  const int64_t d_count = int64_t(kernel_size.size());
  std::vector<int64_t> default_size;
  for (int64_t d = 0; d < d_count; ++d)
    default_size.push_back((input.size(input.dim() - d_count + d) - 1) * stride[d] + kernel_size[d] -
                           2 * padding[d]);
  if (!output_size) return default_size;
  std::vector<int64_t> size = *output_size;
  if (int64_t(size.size()) == d_count + 2) size.erase(size.begin(), size.begin() + 2);
  EMBER_CHECK_ARG(
      int64_t(size.size()) == d_count,
      "output_size should be a sequence containing {} or {} elements, but it has a length of '{}'", d_count,
      d_count + 2, output_size->size());
  for (int64_t d = 0; d < d_count; ++d) {
    const int64_t min_size = default_size[size_t(d)] - stride[d],
                  max_size = default_size[size_t(d)] + stride[d];
    EMBER_CHECK_ARG(min_size <= size[size_t(d)] && size[size_t(d)] <= max_size,
                    "invalid output_size {} (dim {} must be between {} and {})", fmt::join(size, " "), d,
                    min_size, max_size);
  }
  return size;
}

}  // namespace nn::detail

namespace {

// The positions of the adaptive bins of an H x W plane, as max_at_positions' windows.
Tensor adaptive_windows(int64_t h, int64_t w, int64_t oh, int64_t ow, Device device) {
  int64_t kh = 1, kw = 1;
  for (int64_t i = 0; i < oh; ++i) kh = std::max(kh, bin_end(i, h, oh) - bin_start(i, h, oh));
  for (int64_t j = 0; j < ow; ++j) kw = std::max(kw, bin_end(j, w, ow) - bin_start(j, w, ow));
  std::vector<int64_t> pos;
  pos.reserve(size_t(oh * ow * kh * kw));
  for (int64_t i = 0; i < oh; ++i) {
    const int64_t h0 = bin_start(i, h, oh), hs = bin_end(i, h, oh) - h0;
    for (int64_t j = 0; j < ow; ++j) {
      const int64_t w0 = bin_start(j, w, ow), ws = bin_end(j, w, ow) - w0;
      for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = 0; b < kw; ++b)
          pos.push_back((h0 + std::min(a, hs - 1)) * w + w0 + std::min(b, ws - 1));
    }
  }
  return tensor(pos).to(kInt64).view({1, 1, oh, ow, kh * kw}).to(device);
}

// The windows of every plane of x (N, C, H, W) from samples (N, C, 2): (w, h) per plane.
template <class T>
Tensor fractional_windows(const Tensor& x, const Tensor& samples, int64_t kh, int64_t kw, int64_t oh,
                          int64_t ow) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const Tensor s = samples.detach().to(Device(kCPU)).to(kDouble).contiguous();
  const double* sp = s.data_ptr<double>();
  std::vector<int64_t> pos;
  pos.reserve(size_t(n * c * oh * ow * kh * kw));
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const std::vector<int64_t> cols =
        nn::detail::fractional_intervals<T>(static_cast<T>(sp[2 * plane]), w, ow, kw);
    const std::vector<int64_t> rows =
        nn::detail::fractional_intervals<T>(static_cast<T>(sp[2 * plane + 1]), h, oh, kh);
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t a = 0; a < kh; ++a)
          for (int64_t b = 0; b < kw; ++b) pos.push_back((rows[size_t(i)] + a) * w + cols[size_t(j)] + b);
  }
  return tensor(pos).to(kInt64).view({n, c, oh, ow, kh * kw}).to(x.device());
}

// Runs f on (N, C, ...) and drops the batch dim again for an unbatched (C, ...) input.
template <class F>
std::tuple<Tensor, Tensor> batched(const Tensor& self, int64_t batched_dims, F f) {
  if (self.dim() == batched_dims) return f(self);
  auto [values, indices] = f(self.unsqueeze(0));
  return {values.squeeze(0), indices.squeeze(0)};
}

}  // namespace

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_max_pool2d: undefined input tensor");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(nd == 3 || nd == 4, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {}",
                  shape_str(self.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(
        self.size(i) > 0,
        "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
        "input has sizes {} with dimension {} being empty",
        shape_str(self.sizes()), i);
  EMBER_CHECK_ARG(output_size.size() == 2,
                  "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  const int64_t oh = output_size[0], ow = output_size[1];
  std::vector<int64_t> out_sizes(self.sizes().begin(), self.sizes().end() - 2);
  out_sizes.push_back(oh);
  out_sizes.push_back(ow);
  EMBER_CHECK_ARG(oh >= 0 && ow >= 0, "Trying to create tensor with negative dimension {}: {}",
                  oh < 0 ? oh : ow, shape_str(out_sizes));
  EMBER_CHECK_TYPED(is_floating_point(self.dtype()) && self.dtype() != kHalf, NotImplemented,
                    "\"adaptive_max_pool2d\" not implemented for '{}'", torch_name(self.dtype()));
  return batched(self, 4, [&](const Tensor& x) {
    return max_at_positions(x, adaptive_windows(x.size(2), x.size(3), oh, ow, x.device()));
  });
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined(), "adaptive_max_pool1d: undefined input tensor");
  check_two_or_three_dims(self, "adaptive_max_pool1d");
  check_one(output_size, "adaptive_max_pool1d", "output_size");
  auto [values, indices] = adaptive_max_pool2d(self.unsqueeze(-2), {1, output_size[0]});
  return {values.squeeze(-2), indices.squeeze(-2)};
}

Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  EMBER_CHECK_ARG(self.defined() && indices.defined(), "max_unpool2d: undefined input or indices tensor");
  EMBER_CHECK_ARG(indices.dtype() == kInt64, "elements in indices should be type int64 but got: {}",
                  torch_name(indices.dtype()));
  EMBER_CHECK_ARG(output_size.size() == 2,
                  "There should be exactly two elements (height, width) in output_size, but got {} elements.",
                  output_size.size());
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(
      nd == 3 || nd == 4,
      "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {} dimensions.", nd);
  EMBER_CHECK_ARG(
      self.sizes() == indices.sizes(),
      "Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor "
      "with shape: {}",
      shape_str(self.sizes()), shape_str(indices.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(self.size(i) > 0,
                    "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                    "dimensions, but got {} with dimension {} being empty.",
                    shape_str(self.sizes()), i);
  const int64_t oh = output_size[0], ow = output_size[1];
  EMBER_CHECK_ARG(oh >= 0 && ow >= 0, "numel: integer multiplication overflow");  // libtorch's resize_
  const Tensor x = nd == 4 ? self : self.unsqueeze(0), idx = nd == 4 ? indices : indices.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1), plane = x.size(2) * x.size(3);
  if (n * c * oh * ow != 0) {
    // libtorch's kernel (run for a non-empty output only): floating types, and an index
    // outside the plane reported (the last one its loop meets).
    EMBER_CHECK_TYPED(self.dtype() == kFloat || self.dtype() == kDouble, NotImplemented,
                      "\"max_unpool2d\" not implemented for '{}'", torch_name(self.dtype()));
    NoGradGuard no_grad;
    const Tensor flat = idx.reshape({-1}), bad = logical_or(flat < 0, flat >= oh * ow);
    if (bad.any().item<bool>()) {
      const Tensor at = bad.nonzero().reshape({-1});
      const int64_t value = flat[at[-1].item<int64_t>()].item<int64_t>();
      EMBER_THROW(InvalidArgument, "Found an invalid max index: {} (output volumes are of size {}x{}", value,
                  oh, ow);
    }
  }
  const Tensor out =
      zeros({n, c, oh * ow}, x.options()).scatter(2, idx.reshape({n, c, plane}), x.reshape({n, c, plane}));
  return nd == 4 ? out.view({n, c, oh, ow}) : out.view({c, oh, ow});
}

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                 IntArrayRef output_size, const Tensor& random_samples) {
  EMBER_CHECK_ARG(self.defined(), "fractional_max_pool2d: undefined input tensor");
  EMBER_CHECK_ARG(random_samples.defined(),
                  "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #3 "
                  "'random_samples'");
  EMBER_CHECK_ARG(kernel_size.size() == 2,
                  "fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints");
  EMBER_CHECK_ARG(output_size.size() == 2,
                  "fractional_max_pool2d: output_size must either be a single Int or tuple of Ints");
  const int64_t nd = self.dim();
  EMBER_CHECK_ARG(nd == 3 || nd == 4, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: {}",
                  shape_str(self.sizes()));
  for (int64_t i = 1; i < nd; ++i)
    EMBER_CHECK_ARG(
        self.size(i) > 0,
        "fractional_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
        "got{} with dimension {} being empty.",
        shape_str(self.sizes()), i);
  const int64_t oh = output_size[0], ow = output_size[1], kh = kernel_size[0], kw = kernel_size[1];
  const int64_t h = self.size(-2), w = self.size(-1);
  EMBER_CHECK_ARG(oh + kh - 1 <= h,
                  "fractional_max_pool2d(): pool height {} too large relative to input height {}", kh, h);
  EMBER_CHECK_ARG(ow + kw - 1 <= w,
                  "fractional_max_pool2d(): pool width {} too large relative to input width {}", kw, w);
  EMBER_CHECK_ARG(
      kh > 0 && kw > 0 && oh >= 0 && ow >= 0,
      "fractional_max_pool2d(): expected positive kernel_size and non-negative output_size, but got "
      "kernel_size {} and output_size {}",
      shape_str(kernel_size), shape_str(output_size));
  const int64_t n = nd == 4 ? self.size(0) : 1, c = self.size(-3);
  EMBER_CHECK_TYPED(self.dtype() == kFloat || self.dtype() == kDouble, NotImplemented,
                    "\"fractional_max_pool2d_out_frame\" not implemented for '{}'", torch_name(self.dtype()));
  EMBER_CHECK_ARG(random_samples.dtype() == self.dtype(), "expected scalar type {} but found {}",
                  torch_name(self.dtype()), torch_name(random_samples.dtype()));
  // libtorch reads the samples unchecked; ember requires (at least) one pair per plane.
  EMBER_CHECK_ARG(random_samples.dim() == 3 && random_samples.size(0) >= n && random_samples.size(1) >= c &&
                      random_samples.size(2) == 2,
                  "fractional_max_pool2d(): expected random_samples of size [{}, {}, 2], but got {}", n, c,
                  shape_str(random_samples.sizes()));
  const Tensor samples = random_samples.slice(0, 0, n).slice(1, 0, c);
  return batched(self, 4, [&](const Tensor& x) {
    const Tensor windows = x.dtype() == kFloat ? fractional_windows<float>(x, samples, kh, kw, oh, ow)
                                               : fractional_windows<double>(x, samples, kh, kw, oh, ow);
    return max_at_positions(x, windows);
  });
}

namespace nn::functional {

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& o) {
  return ember::adaptive_max_pool1d(input, o.output_size());
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "adaptive_max_pool2d: undefined input tensor");
  // None keeps the input's size (libtorch's _list_with_default).
  EMBER_CHECK_ARG(input.dim() > 2, "Input dimension should be at least 3");
  const auto& size = *o.output_size();
  return ember::adaptive_max_pool2d(input,
                                    {size[0].value_or(input.size(-2)), size[1].value_or(input.size(-1))});
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined() && indices.defined(), "max_unpool1d: undefined input or indices tensor");
  // As libtorch: max_unpool2d over a width of 1.
  if (input.dim() < 2) return ember::max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), {0, 1});
  std::vector<int64_t> size =
      unpool_output_size(input, o.kernel_size(), o.stride(), o.padding(), o.output_size());
  size.push_back(1);
  return ember::max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size).squeeze(-1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined() && indices.defined(), "max_unpool2d: undefined input or indices tensor");
  if (input.dim() < 3) return ember::max_unpool2d(input, indices, {0, 0});  // its dims error
  return ember::max_unpool2d(
      input, indices, unpool_output_size(input, o.kernel_size(), o.stride(), o.padding(), o.output_size()));
}

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& o) {
  EMBER_CHECK_ARG(input.defined(), "fractional_max_pool2d: undefined input tensor");
  EMBER_CHECK_ARG(o.output_size() || o.output_ratio(),
                  "fractional_max_pool2d requires specifying either an output_size or an output_ratio");
  std::vector<int64_t> size;
  if (o.output_size()) {
    size = {(**o.output_size())[0], (**o.output_size())[1]};
  } else {
    nn::detail::check_dim_index(input, -2);
    const auto& ratio = **o.output_ratio();
    size = {int64_t(double(input.size(-2)) * ratio[0]), int64_t(double(input.size(-1)) * ratio[1])};
  }
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    nn::detail::check_dim_index(input, 0);
    nn::detail::check_dim_index(input, -3);
    samples = rand({input.dim() == 3 ? 1 : input.size(0), input.size(-3), 2}, input.options());
  }
  return ember::fractional_max_pool2d(input, o.kernel_size(), size, samples);
}

Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& o) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, o));
}

}  // namespace nn::functional
}  // namespace ember
