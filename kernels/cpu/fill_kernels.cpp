// CPU kernels that write without reading a tensor (fill, arange/linspace, random)
// and the dtype-converting copy.
#include <cmath>

#include "cpu/cpu_loops.h"
#include "core/dtype_dispatch.h"
#include "cpu/register_cpu.h"
#include "ember/detail_random.h"

namespace ember::detail {

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

// Uniforms carry as many bits as T holds, so rand's [0, 1) survives the cast to T.
void uniform_kernel(const ElementwiseArgs& a) {
  const uint64_t seed = a.seed, offset = a.offset;
  const double lo = a.param[0].f, hi = a.param[1].f;
  dispatch_floating(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int digits = mantissa_digits<T>();
    indexed_fill<T>(a, [=](int64_t i) {
      return cast_to<T>(lo + (hi - lo) * random_uniform(seed, offset + uint64_t(i), digits));
    });
  });
}

void normal_kernel(const ElementwiseArgs& a) {
  const uint64_t seed = a.seed, offset = a.offset;
  const double mean = a.param[0].f, std = a.param[1].f;
  dispatch_floating(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    indexed_fill<T>(a, [=](int64_t i) {
      return cast_to<T>(mean + std * random_normal(seed, normal_counter(offset, uint64_t(i))));
    });
  });
}

void randint_kernel(const ElementwiseArgs& a) {
  const uint64_t seed = a.seed, offset = a.offset;
  const int64_t lo = a.param[0].i;
  const uint64_t range = uint64_t(a.param[1].i - a.param[0].i);
  dispatch_dtype(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    indexed_fill<T>(a, [=](int64_t i) {
      return cast_to<T>(lo + int64_t(random_bits(seed, offset + uint64_t(i)) % range));
    });
  });
}

void copy_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch_dtype(a.dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      elementwise_kernel<To, From>(a, [](From x) { return cast_to<To>(x); });
    });
  });
}

}  // namespace

void register_cpu_fill_kernels() {
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Fill, kCPU, fill_kernel, all);
  register_kernel(Op::Arange, kCPU, arange_kernel, all);
  register_kernel(Op::Uniform, kCPU, uniform_kernel, DtypeSet::floating());
  register_kernel(Op::Normal, kCPU, normal_kernel, DtypeSet::floating());
  register_kernel(Op::RandInt, kCPU, randint_kernel, all);
  register_kernel(Op::Copy, kCPU, copy_kernel, all);
}

}  // namespace ember::detail
