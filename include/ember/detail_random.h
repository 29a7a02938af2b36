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

/// Philox4x32-10 (Salmon et al., SC'11), the counter-based generator of PyTorch's CUDA
/// streams: one block of four 32-bit words from a 128-bit counter and a 64-bit key.
EMBER_HOST_DEVICE inline void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;  // Weyl increments of the key between rounds
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t(0xD2511F53u) * c0, p1 = uint64_t(0xCD9E8D57u) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/// 64 random bits for (seed, counter): the first two words of the Philox block whose key is
/// the seed and whose counter is (counter, 0).
EMBER_HOST_DEVICE inline uint64_t random_bits(uint64_t seed, uint64_t counter) {
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  const uint32_t ctr[4] = {uint32_t(counter), uint32_t(counter >> 32), 0u, 0u};
  uint32_t out[4];
  philox4x32_10(ctr, key, out);
  return (uint64_t(out[1]) << 32) | out[0];
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
