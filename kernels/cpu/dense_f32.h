#pragma once
// Contiguous float32 binary ops below the streaming-store size: a loop on restrict
// pointers, which the compiler vectorises at the capability's width without the alias
// checks of the generic loop, split across threads above kParallelGrain. Outputs past
// the streaming-store size take streaming_f32.h.

#include <cstdint>
#include <type_traits>

#include "cpu/cpu_loops.h"
#include "ember/half.h"
#include "ember/kernel_args.h"

namespace ember::detail::EMBER_CPU_NS {

template <class F>
void dense_binary_loop(float* __restrict out, const float* x, const float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
}

/// The same with y one element (a Scalar or a broadcast one-element tensor).
template <class F>
void dense_binary_scalar_loop(float* __restrict out, const float* x, float y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y);
}

/// out = f(x, y) for a dense float32 op below `max_numel` elements. Returns false when
/// the args do not qualify.
template <class F>
bool try_dense_binary_f32(const ElementwiseArgs& a, int64_t max_numel, F f) {
  if (!a.contiguous || a.ninputs != 2 || a.strides[1][0] != 1 || (a.strides[2][0] != 1 && a.strides[2][0] != 0) ||
      a.numel >= max_numel || a.numel < 16)
    return false;
  const float* x = reinterpret_cast<const float*>(a.data[1]);
  const float* y = reinterpret_cast<const float*>(a.data[2]);
  float* out = reinterpret_cast<float*>(a.data[0]);
  // In-place ops alias out with an input exactly; partial overlap is not produced here.
  if (a.strides[2][0] == 0) {
    const float yv = y[0];
    parallel_for(a.numel, kParallelGrain,
                 [&](int64_t b, int64_t e) { dense_binary_scalar_loop(out + b, x + b, yv, e - b, f); });
  } else {
    parallel_for(a.numel, kParallelGrain,
                 [&](int64_t b, int64_t e) { dense_binary_loop(out + b, x + b, y + b, e - b, f); });
  }
  return true;
}

/// out = f(x, y) for dense bfloat16 or float16 operands (T), computed in float32 as the
/// generic loop does (f must take floats and VecF alike); y may be one element. Returns
/// false when the args do not qualify.
template <class T, class F>
bool try_dense_binary_16(const ElementwiseArgs& a, F f) {
  if (!a.contiguous || a.ninputs != 2 || a.strides[1][0] != 1 || (a.strides[2][0] != 1 && a.strides[2][0] != 0) ||
      a.numel < 16)
    return false;
  const uint16_t* x = reinterpret_cast<const uint16_t*>(a.data[1]);
  const uint16_t* y = reinterpret_cast<const uint16_t*>(a.data[2]);
  uint16_t* out = reinterpret_cast<uint16_t*>(a.data[0]);
  const bool one_y = a.strides[2][0] == 0;
  auto to_float = [](uint16_t bits) { return float(T(bits, T::from_bits())); };
  auto load16 = [](const uint16_t* p) {
    if constexpr (std::is_same_v<T, BFloat16>) return load_bf16(p);
    else return load_f16(p);
  };
  auto store16x2 = [](uint16_t* p, VecF lo, VecF hi) {
    if constexpr (std::is_same_v<T, BFloat16>) store_bf16x2(p, lo, hi);
    else store_f16x2(p, lo, hi);
  };
  parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
    constexpr int64_t L = kLanesF;
    const VecF y_one = splat(to_float(y[0]));
    int64_t i = b;
    for (; i + 2 * L <= e; i += 2 * L) {  // both halves are loaded before out (maybe x) is written
      const VecF x0 = load16(x + i), x1 = load16(x + i + L);
      const VecF y0 = one_y ? y_one : load16(y + i), y1 = one_y ? y_one : load16(y + i + L);
      store16x2(out + i, f(x0, y0), f(x1, y1));
    }
    for (; i < e; ++i) out[i] = T(f(to_float(x[i]), to_float(y[one_y ? 0 : i]))).x;
  });
  return true;
}

}  // namespace ember::detail::EMBER_CPU_NS
