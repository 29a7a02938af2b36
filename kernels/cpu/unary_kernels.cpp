// CPU kernels of the unary elementwise ops (and clamp). Floating functions compute in
// opmath_t (float for Half / BFloat16).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "special_bessel.h"
#include "special_math.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

template <class F>
void floating_unary(const ElementwiseArgs& a, F f) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T>(a, [&](M x) -> M { return f(x); });
  });
}

#define EMBER_FLOAT_UNARY(fn_name, expr)                                  \
  void fn_name(const ElementwiseArgs& a) {                                \
    floating_unary(a, [](auto x) -> decltype(x) {                         \
      using M = decltype(x);                                              \
      (void)sizeof(M);                                                    \
      return expr;                                                        \
    });                                                                   \
  }

EMBER_FLOAT_UNARY(exp_portable, std::exp(x))
EMBER_FLOAT_UNARY(log_kernel, std::log(x))
EMBER_FLOAT_UNARY(log1p_kernel, std::log1p(x))
EMBER_FLOAT_UNARY(expm1_kernel, std::expm1(x))
EMBER_FLOAT_UNARY(sqrt_portable, std::sqrt(x))
EMBER_FLOAT_UNARY(rsqrt_kernel, M(1) / std::sqrt(x))
EMBER_FLOAT_UNARY(sin_kernel, std::sin(x))
EMBER_FLOAT_UNARY(cos_kernel, std::cos(x))
EMBER_FLOAT_UNARY(tan_kernel, std::tan(x))
EMBER_FLOAT_UNARY(tanh_portable, std::tanh(x))
EMBER_FLOAT_UNARY(sigmoid_portable, M(1) / (M(1) + std::exp(-x)))
EMBER_FLOAT_UNARY(gelu_kernel, M(0.5) * x * (M(1) + std::erf(x * M(0.70710678118654752440))))
EMBER_FLOAT_UNARY(reciprocal_kernel, M(1) / x)
EMBER_FLOAT_UNARY(erf_kernel, std::erf(x))
EMBER_FLOAT_UNARY(erfc_kernel, std::erfc(x))
EMBER_FLOAT_UNARY(erfinv_kernel, special_erfinv(x))
EMBER_FLOAT_UNARY(lgamma_kernel, std::lgamma(x))
EMBER_FLOAT_UNARY(digamma_kernel, special_digamma(x))
EMBER_FLOAT_UNARY(trigamma_kernel, special_trigamma(x))
EMBER_FLOAT_UNARY(i0_kernel, special_i0(x))
EMBER_FLOAT_UNARY(i0e_kernel, special_i0e(x))
EMBER_FLOAT_UNARY(i1_kernel, special_i1(x))
EMBER_FLOAT_UNARY(i1e_kernel, special_i1e(x))
#undef EMBER_FLOAT_UNARY

// Float32, float16 and bfloat16 exp, sigmoid, tanh, sqrt and relu (and float64 exp,
// sigmoid and tanh) run on vec.h's vector types (Note [Vector exp]), 16-bit values converted through
// float; strided operands are gathered into a buffer first, so a value gets the same
// result wherever it sits.
template <class Op, class T>
void map_vec(T* out, int64_t os, const T* x, int64_t xs, int64_t n) {  // strides in elements
  using M = opmath_t<T>;  // float or double
  auto map = [](M* o, const M* i, int64_t len) { map_lanes<Op>(o, i, len); };
  if constexpr (std::is_same_v<T, M>) {
    if (os == 1 && xs == 1) {
      map(out, x, n);
      return;
    }
  }
  constexpr int64_t kChunk = 256;  // a multiple of every lane count: only the last chunk pads
  M buf[kChunk];
  for (int64_t b = 0; b < n; b += kChunk) {
    const int64_t len = std::min(kChunk, n - b);
    for (int64_t k = 0; k < len; ++k) buf[k] = M(x[(b + k) * xs]);
    map(buf, buf, len);
    for (int64_t k = 0; k < len; ++k) out[(b + k) * os] = T(buf[k]);
  }
}

