// CPU batch-norm reductions (ChannelStatsArgs): per channel of a contiguous (N, C, S)
// tensor, float64 sums as libtorch's CPU batch norm accumulates, over four independent
// accumulators so the adds pipeline (a single chain runs at one add per latency).
#include <algorithm>

#include "cpu/parallel_items.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail {

namespace {

// Sum of f(k) over k < n in float64, four accumulators.
template <class F>
inline double sum4(int64_t n, const F& f) {
  double acc[4] = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 4 <= n; k += 4)
    for (int u = 0; u < 4; ++u) acc[u] += f(k + u);
  for (; k < n; ++k) acc[0] += f(k);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

template <class T>
void batch_norm_stats_typed(const ChannelStatsArgs& a) {
  const T* x = reinterpret_cast<const T*>(a.x);
  T* mean = reinterpret_cast<T*>(a.out0);
  T* var = reinterpret_cast<T*>(a.out1);
  const double count = double(a.n * a.s);
  for_each_item(a.c, a.n * a.s, [&](int64_t c) {
    double sum = 0;
    for (int64_t b = 0; b < a.n; ++b) {
      const T* row = x + (b * a.c + c) * a.s;
      sum += sum4(a.s, [row](int64_t k) { return double(row[k]); });
    }
    const double m = sum / count;
    double sq = 0;
    for (int64_t b = 0; b < a.n; ++b) {
      const T* row = x + (b * a.c + c) * a.s;
      sq += sum4(a.s, [row, m](int64_t k) {
        const double d = double(row[k]) - m;
        return d * d;
      });
    }
    mean[c] = T(m);
    var[c] = T(sq / count);
  });
}

template <class T>
void batch_norm_backward_reduce_typed(const ChannelStatsArgs& a) {
  const T* x = reinterpret_cast<const T*>(a.x);
  const T* g = reinterpret_cast<const T*>(a.g);
  const T* mean = reinterpret_cast<const T*>(a.mean);
  T* sum_g = reinterpret_cast<T*>(a.out0);
  T* dot = reinterpret_cast<T*>(a.out1);
  for_each_item(a.c, 2 * a.n * a.s, [&](int64_t c) {
    const double m = double(mean[c]);
    double sg = 0, d = 0;
    for (int64_t b = 0; b < a.n; ++b) {
      const T* xr = x + (b * a.c + c) * a.s;
      const T* gr = g + (b * a.c + c) * a.s;
      sg += sum4(a.s, [gr](int64_t k) { return double(gr[k]); });
      d += sum4(a.s, [xr, gr, m](int64_t k) { return double(gr[k]) * (double(xr[k]) - m); });
    }
    sum_g[c] = T(sg);
    dot[c] = T(d);
  });
}

void batch_norm_stats_kernel(const ChannelStatsArgs& a) {
  if (a.dtype == kDouble)
    batch_norm_stats_typed<double>(a);
  else
    batch_norm_stats_typed<float>(a);
}

void batch_norm_backward_reduce_kernel(const ChannelStatsArgs& a) {
  if (a.dtype == kDouble)
    batch_norm_backward_reduce_typed<double>(a);
  else
    batch_norm_backward_reduce_typed<float>(a);
}

}  // namespace

void register_cpu_norm_kernels() {
  register_kernel(Op::BatchNormStats, kCPU, batch_norm_stats_kernel, {kFloat, kDouble});
  register_kernel(Op::BatchNormBackwardReduce, kCPU, batch_norm_backward_reduce_kernel, {kFloat, kDouble});
}

}  // namespace ember::detail
