#pragma once
// The classical orthogonal polynomials of torch.special (Chebyshev T, U, V, W and their
// shifted forms on [0, 1], Hermite H and He, Laguerre L, Legendre P) for the CPU and CUDA
// kernels, following libtorch 1.13's *_polynomial_*_forward functions: the three-term
// recurrences, the closed trigonometric forms for large n inside the interval, and the
// special cases at the interval ends. The degree n < 0 gives 0. Where libtorch's x86 build
// contracts a recurrence step into a fused multiply-add, the step is an explicit fma here.
// T is float or double; the T-valued degree is truncated to int64_t as libtorch does.

#include <math.h>
#include <stdint.h>

#include "ember/export.h"

namespace ember::detail {

/// libtorch casts a floating degree with static_cast<int64_t>; on x86 a NaN or an
/// out-of-range value becomes INT64_MIN (so the polynomial is 0). Do the same on every
/// device instead of relying on undefined behaviour.
template <class T>
EMBER_HOST_DEVICE inline int64_t polynomial_degree(T n) {
  if (!(n > T(-9223372036854775808.0) && n < T(9223372036854775808.0))) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(n);
}

/// n + 1, -(n + 1), 2n + 1 and -(2n + 1) as libtorch forms them in int64_t before
/// converting to T, wrapping as x86 does instead of overflowing (undefined behaviour) for
/// degrees near INT64_MAX.
EMBER_HOST_DEVICE inline int64_t wrap_int64(uint64_t v) { return static_cast<int64_t>(v); }
template <class T>
EMBER_HOST_DEVICE inline T degree_plus_one(int64_t n, bool negate = false) {
  const uint64_t v = static_cast<uint64_t>(n) + 1u;
  return T(wrap_int64(negate ? 0u - v : v));
}
template <class T>
EMBER_HOST_DEVICE inline T twice_degree_plus_one(int64_t n, bool negate = false) {
  const uint64_t v = static_cast<uint64_t>(n) * 2u + 1u;
  return T(wrap_int64(negate ? 0u - v : v));
}

/// The common recurrence y_{k+1} = 2 s y_k - y_{k-1} with y_0 = 1, y_1 = first, run up to
/// degree n >= 2.
template <class T>
EMBER_HOST_DEVICE inline T chebyshev_recurrence(T s, T first, int64_t n) {
  const T s2 = s + s;
  T prev = T(1), cur = first;
  for (int64_t k = 2; k <= n; ++k) {
    const T next = fma(s2, cur, -prev);
    prev = cur;
    cur = next;
  }
  return cur;
}

template <class T>
EMBER_HOST_DEVICE inline T special_chebyshev_polynomial_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && fabs(x) < T(1)) return cos(T(n) * acos(x));  // T_n(cos t) = cos(n t)
  if (n == 0) return T(1);
  if (n == 1) return x;
  return chebyshev_recurrence(x, x, n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_chebyshev_polynomial_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(1)) return degree_plus_one<T>(n, x < T(0) && n % 2 != 0);  // U_n(1) = n + 1
  if (n > 8 && fabs(x) < T(1)) {
    // U_n(cos t) = sin((n+1) t) / sin(t); the sin(t) == 0 fallback is the limit form.
    const T t = acos(x);
    if (sin(t) != T(0)) return sin(degree_plus_one<T>(n) * t) / sin(t);
    return degree_plus_one<T>(n) * cos(degree_plus_one<T>(n) * t) / x;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  return chebyshev_recurrence(x, x + x, n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_chebyshev_polynomial_v(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(1)) {
    if (x > T(0)) return T(1);
    return twice_degree_plus_one<T>(n, n % 2 != 0);
  }
  if (n > 8 && fabs(x) < T(1)) {
    // V_n(cos t) = cos((n + 1/2) t) / cos(t / 2)
    const T t = acos(x);
    if (sin(t / T(2)) != T(1)) return cos((T(n) + T(0.5)) * t) / cos(t / T(2));
    return twice_degree_plus_one<T>(n, n % 2 != 0);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x - T(1);
  return chebyshev_recurrence(x, x + x - T(1), n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_chebyshev_polynomial_w(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(1)) {
    if (x > T(0)) return twice_degree_plus_one<T>(n);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n > 8 && fabs(x) < T(1)) {
    // W_n(cos t) = sin((n + 1/2) t) / sin(t / 2)
    const T t = acos(x);
    if (cos(t / T(2)) != T(1)) return sin((T(n) + T(0.5)) * t) / sin(t / T(2));
    if (x > T(0)) return twice_degree_plus_one<T>(n);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x + T(1);
  return chebyshev_recurrence(x, x + x + T(1), n);
}

// The shifted polynomials are the above at s = 2x - 1, but libtorch special-cases x == 1 and
// x == 0 (not s == +-1) and uses slightly different thresholds for the closed forms.

template <class T>
EMBER_HOST_DEVICE inline T special_shifted_chebyshev_polynomial_t(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T s = x + x - T(1);
  if (n > 6 && fabs(s) < T(1)) return cos(T(n) * acos(s));
  if (n == 0) return T(1);
  if (n == 1) return s;
  return chebyshev_recurrence(s, s, n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_shifted_chebyshev_polynomial_u(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return degree_plus_one<T>(n);
  if (x == T(0)) return degree_plus_one<T>(n, n % 2 != 0);
  const T s = x + x - T(1);
  if (n > 6 && fabs(s) < T(1)) {
    const T t = acos(s);
    if (sin(t) != T(0)) return sin(degree_plus_one<T>(n) * t) / sin(t);
    return degree_plus_one<T>(n) * cos(degree_plus_one<T>(n) * t) / s;
  }
  if (n == 0) return T(1);
  if (n == 1) return s + s;
  return chebyshev_recurrence(s, s + s, n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_shifted_chebyshev_polynomial_v(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return twice_degree_plus_one<T>(n, n % 2 != 0);
  const T s = x + x - T(1);
  if (n > 6 && fabs(s) < T(1)) {
    const T t = acos(s);
    if (sin(t / T(2)) != T(1)) return cos((T(n) + T(0.5)) * t) / cos(t / T(2));
    return twice_degree_plus_one<T>(n, n % 2 != 0);
  }
  if (n == 0) return T(1);
  if (n == 1) return s + s - T(1);
  return chebyshev_recurrence(s, s + s - T(1), n);
}

template <class T>
EMBER_HOST_DEVICE inline T special_shifted_chebyshev_polynomial_w(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(1)) return twice_degree_plus_one<T>(n);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T s = x + x - T(1);
  if (n > 4 && fabs(s) < T(1)) {
    const T t = acos(s);
    if (cos(t / T(2)) != T(1)) return sin((T(n) + T(0.5)) * t) / sin(t / T(2));
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return s + s + T(1);
  return chebyshev_recurrence(s, s + s + T(1), n);
}

/// Physicists' Hermite: H_{k+1} = 2x H_k - 2k H_{k-1}.
template <class T>
EMBER_HOST_DEVICE inline T special_hermite_polynomial_h(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  const T x2 = x + x;
  T prev = T(1), cur = x2;
  const int64_t end = static_cast<int64_t>(static_cast<uint64_t>(n) * 2u);  // n + n, wrapping
  for (int64_t k = 2; k < end; k += 2) {
    const T next = fma(x2, cur, -(T(k) * prev));
    prev = cur;
    cur = next;
  }
  return cur;
}

/// Probabilists' Hermite: He_{k+1} = x He_k - k He_{k-1}.
template <class T>
EMBER_HOST_DEVICE inline T special_hermite_polynomial_he(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T prev = T(1), cur = x;
  for (int64_t k = 1; k < n; ++k) {
    const T next = fma(x, cur, -(T(k) * prev));
    prev = cur;
    cur = next;
  }
  return cur;
}

/// Laguerre: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1.
template <class T>
EMBER_HOST_DEVICE inline T special_laguerre_polynomial_l(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  const T one_minus_x = T(1) - x;
  T prev = T(1), cur = one_minus_x;
  for (int64_t k = 1; k < n; ++k) {
    const T next = fma(T(k + k) + one_minus_x, cur, -(T(k) * prev)) / T(k + 1);
    prev = cur;
    cur = next;
  }
  return cur;
}

/// Legendre: (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}.
template <class T>
EMBER_HOST_DEVICE inline T special_legendre_polynomial_p(T x, int64_t n) {
  if (n < 0) return T(0);
  if (fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T prev = T(1), cur = x;
  for (int64_t k = 1; k < n; ++k) {
    const T next = fma(T(k + k + 1) * x, cur, -(T(k) * prev)) / T(k + 1);
    prev = cur;
    cur = next;
  }
  return cur;
}

// Overloads with a floating degree, as torch.special takes n as a tensor of x's dtype.
#define EMBER_POLYNOMIAL_FLOAT_DEGREE(name)   \
  template <class T>                          \
  EMBER_HOST_DEVICE inline T name(T x, T n) { \
    return name(x, polynomial_degree(n));     \
  }
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_chebyshev_polynomial_t)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_chebyshev_polynomial_u)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_chebyshev_polynomial_v)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_chebyshev_polynomial_w)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_shifted_chebyshev_polynomial_t)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_shifted_chebyshev_polynomial_u)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_shifted_chebyshev_polynomial_v)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_shifted_chebyshev_polynomial_w)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_hermite_polynomial_h)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_hermite_polynomial_he)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_laguerre_polynomial_l)
EMBER_POLYNOMIAL_FLOAT_DEGREE(special_legendre_polynomial_p)
#undef EMBER_POLYNOMIAL_FLOAT_DEGREE

}  // namespace ember::detail
