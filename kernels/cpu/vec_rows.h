#pragma once
// Float32 loops over contiguous runs on vec.h's vector type: the sum and extremes of a
// run, a two-row accumulation for sums over an outer dim, and softmax / log_softmax of a
// row. Compiled once per capability like every kernel (Note [CPU capability]).

#include <cmath>
#include <cstdint>
#include <limits>

#include "cpu/vec.h"

namespace ember::detail::EMBER_CPU_NS {

/// The sum of p[0, n) accumulated in double. Converting every element to double halves
/// the loop's speed, so groups of four elements are first added in float (two roundings,
/// relative 1.2e-7 of their magnitude); a non-finite result (a group that overflowed
/// float, or an inf / NaN input) is recomputed with every element in double.
inline double sum_f32(const float* p, int64_t n) {
  constexpr int64_t L = kLanesF;
  VecD a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 8 * L <= n; i += 8 * L) {
    const VecF f0 = (load(p + i) + load(p + i + L)) + (load(p + i + 2 * L) + load(p + i + 3 * L));
    const VecF f1 = (load(p + i + 4 * L) + load(p + i + 5 * L)) + (load(p + i + 6 * L) + load(p + i + 7 * L));
    a0 += widen_lo(f0);
    a1 += widen_hi(f0);
    a2 += widen_lo(f1);
    a3 += widen_hi(f1);
  }
  for (; i + L <= n; i += L) {
    const VecF f = load(p + i);
    a0 += widen_lo(f);
    a1 += widen_hi(f);
  }
  double t = lane_sum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) t += double(p[i]);
  if (!std::isfinite(t)) {  // a group may have overflowed float: every element in double
    t = 0;
    for (int64_t k = 0; k < n; ++k) t += double(p[k]);
  }
  return t;
}

/// The sum of p[0, n) in float64 with four vector accumulators (a single one would wait
/// on each add's latency).
inline double sum_f64(const double* p, int64_t n) {
  constexpr int64_t L = kLanesD;
  VecD a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    a0 += load(p + i);
    a1 += load(p + i + L);
    a2 += load(p + i + 2 * L);
    a3 += load(p + i + 3 * L);
  }
  for (; i + L <= n; i += L) a0 += load(p + i);
  double t = lane_sum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) t += p[i];
  return t;
}

inline float f32_from_bf16(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// 2 * kLanesF bfloat16 values (raw bits) as two float32 vectors, in an order that only a
/// sum may use: interleaving zeros below each value puts its bits in the top half of a
/// 32-bit lane (unpack works within 128-bit blocks, so lanes come out permuted).
inline void load2_bf16_any_order(const uint16_t* p, VecF& a, VecF& b) {
#if defined(__AVX512F__)
  const __m512i h = _mm512_loadu_si512(p), zero = _mm512_setzero_si512();
  a = (VecF)_mm512_unpacklo_epi16(zero, h);
  b = (VecF)_mm512_unpackhi_epi16(zero, h);
#elif defined(__AVX2__)
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), zero = _mm256_setzero_si256();
  a = (VecF)_mm256_unpacklo_epi16(zero, h);
  b = (VecF)_mm256_unpackhi_epi16(zero, h);
#elif defined(__SSE2__)
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), zero = _mm_setzero_si128();
  a = (VecF)_mm_unpacklo_epi16(zero, h);
  b = (VecF)_mm_unpackhi_epi16(zero, h);
#else
  for (int k = 0; k < kLanesF; ++k) {
    a[k] = f32_from_bf16(p[k]);
    b[k] = f32_from_bf16(p[kLanesF + k]);
  }
#endif
}

/// The sum of bfloat16 values p[0, n) (raw bits), as sum_f32 after widening each to float.
inline double sum_bf16(const uint16_t* p, int64_t n) {
  constexpr int64_t L = kLanesF;
  auto scalar = [](uint16_t bits) { return double(f32_from_bf16(bits)); };
  VecD a0 = {}, a1 = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    VecF x0, x1, x2, x3;
    load2_bf16_any_order(p + i, x0, x1);
    load2_bf16_any_order(p + i + 2 * L, x2, x3);
    const VecF f = (x0 + x1) + (x2 + x3);
    a0 += widen_lo(f);
    a1 += widen_hi(f);
  }
  double t = lane_sum(a0 + a1);
  for (; i < n; ++i) t += scalar(p[i]);
  if (!std::isfinite(t)) {  // a group may have overflowed float: every element in double
    t = 0;
    for (int64_t k = 0; k < n; ++k) t += scalar(p[k]);
  }
  return t;
}

/// acc[i] += x[i] + x2[i] for i < n (float into double): two rows of a sum over an outer
/// dim, added in float first (one rounding) to halve the conversions to double. The
/// caller recomputes in double any output that ends non-finite (outer_sum).
inline void accumulate2_f32(double* acc, const float* x, const float* x2, int64_t n) {
  int64_t i = 0;
  for (; i + kLanesF <= n; i += kLanesF) {
    const VecF f = load(x + i) + load(x2 + i);
    store(acc + i, load(acc + i) + widen_lo(f));
    store(acc + i + kLanesD, load(acc + i + kLanesD) + widen_hi(f));
  }
  for (; i < n; ++i) acc[i] += double(x[i] + x2[i]);
}

