// parallel_for's team (ember/cpu_parallel.h) and libtorch's thread-count functions, on
// ember's one OpenMP pool.
#include "ember/cpu_parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "core/check.h"
#include "cpu/parallel_region.h"

namespace ember {

namespace {
std::atomic<int> g_interop_threads{int(std::max(1u, std::thread::hardware_concurrency()))};
// The chunk index a thread runs inside parallel_run (libtorch's ThreadIdGuard).
thread_local int t_thread_num = 0;
}  // namespace

int get_num_threads() {
  detail::apply_requested_threads();  // a count set on another thread applies here too
  return omp_get_max_threads();
}

void set_num_threads(int nthreads) {
  EMBER_CHECK_ARG(nthreads > 0, "Expected positive number of threads");
  detail::g_requested_threads.store(nthreads, std::memory_order_relaxed);
  detail::apply_requested_threads();
}

int get_thread_num() { return t_thread_num; }
bool in_parallel_region() { return omp_in_parallel(); }
void init_num_threads() {}
int get_num_interop_threads() { return g_interop_threads.load(std::memory_order_relaxed); }

void set_num_interop_threads(int nthreads) {
  EMBER_CHECK_ARG(nthreads > 0, "Expected positive number of threads");
  g_interop_threads.store(nthreads, std::memory_order_relaxed);
}

namespace detail {

void parallel_run(int64_t begin, int64_t end, int64_t grain_size, void (*call)(const void*, int64_t, int64_t),
                  const void* f) {
  // As every ember kernel: while another thread's team runs, this one stays serial.
  ParallelRegionGuard region;
  if (!region.alone()) {
    call(f, begin, end);
    return;
  }
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  std::exception_ptr error;
#pragma omp parallel
  {
    int64_t threads = omp_get_num_threads();
    if (grain_size > 0) threads = std::min(threads, (end - begin + grain_size - 1) / grain_size);
    const int64_t tid = omp_get_thread_num();
    const int64_t chunk = (end - begin + threads - 1) / threads;
    const int64_t chunk_begin = begin + tid * chunk;
    if (tid < threads && chunk_begin < end) {
      const int outer = t_thread_num;
      t_thread_num = int(tid);
      try {
        call(f, chunk_begin, std::min(end, chunk_begin + chunk));
      } catch (...) {
        if (!failed.test_and_set()) error = std::current_exception();
      }
      t_thread_num = outer;
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace detail
}  // namespace ember
