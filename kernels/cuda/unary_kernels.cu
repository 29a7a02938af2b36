// CUDA kernels of the unary elementwise ops (and clamp): the dtype sets and semantics of
// kernels/cpu/unary_kernels.cpp. Floating functions compute in float for Half / BFloat16.
#include <cmath>

#include "cuda/cuda_kernels.h"
#include "cuda/elementwise_launch.cuh"
#include "ember/registry.h"
#include "special_bessel.h"
#include "special_math.h"

namespace ember::detail {

namespace {

// Functors over the compute type M; one template per op keeps instantiations to the
// dtypes the op is registered for.
#define EMBER_FLOAT_FUNCTOR(Name, expr)                   \
  struct Name {                                           \
    template <class M>                                    \
    __device__ M operator()(M x) const {                  \
      return expr;                                        \
    }                                                     \
  };
EMBER_FLOAT_FUNCTOR(ExpOp, m_exp(x))
EMBER_FLOAT_FUNCTOR(LogOp, m_log(x))
EMBER_FLOAT_FUNCTOR(Log1pOp, m_log1p(x))
EMBER_FLOAT_FUNCTOR(Expm1Op, m_expm1(x))
EMBER_FLOAT_FUNCTOR(SqrtOp, m_sqrt(x))
EMBER_FLOAT_FUNCTOR(RsqrtOp, M(1) / m_sqrt(x))
EMBER_FLOAT_FUNCTOR(SinOp, m_sin(x))
EMBER_FLOAT_FUNCTOR(CosOp, m_cos(x))
EMBER_FLOAT_FUNCTOR(TanOp, m_tan(x))
EMBER_FLOAT_FUNCTOR(TanhOp, m_tanh(x))
EMBER_FLOAT_FUNCTOR(SigmoidOp, M(1) / (M(1) + m_exp(-x)))
EMBER_FLOAT_FUNCTOR(GeluOp, M(0.5) * x * (M(1) + m_erf(x * M(0.70710678118654752440))))
EMBER_FLOAT_FUNCTOR(ReciprocalOp, M(1) / x)
EMBER_FLOAT_FUNCTOR(ErfOp, m_erf(x))
EMBER_FLOAT_FUNCTOR(ErfcOp, m_erfc(x))
EMBER_FLOAT_FUNCTOR(ErfinvOp, m_erfinv(x))
EMBER_FLOAT_FUNCTOR(LgammaOp, m_lgamma(x))
EMBER_FLOAT_FUNCTOR(DigammaOp, special_digamma(x))
EMBER_FLOAT_FUNCTOR(TrigammaOp, special_trigamma(x))
EMBER_FLOAT_FUNCTOR(I0Op, special_i0(x))
EMBER_FLOAT_FUNCTOR(I0eOp, special_i0e(x))
EMBER_FLOAT_FUNCTOR(I1Op, special_i1(x))
EMBER_FLOAT_FUNCTOR(I1eOp, special_i1e(x))
#undef EMBER_FLOAT_FUNCTOR

struct NegOp {
  template <class M>
  __device__ M operator()(M x) const { return M(-x); }
};
struct AbsOp {
  template <class M>
  __device__ M operator()(M x) const {
    if constexpr (std::is_unsigned_v<M>) return x;
    else return M(x < M(0) ? -x : x);
  }
};
struct SignOp {
  template <class M>
  __device__ M operator()(M x) const {
    if constexpr (std::is_same_v<M, bool>) return x;
    else if constexpr (std::is_unsigned_v<M>) return M(x != M(0));
    else return M(int(M(0) < x) - int(x < M(0)));
  }
};
struct SquareOp {
  template <class M>
  __device__ M operator()(M x) const { return M(x * x); }
};
struct ReluOp {
  template <class M>
  __device__ M operator()(M x) const {
    if constexpr (std::is_unsigned_v<M>) return x;
    else return x < M(0) ? M(0) : x;  // NaN stays NaN
  }
};
enum class Rounding { Floor, Ceil, Round, Trunc };
template <Rounding R>
struct RoundOp {
  template <class M>
  __device__ M operator()(M x) const {
    if constexpr (!std::is_floating_point_v<M>) return x;  // integers are already whole
    else if constexpr (R == Rounding::Floor) return m_floor(x);
    else if constexpr (R == Rounding::Ceil) return m_ceil(x);
    else if constexpr (R == Rounding::Round) return m_rint(x);  // half to even, as nearbyint
    else return m_trunc(x);
  }
};
template <class M>
struct ClampOp {
  M lo, hi;
  bool has_lo, has_hi, nan_lo, nan_hi;
  __device__ M operator()(M x) const {
    // A NaN bound makes every result NaN, as in libtorch; a NaN x stays NaN (NaN < lo is false).
    if (has_lo) x = nan_lo || x < lo ? lo : x;
    if (has_hi) x = nan_hi || hi < x ? hi : x;
    return x;
  }
};
struct IsNanOp {
  template <class M>
  __device__ bool operator()(M x) const {
    if constexpr (std::is_floating_point_v<M>) return m_isnan(x);
    else return false;
  }
};
struct IsInfOp {
  template <class M>
  __device__ bool operator()(M x) const {
    if constexpr (std::is_floating_point_v<M>) return m_isinf(x);
    else return false;
  }
};
struct LogicalNotOp {
  template <class M>
  __device__ bool operator()(M x) const { return !(x != M(0)); }
};

struct BitwiseNotOp {
  template <class M>
  __device__ M operator()(M x) const {
    if constexpr (std::is_same_v<M, bool>)
      return !x;
    else
      return M(~x);
  }
};

// Adapts a templated functor to the compute type of the storage type T.
template <class T, class F>
struct AsOpmath {
  F f;
  template <class... X>
  __device__ auto operator()(X... x) const {
    return f(cuda_opmath_t<T>(x)...);
  }
};

template <class F>
void floating_unary(const ElementwiseArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda unary", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(a, AsOpmath<T, F>{F{}});
  });
}

