// ATen's _dropout_impl for feature and alpha dropout: one bernoulli_(1 - p) draw per element
// (or per (n, c) slice, libtorch's make_feature_noise), turned into a scale (and, for alpha
// dropout, a shift) in libtorch's order, so a seed gives libtorch's masks; torch::dropout;
// F::dropout2d / dropout3d / alpha_dropout / feature_alpha_dropout and their modules.
#include "ember/nn/dropout.h"

#include <cmath>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/ops.h"

namespace ember {

namespace {

void check_p(double p) {
  EMBER_CHECK_ARG(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got {}", p);
}

// input * scale + shift; an undefined scale is the identity, an undefined shift adds nothing.
struct Noise {
  Tensor scale, shift;
};

Noise make_noise(const Tensor& input, double p, bool train, bool feature, bool alpha, const char* op) {
  EMBER_CHECK_ARG(input.defined(), "{}: undefined input tensor", op);
  check_p(p);
  if (p == 0 || !train || input.numel() == 0) return {};
  if (p == 1) return {zeros({}, input.options()), Tensor()};
  std::vector<int64_t> sizes = input.sizes().vec();
  if (feature) {
    EMBER_CHECK_ARG(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
    for (size_t d = 2; d < sizes.size(); ++d) sizes[d] = 1;
  }
  // libtorch fails scaling the integer mask in place; its message names the float result
  // (and, for alpha dropout, the type of mask - 1, Long for a Bool mask).
  EMBER_CHECK_ARG(is_floating_point(input.dtype()),
                  "result type Float can't be cast to the desired output type {}",
                  ember::detail::torch_name(alpha && input.dtype() == kBool ? kLong : input.dtype()));
  NoGradGuard no_grad;
  Tensor noise = empty(sizes, input.options()).bernoulli_(1 - p);
  if (!alpha) return {noise.div_(1 - p), Tensor()};
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor b = noise.add(-1).mul_(kAlpha * a).add_(kAlpha * a * p);
  noise.mul_(a);
  return {noise, b};
}

Tensor apply(const Tensor& input, const Noise& n) {
  if (!n.scale.defined()) return input;
  const Tensor y = input * n.scale;
  return n.shift.defined() ? y + n.shift : y;
}

Tensor& apply_(Tensor& input, const Noise& n) {
  if (!n.scale.defined()) return input;
  input.mul_(n.scale);
  if (n.shift.defined()) input.add_(n.shift);
  return input;
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  return nn::functional::dropout(input, nn::functional::DropoutFuncOptions(p).training(train));
}

Tensor& dropout_(Tensor& input, double p, bool train) {
  return apply_(input, make_noise(input, p, train, false, false, "dropout_"));
}

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return apply(input, make_noise(input, p, train, true, false, "feature_dropout"));
}

Tensor& feature_dropout_(Tensor& input, double p, bool train) {
  return apply_(input, make_noise(input, p, train, true, false, "feature_dropout_"));
}

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return apply(input, make_noise(input, p, train, false, true, "alpha_dropout"));
}

Tensor& alpha_dropout_(Tensor& input, double p, bool train) {
  return apply_(input, make_noise(input, p, train, false, true, "alpha_dropout_"));
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return apply(input, make_noise(input, p, train, true, true, "feature_alpha_dropout"));
}

Tensor& feature_alpha_dropout_(Tensor& input, double p, bool train) {
  return apply_(input, make_noise(input, p, train, true, true, "feature_alpha_dropout_"));
}

namespace nn {

namespace functional {

namespace {

// libtorch 1.13's _dropoutNd_helper: anything but the batched rank is one unbatched sample.
Tensor dropout_nd(const Tensor& input, const DropoutFuncOptions& options, int64_t batched_dim,
                  const char* op) {
  check_p(options.p());
  EMBER_CHECK_ARG(input.defined(), "{}: undefined input tensor", op);
  const bool batched = input.dim() == batched_dim;
  Tensor x = batched ? input : input.unsqueeze(0);
  if (options.inplace()) {
    feature_dropout_(x, options.p(), options.training());  // x shares input's storage
    return input;
  }
  const Tensor y = feature_dropout(x, options.p(), options.training());
  return batched ? y : y.squeeze(0);
}

}  // namespace

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  return dropout_nd(input, options, 4, "dropout2d");
}

Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) {
  return dropout_nd(input, options, 5, "dropout3d");
}

Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options) {
  check_p(options.p());
  if (options.inplace()) return ember::alpha_dropout_(input, options.p(), options.training());
  return ember::alpha_dropout(input, options.p(), options.training());
}

Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options) {
  check_p(options.p());
  if (options.inplace()) return ember::feature_alpha_dropout_(input, options.p(), options.training());
  return ember::feature_alpha_dropout(input, options.p(), options.training());
}

}  // namespace functional

namespace {
void print_dropout(std::ostream& stream, const char* name, const DropoutOptions& options) {
  stream << std::boolalpha << module_namespace() << name << "(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}
}  // namespace

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { check_p(options.p()); }

Tensor Dropout2dImpl::forward(Tensor input) {
  return functional::dropout2d(
      std::move(input),
      functional::Dropout2dFuncOptions(options.p()).training(is_training()).inplace(options.inplace()));
}

void Dropout2dImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, "Dropout2d", options); }

Dropout3dImpl::Dropout3dImpl(const Dropout3dOptions& options_) : options(options_) { check_p(options.p()); }

Tensor Dropout3dImpl::forward(Tensor input) {
  return functional::dropout3d(
      std::move(input),
      functional::Dropout3dFuncOptions(options.p()).training(is_training()).inplace(options.inplace()));
}

void Dropout3dImpl::pretty_print(std::ostream& stream) const { print_dropout(stream, "Dropout3d", options); }

AlphaDropoutImpl::AlphaDropoutImpl(const AlphaDropoutOptions& options_) : options(options_) {
  check_p(options.p());
}

Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return functional::alpha_dropout(
      input, functional::AlphaDropoutFuncOptions().p(options.p()).training(is_training()));
}

void AlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print_dropout(stream, "AlphaDropout", options);
}

FeatureAlphaDropoutImpl::FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options_)
    : options(options_) {
  check_p(options.p());
}

Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return functional::feature_alpha_dropout(
      input, functional::FeatureAlphaDropoutFuncOptions().p(options.p()).training(is_training()));
}

void FeatureAlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print_dropout(stream, "FeatureAlphaDropout", options);
}

}  // namespace nn
}  // namespace ember
