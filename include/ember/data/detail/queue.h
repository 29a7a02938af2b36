#pragma once
/// A blocking multi-producer, multi-consumer FIFO for the loader's jobs and results.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "ember/error.h"

namespace ember::data::detail {

template <class T>
class Queue {
 public:
  void push(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(value));
    }
    ready_.notify_one();
  }

  /// The oldest item; waits for one, for at most `timeout` when given (then ember::Error, in
  /// libtorch's words).
  T pop(std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto has_item = [this] { return !items_.empty(); };
    if (timeout) {
      if (!ready_.wait_for(lock, *timeout, has_item))
        throw Error("Timeout in DataLoader queue while waiting for next batch (timeout was " +
                    std::to_string(timeout->count()) + " ms)");
    } else {
      ready_.wait(lock, has_item);
    }
    T value = std::move(items_.front());
    items_.pop_front();
    return value;
  }

  /// Drops every waiting item; returns how many.
  size_t clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t dropped = items_.size();
    items_.clear();
    return dropped;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
};

}  // namespace ember::data::detail
