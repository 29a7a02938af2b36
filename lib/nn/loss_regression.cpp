// nn::functional's regression and likelihood losses: huber, binary_cross_entropy, kl_div,
// poisson_nll and gaussian_nll, composed from ember ops as ATen composes (or computes) them,
// and the matching ATen-level free functions (with cross_entropy_loss and bce_with_logits).
#include <cmath>
#include <string>
#include <variant>

#include "autograd/node.h"
#include "dispatch/autocast.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/nn/loss.h"
#include "loss_common.h"

namespace ember::nn::functional {

// Autocast's float32 list: these losses compute half and bfloat16 inputs in float32.
using ember::detail::autocast_fp32;

using namespace loss_detail;

namespace {

void warn_if_broadcast(const Tensor& input, const Tensor& target, const char* op) {
  if (target.sizes() != input.sizes())
    EMBER_WARN(
        op, ": Using a target size (", shape_str(target.sizes()), ") that is different to the input size (",
        shape_str(input.sizes()),
        "). This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
        "same size.");
}

// The elementwise kl_div (ATen's; the reduction applied by the caller).
Tensor kl_div_terms(const Tensor& input, const Tensor& target, bool log_target) {
  if (log_target) return ember::exp(target) * (target - input);
  // xlogy(target, target): 0 where target is 0 (log of a stand-in 1 keeps its gradient finite).
  const Tensor zero = target == 0;
  return ember::where(zero, 0.0, target * ember::log(ember::where(zero, 1.0, target))) - target * input;
}

// The elementwise binary cross-entropy, libtorch's: each log clamped at -100 so that input
// 0 or 1 gives a finite loss, and one node whose input gradient is g (x - t) / max(x (1 - x),
// 1e-12) (the clamps' own gradient would make it 0 / 0 there) and whose target gradient is
// g (log(1 - x) - log(x)).
Tensor bce_terms(const Tensor& input, const Tensor& target) {
  Tensor loss;
  {
    NoGradGuard no_grad;
    loss = (target - 1) * ember::clamp_min(ember::log1p(-input), -100) -
           target * ember::clamp_min(ember::log(input), -100);
  }
  if (!(GradMode::is_enabled() && autograd::any_requires_grad({&input, &target}))) return loss;
  auto node = autograd::record(
      "BinaryCrossEntropyBackward0", {&input, &target}, {&loss},
      [](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
        const Tensor x = n.saved(0), t = n.saved(1);
        autograd::variable_list out(2);
        if (n.needs(0)) out[0] = g[0] * (x - t) / ember::clamp_min((1 - x) * x, 1e-12);
        if (n.needs(1)) out[1] = g[0] * (ember::log1p(-x) - ember::log(x));
        return out;
      });
  node->saved_[0] = autograd::SavedVariable(input, false);
  node->saved_[1] = autograd::SavedVariable(target, false);
  return loss;
}

}  // namespace

Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return huber_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_defined({&input, &target}, "huber_loss");
  const double delta = options.delta();
  EMBER_CHECK_ARG(delta > 0, "huber_loss does not support non-positive values for delta.");
  warn_if_broadcast(input, target, "huber_loss");
  const Tensor d = ember::abs(input - target);
  return reduce(ember::where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), options.reduction());
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  const char* op = "binary_cross_entropy";
  check_defined({&input, &target}, op);
  EMBER_CHECK_ARG(
      target.sizes() == input.sizes(),
      "{}: Using a target size ({}) that is different to the input size ({}) is deprecated. Please "
      "ensure they have the same size.",
      op, shape_str(target.sizes()), shape_str(input.sizes()));
  // NaN fails the check as in libtorch (one host sync, as libtorch's CPU kernel checks each value).
  EMBER_CHECK_ARG(input.numel() == 0 || ember::logical_and(input >= 0, input <= 1).all().item<bool>(),
                  "{}: all elements of input should be between 0 and 1", op);
  Tensor loss = bce_terms(input, target);
  if (options.weight().defined()) loss = loss * options.weight().expand(target.sizes());
  return reduce(loss, options.reduction());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return kl_div(autocast_fp32(input), autocast_fp32(target), options);
  check_defined({&input, &target}, "kl_div");
  const auto& r = options.reduction();
  const bool batchmean = std::holds_alternative<BatchMean>(r);
  if (!batchmean && std::get<Reduction>(r) == kMean)
    EMBER_WARN(
        "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
        "divides "
        "only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave "
        "the "
        "same as 'batchmean' in the next major release.");
  const Tensor loss = kl_div_terms(input, target, options.log_target());
  if (!batchmean) return reduce(loss, std::get<Reduction>(r));
  Tensor sum = loss.sum();
  return input.dim() == 0 ? sum : sum / double(input.size(0));
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return poisson_nll_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_defined({&input, &target}, "poisson_nll_loss");
  Tensor loss = options.log_input() ? ember::exp(input) - target * input
                                    : input - target * ember::log(input + options.eps());
  if (options.full()) {
    // Stirling's approximation of log(target!), only where target > 1 (a stand-in 2 elsewhere).
    const Tensor big = target > 1;
    const Tensor t = ember::where(big, target, 2.0);
    const Tensor stirling = t * ember::log(t) - t + 0.5 * ember::log(2 * M_PI * t);
    loss = loss + ember::where(big, stirling, 0.0);
  }
  return reduce(loss, options.reduction());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var_in,
                         const GaussianNLLLossFuncOptions& options) {
  const char* op = "gaussian_nll_loss";
  check_defined({&input, &target, &var_in}, op);
  Tensor var = var_in;
  if (var.sizes() != input.sizes()) {
    // Homoscedastic: var is input's shape without (or with a 1 for) its last dim.
    const auto in = input.sizes().vec();
    const auto vs = var.sizes().vec();
    const std::vector<int64_t> lead(in.begin(), in.end() - (in.empty() ? 0 : 1));
    if (!in.empty() && vs == lead) {
      var = var.unsqueeze(-1);
    } else {
      EMBER_CHECK_ARG(!in.empty() && !vs.empty() && vs.back() == 1 &&
                          std::vector<int64_t>(vs.begin(), vs.end() - 1) == lead,
                      "{}: var is of incorrect size", op);
    }
  }
  EMBER_CHECK_ARG(var.numel() == 0 || !(var < 0).any().item<bool>(), "{}: var has negative entry/entries",
                  op);
  var = clamp_min_values(var, options.eps());
  const Tensor d = input - target;
  Tensor loss = 0.5 * (ember::log(var) + d * d / var);
  if (options.full()) loss = loss + 0.5 * std::log(2 * M_PI);
  return reduce(loss, options.reduction());
}

}  // namespace ember::nn::functional

