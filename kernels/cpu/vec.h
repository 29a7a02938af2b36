#pragma once
// The vector type the CPU kernels are written over, as wide as the instruction set this
// file is compiled for (Note [CPU capability]): 16 bytes for baseline x86-64 (SSE2) and
// other CPUs, 32 for AVX2+FMA, 64 for AVX-512. GCC/clang vector extensions give the
// arithmetic, comparisons (lane masks) and ?: selects; the few operations they lack
// (fused multiply-add, square root, streaming stores) pick an intrinsic by width here.
//
// Note [CPU capability]: the kernel sources listed in CMakeLists.txt
// (EMBER_CPU_CAPABILITY_SOURCES) are compiled once per instruction set, each time with
// EMBER_CPU_NS naming its own namespace (cpu_default, cpu_avx2, cpu_avx512), so the three
// copies of every kernel and helper never clash. register_cpu.cpp fills the kernel table
// from one of them, chosen once at start-up from the CPU's features or forced lower by
// EMBER_CPU_CAPABILITY (cpu_capability.cpp). Nothing here tests the CPU at run time.
// Templates and inline functions from shared headers (std::, fmt, ember's public
// headers) are also instantiated in the wider builds; the capability objects link after
// the baseline ones so the linker keeps the baseline copy, and the test
// "cpu capability: no wide instruction outside the capability namespaces" checks it.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ember/half.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#ifndef EMBER_CPU_NS
#define EMBER_CPU_NS cpu_default
#endif

namespace ember::detail::EMBER_CPU_NS {

#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX2__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif

using VecF = float __attribute__((vector_size(kVecBytes)));
using VecI = int32_t __attribute__((vector_size(kVecBytes)));  // VecF's lane masks and bits
constexpr int kLanesF = kVecBytes / int(sizeof(float));
using VecD = double __attribute__((vector_size(kVecBytes)));
using VecL = int64_t __attribute__((vector_size(kVecBytes)));  // VecD's lane masks and bits
constexpr int kLanesD = kVecBytes / int(sizeof(double));

inline VecF load(const float* p) {
  VecF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, VecF v) { std::memcpy(p, &v, sizeof v); }
inline VecD load(const double* p) {
  VecD v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(double* p, VecD v) { std::memcpy(p, &v, sizeof v); }
inline VecF splat(float x) { return VecF{} + x; }
inline VecD splat_d(double x) { return VecD{} + x; }
/// The low and high halves of VecF's lanes as float64 (one instruction each where the
/// instruction set has it; GCC 12 spills a double-width generic vector to memory).
inline VecD widen_lo(VecF v) {
#if defined(__AVX512F__)
  return (VecD)_mm512_maskz_cvtps_pd(__mmask8(0xff), _mm512_maskz_extractf32x8_ps(__mmask8(0xff), (__m512)v, 0));  // maskz: see vsqrt
#elif defined(__AVX2__)
  return (VecD)_mm256_cvtps_pd(_mm256_castps256_ps128((__m256)v));
#elif defined(__SSE2__)
  return (VecD)_mm_cvtps_pd((__m128)v);
#else
  VecD r;
  for (int k = 0; k < kLanesF / 2; ++k) r[k] = v[k];
  return r;
#endif
}
inline VecD widen_hi(VecF v) {
#if defined(__AVX512F__)
  return (VecD)_mm512_maskz_cvtps_pd(__mmask8(0xff), _mm512_maskz_extractf32x8_ps(__mmask8(0xff), (__m512)v, 1));
#elif defined(__AVX2__)
  return (VecD)_mm256_cvtps_pd(_mm256_extractf128_ps((__m256)v, 1));
#elif defined(__SSE2__)
  return (VecD)_mm_cvtps_pd(_mm_movehl_ps((__m128)v, (__m128)v));
#else
  VecD r;
  for (int k = 0; k < kLanesF / 2; ++k) r[k] = v[kLanesF / 2 + k];
  return r;
#endif
}
inline double lane_sum(VecD v) {
  double s = 0;
  for (int k = 0; k < kLanesD; ++k) s += v[k];
  return s;
}
/// a * b + c with one rounding where the instruction set has FMA (two roundings on SSE2).
inline VecF fmadd(VecF a, VecF b, VecF c) {
#if defined(__AVX512F__)
  return (VecF)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__) && defined(__AVX2__)
  return (VecF)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;
#endif
}
/// c - a * b, rounded as fmadd.
inline VecF fnmadd(VecF a, VecF b, VecF c) {
#if defined(__AVX512F__)
  return (VecF)_mm512_fnmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__) && defined(__AVX2__)
  return (VecF)_mm256_fnmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return c - a * b;
#endif
}
inline VecD fmadd(VecD a, VecD b, VecD c) {
#if defined(__AVX512F__)
  return (VecD)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__) && defined(__AVX2__)
  return (VecD)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
  return a * b + c;
