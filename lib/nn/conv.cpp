// conv1d / conv2d as composite ops: zero padding (constant_pad_nd), the input's sliding
// windows copied as columns [N, C, kH, kW, OH, OW] (im2col) and a batched matmul with the
// weight viewed as [groups, C_out / groups, C_in / groups * kH * kW]; autograd follows
// from those ops. Checks come in libtorch 1.13's order with its texts.
#include "ember/nn/conv.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/ops.h"
#include "nn/sliding_windows.h"
#include "tensor/tensor_factory.h"

namespace ember {

using ember::detail::shape_str;

namespace {

// caffe2's TypeMeta names, which libtorch's bias-type message prints.
const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kBool:
      return "bool";
    case kUInt8:
      return "unsigned char";
    case kInt8:
      return "signed char";
    case kInt16:
      return "short int";
    case kInt32:
      return "int";
    case kInt64:
      return "long int";
    case kHalf:
      return "c10::Half";
    case kBFloat16:
      return "c10::BFloat16";
    case kFloat:
      return "float";
    case kDouble:
      return "double";
  }
  return "?";
}

// (N, C, spatial...) or unbatched (C, spatial...): the batched form and whether it was.
std::pair<Tensor, bool> batchify(const Tensor& input, int64_t spatial, const char* op) {
  EMBER_CHECK_ARG(input.defined(), "{}: the input is an undefined tensor", op);
  const int64_t no_batch = spatial + 1, batch = spatial + 2;
  const bool batched = input.dim() == batch;
  EMBER_CHECK_ARG(input.dim() == no_batch || batched,
                  "Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}",
                  no_batch, batch, op, shape_str(input.sizes()));
  return {batched ? input : input.unsqueeze(0), batched};
}

std::vector<int64_t> expand_param(IntArrayRef list, const char* name, int64_t dim) {
  if (list.size() == 1) return std::vector<int64_t>(size_t(dim), list[0]);
  EMBER_CHECK_ARG(
      int64_t(list.size()) == dim,
      "expected {0} to be a single integer value or a list of {1} values to match the convolution "
      "dimensions, but got {0}={2}",
      name, dim, shape_str(list));
  return list.vec();
}

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
};

// libtorch's check_shape_forward (non-transposed), then its backend's dtype checks.
void check_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const int64_t k = input.dim();
  const IntArrayRef ws = weight.sizes();
  const int64_t weight_dim = weight.dim(), groups = p.groups;
  auto any = [](const std::vector<int64_t>& v, auto pred) { return std::any_of(v.begin(), v.end(), pred); };
  EMBER_CHECK_ARG(!any(p.padding, [](int64_t v) { return v < 0; }), "negative padding is not supported");
  EMBER_CHECK_ARG(!any(p.stride, [](int64_t v) { return v <= 0; }), "non-positive stride is not supported");
  EMBER_CHECK_ARG(
      weight_dim == k,
      "Expected {}-dimensional input for {}-dimensional weight {}, but got {}-dimensional input of size {} "
      "instead",
      weight_dim, weight_dim, shape_str(ws), k, shape_str(input.sizes()));
  EMBER_CHECK_ARG(
      ws[0] >= groups,
      "Given groups={}, expected weight to be at least {} at dimension 0, but got weight of size {} instead",
      groups, groups, shape_str(ws));
  // libtorch's text prints the weight's size in doubled brackets here.
  EMBER_CHECK_ARG(
      ws[0] % groups == 0,
      "Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size [{}] "
      "instead",
      groups, groups, shape_str(ws));
  EMBER_CHECK_ARG(
      input.size(1) == ws[1] * groups,
      "Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
      groups, shape_str(ws), shape_str(input.sizes()), ws[1] * groups, input.size(1));
  EMBER_CHECK_ARG(
      !bias.defined() || (bias.dim() == 1 && bias.size(0) == ws[0]),
      "Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size {} "
      "instead",
      shape_str(ws), ws[0], shape_str(bias.defined() ? bias.sizes() : IntArrayRef()));
  std::string in_text, kernel_text;
  bool fits = true;
  for (int64_t i = 2; i < k; ++i) {
    const int64_t in = input.size(i) + 2 * p.padding[size_t(i - 2)];
    const int64_t kernel = p.dilation[size_t(i - 2)] * (ws[size_t(i)] - 1) + 1;
    fits = fits && in >= kernel;
    in_text += (i > 2 ? " x " : "") + std::to_string(in);
    kernel_text += (i > 2 ? " x " : "") + std::to_string(kernel);
  }
  EMBER_CHECK_ARG(
      fits,
      "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater "
      "than actual input size",
      in_text, kernel_text);
  EMBER_CHECK_ARG(!any(p.dilation, [](int64_t v) { return v <= 0; }),
                  "dilation should be greater than zero, but got {}", shape_str(p.dilation));
  EMBER_CHECK_ARG(input.dtype() == weight.dtype(), "expected scalar type {} but found {}",
                  ember::detail::torch_name(input.dtype()), ember::detail::torch_name(weight.dtype()));
  EMBER_CHECK_TYPED(input.dtype() != kBool, NotImplemented, "\"slow_conv2d_cpu\" not implemented for 'Bool'");
}

