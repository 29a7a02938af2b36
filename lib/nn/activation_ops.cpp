// ATen-level activations composed from ordinary ops (leaky_relu), each recorded as one
// libtorch-named node whose backward is again ordinary ops.
#include <cmath>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember {

Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  EMBER_CHECK_ARG(x.defined(), "leaky_relu: undefined tensor");
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()), NotImplemented, "\"leaky_relu_{}\" not implemented for '{}'",
                    x.device().is_cuda() ? "cuda" : "cpu", detail::torch_name(x.dtype()));
  Tensor y;
  {
    NoGradGuard no_grad;
    y = where(x > 0, x, x * negative_slope);
  }
  if (!(GradMode::is_enabled() && x.requires_grad())) return y;
  using autograd::FormulaNode;
  auto node = autograd::record("LeakyReluBackward0", {&x}, {&y},
                               [negative_slope](FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
                                 return {where(n.saved(0) > 0, g[0], g[0] * negative_slope)};
                               });
  node->saved_[0] = autograd::SavedVariable(x, false);
  return y;
}

Tensor& leaky_relu_(Tensor& x, const Scalar& negative_slope) {
  // Through a copy when recording, so the node saves an input that copy_ does not overwrite.
  const Tensor r = GradMode::is_enabled() && x.requires_grad() ? leaky_relu(x.clone(), negative_slope)
                                                               : leaky_relu(x, negative_slope);
  x.copy_(r);
  return x;
}

}  // namespace ember
