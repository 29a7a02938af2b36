#pragma once
// The thread-pool guard every OpenMP region of ember takes (its kernels' and the user's
// parallel_for): capability-independent, so library files include it too.

#include <atomic>

namespace ember::detail {

/// Note [One thread pool] across user threads: each thread that opens an OpenMP region
/// gets a team of its own, so N user threads running big kernels at once would start N
/// teams on the same cores (7x slower for 4 threads on 2 cores). A kernel that starts
/// while another thread's team runs stays on its calling thread.
class ParallelRegionGuard {
 public:
  /// Takes a slot when `wanted` (the kernel is big enough to want a team).
  explicit ParallelRegionGuard(bool wanted = true)
      : taken_(wanted), alone_(wanted && active_.fetch_add(1, std::memory_order_relaxed) == 0) {}
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