/// kF64: Op has a float64 form too (exp, sigmoid, tanh); the others leave float64 to libm.
template <class Op, bool kF64 = false>
bool try_vec_unary(const ElementwiseArgs& a) {
  if (a.ninputs != 1 || (a.dtype != kFloat && a.dtype != kHalf && a.dtype != kBFloat16 && !(kF64 && a.dtype == kDouble)))
    return false;
  if (a.numel == 0 || (a.contiguous && a.strides[1][0] != 1)) return false;  // the generic loop
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<opmath_t<T>, float> || (kF64 && std::is_same_v<T, double>)) {
      T* out = reinterpret_cast<T*>(a.data[0]);
      const T* x = reinterpret_cast<const T*>(a.data[1]);
      if (a.contiguous) {
        parallel_for(a.numel, kParallelGrain,
                     [&](int64_t b, int64_t e) { map_vec<Op>(out + b, 1, x + b, 1, e - b); });
        return;
      }
      const int64_t esz[2] = {int64_t(sizeof(T)), int64_t(sizeof(T))};
      const int64_t rows = a.numel / a.sizes[0];
      const int64_t grain_rows = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, a.sizes[0]));
      parallel_for(rows, grain_rows, [&](int64_t rb, int64_t re) {
        for_each_row<2>(a, esz, rb, re, [&](char** p, int64_t len, const int64_t* s) {
          map_vec<Op>(reinterpret_cast<T*>(p[0]), s[0] / int64_t(sizeof(T)),
                              reinterpret_cast<const T*>(p[1]), s[1] / int64_t(sizeof(T)), len);
        });
      });
    }
  });
  return true;
}

void exp_kernel(const ElementwiseArgs& a) {
  if (!try_vec_unary<ExpF32, true>(a)) exp_portable(a);
}
void sigmoid_kernel(const ElementwiseArgs& a) {
  if (!try_vec_unary<SigmoidF32, true>(a)) sigmoid_portable(a);
}
void tanh_kernel(const ElementwiseArgs& a) {
  if (!try_vec_unary<TanhF32, true>(a)) tanh_portable(a);
}
void sqrt_kernel(const ElementwiseArgs& a) {  // correctly rounded either way
  if (!try_vec_unary<SqrtF32>(a)) sqrt_portable(a);
}

// Ops that keep the dtype; integers take the integer form of the operation.
template <class F>
void same_type_unary(const ElementwiseArgs& a, F f) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T>(a, [&](M x) -> M { return f(x); });
  });
}

void neg_kernel(const ElementwiseArgs& a) {
  same_type_unary(a, [](auto x) { return decltype(x)(-x); });
}
void abs_kernel(const ElementwiseArgs& a) {
  same_type_unary(a, [](auto x) {
    using M = decltype(x);
    if constexpr (std::is_unsigned_v<M>) return x;
    else return M(x < M(0) ? -x : x);
  });
}
void sign_kernel(const ElementwiseArgs& a) {
  same_type_unary(a, [](auto x) {
    using M = decltype(x);
    if constexpr (std::is_same_v<M, bool>) return x;
    else return M(int(M(0) < x) - int(x < M(0)));
  });
}
void square_kernel(const ElementwiseArgs& a) {
  same_type_unary(a, [](auto x) { return decltype(x)(x * x); });
}
void relu_kernel(const ElementwiseArgs& a) {
  if (try_vec_unary<ReluF32>(a)) return;
  same_type_unary(a, [](auto x) {
    using M = decltype(x);
    return x < M(0) ? M(0) : x;  // NaN stays NaN
  });
}
template <class F>
void rounding_unary(const ElementwiseArgs& a, F f) {
  same_type_unary(a, [&](auto x) {
    using M = decltype(x);
    if constexpr (std::is_floating_point_v<M>) return M(f(x));
    else return x;  // integers are already whole
  });
}
void floor_kernel(const ElementwiseArgs& a) { rounding_unary(a, [](auto x) { return std::floor(x); }); }
void ceil_kernel(const ElementwiseArgs& a) { rounding_unary(a, [](auto x) { return std::ceil(x); }); }
void round_kernel(const ElementwiseArgs& a) { rounding_unary(a, [](auto x) { return std::nearbyint(x); }); }
void trunc_kernel(const ElementwiseArgs& a) { rounding_unary(a, [](auto x) { return std::trunc(x); }); }

void clamp_kernel(const ElementwiseArgs& a) {
  const bool has_lo = a.has_param[0], has_hi = a.has_param[1];
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    auto pick = [](const KernelScalar& s) {
      if constexpr (std::is_floating_point_v<M>) return M(s.f);
      else return M(s.i);
    };
    const M lo = pick(a.param[0]), hi = pick(a.param[1]);
    const bool nan_lo = has_lo && std::isnan(double(lo)), nan_hi = has_hi && std::isnan(double(hi));
    // A NaN bound makes every result NaN, as in libtorch; a NaN x stays NaN (NaN < lo is false).
    elementwise_kernel<T, T>(a, [=](M x) -> M {
      if (has_lo) x = nan_lo || x < lo ? lo : x;
      if (has_hi) x = nan_hi || hi < x ? hi : x;
      return x;
    });
  });
}

