// CPU kernels of torch::special's Bessel functions, orthogonal polynomials, erfcx and the
// incomplete gamma functions. Scalar code (no vector form exists), compiled once at the
// baseline instruction set: every capability gives the same bits.
#include "core/check.h"
#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "special_bessel_jyk.h"
#include "special_erfcx.h"
#include "special_gamma_inc.h"
#include "special_polynomials.h"

namespace ember::detail {

namespace {

using EMBER_CPU_NS::elementwise_kernel;

// float and double only, as libtorch's kernels for these functions.
template <class F>
void float_or_double(ScalarType dtype, F f) {
  switch (dtype) {
    case kFloat:
      return f(float{});
    case kDouble:
      return f(double{});
    default:
      EMBER_THROW(NotImplemented, "special function kernel: expects float or double, got {}", name(dtype));
  }
}

#define EMBER_SPECIAL_UNARY(kernel, fn)                            \
  void kernel(const ElementwiseArgs& a) {                          \
    float_or_double(a.dtype, [&](auto tag) {                       \
      using T = decltype(tag);                                     \
      elementwise_kernel<T, T>(a, [](T x) -> T { return fn(x); }); \
    });                                                            \
  }
EMBER_SPECIAL_UNARY(airy_ai_kernel, special_airy_ai)
EMBER_SPECIAL_UNARY(bessel_j0_kernel, special_bessel_j0)
EMBER_SPECIAL_UNARY(bessel_j1_kernel, special_bessel_j1)
EMBER_SPECIAL_UNARY(bessel_y0_kernel, special_bessel_y0)
EMBER_SPECIAL_UNARY(bessel_y1_kernel, special_bessel_y1)
EMBER_SPECIAL_UNARY(modified_bessel_i0_kernel, special_modified_bessel_i0)
EMBER_SPECIAL_UNARY(modified_bessel_i1_kernel, special_modified_bessel_i1)
EMBER_SPECIAL_UNARY(modified_bessel_k0_kernel, special_modified_bessel_k0)
EMBER_SPECIAL_UNARY(modified_bessel_k1_kernel, special_modified_bessel_k1)
EMBER_SPECIAL_UNARY(scaled_modified_bessel_k0_kernel, special_scaled_modified_bessel_k0)
EMBER_SPECIAL_UNARY(scaled_modified_bessel_k1_kernel, special_scaled_modified_bessel_k1)
EMBER_SPECIAL_UNARY(spherical_bessel_j0_kernel, special_spherical_bessel_j0)
EMBER_SPECIAL_UNARY(erfcx_kernel, special_erfcx)
#undef EMBER_SPECIAL_UNARY

#define EMBER_SPECIAL_BINARY(kernel, fn)                                      \
  void kernel(const ElementwiseArgs& a) {                                     \
    float_or_double(a.dtype, [&](auto tag) {                                  \
      using T = decltype(tag);                                                \
      elementwise_kernel<T, T, T>(a, [](T x, T n) -> T { return fn(x, n); }); \
    });                                                                       \
  }
EMBER_SPECIAL_BINARY(chebyshev_t_kernel, special_chebyshev_polynomial_t)
EMBER_SPECIAL_BINARY(chebyshev_u_kernel, special_chebyshev_polynomial_u)
EMBER_SPECIAL_BINARY(chebyshev_v_kernel, special_chebyshev_polynomial_v)
EMBER_SPECIAL_BINARY(chebyshev_w_kernel, special_chebyshev_polynomial_w)
EMBER_SPECIAL_BINARY(shifted_chebyshev_t_kernel, special_shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_BINARY(shifted_chebyshev_u_kernel, special_shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_BINARY(shifted_chebyshev_v_kernel, special_shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_BINARY(shifted_chebyshev_w_kernel, special_shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_BINARY(hermite_h_kernel, special_hermite_polynomial_h)
EMBER_SPECIAL_BINARY(hermite_he_kernel, special_hermite_polynomial_he)
EMBER_SPECIAL_BINARY(laguerre_l_kernel, special_laguerre_polynomial_l)
EMBER_SPECIAL_BINARY(legendre_p_kernel, special_legendre_polynomial_p)
#undef EMBER_SPECIAL_BINARY

// igamma / igammac take every floating dtype; Half and BFloat16 compute in float.
template <bool Upper>
void incomplete_gamma_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(
        a, [](M s, M x) -> M { return Upper ? special_igammac(s, x) : special_igamma(s, x); });
  });
}

}  // namespace

void register_cpu_special_kernels() {
  const DtypeSet fd{kFloat, kDouble};
  register_kernel(Op::AiryAi, kCPU, airy_ai_kernel, fd);
  register_kernel(Op::BesselJ0, kCPU, bessel_j0_kernel, fd);
  register_kernel(Op::BesselJ1, kCPU, bessel_j1_kernel, fd);
  register_kernel(Op::BesselY0, kCPU, bessel_y0_kernel, fd);
  register_kernel(Op::BesselY1, kCPU, bessel_y1_kernel, fd);
  register_kernel(Op::ModifiedBesselI0, kCPU, modified_bessel_i0_kernel, fd);
  register_kernel(Op::ModifiedBesselI1, kCPU, modified_bessel_i1_kernel, fd);
  register_kernel(Op::ModifiedBesselK0, kCPU, modified_bessel_k0_kernel, fd);
  register_kernel(Op::ModifiedBesselK1, kCPU, modified_bessel_k1_kernel, fd);
  register_kernel(Op::ScaledModifiedBesselK0, kCPU, scaled_modified_bessel_k0_kernel, fd);
  register_kernel(Op::ScaledModifiedBesselK1, kCPU, scaled_modified_bessel_k1_kernel, fd);
  register_kernel(Op::SphericalBesselJ0, kCPU, spherical_bessel_j0_kernel, fd);
  register_kernel(Op::Erfcx, kCPU, erfcx_kernel, fd);
  register_kernel(Op::ChebyshevT, kCPU, chebyshev_t_kernel, fd);
  register_kernel(Op::ChebyshevU, kCPU, chebyshev_u_kernel, fd);
  register_kernel(Op::ChebyshevV, kCPU, chebyshev_v_kernel, fd);
  register_kernel(Op::ChebyshevW, kCPU, chebyshev_w_kernel, fd);
  register_kernel(Op::ShiftedChebyshevT, kCPU, shifted_chebyshev_t_kernel, fd);
  register_kernel(Op::ShiftedChebyshevU, kCPU, shifted_chebyshev_u_kernel, fd);
  register_kernel(Op::ShiftedChebyshevV, kCPU, shifted_chebyshev_v_kernel, fd);
  register_kernel(Op::ShiftedChebyshevW, kCPU, shifted_chebyshev_w_kernel, fd);
  register_kernel(Op::HermiteH, kCPU, hermite_h_kernel, fd);
  register_kernel(Op::HermiteHe, kCPU, hermite_he_kernel, fd);
  register_kernel(Op::LaguerreL, kCPU, laguerre_l_kernel, fd);
  register_kernel(Op::LegendreP, kCPU, legendre_p_kernel, fd);
  register_kernel(Op::Igamma, kCPU, incomplete_gamma_kernel<false>, DtypeSet::floating());
  register_kernel(Op::Igammac, kCPU, incomplete_gamma_kernel<true>, DtypeSet::floating());
}

}  // namespace ember::detail
