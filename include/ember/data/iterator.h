#pragma once
/// The loader's input iterator: it asks the loader for the next batch when it is first
/// dereferenced or compared and on each increment, and equals end() once the loader has
/// no more batches in this epoch. Copies share their position (as libtorch's).

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "ember/error.h"

namespace ember::data {

template <class Batch>
class Iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;
  using pointer = Batch*;
  using reference = Batch&;
  using NextBatch = std::function<std::optional<Batch>()>;

  /// The end of every epoch.
  Iterator() = default;
  explicit Iterator(NextBatch next) : state_(std::make_shared<State>(std::move(next))) {}

  Iterator& operator++() {
    State& s = valid("increment");
    s.initialize();
    if (!s.batch) throw Error("Attempted to increment iterator past the end");
    s.batch = s.next();
    return *this;
  }

  Batch& operator*() {
    State& s = valid("dereference");
    s.initialize();
    if (!s.batch) throw Error("Attempted to dereference iterator that was past the end");
    return *s.batch;
  }
  Batch* operator->() { return &**this; }

  bool operator==(const Iterator& other) const {
    if (state_ && other.state_) return state_ == other.state_;
    if (!state_ && !other.state_) return true;
    State& s = state_ ? *state_ : *other.state_;
    s.initialize();
    return !s.batch.has_value();
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  struct State {
    explicit State(NextBatch n) : next(std::move(n)) {}
    void initialize() {
      if (!initialized) {
        initialized = true;
        batch = next();
      }
    }
    NextBatch next;
    std::optional<Batch> batch;
    bool initialized = false;
  };

  State& valid(const char* what) const {
    if (!state_) throw Error(std::string("Attempted to ") + what + " the end iterator of a DataLoader");
    return *state_;
  }

  std::shared_ptr<State> state_;
};

}  // namespace ember::data