#endif
}
inline VecD fnmadd(VecD a, VecD b, VecD c) {
#if defined(__AVX512F__)
  return (VecD)_mm512_fnmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__) && defined(__AVX2__)
  return (VecD)_mm256_fnmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
  return c - a * b;
#endif
}
/// Clamps x to [lo, hi] where a NaN lane becomes lo (one max and one min instruction;
/// the callers put NaN lanes back themselves).
inline VecF clamp_nan_low(VecF x, float lo, float hi) {
#if defined(__AVX512F__)
  const __mmask16 all = 0xffff;  // maskz forms: see vsqrt
  return (VecF)_mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, (__m512)x, (__m512)splat(lo)), (__m512)splat(hi));
#elif defined(__AVX2__)
  return (VecF)_mm256_min_ps(_mm256_max_ps((__m256)x, (__m256)splat(lo)), (__m256)splat(hi));
#elif defined(__SSE2__)
  return (VecF)_mm_min_ps(_mm_max_ps((__m128)x, (__m128)splat(lo)), (__m128)splat(hi));
#else
  x = x > splat(lo) ? x : splat(lo);  // NaN > lo is false: lo
  return x < splat(hi) ? x : splat(hi);
#endif
}
inline VecD clamp_nan_low(VecD x, double lo, double hi) {
#if defined(__AVX512F__)
  const __mmask8 all = 0xff;
  return (VecD)_mm512_maskz_min_pd(all, _mm512_maskz_max_pd(all, (__m512d)x, (__m512d)splat_d(lo)), (__m512d)splat_d(hi));
#elif defined(__AVX2__)
  return (VecD)_mm256_min_pd(_mm256_max_pd((__m256d)x, (__m256d)splat_d(lo)), (__m256d)splat_d(hi));
#elif defined(__SSE2__)
  return (VecD)_mm_min_pd(_mm_max_pd((__m128d)x, (__m128d)splat_d(lo)), (__m128d)splat_d(hi));
#else
  x = x > splat_d(lo) ? x : splat_d(lo);
  return x < splat_d(hi) ? x : splat_d(hi);
#endif
}
inline VecF vsqrt(VecF x) {  // correctly rounded, as std::sqrt
#if defined(__AVX512F__)
  return (VecF)_mm512_maskz_sqrt_ps(__mmask16(0xffff), (__m512)x);  // _mm512_sqrt_ps trips GCC 12's -Wmaybe-uninitialized
#elif defined(__AVX2__)
  return (VecF)_mm256_sqrt_ps((__m256)x);
#elif defined(__SSE2__)
  return (VecF)_mm_sqrt_ps((__m128)x);
#else
  for (int k = 0; k < kLanesF; ++k) x[k] = std::sqrt(x[k]);
  return x;
#endif
}

