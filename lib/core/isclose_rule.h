#pragma once
// The closeness test of isclose / allclose for one pair of values, shared by the CPU and
// CUDA kernels: |x - y| <= atol + rtol * |y|, where unequal infinities are never close,
// NaNs only with equal_nan, and integers compare exactly (no rounding through float).

#include <cstdint>
#include <type_traits>

#include "ember/export.h"

namespace ember::detail {

template <class M>
EMBER_HOST_DEVICE inline bool isclose_value(M x, M y, double rtol, double atol, bool equal_nan) {
  if (x == y) return true;
  if constexpr (std::is_floating_point_v<M>) {
    if (x != x || y != y) return equal_nan && x != x && y != y;
    if (!(x - x == M(0)) || !(y - y == M(0))) return false;  // x - x is NaN for an infinity
    const double dx = double(x), dy = double(y);
    const double diff = dx > dy ? dx - dy : dy - dx;
    return diff <= atol + rtol * (dy < 0 ? -dy : dy);
  } else {
    const int64_t xi = int64_t(x), yi = int64_t(y);
    const uint64_t diff = xi > yi ? uint64_t(xi) - uint64_t(yi) : uint64_t(yi) - uint64_t(xi);
    const double tol = atol + rtol * (yi < 0 ? -double(yi) : double(yi));
    return tol >= 0x1p64 || diff <= uint64_t(tol);  // tol >= 0: the front-end rejects negative tolerances
  }
}

}  // namespace ember::detail
