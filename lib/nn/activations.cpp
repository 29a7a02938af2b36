// libtorch's ATen-level activations (torch::elu, hardtanh, softplus, threshold, prelu,
// rrelu, glu, ...) composed from ordinary ops. The pointwise ones are computed without
// recording and recorded as one libtorch-named node whose backward is a formula of
// ember ops; prelu, glu and rrelu are plain
// compositions whose gradients come from autograd. The in-place forms go through copy_.
#include <cmath>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/ops.h"

namespace ember {

namespace {

const char* device_suffix(const Tensor& x) { return x.device().is_cuda() ? "cuda" : "cpu"; }

// libtorch's text for a kernel without x's dtype: "elu_cpu" not implemented for 'Long'.
void check_floating(const Tensor& x, const char* kernel) {
  EMBER_CHECK_ARG(x.defined(), "{}: undefined tensor", kernel);
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()), NotImplemented, "\"{}_{}\" not implemented for '{}'",
                    kernel, device_suffix(x), detail::torch_name(x.dtype()));
}

// y = forward(x) unrecorded, then one node `name` whose backward is backward(x, grad).
template <class Fwd, class Bwd>
Tensor pointwise(const char* name, const Tensor& x, const Fwd& forward, Bwd backward) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = forward(x);
  }
  if (!(GradMode::is_enabled() && x.requires_grad())) return y;
  auto node = autograd::record(
      name, {&x}, {&y},
      [backward](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
        return {backward(n.saved(0), g[0])};
      });
  node->saved_[0] = autograd::SavedVariable(x, false);
  return y;
}

// f(x) written into x; through a copy when recording, so the node saves an input that
// copy_ does not overwrite (copy_ refuses a leaf that requires grad, as libtorch does).
template <class F>
Tensor& in_place(Tensor& x, const F& f) {
  const Tensor r = GradMode::is_enabled() && x.requires_grad() ? f(x.clone()) : f(x);
  x.copy_(r);
  return x;
}

// Integer inputs (hardtanh, threshold) take the bounds cast to their dtype, as the kernels do.
Scalar bound(const Tensor& x, const Scalar& s) {
  return is_floating_point(x.dtype()) ? Scalar(s.to<double>()) : Scalar(s.to<int64_t>());
}

// backward_input_scale: libtorch's celu backward rounds 1 / alpha to float.
Tensor elu_node(const char* name, const Tensor& x, double alpha, double scale, double input_scale,
                double backward_input_scale) {
  check_floating(x, "elu");
  const double bis = backward_input_scale;
  return pointwise(
      name, x,
      [=](const Tensor& t) { return where(t > 0, t * scale, expm1(t * input_scale) * (alpha * scale)); },
      [=](const Tensor& t, const Tensor& g) {
        return where(t > 0, g * scale, g * exp(t * bis) * (alpha * scale * bis));
      });
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

}  // namespace

Tensor gelu(const Tensor& x, std::string_view approximate) {
  EMBER_CHECK_ARG(approximate == "none" || approximate == "tanh",
                  "approximate argument must be either none or tanh.");
  EMBER_CHECK_ARG(x.defined(), "gelu: undefined tensor");
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()), NotImplemented, "\"{}\" not implemented for '{}'",
                    x.device().is_cuda() ? "GeluCUDAKernelImpl" : "GeluKernelImpl",
                    detail::torch_name(x.dtype()));
  if (approximate == "none") return gelu(x);
  const double beta = std::sqrt(2.0 / M_PI), kappa = 0.044715;
  return pointwise(
      "GeluBackward0", x,
      [=](const Tensor& t) { return t * 0.5 * (tanh((t + t * t * t * kappa) * beta) + 1); },
      [=](const Tensor& t, const Tensor& g) {
        const Tensor th = tanh((t + t * t * t * kappa) * beta);
        const Tensor right = t * 0.5 * (1 - th * th) * beta * (t * t * (3 * kappa) + 1);
        return g * ((th + 1) * 0.5 + right);
      });
}

Tensor elu(const Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  const double is = input_scale.to<double>();
  return elu_node("EluBackward0", x, alpha.to<double>(), scale.to<double>(), is, is);
}
Tensor& elu_(Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return in_place(x, [&](const Tensor& t) { return elu(t, alpha, scale, input_scale); });
}

Tensor selu(const Tensor& x) { return elu(x, kSeluAlpha, kSeluScale); }
Tensor& selu_(Tensor& x) { return elu_(x, kSeluAlpha, kSeluScale); }

Tensor celu(const Tensor& x, const Scalar& alpha) {
  const double a = alpha.to<double>();
  EMBER_CHECK_ARG(a != 0, "ZeroDivisionError: alpha cannot be 0 for CELU");
  return elu_node("CeluBackward0", x, a, 1.0, 1.0 / a, 1.0 / double(float(a)));
}
Tensor& celu_(Tensor& x, const Scalar& alpha) {
  return in_place(x, [&](const Tensor& t) { return celu(t, alpha); });
}

