// CPU kernels of gather, scatter (assign / add / multiply) and sort.
// Note [Select kernels]: the loop walks the index tensor row by row (its innermost dim);
// each index is checked against dim_size before it is used, so a bad index is reported
// through SelectArgs::status and never read or written. Scatter checks every index
// before writing anything, so a failed scatter_ leaves its input unchanged.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail {

// Compiled once, at the baseline instruction set (register_cpu.h).
using namespace EMBER_CPU_NS;

namespace {

// Calls fn(row_offsets[3], row_length) for rows [b, e) of the index shape; offsets are
// in elements for (out, in, index).
template <class Fn>
void for_each_index_row(const SelectArgs& a, int64_t b, int64_t e, const Fn& fn) {
  int64_t idx[SelectArgs::kMaxDims] = {};
  int64_t rem = b;
  for (int d = 1; d < a.ndim; ++d) {
    idx[d] = rem % a.sizes[d];
    rem /= a.sizes[d];
  }
  for (int64_t row = b; row < e; ++row) {
    int64_t off[3] = {0, 0, 0};
    for (int d = 1; d < a.ndim; ++d) {
      off[0] += idx[d] * a.out_strides[d];
      off[1] += idx[d] * a.in_strides[d];
      off[2] += idx[d] * a.index_strides[d];
    }
    fn(off);
    for (int d = 1; d < a.ndim; ++d) {
      if (++idx[d] < a.sizes[d]) break;
      idx[d] = 0;
    }
  }
}

int64_t row_count(const SelectArgs& a) {
  int64_t rows = 1;
  for (int d = 1; d < a.ndim; ++d) rows *= a.sizes[d];
  return rows;
}

void report(const SelectArgs& a, int64_t bad) {
#pragma omp critical(ember_select_status)
  if (a.status[0] == 0) {
    a.status[0] = 1;
    a.status[1] = bad;
  }
}

// One row of the index: out[j] = in[j + index[j] * indexed_stride] (strides in elements).
// Returns false at the first bad index. The unit-stride case is its own loop so that the
// compiler keeps everything in registers (the common gather along the last dim).
template <class T>
bool gather_row(T* out, const T* in, const int64_t* ix, int64_t len, int64_t so, int64_t si, int64_t sx,
                uint64_t dim_size, int64_t istride, int64_t* bad) {
  if (so == 1 && sx == 1 && si == 0) {
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = ix[j];
      if (__builtin_expect(uint64_t(k) >= dim_size, 0)) return *bad = k, false;
      out[j] = in[k * istride];
    }
    return true;
  }
  for (int64_t j = 0; j < len; ++j) {
    const int64_t k = ix[j * sx];
    if (__builtin_expect(uint64_t(k) >= dim_size, 0)) return *bad = k, false;
    out[j * so] = in[j * si + k * istride];
  }
  return true;
}

template <class T>
void gather_typed(const SelectArgs& a) {
  const int64_t len = a.ndim ? a.sizes[0] : 1;
  const int64_t so = a.ndim ? a.out_strides[0] : 0, si = a.ndim ? a.in_strides[0] : 0;
  const int64_t sx = a.ndim ? a.index_strides[0] : 0;
  const uint64_t dim_size = uint64_t(a.dim_size);
  const int64_t istride = a.indexed_stride;
  const int64_t rows = row_count(a);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, len));
  parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for_each_index_row(a, b, e, [&](const int64_t* off) {
      int64_t bad = 0;
      if (!gather_row(reinterpret_cast<T*>(a.out) + off[0], reinterpret_cast<const T*>(a.in) + off[1],
                      a.index + off[2], len, so, si, sx, dim_size, istride, &bad))
        report(a, bad);
    });
  });
}

// The first out-of-range index in row-major order, as libtorch reports it.
bool check_indices(const SelectArgs& a) {
  const int64_t len = a.ndim ? a.sizes[0] : 1, sx = a.ndim ? a.index_strides[0] : 0;
  bool bad = false;
  for_each_index_row(a, 0, row_count(a), [&](const int64_t* off) {
    if (bad) return;
    const int64_t* ix = a.index + off[2];
    for (int64_t j = 0; j < len; ++j)
      if (uint64_t(ix[j * sx]) >= uint64_t(a.dim_size)) {
        report(a, ix[j * sx]);
        bad = true;
        return;
      }
  });
  return !bad;
}

