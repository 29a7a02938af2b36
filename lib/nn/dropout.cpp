// Feature dropout: one bernoulli_(1 - p) draw per (n, c) slice, scaled by 1 / (1 - p),
// broadcast over the remaining dims (libtorch's make_feature_noise, so a seed gives
// libtorch's masks); torch::dropout; F::dropout2d and nn::Dropout2d.
#include "ember/nn/dropout.h"

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

// The scaled mask to multiply by, or an undefined tensor where dropout is the identity.
Tensor feature_noise(const Tensor& input, double p, bool train) {
  EMBER_CHECK_ARG(input.defined(), "feature_dropout: undefined input tensor");
  check_p(p);
  if (p == 0 || !train || input.numel() == 0) return Tensor();
  if (p == 1) return zeros({}, input.options());
  EMBER_CHECK_ARG(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  // libtorch fails dividing the integer mask in place; its message names the float result.
  EMBER_CHECK_ARG(is_floating_point(input.dtype()),
                  "result type Float can't be cast to the desired output type {}",
                  ember::detail::torch_name(input.dtype()));
  std::vector<int64_t> sizes(size_t(input.dim()), 1);
  sizes[0] = input.size(0);
  sizes[1] = input.size(1);
  NoGradGuard no_grad;
  return empty(sizes, input.options()).bernoulli_(1 - p).div_(1 - p);
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) {
  return nn::functional::dropout(input, nn::functional::DropoutFuncOptions(p).training(train));
}

Tensor feature_dropout(const Tensor& input, double p, bool train) {
  const Tensor noise = feature_noise(input, p, train);
  return noise.defined() ? input * noise : input;
}

namespace nn {

namespace functional {

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  check_p(options.p());
  EMBER_CHECK_ARG(input.defined(), "dropout2d: undefined input tensor");
  // Anything but (N, C, H, W) is one unbatched sample, as libtorch 1.13's helper takes it.
  const bool batched = input.dim() == 4;
  const Tensor x = batched ? input : input.unsqueeze(0);
  if (options.inplace()) {
    const Tensor noise = feature_noise(x, options.p(), options.training());
    if (noise.defined()) x.mul_(noise);  // x shares input's storage
    return input;
  }
  const Tensor y = feature_dropout(x, options.p(), options.training());
  return batched ? y : y.squeeze(0);
}

}  // namespace functional

Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { check_p(options.p()); }

Tensor Dropout2dImpl::forward(Tensor input) {
  return functional::dropout2d(
      std::move(input),
      functional::Dropout2dFuncOptions(options.p()).training(is_training()).inplace(options.inplace()));
}

void Dropout2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::Dropout2d(p=" << options.p() << ", inplace=" << options.inplace()
         << ")";
}

}  // namespace nn
}  // namespace ember
