// CPU kernels of softmax, log_softmax and cumsum along one dim of a contiguous
// [outer, size, inner] block. Work items are (outer index, block of up to kBlock inner
// positions); each item walks the dim with the inner block contiguous, so the loads are
// unit-stride whatever the dim is, and the items spread over OpenMP threads.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "cpu/vec_rows.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

constexpr int64_t kBlock = 256;

template <class Fn>
void for_each_block(const DimArgs& a, const Fn& fn) {
  const int64_t nblk = (a.inner + kBlock - 1) / kBlock;
  const int64_t items = a.outer * nblk;
  const int64_t per_item = a.size * std::min(a.inner, kBlock);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, per_item));
  parallel_for(items, grain, [&](int64_t b, int64_t e) {
    for (int64_t it = b; it < e; ++it) {
      const int64_t o = it / nblk, ib = (it % nblk) * kBlock;
      const int64_t len = std::min(kBlock, a.inner - ib);
      fn(o * a.size * a.inner + ib, len);  // offset of element (o, 0, ib), block length
    }
  });
}

// Softmax over the innermost dim (the usual case): one row per work item, with the
// vector max, exp and scale; float16 / bfloat16 rows go through float32 copies. The
// blocked walk below would see rows of width 1.
template <bool kLog>
bool try_vec_softmax_rows(const DimArgs& a) {
  if (a.in_dtype != a.out_dtype || a.inner != 1 || a.size < kLanesF) return false;
  const int64_t size = a.size;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / size);
  if (a.in_dtype == kFloat || a.in_dtype == kDouble) {
    dispatch_floating(a.in_dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const T* in = reinterpret_cast<const T*>(a.in);
        T* out = reinterpret_cast<T*>(a.out);
        parallel_for(a.outer, grain, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            if constexpr (std::is_same_v<T, float>) softmax_row_f32<kLog>(out + r * size, in + r * size, size);
            else softmax_row_f64<kLog>(out + r * size, in + r * size, size);
          }
        });
      }
    });
    return true;
  }
  if (a.in_dtype != kHalf && a.in_dtype != kBFloat16) return false;
  dispatch_floating(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
      const T* in = reinterpret_cast<const T*>(a.in);
      T* out = reinterpret_cast<T*>(a.out);
      parallel_for(a.outer, grain, [&](int64_t b, int64_t e) {
        std::vector<float> buf(size_t(2 * size));
        for (int64_t r = b; r < e; ++r) {
          for (int64_t j = 0; j < size; ++j) buf[size_t(j)] = float(in[r * size + j]);
          softmax_row_f32<kLog>(buf.data() + size, buf.data(), size);
          for (int64_t j = 0; j < size; ++j) out[r * size + j] = T(buf[size_t(size + j)]);
        }
      });
    }
  });
  return true;
}

