// CUDA kernels of torch::special's Bessel functions, orthogonal polynomials, erfcx and the
// incomplete gamma functions: the scalar functions and dtype sets of kernels/cpu/special_kernels.cpp.
#include "cuda/cuda_kernels.h"
#include "cuda/elementwise_launch.cuh"
#include "ember/registry.h"
#include "special_bessel_jyk.h"
#include "special_erfcx.h"
#include "special_gamma_inc.h"
#include "special_polynomials.h"

namespace ember::detail {

namespace {

constexpr uint32_t kFloatOrDoubleMask = dtype_bit(kFloat) | dtype_bit(kDouble);

#define EMBER_SPECIAL_FUNCTOR(Name, fn)        \
  struct Name {                                \
    template <class... M>                      \
    __device__ auto operator()(M... x) const { \
      return fn(x...);                         \
    }                                          \
  };
EMBER_SPECIAL_FUNCTOR(AiryAiOp, special_airy_ai)
EMBER_SPECIAL_FUNCTOR(BesselJ0Op, special_bessel_j0)
EMBER_SPECIAL_FUNCTOR(BesselJ1Op, special_bessel_j1)
EMBER_SPECIAL_FUNCTOR(BesselY0Op, special_bessel_y0)
EMBER_SPECIAL_FUNCTOR(BesselY1Op, special_bessel_y1)
EMBER_SPECIAL_FUNCTOR(ModifiedBesselI0Op, special_modified_bessel_i0)
EMBER_SPECIAL_FUNCTOR(ModifiedBesselI1Op, special_modified_bessel_i1)
EMBER_SPECIAL_FUNCTOR(ModifiedBesselK0Op, special_modified_bessel_k0)
EMBER_SPECIAL_FUNCTOR(ModifiedBesselK1Op, special_modified_bessel_k1)
EMBER_SPECIAL_FUNCTOR(ScaledModifiedBesselK0Op, special_scaled_modified_bessel_k0)
EMBER_SPECIAL_FUNCTOR(ScaledModifiedBesselK1Op, special_scaled_modified_bessel_k1)
EMBER_SPECIAL_FUNCTOR(SphericalBesselJ0Op, special_spherical_bessel_j0)
EMBER_SPECIAL_FUNCTOR(ErfcxOp, special_erfcx)
EMBER_SPECIAL_FUNCTOR(ChebyshevTOp, special_chebyshev_polynomial_t)
EMBER_SPECIAL_FUNCTOR(ChebyshevUOp, special_chebyshev_polynomial_u)
EMBER_SPECIAL_FUNCTOR(ChebyshevVOp, special_chebyshev_polynomial_v)
EMBER_SPECIAL_FUNCTOR(ChebyshevWOp, special_chebyshev_polynomial_w)
EMBER_SPECIAL_FUNCTOR(ShiftedChebyshevTOp, special_shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_FUNCTOR(ShiftedChebyshevUOp, special_shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_FUNCTOR(ShiftedChebyshevVOp, special_shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_FUNCTOR(ShiftedChebyshevWOp, special_shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_FUNCTOR(HermiteHOp, special_hermite_polynomial_h)
EMBER_SPECIAL_FUNCTOR(HermiteHeOp, special_hermite_polynomial_he)
EMBER_SPECIAL_FUNCTOR(LaguerreLOp, special_laguerre_polynomial_l)
EMBER_SPECIAL_FUNCTOR(LegendrePOp, special_legendre_polynomial_p)
EMBER_SPECIAL_FUNCTOR(IgammaOp, special_igamma)
EMBER_SPECIAL_FUNCTOR(IgammacOp, special_igammac)
#undef EMBER_SPECIAL_FUNCTOR

// Half and BFloat16 (igamma only) compute in float.
template <class T, class F>
struct AsOpmath {
  F f;
  template <class... X>
  __device__ T operator()(X... x) const {
    return T(f(cuda_opmath_t<T>(x)...));
  }
};

template <uint32_t Mask, class F>
void unary(const ElementwiseArgs& a) {
  cuda_dispatch<Mask>("cuda special", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(a, AsOpmath<T, F>{F{}});
  });
}
template <uint32_t Mask, class F>
void binary(const ElementwiseArgs& a) {
  cuda_dispatch<Mask>("cuda special", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(a, AsOpmath<T, F>{F{}});
  });
}

}  // namespace

void register_cuda_special_kernels() {
  const DtypeSet fd{kFloat, kDouble};
  register_kernel(Op::AiryAi, kCUDA, unary<kFloatOrDoubleMask, AiryAiOp>, fd);
  register_kernel(Op::BesselJ0, kCUDA, unary<kFloatOrDoubleMask, BesselJ0Op>, fd);
  register_kernel(Op::BesselJ1, kCUDA, unary<kFloatOrDoubleMask, BesselJ1Op>, fd);
  register_kernel(Op::BesselY0, kCUDA, unary<kFloatOrDoubleMask, BesselY0Op>, fd);
  register_kernel(Op::BesselY1, kCUDA, unary<kFloatOrDoubleMask, BesselY1Op>, fd);
  register_kernel(Op::ModifiedBesselI0, kCUDA, unary<kFloatOrDoubleMask, ModifiedBesselI0Op>, fd);
  register_kernel(Op::ModifiedBesselI1, kCUDA, unary<kFloatOrDoubleMask, ModifiedBesselI1Op>, fd);
  register_kernel(Op::ModifiedBesselK0, kCUDA, unary<kFloatOrDoubleMask, ModifiedBesselK0Op>, fd);
  register_kernel(Op::ModifiedBesselK1, kCUDA, unary<kFloatOrDoubleMask, ModifiedBesselK1Op>, fd);
  register_kernel(Op::ScaledModifiedBesselK0, kCUDA, unary<kFloatOrDoubleMask, ScaledModifiedBesselK0Op>, fd);
  register_kernel(Op::ScaledModifiedBesselK1, kCUDA, unary<kFloatOrDoubleMask, ScaledModifiedBesselK1Op>, fd);
  register_kernel(Op::SphericalBesselJ0, kCUDA, unary<kFloatOrDoubleMask, SphericalBesselJ0Op>, fd);
  register_kernel(Op::Erfcx, kCUDA, unary<kFloatOrDoubleMask, ErfcxOp>, fd);
  register_kernel(Op::ChebyshevT, kCUDA, binary<kFloatOrDoubleMask, ChebyshevTOp>, fd);
  register_kernel(Op::ChebyshevU, kCUDA, binary<kFloatOrDoubleMask, ChebyshevUOp>, fd);
  register_kernel(Op::ChebyshevV, kCUDA, binary<kFloatOrDoubleMask, ChebyshevVOp>, fd);
  register_kernel(Op::ChebyshevW, kCUDA, binary<kFloatOrDoubleMask, ChebyshevWOp>, fd);
  register_kernel(Op::ShiftedChebyshevT, kCUDA, binary<kFloatOrDoubleMask, ShiftedChebyshevTOp>, fd);
  register_kernel(Op::ShiftedChebyshevU, kCUDA, binary<kFloatOrDoubleMask, ShiftedChebyshevUOp>, fd);
  register_kernel(Op::ShiftedChebyshevV, kCUDA, binary<kFloatOrDoubleMask, ShiftedChebyshevVOp>, fd);
  register_kernel(Op::ShiftedChebyshevW, kCUDA, binary<kFloatOrDoubleMask, ShiftedChebyshevWOp>, fd);
  register_kernel(Op::HermiteH, kCUDA, binary<kFloatOrDoubleMask, HermiteHOp>, fd);
  register_kernel(Op::HermiteHe, kCUDA, binary<kFloatOrDoubleMask, HermiteHeOp>, fd);
  register_kernel(Op::LaguerreL, kCUDA, binary<kFloatOrDoubleMask, LaguerreLOp>, fd);
  register_kernel(Op::LegendreP, kCUDA, binary<kFloatOrDoubleMask, LegendrePOp>, fd);
  register_kernel(Op::Igamma, kCUDA, binary<kFloatingMask, IgammaOp>, DtypeSet::floating());
  register_kernel(Op::Igammac, kCUDA, binary<kFloatingMask, IgammacOp>, DtypeSet::floating());
}

}  // namespace ember::detail
