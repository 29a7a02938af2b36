// The progress line: formatting and drawing, kept out of the per-iteration path.
#include "ember/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace ember {

namespace {

bool stream_is_terminal(const std::ostream* stream) {
  if (stream == &std::cerr || stream == &std::clog) return ::isatty(STDERR_FILENO) == 1;
  if (stream == &std::cout) return ::isatty(STDOUT_FILENO) == 1;
  return false;
}

std::string clock_text(double seconds) {
  const long total = std::lround(seconds);
  char buf[32];
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", total / 60, total % 60);
  }
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, ProgressOptions options)
    : label_(std::move(label)),
      options_(std::move(options)),
      stream_(options_.stream() ? options_.stream() : &std::cerr),
      interactive_(options_.interactive().value_or(stream_is_terminal(stream_))),
      total_(options_.total().value_or(SIZE_MAX)),
      start_(Clock::now()),
      next_draw_(start_) {}

ProgressBar::~ProgressBar() {
  try {
    finish();
  } catch (...) {  // a destructor must not throw; a failing stream loses the last line
  }
}

void ProgressBar::set(const std::string& name, double value) {
  for (auto& entry : values_) {
    if (entry.first == name) {
      entry.second = value;
      return;
    }
  }
  values_.emplace_back(name, value);
}

void ProgressBar::finish() {
  draw(Clock::now(), true);
}

std::string ProgressBar::line() const { return line_at(Clock::now()); }

std::string ProgressBar::line_at(Clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? double(count_) / elapsed : 0.0;
  std::ostringstream os;
  os << label_ << ' ' << count_;
  if (options_.total()) {
    const size_t total = *options_.total();
    char percent[16];
    std::snprintf(percent, sizeof percent, "%5.1f%%", total ? 100.0 * double(count_) / double(total) : 100.0);
    os << '/' << total << ' ' << percent;
  }
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.1f it/s", rate);
  os << ' ' << rate_text << " elapsed " << clock_text(elapsed);
  if (options_.total() && rate > 0 && count_ <= *options_.total()) {
    os << " eta " << clock_text(double(*options_.total() - count_) / rate);
  }
  for (const auto& [name, value] : values_) {
    char value_text[32];
    std::snprintf(value_text, sizeof value_text, "%.4g", value);
    os << ' ' << name << '=' << value_text;
  }
  return os.str();
}

void ProgressBar::draw(Clock::time_point now, bool final) {
  if (finished_) return;
  finished_ = final;
  const std::string text = line_at(now);
  if (interactive_) {
    *stream_ << '\r' << text << "\x1b[K";
    if (final) *stream_ << '\n';
    stream_->flush();
    next_draw_ = now + options_.refresh();
  } else {
    *stream_ << text << '\n';
    next_draw_ = now + options_.log_interval();
  }
}

}  // namespace ember
