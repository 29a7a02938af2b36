// CPU kernels of the index family (IndexArgs): index_select, index_copy_, index_add_
// and nonzero's flat positions. Copies move raw elements by size; only IndexAdd looks
// at the dtype. Out-of-range positions are reported through args.error.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail {

// Compiled once, at the baseline instruction set (register_cpu.h).
using namespace EMBER_CPU_NS;

namespace {

inline void report(const IndexArgs& a, int64_t pos) {
  // Any one bad position is reported; racing writers each leave a valid one.
  __atomic_store_n(&a.error[1], pos, __ATOMIC_RELAXED);
  __atomic_store_n(&a.error[0], int64_t(1), __ATOMIC_RELAXED);
}

// Wraps index j into [0, size), or returns -1 (and reports) when it is out of range.
inline int64_t wrap_index(const IndexArgs& a, int64_t j) {
  int64_t p = a.index[j * a.index_stride];
  if (p < (a.allow_negative ? -a.size : 0) || p >= a.size) {
    report(a, p);
    return -1;
  }
  return p < 0 ? p + a.size : p;
}

bool check_all(const IndexArgs& a) {
  for (int64_t j = 0; j < a.nindex; ++j)
    if (wrap_index(a, j) < 0) return false;
  return true;
}

template <class T>
inline void copy_row(T* dst, int64_t ds, const T* src, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1) {
    if (n == 1) *dst = *src;
    else std::memcpy(dst, src, size_t(n) * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i * ds] = src[i * ss];
}

// Calls fn(TypeTag<U>) with an unsigned type of the element's size.
template <class Fn>
void dispatch_size(ScalarType dtype, const Fn& fn) {
  switch (element_size(dtype)) {
    case 1: return fn(TypeTag<uint8_t>{});
    case 2: return fn(TypeTag<uint16_t>{});
    case 4: return fn(TypeTag<uint32_t>{});
    default: return fn(TypeTag<uint64_t>{});
  }
}

// Visits the (outer, j) rows of the selected side in parallel; fn(o, j, p) with p wrapped.
template <class Fn>
void for_each_row(const IndexArgs& a, const Fn& fn) {
  const int64_t rows = a.outer * a.nindex;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, a.inner));
  parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / a.nindex, j = r % a.nindex;
      const int64_t p = wrap_index(a, j);
      if (p < 0) return;
      fn(o, j, p);
    }
  });
}

void index_select_kernel(const IndexArgs& a) {
  dispatch_size(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* self = reinterpret_cast<const T*>(a.self);
    T* out = reinterpret_cast<T*>(a.out);
    const int64_t* ss = a.self_strides;
    const int64_t* os = a.other_strides;
    if (a.inner == 1 && a.outer == 1) {
      // The flat gather (x[idx] on a 1-D view): one tight loop per chunk, on locals so
      // that nothing is reloaded behind the stores and the random loads overlap.
      parallel_for(a.nindex, kParallelGrain, [&, self, out](int64_t b, int64_t e) {
        const int64_t* index = a.index;
        const int64_t istride = a.index_stride, s1 = ss[1], o1 = os[1], n = a.size;
        const int64_t lo = a.allow_negative ? -n : 0;
        for (int64_t j = b; j < e; ++j) {
          int64_t p = index[j * istride];
          if (__builtin_expect(uint64_t(p) >= uint64_t(n), 0)) {
            if (p < lo || p >= n) {
              report(a, p);
              return;
            }
            p += n;
          }
          out[j * o1] = self[p * s1];
        }
      });
      return;
    }
    for_each_row(a, [&](int64_t o, int64_t j, int64_t p) {
      copy_row(out + o * os[0] + j * os[1], os[2], self + o * ss[0] + p * ss[1], ss[2], a.inner);
    });
  });
}

void index_copy_kernel(const IndexArgs& a) {
  if (!check_all(a)) return;
  dispatch_size(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* self = reinterpret_cast<T*>(a.self);
    const T* src = reinterpret_cast<const T*>(a.src);
    const int64_t* ss = a.self_strides;
    const int64_t* os = a.other_strides;
    // Serial in j: with duplicate positions the last one wins, as on torch's CPU.
    for (int64_t o = 0; o < a.outer; ++o)
      for (int64_t j = 0; j < a.nindex; ++j) {
        int64_t p = a.index[j * a.index_stride];
        if (p < 0) p += a.size;
        copy_row(self + o * ss[0] + p * ss[1], ss[2], src + o * os[0] + j * os[1], os[2], a.inner);
      }
  });
}

void index_add_kernel(const IndexArgs& a) {
  if (!check_all(a)) return;
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    T* self = reinterpret_cast<T*>(a.self);
    const T* src = reinterpret_cast<const T*>(a.src);
    const int64_t* ss = a.self_strides;
    const int64_t* os = a.other_strides;
    // Parallel over (outer, inner) columns, serial over j: duplicates sum in index order.
    const int64_t cols = a.outer * a.inner;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, a.nindex));
    parallel_for(cols, grain, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t o = c / a.inner, i = c % a.inner;
        T* srow = self + o * ss[0] + i * ss[2];
        const T* xrow = src + o * os[0] + i * os[2];
        for (int64_t j = 0; j < a.nindex; ++j) {
          int64_t p = a.index[j * a.index_stride];
          if (p < 0) p += a.size;
          T& d = srow[p * ss[1]];
          if constexpr (std::is_same_v<T, bool>) d = d || xrow[j * os[1]];
          else d = T(M(d) + M(xrow[j * os[1]]));
        }
      }
    });
  });
}

// Flat positions of the trues of a contiguous bool block, in order: chunks count, then
// each writes from its prefix offset.
void nonzero_kernel(const IndexArgs& a) {
  const bool* m = reinterpret_cast<const bool*>(a.self);
  int64_t* out = reinterpret_cast<int64_t*>(a.out);
  const int64_t n = a.size;
  constexpr int64_t kChunk = 1 << 16;
  const int64_t nchunks = (n + kChunk - 1) / kChunk;
  if (nchunks <= 1) {
    int64_t k = 0;
    for (int64_t i = 0; i < n && k < a.nindex; ++i) {
      out[k] = i;
      k += m[i];
    }
    return;
  }
  std::vector<int64_t> start(size_t(nchunks) + 1, 0);
  parallel_for(nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
      int64_t cnt = 0;
      for (int64_t i = lo; i < hi; ++i) cnt += m[i];
      start[size_t(c) + 1] = cnt;
    }
  });
  for (int64_t c = 0; c < nchunks; ++c) start[size_t(c) + 1] += start[size_t(c)];
  parallel_for(nchunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
      int64_t k = start[size_t(c)];
      const int64_t end = start[size_t(c) + 1];
      // Branch-free: write every position, advance only past trues (the last chunk's
      // final slot is guarded so nothing is written beyond the output).
      for (int64_t i = lo; i < hi && k < end; ++i) {
        out[k] = i;
        k += m[i];
      }
    }
  });
}

}  // namespace

void register_cpu_index_kernels() {
  register_kernel(Op::IndexSelect, kCPU, index_select_kernel, DtypeSet::all());
  register_kernel(Op::IndexCopy, kCPU, index_copy_kernel, DtypeSet::all());
  register_kernel(Op::IndexAdd, kCPU, index_add_kernel, DtypeSet::all());
  register_kernel(Op::Nonzero, kCPU, nonzero_kernel, DtypeSet({kBool}));
}

}  // namespace ember::detail