/// Note [Vector exp]: e^x = 2^n * e^r, n = round(x / ln 2), r = x - n ln 2 with ln 2 in
/// two parts (the first has 15 significant bits, so n * it is exact) and |r| <= ln2 / 2.
/// e^r is its Taylor polynomial of degree 7 (truncation 5e-9 relative); 2^n is applied as
/// two factors 2^(n/2) so results round once from the subnormals up to overflow. x is
/// clamped to [-104, 89] first, where e^x rounds to 0 and to infinity; NaN passes through.
inline VecF vexp(VecF x) {
  const VecI nan = x != x;
  const VecF xc = clamp_nan_low(x, -104.0f, 89.0f);  // NaN lanes are put back at the end
  // Adding and removing 1.5 * 2^23 rounds to the nearest integer (ties to even).
  const VecF n = (xc * splat(1.44269504088896341f) + splat(12582912.0f)) - splat(12582912.0f);
  VecF r = fnmadd(n, splat(0.693145751953125f), xc);
  r = fnmadd(n, splat(1.428606820309417232e-6f), r);
  VecF p = splat(1.0f / 5040.0f);
  p = fmadd(p, r, splat(1.0f / 720.0f));
  p = fmadd(p, r, splat(1.0f / 120.0f));
  p = fmadd(p, r, splat(1.0f / 24.0f));
  p = fmadd(p, r, splat(1.0f / 6.0f));
  p = fmadd(p, r, splat(0.5f));
  p = fmadd(p, r, splat(1.0f));
  p = fmadd(p, r, splat(1.0f));
  const VecI ni = __builtin_convertvector(n, VecI);
  const VecI half = ni >> 1, rest = ni - half;  // both >= -75: the biased exponents stay positive
  const VecF s1 = (VecF)((half + 127) << 23), s2 = (VecF)((rest + 127) << 23);
  return nan ? x : (p * s1) * s2;
}

/// Note [Vector exp] in float64: ln 2's first part has 32 significant bits (n * it is
/// exact for |n| < 2^21), |r| <= ln2 / 2 and the Taylor polynomial has degree 13
/// (truncation 4e-18 relative); x is clamped to [-746, 710], where e^x rounds to 0 and
/// to infinity. Within 2 ulp of e^x (test_cpu_capability.cpp).
inline VecD vexp(VecD x) {
  const VecL nan = x != x;
  const VecD xc = clamp_nan_low(x, -746.0, 710.0);
  // Adding 1.5 * 2^52 rounds to an integer, which the sum's low bits then hold.
  const VecD shifted = xc * splat_d(1.4426950408889634074) + splat_d(6755399441055744.0);
  const VecD n = shifted - splat_d(6755399441055744.0);
  const VecL ni = (VecL)shifted - (VecL)splat_d(6755399441055744.0);
  VecD r = fnmadd(n, splat_d(6.93147180369123816490e-01), xc);
  r = fnmadd(n, splat_d(1.90821492927058770002e-10), r);
  constexpr double kInvFactorial[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                      1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,
                                      1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,        0.5,
                                      1.0,                1.0};
  VecD p = splat_d(kInvFactorial[0]);
  for (int k = 1; k < 14; ++k) p = fmadd(p, r, splat_d(kInvFactorial[k]));
  const VecL half = ni >> 1, rest = ni - half;  // both >= -538: the biased exponents stay positive
  const VecD s1 = (VecD)((half + 1023) << 52), s2 = (VecD)((rest + 1023) << 52);
  return nan ? x : (p * s1) * s2;
}

/// 1 / (1 + e^-x): no cancellation anywhere, and e^-x = inf gives 0.
inline VecD vsigmoid(VecD x) { return splat_d(1.0) / (splat_d(1.0) + vexp(splat_d(0.0) - x)); }

/// 1 / (1 + e^-x): no cancellation anywhere, and e^-x = inf gives 0.
inline VecF vsigmoid(VecF x) { return splat(1.0f) / (splat(1.0f) + vexp(splat(0.0f) - x)); }

