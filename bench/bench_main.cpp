// ember's micro-benchmarks: add and matmul side by side with libtorch (when found)
// and with their bounds, interleaved in one run; then a summary table and a JSON file.
// Use: ember_bench [--short] [--json=FILE] [google benchmark flags]
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_cases.h"

namespace ember_bench {

int bench_threads() {
  static const int threads = omp_get_max_threads();
  return threads;
}

namespace {

struct Row {
  std::string kase;  // "add 16M", "matmul 256"
  double ns[3] = {0, 0, 0};  // ember, libtorch, bound (median ns per op; 0 = not run)
};

double to_ns(benchmark::TimeUnit u) {
  return u == benchmark::kSecond ? 1e9 : u == benchmark::kMillisecond ? 1e6 : u == benchmark::kMicrosecond ? 1e3 : 1;
}

// Collects the median of each benchmark's repetitions.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> median_ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
        median_ns[r.run_name.function_name] = r.GetAdjustedRealTime() * to_ns(r.time_unit);
  }
};

std::string size_label(int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "K";
  return std::to_string(n);
}

}  // namespace

}  // namespace ember_bench

int main(int argc, char** argv) {
  using namespace ember_bench;
  bool short_run = false;
  std::string json_path = "ember_bench.json";
  std::vector<char*> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--short")) short_run = true;
    else if (!std::strncmp(argv[i], "--json=", 7)) json_path = argv[i] + 7;
    else args.push_back(argv[i]);
  }
  // Repetitions are interleaved at random across all cases, so drift hits every side alike.
  std::string reps = short_run ? "--benchmark_repetitions=3" : "--benchmark_repetitions=9";
  std::string min_time = short_run ? "--benchmark_min_time=0.05" : "--benchmark_min_time=0.2";
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  std::string aggregates = "--benchmark_report_aggregates_only=true";
  args.insert(args.begin() + 1, {reps.data(), min_time.data(), interleave.data(), aggregates.data()});
  int n_args = int(args.size());
  benchmark::Initialize(&n_args, args.data());

  bool have_torch = false;
  Implementation impls[3] = {ember_implementation(), torch_implementation(have_torch), bound_implementation()};
  std::vector<Row> rows;
  auto add_case = [&](const std::string& kase, SizedCase Implementation::*which, int64_t n) {
    Row row;
    row.kase = kase;
    rows.push_back(row);
    for (int k = 0; k < 3; ++k) {
      if (k == 1 && !have_torch) continue;
      SizedCase fn = impls[k].*which;
      if (!fn) continue;  // the bounds cover add and matmul only
      std::string name = kase + " | " + impls[k].name;
      benchmark::RegisterBenchmark(name.c_str(), [fn, n](benchmark::State& s) { fn(s, n); })
          ->Unit(benchmark::kNanosecond)
          ->UseRealTime();
    }
  };
  const std::vector<int64_t> add_sizes = {1, 1000, 100000, 1 << 20, 16 << 20};
  for (int64_t n : add_sizes) add_case("add " + size_label(n), &Implementation::add, n);
  for (int64_t n : add_sizes) add_case("add_out " + size_label(n), &Implementation::add_out, n);
  const std::vector<int64_t> mm_sizes = short_run ? std::vector<int64_t>{16, 64, 256, 512}
                                                   : std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048};
  for (int64_t n : mm_sizes) add_case("matmul " + std::to_string(n), &Implementation::matmul, n);
  add_case("index_select 1M", &Implementation::index_select, 1 << 20);
  add_case("mask index 1M", &Implementation::mask_index, 1 << 20);
  benchmark::RegisterBenchmark("allocator pair | ember", allocator_cached_pair)->Unit(benchmark::kNanosecond)->UseRealTime();
  benchmark::RegisterBenchmark("allocator pair | bound", malloc_free_pair)->Unit(benchmark::kNanosecond)->UseRealTime();
  rows.push_back(Row{"allocator pair"});
  register_gpu_cases(short_run);
  for (const std::string& name : gpu_case_names(short_run)) rows.push_back(Row{name});

  std::printf("ember_bench: %d thread(s) for ember%s; median of %s repetitions\n", bench_threads(),
              have_torch ? " and libtorch" : " (libtorch not found: no side-by-side column)", short_run ? "3" : "9");
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();

  for (Row& r : rows)
    for (int k = 0; k < 3; ++k) {
      auto it = collector.median_ns.find(r.kase + " | " + impls[k].name);
      if (it != collector.median_ns.end()) r.ns[k] = it->second;
    }
  std::printf("\n%-16s %14s %14s %10s %14s %12s\n", "case", "ember ns", "libtorch ns", "ratio", "bound ns",
              "ember/bound");
  FILE* json = std::fopen(json_path.c_str(), "w");
  if (json) std::fprintf(json, "{\n  \"threads\": %d,\n  \"cases\": [\n", bench_threads());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    auto cell = [](double v) { return v > 0 ? std::to_string(v).substr(0, std::to_string(v).find('.') + 2) : std::string("-"); };
    const double ratio = r.ns[1] > 0 ? r.ns[0] / r.ns[1] : 0;
    const double frac = r.ns[2] > 0 ? r.ns[0] / r.ns[2] : 0;
    std::printf("%-16s %14s %14s %10s %14s %12s\n", r.kase.c_str(), cell(r.ns[0]).c_str(), cell(r.ns[1]).c_str(),
                ratio > 0 ? (std::to_string(ratio).substr(0, 5) + "x").c_str() : "-", cell(r.ns[2]).c_str(),
                frac > 0 ? (std::to_string(frac).substr(0, 5) + "x").c_str() : "-");
    if (json)
      std::fprintf(json, "    {\"case\": \"%s\", \"ember_ns\": %.3f, \"libtorch_ns\": %.3f, \"bound_ns\": %.3f}%s\n",
                   r.kase.c_str(), r.ns[0], r.ns[1], r.ns[2], i + 1 < rows.size() ? "," : "");
  }
  if (json) {
    std::fprintf(json, "  ]\n}\n");
    std::fclose(json);
    std::printf("\nall numbers: %s\n", json_path.c_str());
  }
  std::printf("ratio = ember / libtorch time (below 1: ember faster); ember/bound = ember time over the bound's\n"
              "(add: memcpy of the same 12 bytes per element; matmul: cblas_sgemm called directly; allocator: malloc+free)\n");
  return 0;
}