// The convolution of a checked, batched 4-D input: columns times the grouped weight.
Tensor conv2d_columns(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const int64_t n = input.size(0), c = input.size(1), out_c = weight.size(0), g = p.groups;
  const int64_t kh = weight.size(2), kw = weight.size(3);
  const int64_t ph = p.padding[0], pw = p.padding[1];
  const Tensor x = ph == 0 && pw == 0 ? input : constant_pad_nd(input, {pw, pw, ph, ph}, 0);
  const nn::detail::Window2d win{kh, kw, p.stride[0], p.stride[1], p.dilation[0], p.dilation[1]};
  const int64_t oh = (x.size(2) - p.dilation[0] * (kh - 1) - 1) / p.stride[0] + 1;
  const int64_t ow = (x.size(3) - p.dilation[1] * (kw - 1) - 1) / p.stride[1] + 1;
  using namespace nn::detail;
  // [N, C, kH, kW, OH, OW]: per sample, each group's rows are contiguous. One GEMM per
  // sample and group: the weight's gradient is then a batched product summed over the
  // batch, much faster than one product with a batch-long inner dim (LeNet's layer: 4x).
  const Tensor cols = sliding_windows(x, win, oh, ow,
                                      {kWinBatch, kWinChannel, kWinKernelH, kWinKernelW, kWinOutH, kWinOutW});
  const int64_t k = c / g * kh * kw, l = oh * ow;
  Tensor y = g == 1 ? matmul(weight.reshape({out_c, k}), cols.view({n, k, l}))
                    : matmul(weight.reshape({g, out_c / g, k}), cols.view({n, g, k, l}));
  y = y.view({n, out_c, oh, ow});
  return bias.defined() ? y + bias.view({1, out_c, 1, 1}) : y;
}

// at::convolution for 1 or 2 spatial dims (1-D runs as 2-D with a height of 1).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK_ARG(weight.defined(), "convolution: the weight is an undefined tensor");
  const int64_t dim = weight.dim() - 2;
  EMBER_CHECK_ARG(dim > 0, "weight should have at least three dimensions");
  EMBER_CHECK_ARG(groups > 0, "non-positive groups is not supported");
  ConvParams p{expand_param(stride, "stride", dim), expand_param(padding, "padding", dim),
               expand_param(dilation, "dilation", dim), groups};
  check_conv(input, weight, bias, p);
  if (dim == 2) return conv2d_columns(input, weight, bias, p);
  // Only conv1d reaches here with dim 1 (conv2d's input of 4 dims cannot match a 3-D weight).
  p.stride.insert(p.stride.begin(), 1);
  p.padding.insert(p.padding.begin(), 0);
  p.dilation.insert(p.dilation.begin(), 1);
  return conv2d_columns(input.unsqueeze(2), weight.unsqueeze(2), bias, p).squeeze(2);
}

// padding="same": symmetric where it can be, else an extra zero column on the right.
Tensor convolution_same(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef dilation, int64_t groups) {
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
                     dilation, groups);
}

Tensor conv_nd(const char* op, int64_t spatial, const Tensor& input, const Tensor& weight, const Tensor& bias,
               IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  EMBER_CHECK_ARG(input.defined(), "{}: the input is an undefined tensor", op);
  EMBER_CHECK_ARG(!bias.defined() || bias.dtype() == input.dtype(),
                  "Input type ({}) and bias type ({}) should be the same", type_meta_name(input.dtype()),
                  type_meta_name(bias.dtype()));
  auto [x, batched] = batchify(input, spatial, op);
  Tensor y = convolution(x, weight, bias, stride, padding, dilation, groups);
  return batched ? y : y.squeeze(0);
}

Tensor conv_nd_mode(const char* op, int64_t spatial, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, IntArrayRef stride, ConvPaddingString padding_string,
                    IntArrayRef dilation, int64_t groups) {
  const std::string_view padding = padding_string.view();
  auto [x, batched] = batchify(input, spatial, op);
  Tensor y;
  if (padding == "same") {
    for (int64_t s : stride)
      EMBER_CHECK_ARG(s == 1, "padding='same' is not supported for strided convolutions");
    y = convolution_same(x, weight, bias, stride, dilation, groups);
  } else {
    EMBER_CHECK_ARG(padding == "valid", "Invalid padding string: '{}'", padding);
    y = convolution(x, weight, bias, stride, int64_t(0), dilation, groups);
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

}  // namespace nn::functional
}  // namespace ember
