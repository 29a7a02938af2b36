#pragma once
// The plain side-by-side timing of ember_bench_conv, ember_bench_seq and ember_bench_ops:
// each case runs ember's form and libtorch's interleaved, repetition by repetition (so the
// ratios hold on a noisy machine), and prints the medians and their ratio.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ember_bench {

struct SideBySideCase {
  std::string name;
  std::function<void()> ours;
  std::function<void()> theirs;  // empty without libtorch
};

/// How long each timing runs, and how results print.
struct SideBySideOptions {
  int repetitions = 5;
  const char* filter = nullptr;  // only cases whose name contains it; nullptr: all
  double min_seconds = 0.2;      // one timing doubles its calls until it takes this long
  int max_calls = 1 << 12;
  double unit_scale = 1e3;  // 1e3: milliseconds, 1e6: microseconds
  int name_width = 52;
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Seconds per call of fn, over enough calls to take o.min_seconds (after one warm-up call).
inline double time_per_call(const std::function<void()>& fn, const SideBySideOptions& o) {
  fn();
  int calls = 1;
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > o.min_seconds || calls >= o.max_calls) return s / calls;
    calls *= 2;
  }
}

/// Prints the header line and one row per case: ember's median, libtorch's, their ratio.
inline void run_side_by_side(const std::vector<SideBySideCase>& cases, const SideBySideOptions& o) {
  const int w = o.name_width;
  std::printf("%-*s %10s %10s %8s\n", w, "case", "ember", "libtorch", "ratio");
  for (const SideBySideCase& c : cases) {
    if (o.filter && c.name.find(o.filter) == std::string::npos) continue;
    std::vector<double> ours, theirs;
    for (int r = 0; r < o.repetitions; ++r) {
      ours.push_back(time_per_call(c.ours, o));
      if (c.theirs) theirs.push_back(time_per_call(c.theirs, o));
    }
    const double e = median(ours) * o.unit_scale;
    if (theirs.empty()) {
      std::printf("%-*s %10.3f %10s %8s\n", w, c.name.c_str(), e, "-", "-");
    } else {
      const double t = median(theirs) * o.unit_scale;
      std::printf("%-*s %10.3f %10.3f %7.2fx\n", w, c.name.c_str(), e, t, e / t);
    }
    std::fflush(stdout);
  }
}

}  // namespace ember_bench