// libtorch 1.13 clamps (max(min(x, max_val))), so min_val > max_val gives max_val everywhere.
Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  check_floating(x, "leaky_relu");
  return pointwise(
      "LeakyReluBackward0", x, [&](const Tensor& t) { return where(t > 0, t, t * negative_slope); },
      [negative_slope](const Tensor& t, const Tensor& g) { return where(t > 0, g, g * negative_slope); });
}
Tensor& leaky_relu_(Tensor& x, const Scalar& negative_slope) {
  return in_place(x, [&](const Tensor& t) { return leaky_relu(t, negative_slope); });
}

Tensor hardtanh(const Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  EMBER_CHECK_ARG(x.defined(), "hardtanh: undefined tensor");
  EMBER_CHECK_ARG(x.dtype() != kBool, "Bool inputs not supported for hardtanh");
  const Scalar lo = bound(x, min_val), hi = bound(x, max_val);
  return pointwise(
      "HardtanhBackward0", x, [&](const Tensor& t) { return clamp_max(clamp_min(t, lo), hi); },
      // libtorch's (x <= min || x >= max) ? 0 : g, which passes g through at NaN.
      [lo, hi](const Tensor& t, const Tensor& g) { return where(logical_or(t <= lo, t >= hi), 0, g); });
}
Tensor& hardtanh_(Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  return in_place(x, [&](const Tensor& t) { return hardtanh(t, min_val, max_val); });
}

Tensor relu6(const Tensor& x) { return hardtanh(x, 0, 6); }
Tensor& relu6_(Tensor& x) { return hardtanh_(x, 0, 6); }

Tensor hardswish(const Tensor& x) {
  check_floating(x, "hardswish");
  return pointwise(
      "HardswishBackward0", x, [](const Tensor& t) { return t * clamp(t + 3, 0, 6) / 6; },
      [](const Tensor& t, const Tensor& g) { return where(t < -3, 0, where(t <= 3, g * (t / 3 + 0.5), g)); });
}
Tensor& hardswish_(Tensor& x) {
  return in_place(x, [](const Tensor& t) { return hardswish(t); });
}

Tensor hardsigmoid(const Tensor& x) {
  check_floating(x, "hardsigmoid");
  return pointwise(
      "HardsigmoidBackward0", x, [](const Tensor& t) { return clamp(t + 3, 0, 6) / 6; },
      // libtorch's kernel multiplies by 1/6 rounded to float.
      [](const Tensor& t, const Tensor& g) {
        return where(logical_and(t > -3, t < 3), g * double(1.0f / 6.0f), 0);
      });
}
Tensor& hardsigmoid_(Tensor& x) {
  return in_place(x, [](const Tensor& t) { return hardsigmoid(t); });
}

Tensor softplus(const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  check_floating(x, "softplus");
  const double b = beta.to<double>(), th = threshold.to<double>();
  return pointwise(
      "SoftplusBackward0", x, [=](const Tensor& t) { return where(t * b > th, t, log1p(exp(t * b)) / b); },
      [=](const Tensor& t, const Tensor& g) { return where(t * b > th, g, g * sigmoid(t * b)); });
}

Tensor softshrink(const Tensor& x, const Scalar& lambd) {
  const double l = lambd.to<double>();
  EMBER_CHECK_ARG(l >= 0, "lambda must be greater or equal to 0, but found to be {}.", l);
  check_floating(x, "softshrink");
  return pointwise(
      "SoftshrinkBackward0", x, [l](const Tensor& t) { return where(t > l, t - l, where(t < -l, t + l, 0)); },
      [l](const Tensor& t, const Tensor& g) { return where(logical_and(t >= -l, t <= l), 0, g); });
}

Tensor hardshrink(const Tensor& x, const Scalar& lambd) {
  check_floating(x, "hardshrink");
  const double l = lambd.to<double>();
  return pointwise(
      "HardshrinkBackward0", x, [l](const Tensor& t) { return where(logical_and(t >= -l, t <= l), 0, t); },
      [l](const Tensor& t, const Tensor& g) { return where(logical_and(t >= -l, t <= l), 0, g); });
}

Tensor threshold(const Tensor& x, const Scalar& threshold, const Scalar& value) {
  EMBER_CHECK_ARG(x.defined(), "threshold: undefined tensor");
  EMBER_CHECK_TYPED(x.dtype() != kBool, NotImplemented, "\"threshold_{}\" not implemented for 'Bool'",
                    device_suffix(x));
  const Scalar th = bound(x, threshold), v = bound(x, value);
  return pointwise(
      "ThresholdBackward0", x, [&](const Tensor& t) { return where(t <= th, v, t); },
      [th](const Tensor& t, const Tensor& g) { return where(t <= th, 0, g); });
}
Tensor& threshold_(Tensor& x, const Scalar& threshold, const Scalar& value) {
  return in_place(x, [&](const Tensor& t) { return ember::threshold(t, threshold, value); });
}