template <class F>
void bool_unary(const ElementwiseArgs& a, F f) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<bool, T>(a, [&](M x) -> bool { return f(x); });
  });
}
void isnan_kernel(const ElementwiseArgs& a) {
  bool_unary(a, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::isnan(x);
    else return false;
  });
}
void isinf_kernel(const ElementwiseArgs& a) {
  bool_unary(a, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) return std::isinf(x);
    else return false;
  });
}
void logical_not_kernel(const ElementwiseArgs& a) {
  bool_unary(a, [](auto x) { return !(x != decltype(x)(0)); });
}

void bitwise_not_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      elementwise_kernel<T, T>(a, [](bool x) -> bool { return !x; });
    else if constexpr (std::is_integral_v<T>)
      elementwise_kernel<T, T>(a, [](T x) -> T { return T(~x); });
  });
}

}  // namespace

void register_cpu_unary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Exp, kCPU, exp_kernel, fl);
  register_kernel(Op::Log, kCPU, log_kernel, fl);
  register_kernel(Op::Log1p, kCPU, log1p_kernel, fl);
  register_kernel(Op::Expm1, kCPU, expm1_kernel, fl);
  register_kernel(Op::Sqrt, kCPU, sqrt_kernel, fl);
  register_kernel(Op::Rsqrt, kCPU, rsqrt_kernel, fl);
  register_kernel(Op::Sin, kCPU, sin_kernel, fl);
  register_kernel(Op::Cos, kCPU, cos_kernel, fl);
  register_kernel(Op::Tan, kCPU, tan_kernel, fl);
  register_kernel(Op::Tanh, kCPU, tanh_kernel, fl);
  register_kernel(Op::Sigmoid, kCPU, sigmoid_kernel, fl);
  register_kernel(Op::Gelu, kCPU, gelu_kernel, fl);
  register_kernel(Op::Reciprocal, kCPU, reciprocal_kernel, fl);
  register_kernel(Op::Erf, kCPU, erf_kernel, fl);
  register_kernel(Op::Erfc, kCPU, erfc_kernel, fl);
  register_kernel(Op::Erfinv, kCPU, erfinv_kernel, fl);
  register_kernel(Op::Lgamma, kCPU, lgamma_kernel, fl);
  register_kernel(Op::Digamma, kCPU, digamma_kernel, fl);
  register_kernel(Op::Trigamma, kCPU, trigamma_kernel, fl);
  // libtorch's dtypes: I0 and its scaled form take bfloat16 too, I1 float and double only.
  const DtypeSet bessel_i0_types{kFloat, kDouble, kBFloat16}, bessel_i1_types{kFloat, kDouble};
  register_kernel(Op::I0, kCPU, i0_kernel, bessel_i0_types);
  register_kernel(Op::I0e, kCPU, i0e_kernel, bessel_i0_types);
  register_kernel(Op::I1, kCPU, i1_kernel, bessel_i1_types);
  register_kernel(Op::I1e, kCPU, i1e_kernel, bessel_i1_types);
  register_kernel(Op::Neg, kCPU, neg_kernel, numeric);
  register_kernel(Op::Abs, kCPU, abs_kernel, numeric);
  register_kernel(Op::Sign, kCPU, sign_kernel, all);
  register_kernel(Op::Square, kCPU, square_kernel, numeric);
  register_kernel(Op::Relu, kCPU, relu_kernel, numeric);
  register_kernel(Op::Floor, kCPU, floor_kernel, numeric);
  register_kernel(Op::Ceil, kCPU, ceil_kernel, numeric);
  register_kernel(Op::Round, kCPU, round_kernel, numeric);
  register_kernel(Op::Trunc, kCPU, trunc_kernel, numeric);
  register_kernel(Op::Clamp, kCPU, clamp_kernel, numeric);
  register_kernel(Op::IsNan, kCPU, isnan_kernel, all);
  register_kernel(Op::IsInf, kCPU, isinf_kernel, all);
  register_kernel(Op::LogicalNot, kCPU, logical_not_kernel, all);
  register_kernel(Op::BitwiseNot, kCPU, bitwise_not_kernel, {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64});
}

}  // namespace ember::detail::EMBER_CPU_NS
