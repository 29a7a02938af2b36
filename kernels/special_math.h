#pragma once
// erfinv, digamma, trigamma and the Hurwitz zeta function for the CPU and CUDA kernels, in
// libtorch's formulas (ATen's calc_erfinv, calc_digamma, calc_trigamma, zeta: Cephes' series
// and recurrences), so both devices give libtorch's values. T is float or double.

#include <math.h>

#include "ember/export.h"

namespace ember::detail {

/// The inverse error function: a rational first guess refined by two Newton steps.
template <class T>
EMBER_HOST_DEVICE inline T special_erfinv(T y) {
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = fabs(y);
  if (y_abs > T(1)) return T(NAN);
  if (y_abs == T(1)) return copysign(T(INFINITY), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const T den = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / den;
  } else {
    const T z = sqrt(-log((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T den = (d[1] * z + d[0]) * z + T(1);
    x = copysign(num, y) / den;
  }
  const T two_over_sqrt_pi = T(1.12837916709551257390);
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  x = x - (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
  return x;
}

/// psi(x) = d/dx log(gamma(x)): reflection below 0, the recurrence up to 10, then the
/// asymptotic series.
template <class T>
EMBER_HOST_DEVICE inline T special_digamma(T x) {
  const T pi = T(3.14159265358979323846);
  if (x == T(0)) return copysign(T(INFINITY), -x);  // as libtorch: -inf at +0, +inf at -0
  T result = T(0);
  if (x < T(0)) {
    if (x == trunc(x)) return T(NAN);  // the poles
    // psi(x) = psi(1 - x) - pi / tan(pi x), with pi x reduced to keep tan accurate.
    const T r = x - trunc(x);
    result = -pi / tan(pi * r);
    x = T(1) - x;
  }
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + T(2.25175258906672110764);
  const T coef[7] = {T(8.33333333333333333333E-2), T(-2.10927960927960927961E-2),
                     T(7.57575757575757575758E-3), T(-4.16666666666666666667E-3),
                     T(3.96825396825396825397E-3), T(-8.33333333333333333333E-3),
                     T(8.33333333333333333333E-2)};
  T y = T(0);
  if (x < T(1.0e17)) {
    const T z = T(1) / (x * x);
    T p = coef[0];
    for (int i = 1; i < 7; ++i) p = p * z + coef[i];
    y = z * p;
  }
  return result + log(x) - T(0.5) / x - y;
}

/// psi'(x): reflection below 1/2, six recurrence steps, then the asymptotic series.
template <class T>
EMBER_HOST_DEVICE inline T special_trigamma(T x) {
  const T pi = T(3.14159265358979323846);
  T sign = T(1), result = T(0);
  if (x < T(0.5)) {
    sign = T(-1);
    const T s = sin(pi * x);
    result -= pi * pi / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result +=
      (T(1) + T(1) / (T(2) * x) + ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}

/// The Hurwitz zeta function zeta(x, q) = sum over k >= 0 of (k + q)^-x, for x > 1 (x = 1:
/// inf; x < 1: NaN). q <= 0 is a pole at the integers and needs an integer x elsewhere.
/// Terms are summed directly until q + k passes 9 (at least 9 of them), then the tail comes
/// from the Euler-Maclaurin formula with 12 Bernoulli terms, stopping once a term no
/// longer changes the sum (Cephes' zeta, which libtorch uses).
template <class T>
EMBER_HOST_DEVICE inline T special_zeta(T x, T q) {
  // (2k)! / B_2k for k = 1 .. 12: the Euler-Maclaurin coefficients.
  const T bernoulli_ratio[12] = {T(12.0),
                                 T(-720.0),
                                 T(30240.0),
                                 T(-1209600.0),
                                 T(47900160.0),
                                 T(-1.8924375803183791606e9),
                                 T(7.47242496e10),
                                 T(-2.950130727918164224e12),
                                 T(1.1646782814350067249e14),
                                 T(-4.5979787224074726105e15),
                                 T(1.8152105401943546773e17),
                                 T(-7.1661652561756670113e18)};
  const T eps = T(1.11022302462515654042e-16);  // 2^-53, for float as well (as libtorch)
  if (x == T(1)) return T(INFINITY);
  if (x < T(1)) return T(NAN);
  if (q <= T(0)) {
    if (q == floor(q)) return T(INFINITY);
    if (x != floor(x)) return T(NAN);  // a negative base to a fractional power
  }
  T sum = pow(q, -x);
  T a = q, b = T(0);
  int i = 0;
  while (i < 9 || a <= T(9)) {
    ++i;
    a += T(1);
    b = pow(a, -x);
    sum += b;
    if (fabs(b / sum) < eps) return sum;
  }
  const T w = a;
  sum += b * w / (x - T(1));
  sum -= T(0.5) * b;
  T rising = T(1), k = T(0);  // x (x + 1) ... (x + 2j), grown two factors a step
  for (int j = 0; j < 12; ++j) {
    rising *= x + k;
    b /= w;
    const T term = rising * b / bernoulli_ratio[j];
    sum += term;
    if (fabs(term / sum) < eps) return sum;
    k += T(1);
    rising *= x + k;
    b /= w;
    k += T(1);
  }
  return sum;
}

}  // namespace ember::detail
