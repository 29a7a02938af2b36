// The communication thread of a CPU-transport group (comm_thread.h).
#include "distributed/comm_thread.h"

#include "ember/autograd.h"

namespace ember::distributed::detail {

void ThreadWork::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

bool ThreadWork::is_completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void ThreadWork::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    error_ = std::move(error);
  }
  cv_.notify_all();
}

CommThread::CommThread() : thread_([this] { loop(); }) {}

CommThread::~CommThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::shared_ptr<Work> CommThread::run(std::function<void()> task, bool async) {
  auto work = std::make_shared<ThreadWork>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({std::move(task), work});
  }
  cv_.notify_one();
  if (!async) work->wait();
  return work;
}

void CommThread::loop() {
  // Copies back into the caller's tensors (parameters among them) are not autograd ops.
  NoGradGuard no_grad;
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    std::exception_ptr error;
    try {
      item.task();
    } catch (...) {
      error = std::current_exception();
    }
    item.task = nullptr;  // drop the task's tensors before the caller sees completion
    item.work->finish(error);
  }
}

}  // namespace ember::distributed::detail
