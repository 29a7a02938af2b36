// The checks conv and conv_transpose share, with libtorch 1.13's order and texts.
#include "nn/conv_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn::detail {

using ember::detail::shape_str;

namespace {

bool any_of(const std::vector<int64_t>& v, bool (*pred)(int64_t)) {
  return std::any_of(v.begin(), v.end(), pred);
}

void check_dtypes(const Tensor& input, const Tensor& weight, const char* kernel) {
  EMBER_CHECK_ARG(input.dtype() == weight.dtype(), "expected scalar type {} but found {}",
                  ember::detail::torch_name(input.dtype()), ember::detail::torch_name(weight.dtype()));
  EMBER_CHECK_TYPED(input.dtype() != kBool, NotImplemented, "\"{}\" not implemented for 'Bool'", kernel);
}

// slow_conv_transpose2d's texts name the height's and the width's value (1-D runs as 2-D
// with a height of `height`); slow_conv_transpose3d's name the depth's first.
std::string height_width(const char* name, const std::vector<int64_t>& v, int64_t height, const char* sep) {
  if (v.size() == 3)
    return fmt::format("{0}_depth: {1}{4} {0}_height: {2}{4} {0}_width: {3}", name, v[0], v[1], v[2], sep);
  const int64_t h = v.size() == 2 ? v[0] : height, w = v.back();
  return fmt::format("{0}_height: {1}{3} {0}_width: {2}", name, h, w, sep);
}

// The transposed half of check_shape_forward, then slow_conv_transpose2d's shape checks.
void check_transposed(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p) {
  const IntArrayRef ws = weight.sizes();
  EMBER_CHECK_ARG(input.size(1) == ws[0],
                  "Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} "
                  "channels instead",
                  shape_str(ws), shape_str(input.sizes()), ws[0], input.size(1));
  EMBER_CHECK_ARG(
      !bias.defined() || (bias.dim() == 1 && bias.size(0) == ws[1] * p.groups),
      "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} elements, but "
      "got bias of size {} instead",
      shape_str(ws), ws[1] * p.groups, shape_str(bias.defined() ? bias.sizes() : IntArrayRef()));
  EMBER_CHECK_ARG(!any_of(p.dilation, [](int64_t v) { return v <= 0; }),
                  "dilation should be greater than zero, but got {}",
                  height_width("dilation", p.dilation, 1, ","));
  if (input.dim() == 5) {
    // slow_conv_transpose3d dispatches on floating types only.
    EMBER_CHECK_ARG(input.dtype() == weight.dtype(), "expected scalar type {} but found {}",
                    ember::detail::torch_name(input.dtype()), ember::detail::torch_name(weight.dtype()));
    EMBER_CHECK_TYPED(input.dtype() == kFloat || input.dtype() == kDouble, NotImplemented,
                      "\"slow_conv_transpose3d_out_cpu\" not implemented for '{}'",
                      ember::detail::torch_name(input.dtype()));
    EMBER_CHECK_ARG(!bias.defined() || bias.dtype() == input.dtype(), "expected scalar type {} but found {}",
                    ember::detail::torch_name(input.dtype()), ember::detail::torch_name(bias.dtype()));
  } else {
    check_dtypes(input, weight, "slow_conv_transpose2d_out_cpu");
  }
  for (size_t i = 0; i < p.stride.size(); ++i)
    EMBER_CHECK_ARG(p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i],
                    "output padding must be smaller than either stride or dilation, but got {} {} {}",
                    height_width("output_padding", p.output_padding, 0, ""),
                    height_width("stride", p.stride, 1, ""), height_width("dilation", p.dilation, 1, ""));
  std::string in_text, out_text;
  bool positive = true;
  for (int64_t i = 2; i < input.dim(); ++i) {
    const size_t d = size_t(i - 2);
    const int64_t out = (input.size(i) - 1) * p.stride[d] - 2 * p.padding[d] +
                        p.dilation[d] * (ws[size_t(i)] - 1) + p.output_padding[d] + 1;
    positive = positive && out >= 1;
    in_text += (i > 2 ? " x " : "") + std::to_string(input.size(i));
    out_text += (i > 2 ? " x " : "") + std::to_string(out);
  }
  EMBER_CHECK_ARG(
      positive,
      "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is "
      "too small",
      in_text, out_text);
}

}  // namespace

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

void check_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p,
                bool transposed) {
  const int64_t k = input.dim();
  const IntArrayRef ws = weight.sizes();
  const int64_t weight_dim = weight.dim(), groups = p.groups;
  EMBER_CHECK_ARG(!any_of(p.padding, [](int64_t v) { return v < 0; }), "negative padding is not supported");
  EMBER_CHECK_ARG(!any_of(p.output_padding, [](int64_t v) { return v < 0; }),
                  "negative output_padding is not supported");
  EMBER_CHECK_ARG(!any_of(p.stride, [](int64_t v) { return v <= 0; }),
                  "non-positive stride is not supported");
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
  if (transposed) {
    check_transposed(input, weight, bias, p);
    return;
  }
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
  EMBER_CHECK_ARG(!any_of(p.dilation, [](int64_t v) { return v <= 0; }),
                  "dilation should be greater than zero, but got {}", shape_str(p.dilation));
  check_dtypes(input, weight, k == 5 ? "compute_columns3d" : "slow_conv2d_cpu");
  // libtorch's CPU refuses a Half 3-D convolution; on CUDA it runs (cuDNN, else the portable form).
  EMBER_CHECK_TYPED(k != 5 || input.dtype() != kHalf || !input.device().is_cpu(), NotImplemented,
                    "\"compute_columns3d\" not implemented for 'Half'");
}

void check_bias_type(const Tensor& input, const Tensor& bias) {
  EMBER_CHECK_ARG(!bias.defined() || bias.dtype() == input.dtype(),
                  "Input type ({}) and bias type ({}) should be the same", type_meta_name(input.dtype()),
                  type_meta_name(bias.dtype()));
}

}  // namespace ember::nn::detail