/// tanh: x P(x^2) below |x| = 0.625 (P interpolates tanh(x)/x at Chebyshev nodes of x^2,
/// relative error 1.5e-10), else 1 - 2 / (e^2|x| + 1) with x's sign, where the subtraction
/// loses less than a bit. -0, the infinities and NaN come out as tanh's.
inline VecF vtanh(VecF x) {
  const VecI bits = (VecI)x;
  const VecI sign = bits & int32_t(0x80000000u);
  const VecF ax = (VecF)(bits & 0x7fffffff);
  const VecF t = x * x;
  VecF p = splat(0.00212743531f);
  p = fmadd(p, t, splat(-0.00815785331f));
  p = fmadd(p, t, splat(0.0216912653f));
  p = fmadd(p, t, splat(-0.0539445847f));
  p = fmadd(p, t, splat(0.133331817f));
  p = fmadd(p, t, splat(-0.333333297f));
  p = fmadd(p, t, splat(1.0f));
  const VecF small = x * p;
  const VecF e = vexp(ax + ax);
  const VecF large = splat(1.0f) - splat(2.0f) / (e + splat(1.0f));
  const VecF signed_large = (VecF)((VecI)large | sign);
  return ax < splat(0.625f) ? small : signed_large;
}

/// tanh in float64: below |x| = 0.625, x + x z P(z) / Q(z) with z = x^2 (Cephes's rational
/// form, relative error about 2e-16); above, 1 - 2 / (e^2|x| + 1) with x's sign, as vtanh.
inline VecD vtanh(VecD x) {
  const VecL bits = (VecL)x;
  const VecL sign = bits & int64_t(0x8000000000000000ull);
  const VecD ax = (VecD)(bits & int64_t(0x7fffffffffffffffll));
  const VecD z = x * x;
  VecD p = splat_d(-9.64399179425052238628e-1);
  p = fmadd(p, z, splat_d(-9.92877231001918586564e1));
  p = fmadd(p, z, splat_d(-1.61468768441708447952e3));
  VecD q = z + splat_d(1.12811678491632931402e2);
  q = fmadd(q, z, splat_d(2.23548839060100448583e3));
  q = fmadd(q, z, splat_d(4.84406305325125486048e3));
  // Both forms on |x|, then x's sign (tanh is odd; this keeps tanh(-0) = -0).
  const VecD small = fmadd(ax * z, p / q, ax);
  const VecD e = vexp(ax + ax);
  const VecD large = splat_d(1.0) - splat_d(2.0) / (e + splat_d(1.0));
  return (VecD)((VecL)(ax < splat_d(0.625) ? small : large) | sign);
}

/// Elementwise ops for map_lanes: each maps a VecF (and a VecD where float64
/// has a vector form).
struct ExpF32 {
  static VecF vec(VecF x) { return vexp(x); }
  static VecD vec(VecD x) { return vexp(x); }
};
struct SigmoidF32 {
  static VecF vec(VecF x) { return vsigmoid(x); }
  static VecD vec(VecD x) { return vsigmoid(x); }
};
struct TanhF32 {
  static VecF vec(VecF x) { return vtanh(x); }
  static VecD vec(VecD x) { return vtanh(x); }
};
struct SqrtF32 {
  static VecF vec(VecF x) { return vsqrt(x); }
};
struct ReluF32 {  // x < 0 ? 0 : x, so NaN stays NaN
  static VecF vec(VecF x) { return x < splat(0.0f) ? splat(0.0f) : x; }
};

