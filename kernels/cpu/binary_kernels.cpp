// CPU kernels of the binary elementwise ops: arithmetic, comparisons and logical ops.
// Inputs arrive in one dtype (the front-end promotes); comparisons write bool.
#include <atomic>
#include <cmath>

#include "bit_math.h"
#include "core/dtype_dispatch.h"
#include "core/isclose_rule.h"
#include "cpu/cpu_loops.h"
#include "cpu/dense_f32.h"
#include "cpu/register_cpu.h"
#include "cpu/streaming_f32.h"
#include "special_math.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

// Dense float32 outputs below the streaming-store size take the restrict loop (threaded
// above kParallelGrain); larger ones take try_streaming_binary_f32.
constexpr int64_t kCachedF32 = kStreamingBytes / int64_t(sizeof(float));

template <class F>
void same_type_binary(const ElementwiseArgs& a, F f) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(a, [&](M x, M y) -> M { return f(x, y); });
  });
}

// add/sub with alpha: alpha == 1 takes the plain loop so it vectorises to one add.
template <int Sign>
void add_sub_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      elementwise_kernel<T, T, T>(a, [](bool x, bool y) -> bool { return x || y; });
    } else {
      const M alpha = M(Sign) * kernel_param<M>(a.param[0]);
      if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>) {
        if (alpha == 1.0f && try_dense_binary_16<T>(a, [](auto x, auto y) { return x + y; })) return;
        if (alpha == -1.0f && try_dense_binary_16<T>(a, [](auto x, auto y) { return x - y; })) return;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (alpha == 1.0f && try_dense_binary_f32(a, kCachedF32, [](float x, float y) { return x + y; }))
          return;
        if (alpha == -1.0f && try_dense_binary_f32(a, kCachedF32, [](float x, float y) { return x - y; }))
          return;
      }
#if defined(__SSE2__)
      if constexpr (std::is_same_v<T, float>) {
        if (alpha == 1.0f && try_streaming_binary_f32(a, [](__m128 x, __m128 y) { return _mm_add_ps(x, y); },
                                                      [](float x, float y) { return x + y; }))
          return;
        if (alpha == -1.0f && try_streaming_binary_f32(a, [](__m128 x, __m128 y) { return _mm_sub_ps(x, y); },
                                                       [](float x, float y) { return x - y; }))
          return;
      }
#endif
      if (alpha == M(1)) elementwise_kernel<T, T, T>(a, [](M x, M y) -> M { return x + y; });
      else if (alpha == M(-1)) elementwise_kernel<T, T, T>(a, [](M x, M y) -> M { return x - y; });
      else elementwise_kernel<T, T, T>(a, [alpha](M x, M y) -> M { return x + alpha * y; });
    }
  });
}

void mul_kernel(const ElementwiseArgs& a) {
  auto times = [](auto x, auto y) { return x * y; };
  if (a.dtype == kBFloat16 && try_dense_binary_16<BFloat16>(a, times)) return;
  if (a.dtype == kHalf && try_dense_binary_16<Half>(a, times)) return;
  if (a.dtype == kFloat && try_dense_binary_f32(a, kCachedF32, [](float x, float y) { return x * y; })) return;
#if defined(__SSE2__)
  if (a.dtype == kFloat && try_streaming_binary_f32(a, [](__m128 x, __m128 y) { return _mm_mul_ps(x, y); },
                                                    [](float x, float y) { return x * y; }))
    return;
#endif
  same_type_binary(a, [](auto x, auto y) {
    if constexpr (std::is_same_v<decltype(x), bool>) return bool(x && y);
    else return decltype(x)(x * y);
  });
}

void div_kernel(const ElementwiseArgs& a) {  // floating only: integer inputs are promoted
  auto over = [](auto x, auto y) { return x / y; };
  if (a.dtype == kBFloat16 && try_dense_binary_16<BFloat16>(a, over)) return;
  if (a.dtype == kHalf && try_dense_binary_16<Half>(a, over)) return;
  if (a.dtype == kFloat && try_dense_binary_f32(a, kCachedF32, [](float x, float y) { return x / y; })) return;
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(a, [](M x, M y) -> M { return x / y; });
  });
}

