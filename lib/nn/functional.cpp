// nn::functional's layers: linear, activations, dropout, softmax, layer_norm (embedding: embedding.cpp).
#include "ember/nn/functional.h"

#include <cmath>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn::functional {

namespace {
void check_defined(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op, what);
}
// "[*, 2, 3]" for normalized_shape [2, 3]
std::string trailing(const std::vector<int64_t>& shape) {
  std::string s = ember::detail::shape_str(shape);
  return "[*, " + s.substr(1);
}
}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  check_defined(input, "linear", "input");
  check_defined(weight, "linear", "weight");
  EMBER_CHECK_ARG(weight.dim() == 2, "linear: weight must be 2-D (out_features, in_features), got shape {}",
                  ember::detail::shape_str(weight.sizes()));
  EMBER_CHECK_ARG(input.dim() >= 1,
                  "linear: input must have at least 1 dim (*, in_features = {}), got a 0-dim tensor",
                  weight.size(1));
  EMBER_CHECK_ARG(input.size(-1) == weight.size(1),
                  "linear: input has {} features in its last dim, expected in_features = {} (input shape {})",
                  input.size(-1), weight.size(1), ember::detail::shape_str(input.sizes()));
  EMBER_CHECK_ARG(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
                  "linear: bias must have shape [{}], got {}", weight.size(0),
                  ember::detail::shape_str(bias.sizes()));
  // Under autocast the dispatch-level linear casts both to the low type, as torch's does.
  EMBER_CHECK_ARG(input.dtype() == weight.dtype() || ember::detail::autocast_on(),
                  "linear: expected scalar type {} but found {} (input and weight must have the same dtype)",
                  ember::detail::torch_name(input.dtype()), ember::detail::torch_name(weight.dtype()));
  return ember::linear(input, weight, bias);
}

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  check_defined(input, "relu", "input");
  if (options.inplace()) return input.relu_();
  return ember::relu(input);
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  check_defined(input, "gelu", "input");
  const std::string& a = options.approximate();
  EMBER_CHECK_ARG(a == "none" || a == "tanh", "gelu: approximate must be \"none\" or \"tanh\", got \"{}\"",
                  a);
  if (a == "none") return ember::gelu(input);
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  const double k = std::sqrt(2.0 / M_PI);
  return input * 0.5 * (ember::tanh((input + input * input * input * 0.044715) * k) + 1.0);
}

Tensor silu(const Tensor& input) {
  check_defined(input, "silu", "input");
  return input * ember::sigmoid(input);
}

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  check_defined(input, "dropout", "input");
  const double p = options.p();
  EMBER_CHECK_ARG(p >= 0 && p <= 1, "dropout: dropout probability has to be between 0 and 1, but got {}", p);
  if (!options.training() || p == 0) return input;
  EMBER_CHECK_ARG(is_floating_point(input.dtype()), "dropout: input must be floating point, got {}",
                  ember::detail::torch_name(input.dtype()));
  // libtorch's mask: bernoulli_(1 - p), then divided by 1 - p (p == 1 drops everything).
  Tensor scale;
  {
    NoGradGuard no_grad;
    scale = p == 1 ? ember::zeros({}, input.options()) : ember::empty_like(input).bernoulli_(1 - p).div_(1 - p);
  }
  if (options.inplace()) return input.mul_(scale);
  return input * scale;
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  check_defined(input, "softmax", "input");
  return ember::softmax(input, options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  check_defined(input, "log_softmax", "input");
  return ember::log_softmax(input, options.dim(), options.dtype());
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  // Autocast's float32 list.
  if (EMBER_AUTOCAST_FP32_ANY(&input, &options.weight(), &options.bias()))
    return layer_norm(ember::detail::autocast_fp32(input),
                      LayerNormFuncOptions(options)
                          .weight(ember::detail::autocast_fp32(options.weight()))
                          .bias(ember::detail::autocast_fp32(options.bias())));
  check_defined(input, "layer_norm", "input");
  const std::vector<int64_t>& shape = options.normalized_shape();
  const int64_t k = int64_t(shape.size());
  EMBER_CHECK_ARG(k >= 1, "layer_norm: Expected normalized_shape to be at least 1-dimensional");
  bool ok = input.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = input.size(input.dim() - k + i) == shape[size_t(i)];
  EMBER_CHECK_ARG(
      ok, "layer_norm: Given normalized_shape={}, expected input with shape {}, but got input of size{}",
      ember::detail::shape_str(shape), trailing(shape), ember::detail::shape_str(input.sizes()));
  for (const Tensor* t : {&options.weight(), &options.bias()})
    EMBER_CHECK_ARG(!t->defined() || t->sizes() == IntArrayRef(shape),
                    "layer_norm: weight and bias must have the normalized shape {}, got {}",
                    ember::detail::shape_str(shape), ember::detail::shape_str(t->sizes()));
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  Tensor mu = input.mean(dims, true);
  Tensor centred = input - mu;
  Tensor var = (centred * centred).mean(dims, true);
  Tensor y = centred * ember::rsqrt(var + options.eps());
  if (options.weight().defined()) y = y * options.weight();
  if (options.bias().defined()) y = y + options.bias();
  return y;
}

}  // namespace ember::nn::functional