template <bool kLog>
void softmax_kernel(const DimArgs& a) {
  if (try_vec_softmax_rows<kLog>(a)) return;
  dispatch_floating(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t size = a.size, inner = a.inner;
    for_each_block(a, [&](int64_t base, int64_t len) {
      M mx[kBlock];
      double sum[kBlock];
      for (int64_t i = 0; i < len; ++i) {
        mx[i] = -std::numeric_limits<M>::infinity();
        sum[i] = 0;
      }
      for (int64_t j = 0; j < size; ++j) {
        const T* x = in + base + j * inner;
        for (int64_t i = 0; i < len; ++i) mx[i] = std::max(mx[i], M(x[i]));  // a NaN spreads below
      }
      if (kLog || !std::is_same_v<T, M>) {
        for (int64_t j = 0; j < size; ++j) {
          const T* x = in + base + j * inner;
          for (int64_t i = 0; i < len; ++i) sum[i] += double(std::exp(M(x[i]) - mx[i]));
        }
      }
      if constexpr (kLog) {
        for (int64_t i = 0; i < len; ++i) sum[i] = double(mx[i]) + std::log(sum[i]);
        for (int64_t j = 0; j < size; ++j) {
          const T* x = in + base + j * inner;
          T* y = out + base + j * inner;
          for (int64_t i = 0; i < len; ++i) y[i] = T(M(double(M(x[i])) - sum[i]));
        }
      } else if constexpr (std::is_same_v<T, M>) {
        // exp(x - max) is kept in out by a first pass, then scaled: one exp per element.
        for (int64_t i = 0; i < len; ++i) sum[i] = 0;
        for (int64_t j = 0; j < size; ++j) {
          const T* x = in + base + j * inner;
          T* y = out + base + j * inner;
          for (int64_t i = 0; i < len; ++i) {
            y[i] = std::exp(x[i] - mx[i]);
            sum[i] += double(y[i]);
          }
        }
        for (int64_t i = 0; i < len; ++i) sum[i] = 1.0 / sum[i];
        for (int64_t j = 0; j < size; ++j) {
          T* y = out + base + j * inner;
          for (int64_t i = 0; i < len; ++i) y[i] = T(double(y[i]) * sum[i]);
        }
      } else {
        for (int64_t i = 0; i < len; ++i) sum[i] = 1.0 / sum[i];
        for (int64_t j = 0; j < size; ++j) {
          const T* x = in + base + j * inner;
          T* y = out + base + j * inner;
          for (int64_t i = 0; i < len; ++i) y[i] = T(M(double(std::exp(M(x[i]) - mx[i])) * sum[i]));
        }
      }
    });
  });
}

// in_dtype == out_dtype (the front-end casts first); floats accumulate in double,
// integers in wrapping 64-bit.
void cumsum_kernel(const DimArgs& a) {
  dispatch_dtype(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    using Acc = std::conditional_t<std::is_floating_point_v<M>, double, uint64_t>;
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t size = a.size, inner = a.inner;
    if constexpr (std::is_floating_point_v<M>) {
      if (inner == 1) {
        // Along contiguous rows. For float inputs each group of four is summed apart from
        // the running total (exactly enough in double), so the total's chain of dependent
        // adds has one add per four elements; double inputs add strictly in order.
        const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, size));
        parallel_for(a.outer, grain, [&](int64_t rb, int64_t re) {
          for (int64_t r = rb; r < re; ++r) {
            const T* x = in + r * size;
            T* y = out + r * size;
            double acc = 0;
            int64_t j = 0;
            if constexpr (std::is_same_v<M, float>)
              for (; j + 4 <= size; j += 4) {
                const double p0 = double(M(x[j])), p1 = p0 + double(M(x[j + 1]));
                const double p2 = p1 + double(M(x[j + 2])), p3 = p2 + double(M(x[j + 3]));
                y[j] = cast_to<T>(acc + p0);
                y[j + 1] = cast_to<T>(acc + p1);
                y[j + 2] = cast_to<T>(acc + p2);
                y[j + 3] = cast_to<T>(acc + p3);
                acc += p3;
              }
            for (; j < size; ++j) y[j] = cast_to<T>(acc += double(M(x[j])));
          }
        });
        return;
      }
    }
    for_each_block(a, [&](int64_t base, int64_t len) {
      Acc acc[kBlock] = {};
      for (int64_t j = 0; j < size; ++j) {
        const T* x = in + base + j * inner;
        T* y = out + base + j * inner;
        for (int64_t i = 0; i < len; ++i) {
          if constexpr (std::is_floating_point_v<M>) acc[i] += double(M(x[i]));
          else acc[i] += uint64_t(int64_t(x[i]));
          if constexpr (std::is_floating_point_v<M>) y[i] = cast_to<T>(acc[i]);
          else y[i] = cast_to<T>(int64_t(acc[i]));
        }
      }
    });
  });
}

}  // namespace

void register_cpu_dim_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  register_kernel(Op::Softmax, kCPU, softmax_kernel<false>, fl);
  register_kernel(Op::LogSoftmax, kCPU, softmax_kernel<true>, fl);
  register_kernel(Op::Cumsum, kCPU, cumsum_kernel, DtypeSet::all());
}

}  // namespace ember::detail::EMBER_CPU_NS
