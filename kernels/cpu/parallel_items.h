#pragma once
// One task per item (a plane, a channel) across the OpenMP team, for the direct-loop
// kernels of Note [Library kernels].

#include <omp.h>

#include <cstdint>

#include "cpu/cpu_loops.h"

namespace ember::detail {

/// Runs fn(i) for each i < items, split across the team when items * work_per_item is
/// large enough and no other thread's team runs (Note [One thread pool]).
template <class Fn>
void for_each_item(int64_t items, int64_t work_per_item, const Fn& fn) {
  const bool big =
      items > 1 && items * work_per_item > 32768 && omp_get_max_threads() > 1 && !omp_in_parallel();
  ParallelRegionGuard region(big);
  if (!region.alone()) {
    for (int64_t i = 0; i < items; ++i) fn(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < items; ++i) fn(i);
}

}  // namespace ember::detail
