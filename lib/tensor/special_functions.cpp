// polygamma of every order and the multivariate log-gamma function, in libtorch 1.13's
// formulas: digamma and trigamma are kernels; polygamma(n >= 2, x) is
// (-1)^(n+1) n! zeta(n + 1, x) over the Zeta kernel, recorded as one PolygammaBackward0
// node; mvlgamma sums lgamma over a [.., p] grid of shifted inputs.
#include <cmath>

#include "autograd/node.h"
#include "core/check.h"
#include "dispatch/elementwise_ops.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember {

namespace {

Tensor polygamma_by_zeta(int64_t n, const Tensor& x) {
  Tensor y;
  {
    NoGradGuard no_grad;
    const double factor = (n % 2 ? 1.0 : -1.0) * std::exp(std::lgamma(double(n) + 1.0));
    y = special::zeta(Scalar(double(n + 1)), x).mul_(factor);
  }
  if (!(GradMode::is_enabled() && x.requires_grad())) return y;
  auto node = autograd::record(
      "PolygammaBackward0", {&x}, {&y},
      [n](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        return {g[0] * polygamma(n + 1, node.saved(0))};
      });
  node->saved_[0] = autograd::SavedVariable(x, false);
  return y;
}

}  // namespace

Tensor polygamma(int64_t n, const Tensor& x) {
  EMBER_CHECK_ARG(x.defined(), "polygamma: undefined tensor");
  EMBER_CHECK_ARG(n >= 0, "polygamma(n, x) does not support negative n.");
  if (n == 0) return detail::run_unary(Op::Digamma, x, detail::ComputeType::Floating);
  if (n == 1) return detail::run_unary(Op::Trigamma, x, detail::ComputeType::Floating);
  return polygamma_by_zeta(n, x);
}

Tensor mvlgamma(const Tensor& x, int64_t p) {
  EMBER_CHECK_ARG(x.defined(), "mvlgamma: undefined tensor");
  EMBER_CHECK_ARG(x.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK_ARG(p >= 1, "p has to be greater than or equal to 1");
  EMBER_CHECK_ARG((x > 0.5 * double(p - 1)).all().item<bool>(), "All elements must be greater than (p-1)/2");
  const ScalarType t = is_floating_point(x.dtype()) ? x.dtype() : get_default_dtype();
  // lgamma(x - j/2) for j = 0 .. p-1, as x + (-(p-1)/2, ..., -1/2, 0).
  const Tensor shifts = arange(-double(p) * 0.5 + 0.5, 0.5, 0.5, TensorOptions(t).device(x.device()));
  return shifts.add(x.unsqueeze(-1)).lgamma().sum(-1).add_(double(p) * double(p - 1) * std::log(M_PI) * 0.25);
}

Tensor special::multigammaln(const Tensor& x, int64_t p) { return mvlgamma(x, p); }

Tensor Tensor::polygamma(int64_t n) const { return ember::polygamma(n, *this); }
Tensor Tensor::mvlgamma(int64_t p) const { return ember::mvlgamma(*this, p); }

}  // namespace ember
