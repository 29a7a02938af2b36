#pragma once
// The thread-pool guard every OpenMP region of ember takes (its kernels' and the user's
// parallel_for): capability-independent, so library files include it too.

#include <omp.h>

#include <atomic>

namespace ember::detail {

/// Note [One thread pool] across user threads: each thread that opens an OpenMP region
/// gets a team of its own, so N user threads running big kernels at once would start N
/// teams on the same cores (7x slower for 4 threads on 2 cores). A kernel that starts
/// while another thread's team runs stays on its calling thread.
/// The process-wide team size set_num_threads asked for (0: OpenMP's default), and the one
/// this thread last applied: each thread takes it up before it starts its next team.
/// A thread that fixed its own count (the data loader's workers: one thread each) keeps it.
inline std::atomic<int> g_requested_threads{0};
inline thread_local int t_applied_threads = 0;
inline thread_local bool t_threads_pinned = false;
inline void apply_requested_threads() {
  const int want = g_requested_threads.load(std::memory_order_relaxed);
  if (want > 0 && want != t_applied_threads && !t_threads_pinned) {
    omp_set_num_threads(want);
    t_applied_threads = want;
  }
}

class ParallelRegionGuard {
 public:
  /// Takes a slot when `wanted` (the kernel is big enough to want a team).
  explicit ParallelRegionGuard(bool wanted = true)
      : taken_(wanted), alone_(wanted && active_.fetch_add(1, std::memory_order_relaxed) == 0) {
    if (alone_) apply_requested_threads();
  }
  ~ParallelRegionGuard() {
    if (taken_) active_.fetch_sub(1, std::memory_order_relaxed);
  }
  ParallelRegionGuard(const ParallelRegionGuard&) = delete;
  ParallelRegionGuard& operator=(const ParallelRegionGuard&) = delete;
  /// True when this kernel may start a team: it wanted one and no other thread runs one.
  bool alone() const { return alone_; }

 private:
  static inline std::atomic<int> active_{0};
  bool taken_, alone_;
};

}  // namespace ember::detail
