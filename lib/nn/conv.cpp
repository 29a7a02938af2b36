// conv1d / conv2d / conv3d as composite ops: zero padding (constant_pad_nd), the input's sliding
// windows copied as columns [N, C, kH, kW, OH, OW] (im2col) and a batched matmul with the
// weight viewed as [groups, C_out / groups, C_in / groups * kH * kW] (3-D: the N-D windows,
// [N, C, kD, kH, kW, OD, OH, OW]); autograd follows
// from those ops. Where the device has a library kernel (oneDNN, cuDNN), that runs instead
// (Note [Library kernels] in conv_library.cpp). Checks come in libtorch 1.13's order with its texts.
#include "ember/nn/conv.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "ember/ops.h"
#include "nn/conv_checks.h"
#include "nn/conv_library.h"
#include "nn/sliding_windows.h"
#include "tensor/memory_format.h"
#include "tensor/tensor_factory.h"

namespace ember {

using ember::detail::shape_str;
using nn::detail::batchify;
using nn::detail::ConvParams;
using nn::detail::expand_param;

namespace nn::detail {

Tensor conv_columns(const Tensor& input, IntArrayRef kernel, const ConvParams& p, std::vector<int64_t>& out) {
  const size_t spatial = kernel.size();
  std::vector<int64_t> pad_nd;
  for (size_t i = spatial; i-- > 0;) pad_nd.insert(pad_nd.end(), {p.padding[i], p.padding[i]});
  const bool padded = std::any_of(pad_nd.begin(), pad_nd.end(), [](int64_t v) { return v != 0; });
  const Tensor x = padded ? constant_pad_nd(input, pad_nd, 0) : input;
  out.clear();
  for (size_t d = 0; d < spatial; ++d)
    out.push_back((x.size(int64_t(d) + 2) - p.dilation[d] * (kernel[d] - 1) - 1) / p.stride[d] + 1);
  if (spatial == 2)
    return sliding_windows(
        x, Window2d{kernel[0], kernel[1], p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]}, out[0],
        out[1], {kWinBatch, kWinChannel, kWinKernelH, kWinKernelW, kWinOutH, kWinOutW});
  return sliding_windows_nd(x, WindowNd{kernel.vec(), p.stride, p.dilation}, out);
}

}  // namespace nn::detail

namespace {

// The convolution of a checked, batched 4-D or 5-D input: columns times the grouped weight.
// Per sample, each group's rows of the columns are contiguous. One GEMM per sample and
// group: the weight's gradient is then a batched product summed over the batch, much
// faster than one product with a batch-long inner dim (LeNet's layer: 4x).
Tensor conv_by_columns(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const int64_t n = input.size(0), c = input.size(1), out_c = weight.size(0), g = p.groups;
  const IntArrayRef kernel = weight.sizes().slice(2);
  std::vector<int64_t> out;
  const Tensor cols = nn::detail::conv_columns(input, kernel, p, out);
  int64_t k = c / g, l = 1;
  for (int64_t v : kernel) k *= v;
  for (int64_t v : out) l *= v;
  Tensor y = g == 1 ? matmul(weight.reshape({out_c, k}), cols.view({n, k, l}))
                    : matmul(weight.reshape({g, out_c / g, k}), cols.view({n, g, k, l}));
  std::vector<int64_t> sizes = {n, out_c}, bias_shape(out.size() + 2, 1);
  sizes.insert(sizes.end(), out.begin(), out.end());
  bias_shape[1] = out_c;
  y = y.view(sizes);
  return bias.defined() ? y + bias.view(bias_shape) : y;
}

// at::convolution for 1, 2 or 3 spatial dims (1-D runs as 2-D with a height of 1).
// `spatial`: the caller's dims (conv1d 1, ...), whose zero output_padding libtorch expands too.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups, int64_t spatial) {
  EMBER_CHECK_ARG(weight.defined(), "convolution: the weight is an undefined tensor");
  const int64_t dim = weight.dim() - 2;
  EMBER_CHECK_ARG(dim > 0, "weight should have at least three dimensions");
  EMBER_CHECK_ARG(groups > 0, "non-positive groups is not supported");
  ConvParams p{expand_param(stride, "stride", dim),
               expand_param(padding, "padding", dim),
               expand_param(dilation, "dilation", dim),
               groups,
               {}};
  expand_param(std::vector<int64_t>(size_t(spatial), 0), "output_padding", dim);
  nn::detail::check_conv(input, weight, bias, p, /*transposed=*/false);
  // Undefined when the library declines the shape (Note [Library kernels]): the portable form runs.
  if (nn::detail::library_convolution_applies(input, weight, bias))
    if (Tensor y = nn::detail::library_convolution(input, weight, bias, p); y.defined()) return y;
  // A channels-last input gives a channels-last output, as libtorch's.
  if (dim > 1) return ember::detail::in_layout_of(input, conv_by_columns(input, weight, bias, p));
  // Only conv1d reaches here with dim 1 (conv2d's input of 4 dims cannot match a 3-D weight).
  p.stride.insert(p.stride.begin(), 1);
  p.padding.insert(p.padding.begin(), 0);
  p.dilation.insert(p.dilation.begin(), 1);
  return conv_by_columns(input.unsqueeze(2), weight.unsqueeze(2), bias, p).squeeze(2);
}

