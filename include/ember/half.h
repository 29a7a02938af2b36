#pragma once
/// Host-side 16-bit floats. Both store raw bits and convert through float with
/// round-to-nearest-even, so results match torch's at::Half / at::BFloat16.

#include <cstdint>
#include <cstring>

#include "ember/export.h"

namespace ember {

namespace detail {
EMBER_HOST_DEVICE inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
EMBER_HOST_DEVICE inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

/// IEEE binary16.
struct Half {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  Half() = default;
  constexpr EMBER_HOST_DEVICE Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE Half(float f) : x(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return to_float(x); }

  EMBER_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) return uint16_t(sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (u >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (u < 0x38800000u) {                                   // subnormal or zero in half
      // Adding 0.5 lets the FPU do the round-to-nearest-even of the dropped bits.
      float v = detail::f32_from_bits(u) + 0.5f;
      return uint16_t(sign | (detail::f32_bits(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (u >> 13) & 1u;
    u += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
    return uint16_t(sign | (u >> 13));
  }
  EMBER_HOST_DEVICE static float to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) return detail::f32_from_bits(sign | 0x7f800000u | (mant << 13));
    if (exp == 0) {
      // subnormal: value = mant * 2^-24
      float v = float(mant) * 5.9604644775390625e-8f;
      return sign ? -v : v;
    }
    return detail::f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  }
};

/// bfloat16: the top half of a float32.
struct BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return {}; }

  BFloat16() = default;
  constexpr EMBER_HOST_DEVICE BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HOST_DEVICE BFloat16(float f) : x(from_float(f)) {}
  EMBER_HOST_DEVICE operator float() const { return detail::f32_from_bits(uint32_t(x) << 16); }

  EMBER_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t u = detail::f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN stays a quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);                      // round to nearest even
    return uint16_t(u >> 16);
  }
};

}  // namespace ember
