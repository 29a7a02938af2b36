#pragma once
/// libtorch's data::detail::sequencers: put results that arrive out of order (from several
/// workers) back in the order of their `sequence_number`. ember's DataLoader orders its
/// results itself (enforce_ordering); these are for programs that build their own loaders.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::data::detail::sequencers {

/// Hands out results one at a time from a producer of results (nullopt: no more).
template <class Result>
struct Sequencer {
  using ResultProducer = std::function<std::optional<Result>()>;
  virtual ~Sequencer() = default;
  virtual std::optional<Result> next(ResultProducer next_result) = 0;
};

/// Results in the order they arrive.
template <class Result>
struct NoSequencer final : public Sequencer<Result> {
  using typename Sequencer<Result>::ResultProducer;
  std::optional<Result> next(ResultProducer next_result) override { return next_result(); }
};

/// Results in sequence-number order: one that arrives early waits in a ring of `max_jobs`
/// slots (at most max_jobs results are ever in flight).
template <class Result>
struct OrderedSequencer : public Sequencer<Result> {
  using typename Sequencer<Result>::ResultProducer;

  explicit OrderedSequencer(size_t max_jobs) : buffer_(max_jobs) {}

  std::optional<Result> next(ResultProducer next_result) override {
    if (std::optional<Result>& waiting = buffer(next_sequence_number_)) {
      std::optional<Result> result = std::move(waiting);
      waiting.reset();
      ++next_sequence_number_;
      return result;
    }
    while (std::optional<Result> result = next_result()) {
      if (result->sequence_number == next_sequence_number_) {
        ++next_sequence_number_;
        return result;
      }
      // Only the next max_jobs numbers have a slot of their own in the ring.
      const size_t number = result->sequence_number;
      if (number < next_sequence_number_ || number - next_sequence_number_ >= buffer_.size())
        throw Error("OrderedSequencer: result " + std::to_string(number) + " arrived while waiting for " +
                    std::to_string(next_sequence_number_) + ": more than max_jobs = " +
                    std::to_string(buffer_.size()) + " jobs in flight, or a number repeated");
      buffer(number) = std::move(result);
    }
    // The producer is done; a result still waiting here means one before it never came.
    for (const std::optional<Result>& r : buffer_)
      if (r)
        throw Error("OrderedSequencer: the results ended while result " + std::to_string(r->sequence_number) +
                    " waits for sequence number " + std::to_string(next_sequence_number_));
    return std::nullopt;
  }

  /// The slot of a sequence number.
  std::optional<Result>& buffer(size_t sequence_number) {
    if (buffer_.empty()) throw Error("OrderedSequencer: max_jobs must be positive");
    return buffer_[sequence_number % buffer_.size()];
  }

  size_t next_sequence_number_ = 0;
  std::vector<std::optional<Result>> buffer_;
};

}  // namespace ember::data::detail::sequencers