void remainder_kernel(const ElementwiseArgs& a) {
  std::atomic<bool> divided_by_zero{false};
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(a, [&](M x, M y) -> M {
      if constexpr (std::is_floating_point_v<M>) {
        M r = std::fmod(x, y);
        return (r != M(0) && ((r < M(0)) != (y < M(0)))) ? r + y : r;  // sign of the divisor
      } else {
        if (y == M(0)) {
          divided_by_zero.store(true, std::memory_order_relaxed);
          return M(0);
        }
        if constexpr (std::is_signed_v<M>) {
          if (y == M(-1)) return M(0);  // avoids INT_MIN % -1 overflow
          M r = M(x % y);
          return (r != 0 && ((r < 0) != (y < 0))) ? M(r + y) : r;
        } else {
          return M(x % y);
        }
      }
    });
  });
  EMBER_CHECK_TYPED(!divided_by_zero.load(), InvalidArgument, "remainder: integer division by zero");
}

template <class M>
M int_pow(M base, M exp) {
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

void pow_kernel(const ElementwiseArgs& a) {
  same_type_binary(a, [](auto x, auto y) {
    using M = decltype(x);
    if constexpr (std::is_floating_point_v<M>) return M(std::pow(x, y));
    else if constexpr (std::is_same_v<M, bool>) return bool(x || !y);
    else return int_pow<M>(x, y);
  });
}

void maximum_kernel(const ElementwiseArgs& a) {
  same_type_binary(a, [](auto x, auto y) {
    using M = decltype(x);
    if constexpr (std::is_floating_point_v<M>)
      if (x != x || y != y) return M(NAN);  // NaN propagates, as torch.maximum
    return x < y ? y : x;
  });
}
void minimum_kernel(const ElementwiseArgs& a) {
  same_type_binary(a, [](auto x, auto y) {
    using M = decltype(x);
    if constexpr (std::is_floating_point_v<M>)
      if (x != x || y != y) return M(NAN);
    return y < x ? y : x;
  });
}
void atan2_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(a, [](M x, M y) -> M { return std::atan2(x, y); });
  });
}

template <class F>
void bool_binary(const ElementwiseArgs& a, F f) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<bool, T, T>(a, [&](M x, M y) -> bool { return f(x, y); });
  });
}
void eq_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x == y; }); }
void ne_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x != y; }); }
void lt_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x < y; }); }
void le_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x <= y; }); }
void gt_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x > y; }); }
void ge_kernel(const ElementwiseArgs& a) { bool_binary(a, [](auto x, auto y) { return x >= y; }); }
void logical_and_kernel(const ElementwiseArgs& a) {
  bool_binary(a, [](auto x, auto y) { return (x != decltype(x)(0)) && (y != decltype(y)(0)); });
}
void logical_or_kernel(const ElementwiseArgs& a) {
  bool_binary(a, [](auto x, auto y) { return (x != decltype(x)(0)) || (y != decltype(y)(0)); });
}
void logical_xor_kernel(const ElementwiseArgs& a) {
  bool_binary(a, [](auto x, auto y) { return (x != decltype(x)(0)) != (y != decltype(y)(0)); });
}

// param: rtol, atol, flags (isclose_rule.h); the rule rounds each step to the storage type T.
void isclose_kernel(const ElementwiseArgs& a) {
  const double rtol = a.param[0].f, atol = a.param[1].f;
  const int64_t flags = a.param[2].i;
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<bool, T, T>(a, [=](M x, M y) -> bool {
      return isclose_value<T>(x, y, rtol, atol, flags);
    });
  });
}

