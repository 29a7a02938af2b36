#pragma once
/// Parallel loops for user code, as libtorch's ATen/Parallel.h: the same OpenMP pool that
/// ember's kernels, OpenBLAS and oneDNN run on (DESIGN.md's one thread pool).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ember/export.h"

namespace ember {

/// Threads of this thread's OpenMP team: what a parallel_for or a large kernel splits over.
EMBER_API int get_num_threads();
/// Sets it for the process, as libtorch: the calling thread at once, every other thread
/// when it next starts a team (InvalidArgument unless positive).
EMBER_API void set_num_threads(int nthreads);
/// The index of the calling thread in its parallel_for team (0 outside one).
EMBER_API int get_thread_num();
EMBER_API bool in_parallel_region();
/// libtorch's hook to start the pool early; ember's starts with the first region.
EMBER_API void init_num_threads();
/// libtorch's inter-op pool size. ember runs no inter-op pool (its ops run on the calling
/// thread), so the value is kept and reported and changes nothing else.
EMBER_API int get_num_interop_threads();
EMBER_API void set_num_interop_threads(int nthreads);

namespace detail {
/// Splits [begin, end) over the team as libtorch's invoke_parallel: at most one chunk per
/// thread and no more chunks than whole grains; the first exception a chunk throws is rethrown.
EMBER_API void parallel_run(int64_t begin, int64_t end, int64_t grain_size, void (*call)(const void*, int64_t, int64_t),
                            const void* f);
}  // namespace detail

/// f(chunk_begin, chunk_end) over [begin, end): on the calling thread when the range is at
/// most grain_size, inside another parallel region, or with one thread; else in chunks on
/// the team. f may run concurrently with itself.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  if (n <= grain_size || n == 1 || in_parallel_region() || get_num_threads() == 1) {
    f(begin, end);
    return;
  }
  detail::parallel_run(
      begin, end, grain_size, [](const void* fn, int64_t b, int64_t e) { (*static_cast<const F*>(fn))(b, e); }, &f);
}

/// Each chunk's f(chunk_begin, chunk_end, ident), combined with sf from ident, as libtorch's.
template <class scalar_t, class F, class SF>
scalar_t parallel_reduce(int64_t begin, int64_t end, int64_t grain_size, const scalar_t ident, const F& f,
                         const SF& sf) {
  if (begin >= end) return ident;
  const int64_t n = end - begin;
  if (n <= grain_size || n == 1 || in_parallel_region() || get_num_threads() == 1) return f(begin, end, ident);
  struct Slot {  // one per thread (a vector<bool>'s packed bits would be shared)
    scalar_t value;
  };
  std::vector<Slot> results(std::size_t(get_num_threads()), Slot{ident});
  parallel_for(begin, end, grain_size,
               [&](int64_t b, int64_t e) { results[std::size_t(get_thread_num())].value = f(b, e, ident); });
  scalar_t result = ident;
  for (const Slot& partial : results) result = sf(result, partial.value);
  return result;
}

}  // namespace ember
