#pragma once
// The driver shared by the CPU reduction kernels. A reducer R supplies
//   Acc init(); void row(Acc&, const T* p, int64_t n, int64_t stride, int64_t first_index);
//   void merge(Acc& a, const Acc& later); Res project(const Acc&); int64_t index(const Acc&);
// and the driver walks each output's slice of the input (rows of the innermost reduced
// dim), parallel over outputs, or over chunks of the reduced range with per-chunk partials
// merged in chunk order when there are too few outputs to keep every thread busy.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "ember/kernel_args.h"

namespace ember::detail::EMBER_CPU_NS {

/// Writes v into an element of dtype dt (one switch per output, not per input element).
template <class V>
inline void store_as(ScalarType dt, char* p, V v) {
  dispatch_dtype(dt, [&](auto tag) {
    using O = typename decltype(tag)::type;
    *reinterpret_cast<O*>(p) = cast_to<O>(v);
  });
}

/// Element offsets of output k's first input element and of output k itself.
inline void output_offsets(const ReduceArgs& a, int64_t k, int64_t& in_off, int64_t& out_off) {
  in_off = out_off = 0;
  for (int d = 0; d < a.nkept; ++d) {
    const int64_t i = k % a.kept_sizes[d];
    k /= a.kept_sizes[d];
    in_off += i * a.kept_in_strides[d];
    out_off += i * a.kept_out_strides[d];
  }
}

/// Feeds reduced elements [b, e) (flat index over the reduced dims, innermost fastest)
/// of the slice starting at `base` to r.row, one run of the innermost reduced dim at a time.
template <class T, class R, class Acc>
void walk_reduced(const ReduceArgs& a, const T* base, int64_t b, int64_t e, Acc& acc, const R& r) {
  if (b >= e) return;
  const int64_t n0 = a.reduced_sizes[0], s0 = a.reduced_in_strides[0];
  int64_t idx[ReduceArgs::kMaxDims] = {};
  int64_t i0 = b % n0, rem = b / n0;
  for (int d = 1; d < a.nreduced; ++d) {
    idx[d] = rem % a.reduced_sizes[d];
    rem /= a.reduced_sizes[d];
  }
  int64_t flat = b;
  while (flat < e) {
    int64_t off = 0;
    for (int d = 1; d < a.nreduced; ++d) off += idx[d] * a.reduced_in_strides[d];
    const int64_t len = std::min(n0 - i0, e - flat);
    r.row(acc, base + off + i0 * s0, len, s0, flat);
    flat += len;
    i0 = 0;
    for (int d = 1; d < a.nreduced; ++d) {
      if (++idx[d] < a.reduced_sizes[d]) break;
      idx[d] = 0;
    }
  }
}

template <class T, class R>
void reduce_driver(const ReduceArgs& a, const R& r) {
  using Acc = decltype(r.init());
  const T* in = reinterpret_cast<const T*>(a.in);
  const int64_t n_out = a.num_outputs, n_red = a.reduce_size;
  const int64_t out_esz = int64_t(element_size(a.out_dtype));
  // argmax / argmin pass no value output (out == nullptr), only out_index.
  auto finish = [&](int64_t out_off, const Acc& acc) {
    if (a.out) store_as(a.out_dtype, a.out + out_off * out_esz, r.project(acc));
    if (a.out_index) reinterpret_cast<int64_t*>(a.out_index)[out_off] = r.index(acc);
  };
  const int nthreads = omp_get_max_threads();
  const bool split_reduced = n_out < 4 * int64_t(nthreads) && n_red >= 2 * kParallelGrain &&
                             nthreads > 1 && !omp_in_parallel();
  if (!split_reduced) {
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n_red));
    if (a.nkept == 1 && a.nreduced == 1) {  // rows (x.sum(-1), x.amax(0)): no index arithmetic
      const int64_t kis = a.kept_in_strides[0], kos = a.kept_out_strides[0], s0 = a.reduced_in_strides[0];
      parallel_for(n_out, grain, [&](int64_t kb, int64_t ke) {
        for (int64_t k = kb; k < ke; ++k) {
          Acc acc = r.init();
          r.row(acc, in + k * kis, n_red, s0, 0);
          finish(k * kos, acc);
        }
      });
      return;
    }
    parallel_for(n_out, grain, [&](int64_t kb, int64_t ke) {
      for (int64_t k = kb; k < ke; ++k) {
        int64_t in_off, out_off;
        output_offsets(a, k, in_off, out_off);
        Acc acc = r.init();
        walk_reduced(a, in + in_off, 0, n_red, acc, r);
        finish(out_off, acc);
      }
    });
    return;
  }
  // Few outputs: the reduced range is cut into nc chunks, each reduced into its own
  // partial; partials are merged in chunk (= index) order, so argmax keeps the first index.
  // The chunks are a worksharing loop, not one per thread: with OMP_DYNAMIC or a thread
  // limit fewer threads than asked may run, and every chunk must still be reduced.
  const int nc = int(std::min<int64_t>(nthreads, n_red / kParallelGrain));
  std::vector<Acc> partial(size_t(nc) * size_t(n_out), r.init());
  const int64_t chunk = (n_red + nc - 1) / nc;
  ParallelRegionGuard region;  // the same chunks, on this thread alone when another team runs
#pragma omp parallel for schedule(static, 1) num_threads(region.alone() ? nc : 1)
  for (int c = 0; c < nc; ++c) {
    const int64_t b = std::min(n_red, c * chunk), e = std::min(n_red, b + chunk);
    for (int64_t k = 0; k < n_out; ++k) {
      int64_t in_off, out_off;
      output_offsets(a, k, in_off, out_off);
      walk_reduced(a, in + in_off, b, e, partial[size_t(c) * size_t(n_out) + size_t(k)], r);
    }
  }
  for (int64_t k = 0; k < n_out; ++k) {
    int64_t in_off, out_off;
    output_offsets(a, k, in_off, out_off);
    Acc acc = partial[size_t(k)];
    for (int c = 1; c < nc; ++c) r.merge(acc, partial[size_t(c) * size_t(n_out) + size_t(k)]);
    finish(out_off, acc);
  }
}

}  // namespace ember::detail::EMBER_CPU_NS
