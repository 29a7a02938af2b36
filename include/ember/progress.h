#pragma once
/// ember::progress(range, label): iterate a range (a DataLoader, a vector, c10::irange...)
/// and show progress: on a terminal one line redrawn in place at most every refresh
/// interval, elsewhere (CI logs, files) a plain line every log interval and at the end.
/// A line holds the label, the count (of the total, when the range has size() or one is
/// given), the rate, the elapsed time, the time left and the values the loop sets:
///   auto bar = ember::progress(*loader, "train", ember::ProgressOptions().total(938));
///   for (auto& batch : bar) { ...; bar.set("loss", loss.item<double>()); }
/// An iteration costs one counter increment and one clock read.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/arg.h"
#include "ember/export.h"

namespace ember {

struct EMBER_API ProgressOptions {
  using StreamPointer = std::ostream*;
  /// Where lines go; default std::cerr.
  EMBER_ARG(StreamPointer, stream) = nullptr;
  /// Redraw one line in place; default: whether the stream is std::cerr or std::cout on a terminal.
  EMBER_ARG(std::optional<bool>, interactive);
  /// The number of iterations, when the range has no size().
  EMBER_ARG(std::optional<size_t>, total);
  /// Redraws on a terminal at most this often.
  EMBER_ARG(std::chrono::milliseconds, refresh) = std::chrono::milliseconds(100);
  /// Plain lines elsewhere at most this often (plus one at the end).
  EMBER_ARG(std::chrono::milliseconds, log_interval) = std::chrono::milliseconds(10000);
};

/// The counting and drawing behind progress(); usable alone with tick().
class EMBER_API ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;

  ProgressBar(std::string label, ProgressOptions options = ProgressOptions());
  /// Draws the last line if finish() was not called.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void tick() {
    ++count_;
    const Clock::time_point now = Clock::now();
    if (now >= next_draw_ || count_ == total_) draw(now, count_ == total_);
  }
  /// Shows `name=value` on the line from now on (replacing an earlier value of that name).
  void set(const std::string& name, double value);
  /// Draws the final line (once); reaching the total does it too.
  void finish();

  size_t count() const { return count_; }
  /// The text of the line as it would be drawn now.
  std::string line() const;

 private:
  void draw(Clock::time_point now, bool final);
  std::string line_at(Clock::time_point now) const;

  std::string label_;
  ProgressOptions options_;
  std::ostream* stream_;
  bool interactive_;
  size_t count_ = 0;
  size_t total_;  // SIZE_MAX when unknown
  Clock::time_point start_, next_draw_;
  std::vector<std::pair<std::string, double>> values_;
  bool finished_ = false;
};

namespace detail {
template <class R, class = void>
struct has_size : std::false_type {};
template <class R>
struct has_size<R, std::void_t<decltype(std::declval<const R&>().size())>> : std::true_type {};
}  // namespace detail

/// A range that iterates `range` and ticks a ProgressBar at every step.
template <class Range>
class Progress {
 public:
  using InnerIterator = decltype(std::declval<std::remove_reference_t<Range>&>().begin());

  class iterator {
   public:
    iterator(InnerIterator it, ProgressBar* bar) : it_(std::move(it)), bar_(bar) {}
    decltype(auto) operator*() { return *it_; }
    iterator& operator++() {
      ++it_;
      bar_->tick();
      return *this;
    }
    template <class End>
    bool operator!=(const End& end) const {
      return it_ != end.it_;
    }
    template <class End>
    bool operator==(const End& end) const {
      return it_ == end.it_;
    }
    InnerIterator it_;

   private:
    ProgressBar* bar_;
  };

  Progress(Range&& range, std::string label, ProgressOptions options)
      : range_(std::forward<Range>(range)), bar_(std::move(label), with_total(range_, std::move(options))) {}

  iterator begin() { return iterator(range_.begin(), &bar_); }
  iterator end() { return iterator(range_.end(), &bar_); }

  void set(const std::string& name, double value) { bar_.set(name, value); }
  ProgressBar& bar() { return bar_; }

 private:
  static ProgressOptions with_total(const std::remove_reference_t<Range>& range, ProgressOptions options) {
    if constexpr (detail::has_size<std::remove_reference_t<Range>>::value) {
      if (!options.total()) options.total(static_cast<size_t>(range.size()));
    }
    return options;
  }

  Range range_;  // a reference for lvalue ranges, the range itself for temporaries
  ProgressBar bar_;
};

template <class Range>
Progress<Range> progress(Range&& range, std::string label, ProgressOptions options = ProgressOptions()) {
  return Progress<Range>(std::forward<Range>(range), std::move(label), std::move(options));
}

}  // namespace ember
