// torch::special's Bessel functions, orthogonal polynomials, erfcx and the regularized
// incomplete gamma functions (igamma / igammac), with libtorch's dtypes and error texts.
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/type_promotion.h"
#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember {

using detail::ComputeType;
using detail::run_binary;
using detail::run_unary;

namespace {

// libtorch's kernel names end in the device the op runs on: a CUDA operand wins over a CPU
// one (a 0-dim CPU tensor may join a CUDA one).
const char* kernel_device(const Tensor& a, const Tensor& b = Tensor()) {
  return (a.defined() && a.is_cuda()) || (b.defined() && b.is_cuda()) ? "cuda" : "cpu";
}

// libtorch's kernels for these take float and double only (AT_DISPATCH_FLOATING_TYPES);
// integers reach them as the default dtype.
void check_float_or_double(const char* kernel, ScalarType t, const char* device) {
  EMBER_CHECK_TYPED(t == kFloat || t == kDouble, NotImplemented, "\"{}_{}\" not implemented for '{}'", kernel,
                    device, detail::torch_name(t));
}

Tensor float_unary(Op op, const char* kernel, const Tensor& x) {
  EMBER_CHECK_ARG(x.defined(), "{}: undefined tensor", kernel);
  check_float_or_double(kernel, detail::to_floating(x.dtype()), kernel_device(x));
  return run_unary(op, x, ComputeType::Floating);
}

// A Scalar operand is always defined and lives on no device.
bool defined(const Tensor& t) { return t.defined(); }
bool defined(const Scalar&) { return true; }
const Tensor& tensor_or_none(const Tensor& t) { return t; }
Tensor tensor_or_none(const Scalar&) { return Tensor(); }

// The polynomials: n is truncated to an integer inside the kernel, as libtorch's.
template <class A, class B>
Tensor polynomial(Op op, const char* kernel, const A& x, const B& n) {
  EMBER_CHECK_ARG(defined(x) && defined(n), "{}: undefined tensor", kernel);
  check_float_or_double(kernel, detail::to_floating(result_type(x, n)),
                        kernel_device(tensor_or_none(x), tensor_or_none(n)));
  return run_binary(op, x, n, ComputeType::Floating);
}

// igamma / igammac are ordinary binary ops: floating dtypes of every width, no integers.
Tensor incomplete_gamma(Op op, const char* kernel, const Tensor& a, const Tensor& x) {
  EMBER_CHECK_ARG(a.defined() && x.defined(), "{}: undefined tensor", kernel);
  const ScalarType t = result_type(a, x);
  EMBER_CHECK_TYPED(is_floating_point(t), NotImplemented, "\"{}_{}\" not implemented for '{}'", kernel,
                    kernel_device(a, x), detail::torch_name(t));
  return run_binary(op, a, x, ComputeType::Promoted);
}

}  // namespace

#define EMBER_SPECIAL_UNARY(name, op) \
  Tensor special::name(const Tensor& x) { return float_unary(op, #name, x); }
EMBER_SPECIAL_UNARY(airy_ai, Op::AiryAi)
EMBER_SPECIAL_UNARY(bessel_j0, Op::BesselJ0)
EMBER_SPECIAL_UNARY(bessel_j1, Op::BesselJ1)
EMBER_SPECIAL_UNARY(bessel_y0, Op::BesselY0)
EMBER_SPECIAL_UNARY(bessel_y1, Op::BesselY1)
EMBER_SPECIAL_UNARY(modified_bessel_i0, Op::ModifiedBesselI0)
EMBER_SPECIAL_UNARY(modified_bessel_i1, Op::ModifiedBesselI1)
EMBER_SPECIAL_UNARY(modified_bessel_k0, Op::ModifiedBesselK0)
EMBER_SPECIAL_UNARY(modified_bessel_k1, Op::ModifiedBesselK1)
EMBER_SPECIAL_UNARY(scaled_modified_bessel_k0, Op::ScaledModifiedBesselK0)
EMBER_SPECIAL_UNARY(scaled_modified_bessel_k1, Op::ScaledModifiedBesselK1)
EMBER_SPECIAL_UNARY(spherical_bessel_j0, Op::SphericalBesselJ0)
EMBER_SPECIAL_UNARY(erfcx, Op::Erfcx)
#undef EMBER_SPECIAL_UNARY

#define EMBER_SPECIAL_POLYNOMIAL(name, op)                                                       \
  Tensor special::name(const Tensor& x, const Tensor& n) { return polynomial(op, #name, x, n); } \
  Tensor special::name(const Scalar& x, const Tensor& n) { return polynomial(op, #name, x, n); } \
  Tensor special::name(const Tensor& x, const Scalar& n) { return polynomial(op, #name, x, n); }
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_t, Op::ChebyshevT)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_u, Op::ChebyshevU)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_v, Op::ChebyshevV)
EMBER_SPECIAL_POLYNOMIAL(chebyshev_polynomial_w, Op::ChebyshevW)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_t, Op::ShiftedChebyshevT)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_u, Op::ShiftedChebyshevU)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_v, Op::ShiftedChebyshevV)
EMBER_SPECIAL_POLYNOMIAL(shifted_chebyshev_polynomial_w, Op::ShiftedChebyshevW)
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_h, Op::HermiteH)
EMBER_SPECIAL_POLYNOMIAL(hermite_polynomial_he, Op::HermiteHe)
EMBER_SPECIAL_POLYNOMIAL(laguerre_polynomial_l, Op::LaguerreL)
EMBER_SPECIAL_POLYNOMIAL(legendre_polynomial_p, Op::LegendreP)
#undef EMBER_SPECIAL_POLYNOMIAL

Tensor igamma(const Tensor& a, const Tensor& x) { return incomplete_gamma(Op::Igamma, "igamma", a, x); }
Tensor igammac(const Tensor& a, const Tensor& x) { return incomplete_gamma(Op::Igammac, "igammac", a, x); }
Tensor special::gammainc(const Tensor& a, const Tensor& x) { return igamma(a, x); }
Tensor special::gammaincc(const Tensor& a, const Tensor& x) { return igammac(a, x); }
Tensor Tensor::igamma(const Tensor& x) const { return ember::igamma(*this, x); }
Tensor Tensor::igammac(const Tensor& x) const { return ember::igammac(*this, x); }

}  // namespace ember
