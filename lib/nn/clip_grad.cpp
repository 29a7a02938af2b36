// nn::utils::clip_grad_norm_ / clip_grad_value_, step for step as libtorch's clip_grad.h so
// that the returned norm and the scaled gradients match its results.
#include "ember/nn/utils/clip_grad.h"

#include <cmath>
#include <limits>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::utils {

double clip_grad_norm_(std::vector<Tensor> parameters, double max_norm, double norm_type, bool error_if_nonfinite) {
  std::vector<Tensor> with_grad;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) with_grad.push_back(p);
  if (with_grad.empty()) return 0.0;

  NoGradGuard no_grad;
  std::vector<Tensor> norms;
  norms.reserve(with_grad.size());
  Tensor total;
  if (norm_type == std::numeric_limits<double>::infinity()) {
    for (const Tensor& p : with_grad) norms.push_back(p.grad().data().abs().max());
    total = norms.size() == 1 ? norms[0] : ember::max(ember::stack(norms));
  } else if (norm_type == 0) {
    total = ember::full({}, double(with_grad.size()));  // the number of tensors, as libtorch
  } else {
    for (const Tensor& p : with_grad) norms.push_back(p.grad().data().norm(norm_type));
    total = norms.size() == 1 ? norms[0] : ember::stack(norms).norm(norm_type);
  }

  std::optional<double> total_norm;
  if (error_if_nonfinite) {
    total_norm = total.item<double>();
    EMBER_CHECK_ARG(std::isfinite(*total_norm),
                    "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be "
                    "clipped. To disable this error and scale the gradients with the non-finite norm anyway, "
                    "set `error_if_nonfinite=false`",
                    norm_type);
  }
  const Tensor coef = ember::clamp(max_norm / (total + 1e-6), std::nullopt, 1.0);
  for (const Tensor& p : with_grad) p.grad().data().mul_(coef);
  return total_norm ? *total_norm : total.item<double>();
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{std::move(parameter)}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(std::vector<Tensor> parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) p.grad().data().clamp_(-clip_value, clip_value);
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(Tensor parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{std::move(parameter)}, clip_value);
}

}  // namespace ember::nn::utils
