#pragma once
// Shifts and gcd for the CPU and CUDA kernels, one definition for both devices. T is an
// integer type (bool only for the bitwise ops, which need no helper).

#include <stdint.h>

#include <type_traits>

#include "ember/export.h"

namespace ember::detail {

/// a << b with every shift defined (PyTorch 2's rule; 1.13 left counts of the width or
/// more, and negative ones, to the hardware): a shift of the width or more, or a negative
/// one, gives 0. Shifted as unsigned, so a signed overflow wraps.
template <class T>
EMBER_HOST_DEVICE inline T left_shift(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T width = T(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return T(0);
  }
  if (b >= width) return T(0);
  return T(uint64_t(U(a)) << U(b));  // in 64 bits: a promoted int would overflow
}

/// a >> b, arithmetic for signed types; a count of the width or more, or a negative one,
/// shifts every bit out (0, or -1 for a negative a): PyTorch 2's rule, and 1.13's for 8-
/// and 16-bit types (1.13 leaves int32 and int64 counts past the width to the hardware).
template <class T>
EMBER_HOST_DEVICE inline T right_shift(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr U max_shift = U(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0));
  if (U(b) > max_shift) return std::is_signed_v<T> ? T(a >> max_shift) : T(0);
  return T(a >> U(b));
}

/// The non-negative greatest common divisor (gcd(0, 0) = 0), Euclid on the absolute values
/// as libtorch's calc_gcd; the absolute value of the most negative value wraps, as there.
template <class T>
EMBER_HOST_DEVICE inline T gcd_value(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    a = T(a < 0 ? -a : a);
    b = T(b < 0 ? -b : b);
  }
  while (b != 0) {
    const T r = T(a % b);
    a = b;
    b = r;
  }
  return a;
}

/// The least common multiple as libtorch's: 0 when either is 0, else |a / gcd * b|, the
/// product and its absolute value taken in 64 bits (wrapping) before narrowing to T.
template <class T>
EMBER_HOST_DEVICE inline T lcm_value(T a, T b) {
  const T g = gcd_value(a, b);
  if (g == 0) return T(0);
  const uint64_t m = uint64_t(int64_t(a / g)) * uint64_t(int64_t(b));
  if constexpr (std::is_signed_v<T>)
    return T(int64_t(m) < 0 ? 0 - m : m);
  else
    return T(m);
}

}  // namespace ember::detail
