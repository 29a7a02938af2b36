// CPU kernels that write without reading a tensor (fill, arange/linspace) and the
// dtype-converting copy; the random ones are in random_kernels.cpp.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_loops.h"
#include "core/dtype_dispatch.h"
#include "cpu/register_cpu.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

// Nullary kernels index elements by their linear position in the output.
template <class T, class F>
void indexed_fill(const ElementwiseArgs& a, F f) {
  T* out = reinterpret_cast<T*>(a.data[0]);
  if (a.contiguous) {
    parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = f(i);
    });
    return;
  }
  // Strided output (fill_ on a view): only Fill reaches here, which ignores i.
  elementwise_kernel<T>(a, [&]() { return f(0); });
}

void fill_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    // Bool from the double (param.f is always set): full(..., 0.5, kBool) is true.
    if constexpr (std::is_same_v<T, bool>) v = a.param[0].f != 0;
    else if constexpr (std::is_floating_point_v<opmath_t<T>>) v = T(opmath_t<T>(a.param[0].f));
    else v = cast_to<T>(a.param[0].i);
    elementwise_kernel<T>(a, [v]() { return v; });
  });
}

// arange: start + i * step; linspace (has_param[2]) mirrors torch's two-sided formula.
void arange_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.has_param[2]) {
      const double start = a.param[0].f, step = a.param[1].f, end = a.param[2].f;
      const int64_t steps = a.param[2].i, half = steps / 2;
      indexed_fill<T>(a, [=](int64_t i) {
        double v = i < half ? start + step * double(i) : end - step * double(steps - i - 1);
        return cast_to<T>(v);
      });
    } else if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      const double start = a.param[0].f, step = a.param[1].f;
      indexed_fill<T>(a, [=](int64_t i) { return cast_to<T>(start + double(i) * step); });
    } else {
      const int64_t start = a.param[0].i, step = a.param[1].i;
      // In uint64, where wrapping is defined: i * step may overflow though the value fits.
      indexed_fill<T>(a, [=](int64_t i) { return cast_to<T>(int64_t(uint64_t(start) + uint64_t(i) * uint64_t(step))); });
    }
  });
}

// A copy whose input walks the output's inner dim with a large step and its next dim
// with step 1 (x.t().contiguous(), a permute): the row-by-row walk touches a new cache
// line per element, so the copy goes tile by tile, each tile's lines reused while in cache.
// Tiles are 8 x 64: 8 input lines and 64 output rows in flight, within L1's ways even when
// both steps are 4 KiB (power-of-two matrices map every row to one cache set).
constexpr int64_t kTile0 = 8, kTile1 = 64;

// One tile: out[i1 * os1 + i0] = in[i0 * is0 + i1] for i0 in [b0, e0), i1 in [b1, e1).
template <class T>
void copy_tile(T* out, const T* in, int64_t os1, int64_t is0, int64_t b0, int64_t e0, int64_t b1, int64_t e1) {
  for (int64_t i1 = b1; i1 < e1; ++i1) {
    T* dst = out + i1 * os1;
    const T* src = in + i1;
    for (int64_t i0 = b0; i0 < e0; ++i0) dst[i0] = src[i0 * is0];
  }
}

template <class T>
bool try_tiled_transpose_copy(const ElementwiseArgs& a) {
  if (a.ndim < 2 || a.ninputs != 1 || a.strides[0][0] != 1 || a.strides[1][1] != 1 || a.strides[1][0] < 16 ||
      a.sizes[0] < kTile0 || a.sizes[1] < 16)
    return false;
  const int64_t n0 = a.sizes[0], n1 = a.sizes[1], os1 = a.strides[0][1], is0 = a.strides[1][0];
  const int64_t t0 = (n0 + kTile0 - 1) / kTile0, t1 = (n1 + kTile1 - 1) / kTile1, per_plane = t0 * t1;
  const int64_t planes = a.numel / (n0 * n1);
  T* out = reinterpret_cast<T*>(a.data[0]);
  const T* in = reinterpret_cast<const T*>(a.data[1]);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (kTile0 * kTile1));
  parallel_for(planes * per_plane, grain, [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      int64_t rem = it / per_plane, o_off = 0, i_off = 0;
      for (int d = 2; d < a.ndim; ++d) {  // the plane's offsets over the outer dims
        const int64_t idx = rem % a.sizes[d];
        rem /= a.sizes[d];
        o_off += idx * a.strides[0][d];
        i_off += idx * a.strides[1][d];
      }
      const int64_t b0 = (it % per_plane) % t0 * kTile0, b1 = (it % per_plane) / t0 * kTile1;
      copy_tile(out + o_off, in + i_off, os1, is0, b0, std::min(n0, b0 + kTile0), b1, std::min(n1, b1 + kTile1));
    }
  });
  return true;
}

// Dense float32 -> bfloat16 (the mixed-precision cast) on vec.h's vector type.
bool try_vec_f32_to_bf16(const ElementwiseArgs& a) {
  if (a.dtype != kFloat || a.out_dtype != kBFloat16 || !a.contiguous || a.strides[1][0] != 1) return false;
  const float* x = reinterpret_cast<const float*>(a.data[1]);
  BFloat16* out = reinterpret_cast<BFloat16*>(a.data[0]);
  parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
    int64_t i = b;
    for (; i + 2 * kLanesF <= e; i += 2 * kLanesF)
      store_bf16x2(reinterpret_cast<uint16_t*>(out + i), load(x + i), load(x + i + kLanesF));
    for (; i < e; ++i) out[i] = BFloat16(x[i]);
  });
  return true;
}

void copy_kernel(const ElementwiseArgs& a) {
  if (try_vec_f32_to_bf16(a)) return;
  dispatch_dtype(a.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch_dtype(a.dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      if constexpr (std::is_same_v<To, From>) {
        if (!a.contiguous && try_tiled_transpose_copy<To>(a)) return;
      }
      elementwise_kernel<To, From>(a, [](From x) { return cast_to<To>(x); });
    });
  });
}

}  // namespace

void register_cpu_fill_kernels() {
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Fill, kCPU, fill_kernel, all);
  register_kernel(Op::Arange, kCPU, arange_kernel, all);
  register_kernel(Op::Copy, kCPU, copy_kernel, all);
}

}  // namespace ember::detail::EMBER_CPU_NS