namespace ember {
namespace F = nn::functional;

Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                          Reduction reduction, int64_t ignore_index, double label_smoothing) {
  return F::cross_entropy(input, target,
                          F::CrossEntropyFuncOptions()
                              .weight(weight)
                              .reduction(reduction)
                              .ignore_index(ignore_index)
                              .label_smoothing(label_smoothing));
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, Reduction reduction) {
  return F::binary_cross_entropy_with_logits(input, target,
                                             F::BinaryCrossEntropyWithLogitsFuncOptions()
                                                 .weight(weight)
                                                 .pos_weight(pos_weight)
                                                 .reduction(reduction));
}
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  return F::huber_loss(input, target, F::HuberLossFuncOptions(reduction).delta(delta));
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction) {
  // ATen's op pairs the elements in order when only the shapes differ ([N, 1] against [N]);
  // the size check with its deprecation text is F::binary_cross_entropy's.
  const bool same_count = input.defined() && target.defined() && target.sizes() != input.sizes() &&
                          target.numel() == input.numel();
  return F::binary_cross_entropy(input, same_count ? target.reshape(input.sizes()) : target,
                                 F::BinaryCrossEntropyFuncOptions().weight(weight).reduction(reduction));
}
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target) {
  // ATen's kl_div: no 'mean' warning (that is F::kl_div's).
  nn::functional::loss_detail::check_defined({&input, &target}, "kl_div");
  return nn::functional::loss_detail::reduce(F::kl_div_terms(input, target, log_target), reduction);
}
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  return F::poisson_nll_loss(
      input, target,
      F::PoissonNLLLossFuncOptions().log_input(log_input).full(full).eps(eps).reduction(reduction));
}
}  // namespace ember
