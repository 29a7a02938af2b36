#pragma once
// The communication thread of a CPU-transport group: runs the group's collectives one at a
// time in call order, so that async calls overlap the caller's computation and every rank
// issues the same sequence to MPI (Note [Process groups]).

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "ember/distributed.h"

namespace ember::distributed::detail {

/// Completes when its task has run on the communication thread; wait() rethrows its error.
class ThreadWork final : public Work {
 public:
  void wait() override;
  bool is_completed() override;
  void finish(std::exception_ptr error);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

class CommThread {
 public:
  CommThread();
  /// Runs the queued tasks, then stops.
  ~CommThread();
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  /// Queues `task`; the returned work completes after it (waited for here unless async).
  std::shared_ptr<Work> run(std::function<void()> task, bool async);

 private:
  void loop();
  struct Item {
    std::function<void()> task;
    std::shared_ptr<ThreadWork> work;
  };
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ember::distributed::detail
