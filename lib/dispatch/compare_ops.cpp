// isclose / allclose (through the registry's IsClose kernels) and equal.
#include "core/check.h"
#include "core/isclose_rule.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "ember/ops.h"

namespace ember {

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "isclose: {} is an undefined tensor",
                  a.defined() ? "other" : "self");
  // As libtorch: no type promotion, and tolerances must be >= 0 (NaN is rejected too).
  EMBER_CHECK_ARG(a.dtype() == b.dtype(), "isclose: {} did not match {}; compare tensors of one dtype",
                  detail::torch_name(a.dtype()), detail::torch_name(b.dtype()));
  EMBER_CHECK_ARG(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got {}", rtol);
  EMBER_CHECK_ARG(atol >= 0, "isclose: atol must be greater than or equal to zero, but got {}", atol);
  detail::OpParams p;
  p.param[0].f = rtol;
  p.param[1].f = atol;
  // Integer and bool inputs: libtorch computes the tolerance in the default dtype.
  p.param[2].i = (equal_nan ? detail::kIsCloseEqualNan : 0) |
                 (get_default_dtype() == kDouble ? detail::kIsCloseDoubleTolerance : 0);
  return detail::run_binary(Op::IsClose, a, b, detail::ComputeType::BoolOut, p);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return isclose(a, b, rtol, atol, equal_nan).all().item<bool>();
}

bool equal(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "equal: undefined tensor");
  if (a.sizes() != b.sizes()) return false;
  // Compared in the promoted dtype, so int64 values beyond 2^53 stay exact.
  return eq(a, b.device() == a.device() ? b : b.to(a.device())).all().item<bool>();
}

}  // namespace ember