// padding="same": symmetric where it can be, else an extra zero column on the right.
Tensor convolution_same(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef dilation, int64_t groups, int64_t spatial) {
  EMBER_CHECK_ARG(weight.defined(), "convolution: the weight is an undefined tensor");
  const int64_t k = weight.dim();
  EMBER_CHECK_ARG(k > 2, "weight should have at least three dimensions");
  const size_t dim = size_t(k - 2);
  EMBER_CHECK_ARG(
      k == input.dim(),
      "Expected {}-dimensional input for {}-dimensional weight{}, but got {}-dimensional input of size {} "
      "instead",
      k, k, shape_str(weight.sizes()), input.dim(), shape_str(input.sizes()));
  EMBER_CHECK_ARG(stride.size() == dim || stride.size() == 1, "stride cannot broadcast to {} dimensions",
                  dim);
  EMBER_CHECK_ARG(dilation.size() == dim || dilation.size() == 1,
                  "dilation cannot broadcast to {} dimensions", dim);
  for (int64_t s : stride)
    EMBER_CHECK_ARG(s == 1, "padding='same' is not supported for strided convolutions");
  std::vector<int64_t> pad_l(dim), pad_nd(2 * dim, 0);
  for (size_t i = 0; i < dim; ++i) {
    const int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
    const int64_t total = d * (weight.size(int64_t(i) + 2) - 1);
    pad_l[i] = total / 2;
    pad_nd[2 * (dim - 1 - i) + 1] = total - 2 * pad_l[i];  // the odd one out goes on the right
  }
  const bool symmetric = std::all_of(pad_nd.begin(), pad_nd.end(), [](int64_t v) { return v == 0; });
  return convolution(symmetric ? input : constant_pad_nd(input, pad_nd, 0), weight, bias, stride, pad_l,
                     dilation, groups, spatial);
}

Tensor conv_nd(const char* op, int64_t spatial, const Tensor& input, const Tensor& weight, const Tensor& bias,
               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  // Autocast's low list: the convolutions run in the low type, as libtorch's.
  if (EMBER_AUTOCAST_LOW_ANY(&input, &weight, &bias))
    return conv_nd(op, spatial, ember::detail::autocast_low(input), ember::detail::autocast_low(weight),
                   ember::detail::autocast_low(bias), stride, padding, dilation, groups);
  EMBER_CHECK_ARG(input.defined(), "{}: the input is an undefined tensor", op);
  // libtorch's slow_conv3d converts the bias to the input's type; the others refuse it.
  if (spatial != 3) nn::detail::check_bias_type(input, bias);
  const Tensor b =
      spatial == 3 && bias.defined() && bias.dtype() != input.dtype() ? bias.to(input.dtype()) : bias;
  auto [x, batched] = batchify(input, spatial, op);
  Tensor y = convolution(x, weight, b, stride, padding, dilation, groups, spatial);
  return batched ? y : y.squeeze(0);
}

Tensor conv_nd_mode(const char* op, int64_t spatial, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, IntArrayRef stride, ConvPaddingString padding_string,
                    IntArrayRef dilation, int64_t groups) {
  if (EMBER_AUTOCAST_LOW_ANY(&input, &weight, &bias))
    return conv_nd_mode(op, spatial, ember::detail::autocast_low(input), ember::detail::autocast_low(weight),
                        ember::detail::autocast_low(bias), stride, padding_string, dilation, groups);
  const std::string_view padding = padding_string.view();
  auto [x, batched] = batchify(input, spatial, op);
  const Tensor b =
      spatial == 3 && bias.defined() && x.defined() && bias.dtype() != x.dtype() ? bias.to(x.dtype()) : bias;
  Tensor y;
  if (padding == "same") {
    for (int64_t s : stride)
      EMBER_CHECK_ARG(s == 1, "padding='same' is not supported for strided convolutions");
    y = convolution_same(x, weight, b, stride, dilation, groups, spatial);
  } else {
    EMBER_CHECK_ARG(padding == "valid", "Invalid padding string: '{}'", padding);
    y = convolution(x, weight, b, stride, int64_t(0), dilation, groups, spatial);
  }
  return batched ? y : y.squeeze(0);
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingString padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingString padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              ConvPaddingString padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd_mode("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

namespace nn::functional {

namespace {
template <size_t D>
Tensor conv_options(Tensor (*conv_ints)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef,
                                        IntArrayRef, int64_t),
                    Tensor (*conv_mode)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef,
                                        ConvPaddingString, IntArrayRef, int64_t),
                    const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o) {
  if (auto kind = o.padding().kind())
    return conv_mode(input, weight, o.bias(), o.stride(), std::string_view(*kind == kSame ? "same" : "valid"),
                     o.dilation(), o.groups());
  return conv_ints(input, weight, o.bias(), o.stride(), o.padding().sizes(), o.dilation(), o.groups());
}
}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  return conv_options<1>(ember::conv1d, ember::conv1d, input, weight, options);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return conv_options<2>(ember::conv2d, ember::conv2d, input, weight, options);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return conv_options<3>(ember::conv3d, ember::conv3d, input, weight, options);
}

}  // namespace nn::functional
}  // namespace ember