template <uint32_t Mask, class F>
void same_type_unary(const ElementwiseArgs& a) {
  cuda_dispatch<Mask>("cuda unary", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T>(a, AsOpmath<T, F>{F{}});
  });
}

template <class F>
void bool_unary(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda unary", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<bool, T>(a, AsOpmath<T, F>{F{}});
  });
}

void clamp_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kNumericMask>("cuda clamp", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    const M lo = param_as<M>(a.param[0]), hi = param_as<M>(a.param[1]);
    const bool nan_lo = a.has_param[0] && std::isnan(double(lo)), nan_hi = a.has_param[1] && std::isnan(double(hi));
    ClampOp<M> op{lo, hi, a.has_param[0], a.has_param[1], nan_lo, nan_hi};
    launch_elementwise<T, T>(a, op);
  });
}

}  // namespace

void register_cuda_unary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Exp, kCUDA, floating_unary<ExpOp>, fl);
  register_kernel(Op::Log, kCUDA, floating_unary<LogOp>, fl);
  register_kernel(Op::Log1p, kCUDA, floating_unary<Log1pOp>, fl);
  register_kernel(Op::Expm1, kCUDA, floating_unary<Expm1Op>, fl);
  register_kernel(Op::Sqrt, kCUDA, floating_unary<SqrtOp>, fl);
  register_kernel(Op::Rsqrt, kCUDA, floating_unary<RsqrtOp>, fl);
  register_kernel(Op::Sin, kCUDA, floating_unary<SinOp>, fl);
  register_kernel(Op::Cos, kCUDA, floating_unary<CosOp>, fl);
  register_kernel(Op::Tan, kCUDA, floating_unary<TanOp>, fl);
  register_kernel(Op::Tanh, kCUDA, floating_unary<TanhOp>, fl);
  register_kernel(Op::Sigmoid, kCUDA, floating_unary<SigmoidOp>, fl);
  register_kernel(Op::Gelu, kCUDA, floating_unary<GeluOp>, fl);
  register_kernel(Op::Reciprocal, kCUDA, floating_unary<ReciprocalOp>, fl);
  register_kernel(Op::Erf, kCUDA, floating_unary<ErfOp>, fl);
  register_kernel(Op::Erfc, kCUDA, floating_unary<ErfcOp>, fl);
  register_kernel(Op::Erfinv, kCUDA, floating_unary<ErfinvOp>, fl);
  register_kernel(Op::Lgamma, kCUDA, floating_unary<LgammaOp>, fl);
  register_kernel(Op::Digamma, kCUDA, floating_unary<DigammaOp>, fl);
  register_kernel(Op::Trigamma, kCUDA, floating_unary<TrigammaOp>, fl);
  // The CPU's dtypes (libtorch's CPU sets: I0 and its scaled form take bfloat16 too, I1 float and
  // double only); libtorch's CUDA also takes half for the I0 pair, ember does not yet.
  const DtypeSet bessel_i0_types{kFloat, kDouble, kBFloat16}, bessel_i1_types{kFloat, kDouble};
  register_kernel(Op::I0, kCUDA, floating_unary<I0Op>, bessel_i0_types);
  register_kernel(Op::I0e, kCUDA, floating_unary<I0eOp>, bessel_i0_types);
  register_kernel(Op::I1, kCUDA, floating_unary<I1Op>, bessel_i1_types);
  register_kernel(Op::I1e, kCUDA, floating_unary<I1eOp>, bessel_i1_types);
  register_kernel(Op::Neg, kCUDA, same_type_unary<kNumericMask, NegOp>, numeric);
  register_kernel(Op::Abs, kCUDA, same_type_unary<kNumericMask, AbsOp>, numeric);
  register_kernel(Op::Sign, kCUDA, same_type_unary<kAllMask, SignOp>, all);
  register_kernel(Op::Square, kCUDA, same_type_unary<kNumericMask, SquareOp>, numeric);
  register_kernel(Op::Relu, kCUDA, same_type_unary<kNumericMask, ReluOp>, numeric);
  register_kernel(Op::Floor, kCUDA, same_type_unary<kNumericMask, RoundOp<Rounding::Floor>>, numeric);
  register_kernel(Op::Ceil, kCUDA, same_type_unary<kNumericMask, RoundOp<Rounding::Ceil>>, numeric);
  register_kernel(Op::Round, kCUDA, same_type_unary<kNumericMask, RoundOp<Rounding::Round>>, numeric);
  register_kernel(Op::Trunc, kCUDA, same_type_unary<kNumericMask, RoundOp<Rounding::Trunc>>, numeric);
  register_kernel(Op::Clamp, kCUDA, clamp_kernel, numeric);
  register_kernel(Op::IsNan, kCUDA, bool_unary<IsNanOp>, all);
  register_kernel(Op::IsInf, kCUDA, bool_unary<IsInfOp>, all);
  register_kernel(Op::LogicalNot, kCUDA, bool_unary<LogicalNotOp>, all);
  register_kernel(Op::BitwiseNot, kCUDA, same_type_unary<kIntegralMask, BitwiseNotOp>,
                  {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64});
}

}  // namespace ember::detail