// libtorch 1.13's checks, in its order; the weight broadcasts over dim 1 of x.
Tensor prelu(const Tensor& x, const Tensor& weight) {
  EMBER_CHECK_ARG(x.defined() && weight.defined(), "prelu: undefined tensor");
  if (weight.numel() != 1) {
    EMBER_CHECK_ARG(x.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channels = x.dim() > 1 ? x.size(1) : 1;
    EMBER_CHECK_ARG(channels == weight.numel(),
                    "Mismatch of parameter numbers and input channel size. Found parameter numbers = {} and "
                    "channel size = {}.",
                    weight.numel(), channels);
  }
  EMBER_CHECK_ARG(weight.dim() <= 1,
                  "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = {}", weight.dim());
  EMBER_CHECK_ARG(x.dtype() == weight.dtype(), "Found dtype {} but expected {}",
                  detail::torch_name(weight.dtype()), detail::torch_name(x.dtype()));
  check_floating(x, "prelu");
  std::vector<int64_t> shape;  // one shared slope: a 0-dim weight
  if (weight.numel() != 1) {
    shape.assign(size_t(x.dim() - 1), 1);
    shape[0] = weight.numel();
  }
  return where(x > 0, x, x * weight.reshape(shape));
}

// libtorch's CPU kernel draws one double from U(lower, upper) per element x <= 0, in x's
// element order, with the bounds first cast to the compute type (float below double).
Tensor rrelu(const Tensor& x, const Scalar& lower, const Scalar& upper, bool training,
             std::optional<Generator> generator) {
  EMBER_CHECK_ARG(x.defined(), "rrelu: undefined tensor");
  double lo = lower.to<double>(), hi = upper.to<double>();
  EMBER_CHECK_ARG(lo <= hi, "Lower bound should be less than or equal to the upper bound");
  if (!training) return leaky_relu(x, (lo + hi) / 2);
  check_floating(x, "rrelu_with_noise_out");
  if (x.dtype() != kDouble) lo = double(float(lo)), hi = double(float(hi));
  Tensor noise;
  {
    NoGradGuard no_grad;
    const Tensor non_positive = x <= 0;
    const int64_t draws = non_positive.sum().item<int64_t>();
    // u * (hi - lo) + lo unfused, as that kernel is compiled (uniform_ fuses it).
    const Tensor u = empty({draws}, TensorOptions(kDouble).device(x.device())).uniform_(0, 1, generator);
    const Tensor slopes = u * (hi - lo) + lo;
    noise = ones_like(x);
    noise.index_put_(std::vector<std::optional<Tensor>>{non_positive}, slopes.to(x.dtype()));
  }
  return x * noise;
}
Tensor& rrelu_(Tensor& x, const Scalar& lower, const Scalar& upper, bool training,
               std::optional<Generator> generator) {
  return in_place(x, [&](const Tensor& t) { return rrelu(t, lower, upper, training, generator); });
}

Tensor glu(const Tensor& x, int64_t dim) {
  EMBER_CHECK_ARG(x.defined(), "glu: undefined tensor");
  EMBER_CHECK_ARG(x.dim() > 0, "glu does not support 0-dimensional tensors");
  const int64_t n = x.dim();
  EMBER_CHECK_ARG(dim >= -n && dim < n,
                  "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim);
  const int64_t d = dim < 0 ? dim + n : dim;
  EMBER_CHECK_ARG(x.size(d) % 2 == 0, "Halving dimension must be even, but dimension {} is size {}", d,
                  x.size(d));
  check_floating(x, "glu");
  const int64_t half = x.size(d) / 2;
  return x.narrow(d, 0, half) * sigmoid(x.narrow(d, half, half));
}

// min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
Tensor log_sigmoid(const Tensor& x) {
  check_floating(x, "log_sigmoid");
  return pointwise(
      "LogSigmoidBackward0", x, [](const Tensor& t) { return clamp_max(t, 0) - log1p(exp(-abs(t))); },
      [](const Tensor& t, const Tensor& g) { return g * sigmoid(-t); });
}

Tensor silu(const Tensor& x) {
  check_floating(x, "silu");
  return pointwise(
      "SiluBackward0", x, [](const Tensor& t) { return t * sigmoid(t); },
      [](const Tensor& t, const Tensor& g) {
        const Tensor s = sigmoid(t);
        return g * s * (t * (1 - s) + 1);
      });
}
Tensor& silu_(Tensor& x) {
  return in_place(x, [](const Tensor& t) { return silu(t); });
}

Tensor mish(const Tensor& x) {
  check_floating(x, "mish");
  return pointwise(
      "MishBackward0", x, [](const Tensor& t) { return t * tanh(log1p(exp(t))); },
      [](const Tensor& t, const Tensor& g) {
        const Tensor th = tanh(log1p(exp(t)));
        return g * (th + t * sigmoid(t) * (1 - th * th));
      });
}
Tensor& mish_(Tensor& x) {
  return in_place(x, [](const Tensor& t) { return mish(t); });
}

}  // namespace ember