// scatter_reduce's amax and amin: a NaN wins, as libtorch's.
template <class T>
T scatter_max(T old, T v) {
  using M = opmath_t<T>;
  if constexpr (std::is_floating_point_v<M>)
    if (M(old) != M(old)) return old;
  return (M(v) != M(v) || M(v) > M(old)) ? v : old;
}
template <class T>
T scatter_min(T old, T v) {
  using M = opmath_t<T>;
  if constexpr (std::is_floating_point_v<M>)
    if (M(old) != M(old)) return old;
  return (M(v) != M(v) || M(v) < M(old)) ? v : old;
}

template <class T>
void scatter_typed(const SelectArgs& a) {
  if (!check_indices(a)) return;
  using M = opmath_t<T>;
  const int64_t len = a.ndim ? a.sizes[0] : 1;
  const int64_t so = a.ndim ? a.out_strides[0] : 0, si = a.ndim ? a.in_strides[0] : 0;
  const int64_t sx = a.ndim ? a.index_strides[0] : 0;
  T value{};
  if (a.in_is_scalar) std::memcpy(&value, a.scalar_value, sizeof(T));
  // Serial: several indices may name the same output element (add / multiply accumulate).
  for_each_index_row(a, 0, row_count(a), [&](const int64_t* off) {
    T* out = reinterpret_cast<T*>(a.out) + off[0];
    const T* in = reinterpret_cast<const T*>(a.in) + off[1];
    const int64_t* ix = a.index + off[2];
    for (int64_t j = 0; j < len; ++j) {
      T& dst = out[j * so + ix[j * sx] * a.indexed_stride];
      const T v = a.in_is_scalar ? value : in[j * si];
      if (a.reduce == 0) dst = v;
      else if constexpr (std::is_same_v<T, bool>)
        dst = a.reduce == 1 || a.reduce == 3 ? (dst || v) : (dst && v);
      else if (a.reduce == 1) dst = T(M(dst) + M(v));
      else if (a.reduce == 2)
        dst = T(M(dst) * M(v));
      else
        dst = a.reduce == 3 ? scatter_max(dst, v) : scatter_min(dst, v);
    }
  });
}

void gather_kernel(const SelectArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) { gather_typed<typename decltype(tag)::type>(a); });
}
void scatter_kernel(const SelectArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) { scatter_typed<typename decltype(tag)::type>(a); });
}

template <class T>
void sort_typed(const SortArgs& a) {
  using M = opmath_t<T>;
  const int64_t slices = a.outer * a.inner;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, a.size));
  parallel_for(slices, grain, [&](int64_t b, int64_t e) {
    std::vector<std::pair<M, int64_t>> buf(size_t(a.size));
    for (int64_t s = b; s < e; ++s) {
      const int64_t o = s / a.inner, i = s % a.inner;
      const int64_t base = o * a.size * a.inner + i;
      const T* in = reinterpret_cast<const T*>(a.in) + base;
      for (int64_t j = 0; j < a.size; ++j) buf[size_t(j)] = {M(in[j * a.inner]), j};
      auto isnan_ = [](M v) {
        if constexpr (std::is_floating_point_v<M>) return std::isnan(v);
        else return (void)v, false;
      };
      // NaN is the largest value (torch's order), then the sort is stable.
      if (a.descending)
        std::stable_sort(buf.begin(), buf.end(), [&](const auto& x, const auto& y) {
          return x.first > y.first || (isnan_(x.first) && !isnan_(y.first));
        });
      else
        std::stable_sort(buf.begin(), buf.end(), [&](const auto& x, const auto& y) {
          return x.first < y.first || (!isnan_(x.first) && isnan_(y.first));
        });
      T* out = reinterpret_cast<T*>(a.values) + base;
      int64_t* idx = a.indices + base;
      for (int64_t j = 0; j < a.size; ++j) {
        out[j * a.inner] = T(buf[size_t(j)].first);
        idx[j * a.inner] = buf[size_t(j)].second;
      }
    }
  });
}

void sort_kernel(const SortArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) { sort_typed<typename decltype(tag)::type>(a); });
}

}  // namespace

void register_cpu_select_kernels() {
  register_kernel(Op::Gather, kCPU, &gather_kernel, DtypeSet::all());
  register_kernel(Op::Scatter, kCPU, &scatter_kernel, DtypeSet::all());
  register_kernel(Op::Sort, kCPU, &sort_kernel, DtypeSet::all());
}

}  // namespace ember::detail
