#pragma once
/// Counter-based random numbers shared by the CPU and CUDA kernels: element i of a
/// call with (seed, offset) depends only on seed and offset + i, so every device
/// produces the same values for the same manual_seed.

#include <cstdint>

#include "ember/export.h"

namespace ember::detail {

EMBER_HOST_DEVICE inline uint64_t mix64(uint64_t z) {  // SplitMix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
EMBER_HOST_DEVICE inline uint64_t random_bits(uint64_t seed, uint64_t counter) {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ull) ^ (counter * 0xd1342543de82ef95ull + 1));
}
/// Uniform in [0, 1) with 53 random bits.
EMBER_HOST_DEVICE inline double random_uniform(uint64_t seed, uint64_t counter) {
  return double(random_bits(seed, counter) >> 11) * (1.0 / 9007199254740992.0);
}
/// Standard normal by Box-Muller over two independent counters.
EMBER_HOST_DEVICE inline double random_normal(uint64_t seed, uint64_t counter) {
  double u1 = random_uniform(seed, 2 * counter), u2 = random_uniform(seed, 2 * counter + 1);
  u1 = u1 > 1e-300 ? u1 : 1e-300;
  const double r = __builtin_sqrt(-2.0 * __builtin_log(u1));
  return r * __builtin_cos(6.283185307179586 * u2);
}

}  // namespace ember::detail
