#pragma once
// The closeness test of isclose / allclose for one pair of values, shared by the CPU and
// CUDA kernels. It follows libtorch's sequence of tensor ops step by step, each result
// rounded to the dtype libtorch gives it, so results agree with libtorch to the bit:
//   x == y  or  (|x - y| finite  and  |x - y| <= atol + |rtol * y|)
// - floating T (opmath M: float for float16 / bfloat16): rtol and atol are cast to T,
//   every step is rounded to T, so float32 0.1 is within atol = 0.1 of 0 (both are
//   0.1f) and an overflowing difference is never close;
// - integer and bool T: the tolerance is computed in the default dtype F (float or
//   double, libtorch's promotion of an integer tensor times a double), compared with the
//   exact difference (libtorch's narrow-integer subtraction wraps around; ember's does not).
// NaN is close only to NaN, with equal_nan. Tolerances are >= 0 (the front-end checks).

#include <cstdint>
#include <type_traits>

#include "ember/export.h"
#include "ember/half.h"

namespace ember::detail {

/// Bits of the kernel's flags parameter.
constexpr int64_t kIsCloseEqualNan = 1;
constexpr int64_t kIsCloseDoubleTolerance = 2;  // integer / bool inputs: the default dtype is float64

template <class F>
EMBER_HOST_DEVICE inline bool isclose_within(F diff, F y, double rtol, double atol) {
  const F prod = F(rtol) * y;
  const F allowed = F(atol) + (prod < F(0) ? -prod : prod);
  return diff <= allowed;
}

template <class T, class M>
EMBER_HOST_DEVICE inline bool isclose_value(M x, M y, double rtol, double atol, int64_t flags) {
  if (x == y) return true;
  if constexpr (std::is_floating_point_v<M>) {
    if (x != x || y != y) return (flags & kIsCloseEqualNan) && x != x && y != y;
    if (rtol == 0 && atol == 0) return false;  // libtorch returns x == y here
    // Each op of libtorch's formula gives a tensor of dtype T: round after each.
    const M rt = M(T(rtol)), at = M(T(atol));
    const M d = M(T(x - y));
    const M diff = d < M(0) ? -d : d;
    if (!(diff - diff == M(0))) return false;  // an infinite difference is never close
    const M p = M(T(rt * y));
    return diff <= M(T(at + (p < M(0) ? -p : p)));
  } else {
    if (rtol == 0 && atol == 0) return false;
    const int64_t xi = int64_t(x), yi = int64_t(y);
    const uint64_t diff = xi > yi ? uint64_t(xi) - uint64_t(yi) : uint64_t(yi) - uint64_t(xi);
    if (flags & kIsCloseDoubleTolerance) return isclose_within<double>(double(diff), double(yi), rtol, atol);
    return isclose_within<float>(float(diff), float(yi), rtol, atol);
  }
}

}  // namespace ember::detail
