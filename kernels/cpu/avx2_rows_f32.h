#pragma once
// Float32 loops over contiguous runs with AVX2 and FMA, chosen at run time (ember is
// built for baseline x86-64): the sum and extremes of a run, exp, sigmoid, tanh, sqrt and
// relu, and softmax / log_softmax of a row. Callers (avx2_f32.h too) test
// cpu_has_avx2_fma() first; other CPUs and compilers keep the portable loops.

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EMBER_AVX2_ROWS 1
#define EMBER_TARGET_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ember::detail {

#if defined(EMBER_AVX2_ROWS)

inline bool cpu_has_avx2_fma() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
  }();
  return has;
}

/// Note [Vector exp]: e^x = 2^n * e^r, n = round(x / ln 2), r = x - n ln 2 with ln 2 in
/// two parts (the first has 15 significant bits, so n * it is exact) and |r| <= ln2 / 2.
/// e^r is its Taylor polynomial of degree 7 (truncation 5e-9 relative); 2^n is applied as
/// two factors 2^(n/2) so results round once from the subnormals up to overflow. x is
/// clamped to [-104, 89] first, where e^x rounds to 0 and to infinity; NaN passes through.
EMBER_TARGET_AVX2 inline __m256 exp_avx2(__m256 x) {
  const __m256 is_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(89.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606820309417232e-6f), r);
  __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(ni, 1), rest = _mm256_sub_epi32(ni, half);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, bias), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(rest, bias), 23));
  return _mm256_blendv_ps(_mm256_mul_ps(_mm256_mul_ps(p, s1), s2), x, is_nan);
}

/// 1 / (1 + e^-x): no cancellation anywhere, and e^-x = inf gives 0.
EMBER_TARGET_AVX2 inline __m256 sigmoid_avx2(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}

/// tanh: x P(x^2) below |x| = 0.625 (P interpolates tanh(x)/x at Chebyshev nodes of x^2,
/// relative error 1.5e-10), else 1 - 2 / (e^2|x| + 1) with x's sign, where the subtraction
/// loses less than a bit. -0, the infinities and NaN come out as tanh's.
EMBER_TARGET_AVX2 inline __m256 tanh_avx2(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  const __m256 ax = _mm256_andnot_ps(sign_bit, x);
  const __m256 t = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(0.00212743531f);
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.00815785331f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.0216912653f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.0539445847f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.133331817f));
  p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.333333297f));
  p = _mm256_fmadd_ps(p, t, one);
  const __m256 small = _mm256_mul_ps(x, p);
  const __m256 e = exp_avx2(_mm256_add_ps(ax, ax));
  const __m256 large = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
  const __m256 signed_large = _mm256_or_ps(_mm256_and_ps(sign_bit, x), large);
  return _mm256_blendv_ps(signed_large, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.625f), _CMP_LT_OQ));
}

/// Elementwise ops for map_f32_avx2, on 8 lanes.
struct ExpF32 {
  EMBER_TARGET_AVX2 static __m256 vec(__m256 x) { return exp_avx2(x); }
};
struct SigmoidF32 {
  EMBER_TARGET_AVX2 static __m256 vec(__m256 x) { return sigmoid_avx2(x); }
};
struct ReluF32 {  // x < 0 ? 0 : x, so NaN stays NaN
  EMBER_TARGET_AVX2 static __m256 vec(__m256 x) {
    const __m256 zero = _mm256_setzero_ps();
    return _mm256_blendv_ps(x, zero, _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
  }
};
struct TanhF32 {
  EMBER_TARGET_AVX2 static __m256 vec(__m256 x) { return tanh_avx2(x); }
};
struct SqrtF32 {
  EMBER_TARGET_AVX2 static __m256 vec(__m256 x) { return _mm256_sqrt_ps(x); }
};

/// Op on the last n < 8 elements through a zero-padded vector, so that a value gets the
/// same result wherever it sits in a tensor (tied logits stay tied).
template <class Op>
EMBER_TARGET_AVX2 __m256 vec_tail(const float* x, int64_t n) {
  alignas(32) float buf[8] = {};
  for (int64_t k = 0; k < n; ++k) buf[k] = x[k];
  return Op::vec(_mm256_load_ps(buf));
}
EMBER_TARGET_AVX2 inline void store_tail(float* out, __m256 v, int64_t n) {
  alignas(32) float buf[8];
  _mm256_store_ps(buf, v);
  for (int64_t k = 0; k < n; ++k) out[k] = buf[k];
}

/// out[i] = Op(x[i]) for i < n; out may be x.
template <class Op>
EMBER_TARGET_AVX2 void map_f32_avx2(float* out, const float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Op::vec(_mm256_loadu_ps(x + i)));
  if (i < n) store_tail(out + i, vec_tail<Op>(x + i, n - i), n - i);
}

