// CUDA kernels of the binary elementwise ops: the dtype sets and semantics of
// kernels/cpu/binary_kernels.cpp. One difference: integer remainder by zero writes 0
// and raises nothing (a kernel cannot throw; the CPU kernel throws InvalidArgument).
#include "bit_math.h"
#include "core/isclose_rule.h"
#include "cuda/cuda_kernels.h"
#include "cuda/elementwise_launch.cuh"
#include "ember/registry.h"
#include "special_math.h"

namespace ember::detail {

namespace {

template <class T, class F>
struct AsOpmath {
  F f;
  template <class... X>
  __device__ auto operator()(X... x) const {
    return f(cuda_opmath_t<T>(x)...);
  }
};

template <class M>
struct AddAlphaOp {
  M alpha;
  __device__ M operator()(M x, M y) const { return x + alpha * y; }
};
struct AddOp {
  template <class M>
  __device__ M operator()(M x, M y) const { return M(x + y); }
};
struct SubOp {
  template <class M>
  __device__ M operator()(M x, M y) const { return M(x - y); }
};
struct OrOp {
  __device__ bool operator()(bool x, bool y) const { return x || y; }
};
struct MulOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    if constexpr (std::is_same_v<M, bool>) return x && y;
    else return M(x * y);
  }
};
struct DivOp {
  template <class M>
  __device__ M operator()(M x, M y) const { return x / y; }
};
struct RemainderOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    if constexpr (std::is_floating_point_v<M>) {
      M r = m_fmod(x, y);
      return (r != M(0) && ((r < M(0)) != (y < M(0)))) ? r + y : r;  // sign of the divisor
    } else {
      if (y == M(0)) return M(0);  // see the file comment
      if constexpr (std::is_signed_v<M>) {
        if (y == M(-1)) return M(0);  // avoids INT_MIN % -1 overflow
        M r = M(x % y);
        return (r != 0 && ((r < 0) != (y < 0))) ? M(r + y) : r;
      } else {
        return M(x % y);
      }
    }
  }
};
struct PowOp {
  template <class M>
  __device__ M operator()(M base, M exp) const {
    if constexpr (std::is_floating_point_v<M>) {
      return m_pow(base, exp);
    } else {
      if constexpr (std::is_signed_v<M>) {
        if (exp < 0) return base == 1 ? M(1) : base == -1 ? M((exp & 1) ? -1 : 1) : M(0);
      }
      M result = 1;
      while (exp) {
        if (exp & 1) result = M(result * base);
        exp = M(exp >> 1);
        base = M(base * base);
      }
      return result;
    }
  }
};
struct MaximumOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    if constexpr (std::is_floating_point_v<M>)
      if (x != x || y != y) return M(NAN);  // NaN propagates, as torch.maximum
    return x < y ? y : x;
  }
};
struct MinimumOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    if constexpr (std::is_floating_point_v<M>)
      if (x != x || y != y) return M(NAN);
    return y < x ? y : x;
  }
};
struct Atan2Op {
  template <class M>
  __device__ M operator()(M x, M y) const { return m_atan2(x, y); }
};

#define EMBER_BOOL_FUNCTOR(Name, expr)                  \
  struct Name {                                         \
    template <class M>                                  \
    __device__ bool operator()(M x, M y) const {        \
      return expr;                                      \
    }                                                   \
  };
EMBER_BOOL_FUNCTOR(EqOp, x == y)
EMBER_BOOL_FUNCTOR(NeOp, x != y)
EMBER_BOOL_FUNCTOR(LtOp, x < y)
EMBER_BOOL_FUNCTOR(LeOp, x <= y)
EMBER_BOOL_FUNCTOR(GtOp, x > y)
EMBER_BOOL_FUNCTOR(GeOp, x >= y)
EMBER_BOOL_FUNCTOR(LogicalAndOp, (x != M(0)) && (y != M(0)))
EMBER_BOOL_FUNCTOR(LogicalOrOp, (x != M(0)) || (y != M(0)))
EMBER_BOOL_FUNCTOR(LogicalXorOp, (x != M(0)) != (y != M(0)))
#undef EMBER_BOOL_FUNCTOR
struct BitwiseAndOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return M(x & y);
  }
};
struct BitwiseOrOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return M(x | y);
  }
};
struct BitwiseXorOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return M(x ^ y);
  }
};
struct LeftShiftOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return left_shift(x, y);
  }
};
struct RightShiftOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return right_shift(x, y);
  }
};
struct GcdOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return gcd_value(x, y);
  }
};
struct LcmOp {
  template <class M>
  __device__ M operator()(M x, M y) const {
    return lcm_value(x, y);
  }
};
struct ZetaOp {
  template <class M>
  __device__ M operator()(M x, M q) const {
    return special_zeta(x, q);
  }
};
struct NextafterOp {
  __device__ float operator()(float x, float y) const { return ::nextafterf(x, y); }
  __device__ double operator()(double x, double y) const { return ::nextafter(x, y); }
};