/// kLanesF bfloat16 values (raw bits) as float32, in order.
inline VecF load_bf16(const uint16_t* p) {
#if defined(__AVX512F__)
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return (VecF)((VecI)_mm512_maskz_cvtepu16_epi32(__mmask16(0xffff), h) << 16);  // maskz: see vsqrt
#elif defined(__AVX2__)
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return (VecF)_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
#elif defined(__SSE2__)
  // Interleaving zeros below each value puts its bits in the top half of a 32-bit lane.
  return (VecF)_mm_unpacklo_epi16(_mm_setzero_si128(), _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
#else
  VecI v;
  for (int k = 0; k < kLanesF; ++k) v[k] = int32_t(uint32_t(p[k]) << 16);
  return (VecF)v;
#endif
}

/// 2 * kLanesF float32 values to bfloat16 bits as BFloat16::from_float: rounded to
/// nearest even, NaN to the quiet NaN 0x7fc0.
inline void store_bf16x2(uint16_t* out, VecF fa, VecF fb) {
  using VecU = uint32_t __attribute__((vector_size(kVecBytes)));
  auto round = [](VecF f) {
    const VecU u = (VecU)f;
    const VecU rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (VecI)((u & 0x7fffffffu) > 0x7f800000u ? VecU{} + 0x7fc0u : rounded);
  };
  const VecI a = round(fa), b = round(fb);
#if defined(__AVX512F__)
  const __mmask16 all = 0xffff;  // maskz forms: see vsqrt
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_maskz_cvtepi32_epi16(all, (__m512i)a));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + kLanesF), _mm512_maskz_cvtepi32_epi16(all, (__m512i)b));
#elif defined(__AVX2__)
  // packus works within 128-bit halves: a's and b's quarters interleave, the permute sorts them.
  const __m256i packed = _mm256_packus_epi32((__m256i)a, (__m256i)b);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute4x64_epi64(packed, 0xd8));
#elif defined(__SSE2__)
  // Values below 2^16 sign-extended from 16 bits survive the signed saturating pack.
  const __m128i sa = _mm_srai_epi32(_mm_slli_epi32((__m128i)a, 16), 16);
  const __m128i sb = _mm_srai_epi32(_mm_slli_epi32((__m128i)b, 16), 16);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packs_epi32(sa, sb));
#else
  for (int k = 0; k < kLanesF; ++k) {
    out[k] = uint16_t(a[k]);
    out[kLanesF + k] = uint16_t(b[k]);
  }
#endif
}

/// kLanesF IEEE half values (raw bits) as float32, in order (F16C where the build has it).
inline VecF load_f16(const uint16_t* p) {
#if defined(__AVX512F__)
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return (VecF)_mm512_maskz_cvtph_ps(__mmask16(0xffff), h);  // maskz: see vsqrt
#elif defined(__AVX2__) && defined(__F16C__)
  return (VecF)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#else
  VecF v;
  for (int k = 0; k < kLanesF; ++k) v[k] = Half::to_float(p[k]);
  return v;
#endif
}

/// 2 * kLanesF float32 values to IEEE half bits, rounded to nearest even (a NaN becomes a
/// quiet NaN of its sign, as Half::from_float for the NaNs arithmetic produces).
inline void store_f16x2(uint16_t* out, VecF a, VecF b) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__F16C__))
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
#endif
#if defined(__AVX512F__)
  const __mmask16 all = 0xffff;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_maskz_cvtps_ph(all, (__m512)a, kNearest));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + kLanesF), _mm512_maskz_cvtps_ph(all, (__m512)b, kNearest));
#elif defined(__AVX2__) && defined(__F16C__)
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph((__m256)a, kNearest));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + kLanesF), _mm256_cvtps_ph((__m256)b, kNearest));
#else
  for (int k = 0; k < kLanesF; ++k) {
    out[k] = Half::from_float(a[k]);
    out[kLanesF + k] = Half::from_float(b[k]);
  }
#endif
}

/// out[i] = Op(x[i]) for i < n, T float32 or float64; out may be x. The last elements go
/// through a zero-padded vector, so a value gets the same result wherever it sits.
template <class Op, class T>
void map_lanes(T* out, const T* x, int64_t n) {
  constexpr int64_t L = kVecBytes / int64_t(sizeof(T));
  int64_t i = 0;
  for (; i + L <= n; i += L) store(out + i, Op::vec(load(x + i)));
  if (i < n) {
    T buf[L] = {};
    for (int64_t k = 0; k < n - i; ++k) buf[k] = x[i + k];
    store(buf, Op::vec(load(buf)));
    for (int64_t k = 0; k < n - i; ++k) out[i + k] = buf[k];
  }
}

}  // namespace ember::detail::EMBER_CPU_NS
