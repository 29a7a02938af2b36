#pragma once
/// Counter-based random numbers shared by the CPU and CUDA kernels: element i of a
/// call with (seed, offset) depends only on seed and its counters, so every device
/// produces the same values for the same manual_seed.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/export.h"
#include "ember/half.h"

namespace ember::detail {

EMBER_HOST_DEVICE inline uint64_t mix64(uint64_t z) {  // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
EMBER_HOST_DEVICE inline uint64_t random_bits(uint64_t seed, uint64_t counter) {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ull) ^ (counter * 0xd1342543de82ef95ull + 1));
}

/// Significand bits of a floating type (std::numeric_limits<T>::digits): 53, 24, 11, 8.
template <class T>
constexpr int mantissa_digits() {
  if constexpr (std::is_same_v<T, Half>)
    return 11;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 8;
  else
    return std::numeric_limits<T>::digits;
}

/// Uniform in [0, 1) on a grid of 2^-digits (1 <= digits <= 53): exactly representable
/// in a type with `digits` significand bits, so rounding to it never reaches 1.
EMBER_HOST_DEVICE inline double random_uniform(uint64_t seed, uint64_t counter, int digits) {
  // Dividing by a power of two is exact; the same double on host and device.
  return double(random_bits(seed, counter) >> (64 - digits)) / double(uint64_t(1) << digits);
}

/// Counters of normal element i of a call at `offset`: offset + 2i and offset + 2i + 1,
/// inside the 2n + 2 counters creation_ops.cpp reserves for an n-element call.
EMBER_HOST_DEVICE inline uint64_t normal_counter(uint64_t offset, uint64_t i) { return offset + 2 * i; }

/// Standard normal by Box-Muller over the two counters `counter` and `counter + 1`.
EMBER_HOST_DEVICE inline double random_normal(uint64_t seed, uint64_t counter) {
  double u1 = random_uniform(seed, counter, 53), u2 = random_uniform(seed, counter + 1, 53);
  u1 = u1 > 1e-300 ? u1 : 1e-300;
  const double r = __builtin_sqrt(-2.0 * __builtin_log(u1));
  return r * __builtin_cos(6.283185307179586 * u2);
}

}  // namespace ember::detail
