// CPU random kernels. With a generator (the CPU's own, args.generator) they draw from
// libtorch's mt19937 serially and transform the bits exactly as libtorch 1.13's CPU
// kernels do, so a seed gives libtorch's values (Note [Random generators]); without one
// (a PrivateUse1 backend borrowing these kernels) they hash (seed, counter) as the CUDA
// kernels do. The front-end holds the generator's lock and hands a contiguous output.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "ember/cpu_generator.h"
#include "ember/detail_random.h"

namespace ember::detail {

// Compiled once, at the baseline instruction set (register_cpu.h).
using namespace EMBER_CPU_NS;

namespace {

constexpr double kPi = 3.14159265358979323846;

CPUGeneratorImpl& generator_of(const ElementwiseArgs& a) {
  return *static_cast<CPUGeneratorImpl*>(a.generator);
}

// libtorch's dist_acctype: float for the 16-bit types and float, double for double.
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Nullary kernels index elements by their linear position in the output.
template <class T, class F>
void indexed_fill(const ElementwiseArgs& a, F f) {
  T* out = reinterpret_cast<T*>(a.data[0]);
  parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = f(i);
  });
}

// A uniform in [from, to) from the next draw, as libtorch's uniform_real_distribution<T>:
// 64 bits for double, 32 otherwise, masked to T's significand.
template <class T>
acc_t<T> next_uniform(CPUGeneratorImpl& g, T from, T to) {
  constexpr int digits = mantissa_digits<T>();
  using A = acc_t<T>;
  const uint64_t bits = std::is_same_v<T, double> ? g.random64() : uint64_t(g.random());
  const A x = A(bits & ((uint64_t(1) << digits) - 1)) * (A(1) / A(uint64_t(1) << digits));
  const A span = A(T(A(to) - A(from)));  // T - T is rounded to T, as c10's 16-bit arithmetic
  // libtorch's AVX2 and AVX-512 kernel builds contract this to one fused multiply-add.
  return std::fma(x, span, A(from));
}

// libtorch's normal_distribution<double>: a Box-Muller pair, its second value cached in
// the generator for the next call.
double next_normal(CPUGeneratorImpl& g, double mean, double std) {
  if (std::optional<double> cached = g.next_double_normal_sample()) {
    g.set_next_double_normal_sample(std::nullopt);
    return *cached * std + mean;
  }
  const double u1 = next_uniform<double>(g, 0, 1), u2 = next_uniform<double>(g, 0, 1);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * kPi * u1;
  g.set_next_double_normal_sample(r * std::sin(theta));
  return r * std::cos(theta) * std + mean;
}

// libtorch's normal_fill_16: 8 pairs of uniforms in place, each named value rounded to T.
template <class T>
void normal_fill_16(T* data, T mean, T std) {
  using A = acc_t<T>;
  for (int j = 0; j < 8; ++j) {
    const T u1 = T(A(1) - A(data[j]));  // [0, 1) -> (0, 1] for the log
    const T u2 = data[j + 8];
    const T radius = T(std::sqrt(A(-2) * std::log(A(u1))));
    const T theta = T(double(2.0f) * kPi * double(u2));
    data[j] = T(A(radius) * std::cos(A(theta)) * A(std) + A(mean));
    data[j + 8] = T(A(radius) * std::sin(A(theta)) * A(std) + A(mean));
  }
}

// libtorch's normal_fill: uniforms for every element, transformed 16 at a time; a ragged
// end redraws the last 16.
template <class T>
void normal_fill(T* data, int64_t n, T mean, T std, CPUGeneratorImpl& g) {
  for (int64_t i = 0; i < n; ++i) data[i] = T(next_uniform<T>(g, T(0), T(1)));
  for (int64_t i = 0; i + 15 < n; i += 16) normal_fill_16(data + i, mean, std);
  if (n % 16 != 0) {
    T* tail = data + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = T(next_uniform<T>(g, T(0), T(1)));
    normal_fill_16(tail, mean, std);
  }
}

void uniform_kernel(const ElementwiseArgs& a) {
  const double lo = a.param[0].f, hi = a.param[1].f;
  dispatch_floating(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.generator) {
      CPUGeneratorImpl& g = generator_of(a);
      T* out = reinterpret_cast<T*>(a.data[0]);
      const T from = T(lo), to = T(hi);
      for (int64_t i = 0; i < a.numel; ++i) out[i] = T(next_uniform<T>(g, from, to));
      return;
    }
    // Uniforms carry as many bits as T holds, so rand's [0, 1) survives the cast to T.
    const uint64_t seed = a.seed, offset = a.offset;
    constexpr int digits = mantissa_digits<T>();
    indexed_fill<T>(a, [=](int64_t i) {
      return cast_to<T>(lo + (hi - lo) * random_uniform(seed, offset + uint64_t(i), digits));
    });
  });
}