template <class T>
struct IsCloseOp {
  double rtol, atol;
  int64_t flags;
  template <class M>
  __device__ bool operator()(M x, M y) const { return isclose_value<T>(x, y, rtol, atol, flags); }
};

// add/sub with alpha: alpha == +-1 takes the plain functor (one add, as the CPU's loop).
template <int Sign>
void add_sub_kernel(const ElementwiseArgs& a) {
  constexpr uint32_t mask = Sign > 0 ? kAllMask : kNumericMask;
  cuda_dispatch<mask>("cuda add", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      launch_elementwise<T, T, T>(a, OrOp{});
    } else {
      const M alpha = M(Sign) * param_as<M>(a.param[0]);
      if (alpha == M(1)) launch_elementwise<T, T, T>(a, AsOpmath<T, AddOp>{});
      else if (alpha == M(-1)) launch_elementwise<T, T, T>(a, AsOpmath<T, SubOp>{});
      else launch_elementwise<T, T, T>(a, AsOpmath<T, AddAlphaOp<M>>{{alpha}});
    }
  });
}

template <uint32_t Mask, class F>
void same_type_binary(const ElementwiseArgs& a) {
  cuda_dispatch<Mask>("cuda binary", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T>(a, AsOpmath<T, F>{});
  });
}

template <class F>
void bool_binary(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda compare", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<bool, T, T>(a, AsOpmath<T, F>{});
  });
}

// param: rtol, atol, flags (isclose_rule.h); the rule rounds each step to the storage type T.
void isclose_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda isclose", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const IsCloseOp<T> op{a.param[0].f, a.param[1].f, a.param[2].i};
    launch_elementwise<bool, T, T>(a, AsOpmath<T, IsCloseOp<T>>{op});
  });
}

}  // namespace

void register_cuda_binary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Add, kCUDA, add_sub_kernel<1>, all);
  register_kernel(Op::Sub, kCUDA, add_sub_kernel<-1>, numeric);
  register_kernel(Op::Mul, kCUDA, same_type_binary<kAllMask, MulOp>, all);
  register_kernel(Op::Div, kCUDA, same_type_binary<kFloatingMask, DivOp>, fl);
  register_kernel(Op::Remainder, kCUDA, same_type_binary<kNumericMask, RemainderOp>, numeric);
  register_kernel(Op::Pow, kCUDA, same_type_binary<kNumericMask, PowOp>, numeric);
  register_kernel(Op::Maximum, kCUDA, same_type_binary<kAllMask, MaximumOp>, all);
  register_kernel(Op::Minimum, kCUDA, same_type_binary<kAllMask, MinimumOp>, all);
  register_kernel(Op::Atan2, kCUDA, same_type_binary<kFloatingMask, Atan2Op>, fl);
  register_kernel(Op::Eq, kCUDA, bool_binary<EqOp>, all);
  register_kernel(Op::Ne, kCUDA, bool_binary<NeOp>, all);
  register_kernel(Op::Lt, kCUDA, bool_binary<LtOp>, all);
  register_kernel(Op::Le, kCUDA, bool_binary<LeOp>, all);
  register_kernel(Op::Gt, kCUDA, bool_binary<GtOp>, all);
  register_kernel(Op::Ge, kCUDA, bool_binary<GeOp>, all);
  register_kernel(Op::LogicalAnd, kCUDA, bool_binary<LogicalAndOp>, all);
  register_kernel(Op::LogicalOr, kCUDA, bool_binary<LogicalOrOp>, all);
  register_kernel(Op::LogicalXor, kCUDA, bool_binary<LogicalXorOp>, all);
  register_kernel(Op::IsClose, kCUDA, isclose_kernel, all);
  const DtypeSet ints = {kUInt8, kInt8, kInt16, kInt32, kInt64};
  const DtypeSet ints_bool = ints | DtypeSet{kBool};
  register_kernel(Op::BitwiseAnd, kCUDA, same_type_binary<kIntegralMask, BitwiseAndOp>, ints_bool);
  register_kernel(Op::BitwiseOr, kCUDA, same_type_binary<kIntegralMask, BitwiseOrOp>, ints_bool);
  register_kernel(Op::BitwiseXor, kCUDA, same_type_binary<kIntegralMask, BitwiseXorOp>, ints_bool);
  register_kernel(Op::LeftShift, kCUDA, same_type_binary<kIntMask, LeftShiftOp>, ints);
  register_kernel(Op::RightShift, kCUDA, same_type_binary<kIntMask, RightShiftOp>, ints);
  register_kernel(Op::Gcd, kCUDA, same_type_binary<kIntMask, GcdOp>, ints);
  register_kernel(Op::Lcm, kCUDA, same_type_binary<kIntMask, LcmOp>, ints);
  register_kernel(Op::Nextafter, kCUDA, same_type_binary<dtype_bit(kFloat) | dtype_bit(kDouble), NextafterOp>,
                  {kFloat, kDouble});
  register_kernel(Op::Zeta, kCUDA, same_type_binary<kFloatingMask, ZetaOp>, fl);
}

}  // namespace ember::detail
