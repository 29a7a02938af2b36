// conv_transpose1d / 2d / 3d as composite ops, the adjoint of conv's im2col + GEMM:
// per group, columns = weight^T x input ([N, C_out, kH, kW, H, W]); col2im adds each column
// into the full output plane, and the padding is cropped off its borders. The gradient
// of col2im is im2col, so autograd (double backward included) follows from those ops.
#include "ember/nn/conv_transpose.h"

#include <vector>

#include "core/check.h"
#include "dispatch/autocast.h"
#include "ember/ops.h"
#include "nn/conv_checks.h"
#include "nn/sliding_windows.h"

namespace ember {

namespace {

using nn::detail::ConvParams;

// The transposed convolution of a checked, batched 4-D input.
Tensor conv_transpose2d_columns(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                const ConvParams& p) {
  const int64_t n = input.size(0), c_in = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t g = p.groups, out_c = weight.size(1) * g, kh = weight.size(2), kw = weight.size(3);
  const int64_t k = out_c / g * kh * kw;
  // [N, G, C_out / G * kH * kW, H * W]: each group's weight transposed times its channels.
  const Tensor wt = weight.reshape({g, c_in / g, k}).transpose(1, 2);
  const Tensor cols = g == 1 ? matmul(wt.squeeze(0), input.reshape({n, c_in, h * w}))
                             : matmul(wt, input.reshape({n, g, c_in / g, h * w}));
  const nn::detail::Window2d win{kh, kw, p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]};
  const int64_t full_h = (h - 1) * p.stride[0] + p.dilation[0] * (kh - 1) + 1 + p.output_padding[0];
  const int64_t full_w = (w - 1) * p.stride[1] + p.dilation[1] * (kw - 1) + 1 + p.output_padding[1];
  Tensor y = nn::detail::fold_windows(cols.view({n, out_c, kh, kw, h, w}), {n, out_c, full_h, full_w}, win);
  const int64_t ph = p.padding[0], pw = p.padding[1];
  if (ph > 0 || pw > 0) y = y.slice(2, ph, full_h - ph).slice(3, pw, full_w - pw);
  return bias.defined() ? y + bias.view({1, out_c, 1, 1}) : y;
}

// The transposed convolution of a checked, batched 5-D input, as conv_transpose2d_columns
// with a depth (the N-D col2im).
Tensor conv_transpose3d_columns(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                const ConvParams& p) {
  const int64_t n = input.size(0), c_in = input.size(1), g = p.groups, out_c = weight.size(1) * g;
  const int64_t l = input.size(2) * input.size(3) * input.size(4);
  nn::detail::WindowNd win{{weight.size(2), weight.size(3), weight.size(4)}, p.stride, p.dilation};
  const int64_t k = out_c / g * win.kernel[0] * win.kernel[1] * win.kernel[2];
  const Tensor wt = weight.reshape({g, c_in / g, k}).transpose(1, 2);
  const Tensor cols = g == 1 ? matmul(wt.squeeze(0), input.reshape({n, c_in, l}))
                             : matmul(wt, input.reshape({n, g, c_in / g, l}));
  std::vector<int64_t> cols_sizes{n, out_c}, full{n, out_c};
  cols_sizes.insert(cols_sizes.end(), win.kernel.begin(), win.kernel.end());
  for (size_t d = 0; d < 3; ++d) {
    const int64_t in = input.size(int64_t(d) + 2);
    cols_sizes.push_back(in);
    full.push_back((in - 1) * p.stride[d] + p.dilation[d] * (win.kernel[d] - 1) + 1 + p.output_padding[d]);
  }
  Tensor y = nn::detail::fold_windows_nd(cols.view(cols_sizes), full, win);
  for (size_t d = 0; d < 3; ++d)
    if (p.padding[d] > 0) y = y.slice(int64_t(d) + 2, p.padding[d], full[d + 2] - p.padding[d]);
  return bias.defined() ? y + bias.view({1, out_c, 1, 1, 1}) : y;
}

Tensor conv_transpose_nd(const char* op, int64_t spatial, const Tensor& input, const Tensor& weight,
                         const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  // Autocast's low list, as the convolutions.
  if (EMBER_AUTOCAST_LOW_ANY(&input, &weight, &bias))
    return conv_transpose_nd(op, spatial, ember::detail::autocast_low(input),
                             ember::detail::autocast_low(weight), ember::detail::autocast_low(bias), stride,
                             padding, output_padding, groups, dilation);
  auto [x, batched] = nn::detail::batchify(input, spatial, op);
  if (spatial != 3) nn::detail::check_bias_type(x, bias);  // slow_conv_transpose3d checks it later
  EMBER_CHECK_ARG(weight.defined(), "{}: the weight is an undefined tensor", op);
  EMBER_CHECK_ARG(groups > 0, "non-positive groups is not supported");
  using nn::detail::expand_param;
  ConvParams p{expand_param(stride, "stride", spatial), expand_param(padding, "padding", spatial),
               expand_param(dilation, "dilation", spatial), groups,
               expand_param(output_padding, "output_padding", spatial)};
  nn::detail::check_conv(x, weight, bias, p, /*transposed=*/true);
  Tensor y;
  if (spatial == 3) {
    y = conv_transpose3d_columns(x, weight, bias, p);
  } else if (spatial == 2) {
    y = conv_transpose2d_columns(x, weight, bias, p);
  } else {  // 1-D runs as 2-D with a height of 1
    for (auto* v : {&p.stride, &p.dilation}) v->insert(v->begin(), 1);
    for (auto* v : {&p.padding, &p.output_padding}) v->insert(v->begin(), 0);
    y = conv_transpose2d_columns(x.unsqueeze(2), weight.unsqueeze(2), bias, p).squeeze(2);
  }
  return batched ? y : y.squeeze(0);
}

}  // namespace

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding,
                           groups, dilation);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding,
                           groups, dilation);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return conv_transpose_nd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding,
                           groups, dilation);
}

namespace nn::functional {

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const ConvTranspose1dFuncOptions& o) {
  return ember::conv_transpose1d(input, weight, o.bias(), o.stride(), o.padding(), o.output_padding(),
                                 o.groups(), o.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& o) {
  return ember::conv_transpose2d(input, weight, o.bias(), o.stride(), o.padding(), o.output_padding(),
                                 o.groups(), o.dilation());
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& o) {
  return ember::conv_transpose3d(input, weight, o.bias(), o.stride(), o.padding(), o.output_padding(),
                                 o.groups(), o.dilation());
}

}  // namespace nn::functional
}  // namespace ember