EMBER_TARGET_AVX2 inline double hsum_avx2(__m256d v) {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

/// The sum of p[0, n) accumulated in double. Converting every element to double caps the
/// loop at 4 elements a cycle, so groups of four elements are first added in float (two
/// roundings, relative 1.2e-7 of their magnitude); a non-finite result (a group that
/// overflowed float, or an inf / NaN input) is recomputed with every element in double.
EMBER_TARGET_AVX2 inline double sum_f32_avx2(const float* p, int64_t n) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m256 f0 = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(p + i), _mm256_loadu_ps(p + i + 8)),
                                    _mm256_add_ps(_mm256_loadu_ps(p + i + 16), _mm256_loadu_ps(p + i + 24)));
    const __m256 f1 = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(p + i + 32), _mm256_loadu_ps(p + i + 40)),
                                    _mm256_add_ps(_mm256_loadu_ps(p + i + 48), _mm256_loadu_ps(p + i + 56)));
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(f0)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(f0, 1)));
    a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(f1)));
    a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(f1, 1)));
  }
  for (; i + 4 <= n; i += 4) a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm_loadu_ps(p + i)));
  double t = hsum_avx2(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)));
  for (; i < n; ++i) t += double(p[i]);
  if (!std::isfinite(t)) {  // a group may have overflowed float: every element in double
    t = 0;
    for (int64_t k = 0; k < n; ++k) t += double(p[k]);
  }
  return t;
}

/// acc[i] += x[i] + x2[i] for i < n (float into double): two rows of a sum over an outer
/// dim, added in float first (one rounding) to halve the conversions to double. The
/// caller recomputes in double any output that ends non-finite (outer_sum).
EMBER_TARGET_AVX2 inline void accumulate2_f32_avx2(double* acc, const float* x, const float* x2, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(x2 + i));
    _mm256_storeu_pd(acc + i,
                     _mm256_add_pd(_mm256_loadu_pd(acc + i), _mm256_cvtps_pd(_mm256_castps256_ps128(f))));
    _mm256_storeu_pd(acc + i + 4, _mm256_add_pd(_mm256_loadu_pd(acc + i + 4),
                                                _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1))));
  }
  for (; i < n; ++i) acc[i] += double(x[i] + x2[i]);
}

/// The largest (kMax) or smallest element of p[0, n), n >= 8; NaN when any element is.
template <bool kMax>
EMBER_TARGET_AVX2 float extreme_f32_avx2(const float* p, int64_t n) {
  // max(x, m) keeps m on ties (+0 / -0), as the portable loop; NaN is tracked apart.
  __m256 m0 = _mm256_loadu_ps(p), m1 = m0;
  __m256 nan = _mm256_cmp_ps(m0, m0, _CMP_UNORD_Q);
  int64_t i = 8;
  for (; i + 16 <= n; i += 16) {
    const __m256 x0 = _mm256_loadu_ps(p + i), x1 = _mm256_loadu_ps(p + i + 8);
    m0 = kMax ? _mm256_max_ps(x0, m0) : _mm256_min_ps(x0, m0);
    m1 = kMax ? _mm256_max_ps(x1, m1) : _mm256_min_ps(x1, m1);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x0, x1, _CMP_UNORD_Q));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 x0 = _mm256_loadu_ps(p + i);
    m0 = kMax ? _mm256_max_ps(x0, m0) : _mm256_min_ps(x0, m0);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));
  }
  m0 = kMax ? _mm256_max_ps(m0, m1) : _mm256_min_ps(m0, m1);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m0);
  float v = lanes[0];
  for (int k = 1; k < 8; ++k) v = kMax ? (lanes[k] > v ? lanes[k] : v) : (lanes[k] < v ? lanes[k] : v);
  bool any_nan = _mm256_movemask_ps(nan) != 0;
  for (; i < n; ++i) {
    any_nan = any_nan || p[i] != p[i];
    v = kMax ? (p[i] > v ? p[i] : v) : (p[i] < v ? p[i] : v);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : v;
}

/// softmax (or log_softmax) of one contiguous row of n >= 8 elements: the max, then
/// exp(x - max) summed in double, then the scale (or the shift by log of the sum).
template <bool kLog>
EMBER_TARGET_AVX2 void softmax_row_f32_avx2(float* y, const float* x, int64_t n) {
  const float mx = extreme_f32_avx2<true>(x, n);
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256d s0 = _mm256_setzero_pd(), s1 = s0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmx));
    if constexpr (!kLog) _mm256_storeu_ps(y + i, e);
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
  }
  double sum = hsum_avx2(_mm256_add_pd(s0, s1));
  if (i < n) {  // the tail through the same exp; the padding lanes are not summed
    alignas(32) float buf[8] = {};
    for (int64_t k = 0; k < n - i; ++k) buf[k] = x[i + k] - mx;
    _mm256_store_ps(buf, exp_avx2(_mm256_load_ps(buf)));
    for (int64_t k = 0; k < n - i; ++k) {
      if constexpr (!kLog) y[i + k] = buf[k];
      sum += double(buf[k]);
    }
  }
  int64_t j = 0;
  if constexpr (kLog) {
    // (x - max) first: exact near the max, so large logits keep their small differences.
    const float lse = float(std::log(sum));
    const __m256 vl = _mm256_set1_ps(lse);
    for (; j + 8 <= n; j += 8)
      _mm256_storeu_ps(y + j, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), vmx), vl));
    for (; j < n; ++j) y[j] = (x[j] - mx) - lse;
  } else {
    const float scale = float(1.0 / sum);
    const __m256 vs = _mm256_set1_ps(scale);
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(y + j), vs));
    for (; j < n; ++j) y[j] *= scale;
  }
}

#else

inline bool cpu_has_avx2_fma() { return false; }
struct ExpF32;
struct SigmoidF32;
struct SqrtF32;
struct TanhF32;
struct ReluF32;

#endif

}  // namespace ember::detail