/// The largest (kMax) or smallest element of p[0, n), n >= kLanesF; NaN when any element is.
template <bool kMax>
float extreme_f32(const float* p, int64_t n) {
  constexpr int64_t L = kLanesF;
  // x > m ? x : m keeps m on ties (+0 / -0), as the portable loop; NaN is tracked apart.
  auto pick = [](VecF x, VecF m) { return kMax ? (x > m ? x : m) : (x < m ? x : m); };
  VecF m0 = load(p), m1 = m0;
  VecI nan = m0 != m0;
  int64_t i = L;
  for (; i + 2 * L <= n; i += 2 * L) {
    const VecF x0 = load(p + i), x1 = load(p + i + L);
    m0 = pick(x0, m0);
    m1 = pick(x1, m1);
    nan |= (x0 != x0) | (x1 != x1);
  }
  for (; i + L <= n; i += L) {
    const VecF x0 = load(p + i);
    m0 = pick(x0, m0);
    nan |= x0 != x0;
  }
  m0 = pick(m0, m1);
  float v = m0[0];
  bool any_nan = false;
  for (int k = 0; k < L; ++k) {
    v = kMax ? (m0[k] > v ? m0[k] : v) : (m0[k] < v ? m0[k] : v);
    any_nan = any_nan || nan[k] != 0;
  }
  for (; i < n; ++i) {
    any_nan = any_nan || p[i] != p[i];
    v = kMax ? (p[i] > v ? p[i] : v) : (p[i] < v ? p[i] : v);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : v;
}

/// softmax (or log_softmax) of one contiguous row of n >= kLanesF elements: the max, then
/// exp(x - max) summed in double, then the scale (or the shift by log of the sum).
template <bool kLog>
void softmax_row_f32(float* y, const float* x, int64_t n) {
  constexpr int64_t L = kLanesF;
  const float mx = extreme_f32<true>(x, n);
  const VecF vmx = splat(mx);
  VecD s0 = {}, s1 = {};
  int64_t i = 0;
  // Four vectors of exponentials (each in [0, 1]) are added in float before widening.
  for (; i + 4 * L <= n; i += 4 * L) {
    const VecF e0 = vexp(load(x + i) - vmx), e1 = vexp(load(x + i + L) - vmx);
    const VecF e2 = vexp(load(x + i + 2 * L) - vmx), e3 = vexp(load(x + i + 3 * L) - vmx);
    if constexpr (!kLog) {
      store(y + i, e0);
      store(y + i + L, e1);
      store(y + i + 2 * L, e2);
      store(y + i + 3 * L, e3);
    }
    const VecF e = (e0 + e1) + (e2 + e3);
    s0 += widen_lo(e);
    s1 += widen_hi(e);
  }
  for (; i + L <= n; i += L) {
    const VecF e = vexp(load(x + i) - vmx);
    if constexpr (!kLog) store(y + i, e);
    s0 += widen_lo(e);
    s1 += widen_hi(e);
  }
  double sum = lane_sum(s0 + s1);
  if (i < n) {  // the tail through the same exp; the padding lanes are not summed
    float buf[L] = {};
    for (int64_t k = 0; k < n - i; ++k) buf[k] = x[i + k] - mx;
    store(buf, vexp(load(buf)));
    for (int64_t k = 0; k < n - i; ++k) {
      if constexpr (!kLog) y[i + k] = buf[k];
      sum += double(buf[k]);
    }
  }
  int64_t j = 0;
  if constexpr (kLog) {
    // (x - max) first: exact near the max, so large logits keep their small differences.
    const float lse = float(std::log(sum));
    const VecF vl = splat(lse);
    for (; j + L <= n; j += L) store(y + j, (load(x + j) - vmx) - vl);
    for (; j < n; ++j) y[j] = (x[j] - mx) - lse;
  } else {
    const float scale = float(1.0 / sum);
    const VecF vs = splat(scale);
    for (; j + L <= n; j += L) store(y + j, load(y + j) * vs);
    for (; j < n; ++j) y[j] *= scale;
  }
}

/// softmax (or log_softmax) of one contiguous float64 row of n >= kLanesD elements, as
/// softmax_row_f32 with float64 throughout.
template <bool kLog>
void softmax_row_f64(double* y, const double* x, int64_t n) {
  constexpr int64_t L = kLanesD;
  VecD m = load(x);
  VecL nan_lanes = m != m;
  int64_t k = L;
  for (; k + L <= n; k += L) {
    const VecD v = load(x + k);
    m = v > m ? v : m;
    nan_lanes |= v != v;
  }
  double mx = m[0];
  bool nan = false;
  for (int l = 0; l < L; ++l) {
    mx = m[l] > mx ? m[l] : mx;
    nan = nan || nan_lanes[l] != 0;
  }
  for (; k < n; ++k) {
    mx = x[k] > mx ? x[k] : mx;
    nan = nan || x[k] != x[k];
  }
  if (nan) mx = std::numeric_limits<double>::quiet_NaN();
  const VecD vmx = splat_d(mx);
  VecD s = {};
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const VecD e = vexp(load(x + i) - vmx);
    if constexpr (!kLog) store(y + i, e);
    s += e;
  }
  double sum = 0;
  for (int k = 0; k < L; ++k) sum += s[k];
  if (i < n) {
    double buf[L] = {};
    for (int64_t k = 0; k < n - i; ++k) buf[k] = x[i + k] - mx;
    store(buf, vexp(load(buf)));
    for (int64_t k = 0; k < n - i; ++k) {
      if constexpr (!kLog) y[i + k] = buf[k];
      sum += buf[k];
    }
  }
  if constexpr (kLog) {
    const double lse = std::log(sum);
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - mx) - lse;
  } else {
    const double scale = 1.0 / sum;
    for (int64_t j = 0; j < n; ++j) y[j] *= scale;
  }
}

}  // namespace ember::detail::EMBER_CPU_NS