// The integer ops: bitwise and/or/xor (bool too), shifts, gcd and lcm.
template <class F>
void integral_binary(const ElementwiseArgs& a, F f) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      elementwise_kernel<T, T, T>(a, [&](T x, T y) -> T { return f(x, y); });
  });
}
void bitwise_and_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) { return decltype(x)(x & y); });
}
void bitwise_or_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) { return decltype(x)(x | y); });
}
void bitwise_xor_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) { return decltype(x)(x ^ y); });
}
// The shift, gcd and lcm helpers take no bool (registered without it).
template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
void left_shift_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) {
    if constexpr (is_int_v<decltype(x)>)
      return left_shift(x, y);
    else
      return x;
  });
}
void right_shift_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) {
    if constexpr (is_int_v<decltype(x)>)
      return right_shift(x, y);
    else
      return x;
  });
}
void gcd_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) {
    if constexpr (is_int_v<decltype(x)>)
      return gcd_value(x, y);
    else
      return x;
  });
}
void lcm_kernel(const ElementwiseArgs& a) {
  integral_binary(a, [](auto x, auto y) {
    if constexpr (is_int_v<decltype(x)>)
      return lcm_value(x, y);
    else
      return x;
  });
}
// The Hurwitz zeta function in T (Half and BFloat16 in float), as libtorch.
void zeta_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T>(a, [](M x, M q) -> M { return special_zeta(x, q); });
  });
}
void nextafter_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>)
      elementwise_kernel<T, T, T>(a, [](T x, T y) -> T { return std::nextafter(x, y); });
  });
}

}  // namespace

void register_cpu_binary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Add, kCPU, add_sub_kernel<1>, all);
  register_kernel(Op::Sub, kCPU, add_sub_kernel<-1>, numeric);
  register_kernel(Op::Mul, kCPU, mul_kernel, all);
  register_kernel(Op::Div, kCPU, div_kernel, fl);
  register_kernel(Op::Remainder, kCPU, remainder_kernel, numeric);
  register_kernel(Op::Pow, kCPU, pow_kernel, numeric);
  register_kernel(Op::Maximum, kCPU, maximum_kernel, all);
  register_kernel(Op::Minimum, kCPU, minimum_kernel, all);
  register_kernel(Op::Atan2, kCPU, atan2_kernel, fl);
  register_kernel(Op::Eq, kCPU, eq_kernel, all);
  register_kernel(Op::Ne, kCPU, ne_kernel, all);
  register_kernel(Op::Lt, kCPU, lt_kernel, all);
  register_kernel(Op::Le, kCPU, le_kernel, all);
  register_kernel(Op::Gt, kCPU, gt_kernel, all);
  register_kernel(Op::Ge, kCPU, ge_kernel, all);
  register_kernel(Op::LogicalAnd, kCPU, logical_and_kernel, all);
  register_kernel(Op::LogicalOr, kCPU, logical_or_kernel, all);
  register_kernel(Op::LogicalXor, kCPU, logical_xor_kernel, all);
  register_kernel(Op::IsClose, kCPU, isclose_kernel, all);
  const DtypeSet ints = {kUInt8, kInt8, kInt16, kInt32, kInt64};
  const DtypeSet ints_bool = ints | DtypeSet{kBool};
  register_kernel(Op::BitwiseAnd, kCPU, bitwise_and_kernel, ints_bool);
  register_kernel(Op::BitwiseOr, kCPU, bitwise_or_kernel, ints_bool);
  register_kernel(Op::BitwiseXor, kCPU, bitwise_xor_kernel, ints_bool);
  register_kernel(Op::LeftShift, kCPU, left_shift_kernel, ints);
  register_kernel(Op::RightShift, kCPU, right_shift_kernel, ints);
  register_kernel(Op::Gcd, kCPU, gcd_kernel, ints);
  register_kernel(Op::Lcm, kCPU, lcm_kernel, ints);
  register_kernel(Op::Nextafter, kCPU, nextafter_kernel, {kFloat, kDouble});
  register_kernel(Op::Zeta, kCPU, zeta_kernel, fl);
}

}  // namespace ember::detail::EMBER_CPU_NS