// has_param[2]: the target tensor is not contiguous, and libtorch then draws each
// element from normal_distribution<double> instead of filling 16 at a time.
void normal_kernel(const ElementwiseArgs& a) {
  const double mean = a.param[0].f, std = a.param[1].f;
  dispatch_floating(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.generator) {
      CPUGeneratorImpl& g = generator_of(a);
      T* out = reinterpret_cast<T*>(a.data[0]);
      if (a.numel >= 16 && !a.has_param[2]) {
        normal_fill<T>(out, a.numel, T(mean), T(std), g);
      } else {
        for (int64_t i = 0; i < a.numel; ++i) out[i] = T(next_normal(g, mean, std));
      }
      return;
    }
    const uint64_t seed = a.seed, offset = a.offset;
    indexed_fill<T>(a, [=](int64_t i) {
      return cast_to<T>(mean + std * random_normal(seed, normal_counter(offset, uint64_t(i))));
    });
  });
}

// libtorch's random_() without bounds: [0, 2^digits] for floating types, [0, max] for
// integers, a coin for bool.
template <class T>
T default_random(CPUGeneratorImpl& g) {
  const bool wide = std::is_same_v<T, double> || std::is_same_v<T, int64_t>;
  const uint64_t v = wide ? g.random64() : uint64_t(g.random());
  if constexpr (std::is_same_v<T, bool>) {
    return (v & 1) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return T(v % (uint64_t(std::numeric_limits<T>::max()) + 1));
  } else {
    return cast_to<T>(v % ((uint64_t(1) << mantissa_digits<T>()) + 1));
  }
}

// Modes: RandIntMode (kernel_args.h).

void randint_kernel(const ElementwiseArgs& a) {
  const int64_t lo = a.param[0].i;
  const uint64_t range = uint64_t(a.param[1].i) - uint64_t(a.param[0].i);
  const int64_t mode = a.has_param[2] ? a.param[2].i : kRandFromTo;
  dispatch_dtype(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.generator) {
      CPUGeneratorImpl& g = generator_of(a);
      T* out = reinterpret_cast<T*>(a.data[0]);
      // 64-bit draws only where the range needs them and T can hold them (libtorch's rule).
      constexpr bool can_wide = std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                                std::is_same_v<T, float> || std::is_same_v<T, BFloat16>;
      const bool wide = can_wide && range >= (uint64_t(1) << 32);
      for (int64_t i = 0; i < a.numel; ++i) {
        if (mode == kRandDefault) {
          out[i] = default_random<T>(g);
        } else if (mode == kRandFullRange) {
          out[i] = cast_to<T>(int64_t(g.random64()));
        } else {
          const uint64_t v = wide ? g.random64() : uint64_t(g.random());
          out[i] = cast_to<T>(int64_t(v % range + uint64_t(lo)));
        }
      }
      return;
    }
    const uint64_t seed = a.seed, offset = a.offset;
    indexed_fill<T>(a, [=](int64_t i) {
      const uint64_t bits = random_bits(seed, offset + uint64_t(i));
      return cast_to<T>(int64_t(range ? bits % range + uint64_t(lo) : bits));
    });
  });
}

// randperm: 0 .. n-1, then libtorch's swaps: element i trades places with one of i .. n-1.
void randperm_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = reinterpret_cast<T*>(a.data[0]);
    const int64_t n = a.numel;
    for (int64_t i = 0; i < n; ++i) out[i] = cast_to<T>(i);
    CPUGeneratorImpl* g = static_cast<CPUGeneratorImpl*>(a.generator);
    for (int64_t i = 0; i + 1 < n; ++i) {
      const uint64_t bits = g ? uint64_t(g->random()) : random_bits(a.seed, a.offset + uint64_t(i));
      const int64_t z = int64_t(bits % uint64_t(n - i));
      std::swap(out[i], out[z + i]);
    }
  });
}

}  // namespace

void register_cpu_random_kernels() {
  register_kernel(Op::Uniform, kCPU, uniform_kernel, DtypeSet::floating());
  register_kernel(Op::Normal, kCPU, normal_kernel, DtypeSet::floating());
  register_kernel(Op::RandInt, kCPU, randint_kernel, DtypeSet::all());
  register_kernel(Op::RandPerm, kCPU, randperm_kernel,
                  {kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble});
}

}  // namespace ember::detail
