// ember's micro-benchmarks: add and matmul side by side with libtorch (when found)
// and with their bounds, interleaved in one run; then a summary table and a JSON file.
// Use: ember_bench [--short] [--gpu] [--json=FILE] [google benchmark flags]
//   --gpu: only the GPU cases, 3 repetitions in order (no interleaving), each row printed
//   as soon as its sides are measured (a GPU run takes about a minute).
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

const char* kSides[3] = {"ember", "libtorch", "bound"};

void print_header() {
  std::printf("\n%-36s %14s %14s %10s %14s %12s\n", "case", "ember ns", "libtorch ns", "ratio", "bound ns",
              "ember/bound");
}
void print_row(const Row& r) {
  auto cell = [](double v) { return v > 0 ? std::to_string(v).substr(0, std::to_string(v).find('.') + 2) : std::string("-"); };
  auto times = [](double x) { return x > 0 ? std::to_string(x).substr(0, 5) + "x" : std::string("-"); };
  std::printf("%-36s %14s %14s %10s %14s %12s\n", r.kase.c_str(), cell(r.ns[0]).c_str(), cell(r.ns[1]).c_str(),
              times(r.ns[1] > 0 ? r.ns[0] / r.ns[1] : 0).c_str(), cell(r.ns[2]).c_str(),
              times(r.ns[2] > 0 ? r.ns[0] / r.ns[2] : 0).c_str());
}

// Collects the median of each benchmark's repetitions; with `live`, prints a case's
// row as soon as every registered side of it has reported.
class Collector : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> median_ns;
  std::map<std::string, int> pending;  // case -> sides registered and not yet reported
  bool live = false;
  void ReportRuns(const std::vector<Run>& runs) override {
    if (!live) ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
      const std::string name = r.run_name.function_name;
      median_ns[name] = r.GetAdjustedRealTime() * to_ns(r.time_unit);
      const std::string kase = name.substr(0, name.rfind(" | "));
      if (live && --pending[kase] == 0) {
        Row row{kase};
        for (int k = 0; k < 3; ++k) {
          auto it = median_ns.find(kase + " | " + kSides[k]);
          if (it != median_ns.end()) row.ns[k] = it->second;
        }
        print_row(row);
      }
    }
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
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // rows reach a log file as they are measured
  bool short_run = false, gpu_only = false;
  std::string json_path = "ember_bench.json";
  std::vector<char*> args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--short")) short_run = true;
    else if (!std::strcmp(argv[i], "--gpu")) gpu_only = true;
    else if (!std::strncmp(argv[i], "--json=", 7)) json_path = argv[i] + 7;
    else args.push_back(argv[i]);
  }
  // Repetitions are interleaved at random across all cases, so drift hits every side alike.
  // A GPU run goes in order, so that each row can be printed when it is done; GPU timings
  // are steady enough for 3 repetitions.
  const bool few = short_run || gpu_only;
  std::string reps = few ? "--benchmark_repetitions=3" : "--benchmark_repetitions=9";
  std::string min_time = few ? "--benchmark_min_time=0.05" : "--benchmark_min_time=0.2";
  std::string interleave = gpu_only ? "--benchmark_enable_random_interleaving=false"
                                    : "--benchmark_enable_random_interleaving=true";
  std::string aggregates = "--benchmark_report_aggregates_only=true";
  std::string filter = "--benchmark_filter=^gpu ";
  args.insert(args.begin() + 1, {reps.data(), min_time.data(), interleave.data(), aggregates.data()});
  if (gpu_only) args.insert(args.begin() + 1, filter.data());
  int n_args = int(args.size());
  benchmark::Initialize(&n_args, args.data());

  bool have_torch = false;
  Implementation impls[3] = {ember_implementation(), torch_implementation(have_torch), bound_implementation()};
  std::vector<Row> rows;
  Collector collector;
  collector.live = gpu_only;
  auto add_case = [&](const std::string& kase, SizedCase Implementation::*which, int64_t n) {
    Row row;
    row.kase = kase;
    rows.push_back(row);
    for (int k = 0; k < 3; ++k) {
      if (k == 1 && !have_torch) continue;
      SizedCase fn = impls[k].*which;
      if (!fn) continue;  // a side without this case (the bounds cover add and matmul only)
      std::string name = kase + " | " + impls[k].name;
      benchmark::RegisterBenchmark(name.c_str(), [fn, n](benchmark::State& s) { fn(s, n); })
          ->Unit(benchmark::kNanosecond)
          ->UseRealTime();
    }
  };
  const std::vector<int64_t> add_sizes = {1, 1000, 100000, 1 << 20, 16 << 20};
  for (int64_t n : add_sizes) add_case("add " + size_label(n), &Implementation::add, n);
  // The tiny add's cost under each autograd mode ("add 1" above is the plain one).
  add_case("add 1 no_grad", &Implementation::add_no_grad, 1);
  add_case("add 1 inference_mode", &Implementation::add_inference_mode, 1);
  for (int64_t n : add_sizes) add_case("add_out " + size_label(n), &Implementation::add_out, n);
  const std::vector<int64_t> mm_sizes = short_run ? std::vector<int64_t>{16, 64, 256, 512}
                                                   : std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024, 2048};
  for (int64_t n : mm_sizes) add_case("matmul " + std::to_string(n), &Implementation::matmul, n);
  add_case("exp 1M", &Implementation::exp, 1 << 20);
  add_case("sum 1M", &Implementation::sum, 1 << 20);
  add_case("cumsum 1M", &Implementation::cumsum, 1 << 20);
  add_case("softmax(-1) 1024x1024", &Implementation::softmax, 1024);
  add_case("transpose copy 1024x1024", &Implementation::transpose_copy, 1024);
  add_case("gather 1M", &Implementation::gather, 1 << 20);
  add_case("index_select 1M", &Implementation::index_select, 1 << 20);
  add_case("mask index 1M", &Implementation::mask_index, 1 << 20);
  for (int64_t n : {1, 100}) add_case("autograd " + size_label(n), &Implementation::autograd, n);
  // Backward of a matmul graph against the same ops called by hand (the "bound" column).
  impls[2].backward_mlp = impls[0].backward_mlp_ops;
  for (int64_t n : {256, 512}) add_case("backward mlp " + std::to_string(n), &Implementation::backward_mlp, n);
  add_case("adam step mlp 784-512-512-10", &Implementation::adam_step, 0);
  add_case("train step mlp 784-512-512-10 b128", &Implementation::train_step, 128);
  benchmark::RegisterBenchmark("allocator pair | ember", allocator_cached_pair)->Unit(benchmark::kNanosecond)->UseRealTime();
  benchmark::RegisterBenchmark("allocator pair | bound", malloc_free_pair)->Unit(benchmark::kNanosecond)->UseRealTime();
  rows.push_back(Row{"allocator pair"});
  const std::vector<RegisteredCase> gpu_cases = register_gpu_cases(short_run);
  for (const RegisteredCase& c : gpu_cases) {
    rows.push_back(Row{c.name});
    collector.pending[c.name] = c.sides;
  }
  if (gpu_only && gpu_cases.empty()) {
    std::printf("ember_bench --gpu: no CUDA device, so no GPU cases\n");
    return 0;
  }

  std::printf("ember_bench: %d thread(s) for ember%s; median of %s repetitions\n", bench_threads(),
              have_torch ? " and libtorch" : " (libtorch not found: no side-by-side column)", few ? "3" : "9");
  if (gpu_only) print_header();
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();

  for (Row& r : rows)
    for (int k = 0; k < 3; ++k) {
      auto it = collector.median_ns.find(r.kase + " | " + impls[k].name);
      if (it != collector.median_ns.end()) r.ns[k] = it->second;
    }
  print_header();
  FILE* json = std::fopen(json_path.c_str(), "w");
  if (json) std::fprintf(json, "{\n  \"threads\": %d,\n  \"cases\": [\n", bench_threads());
  bool first = true;
  for (const Row& r : rows) {
    if (r.ns[0] == 0 && r.ns[1] == 0 && r.ns[2] == 0) continue;  // filtered out
    print_row(r);
    if (json)
      std::fprintf(json, "%s    {\"case\": \"%s\", \"ember_ns\": %.3f, \"libtorch_ns\": %.3f, \"bound_ns\": %.3f}",
                   first ? "" : ",\n", r.kase.c_str(), r.ns[0], r.ns[1], r.ns[2]);
    first = false;
  }
  if (json) {
    std::fprintf(json, "\n  ]\n}\n");
    std::fclose(json);
    std::printf("\nall numbers: %s\n", json_path.c_str());
  }
  std::printf("ratio = ember / libtorch time (below 1: ember faster); ember/bound = ember time over the bound's\n"
              "(add: memcpy of the same 12 bytes per element; matmul: cblas_sgemm called directly; allocator: malloc+free;\n"
              " backward mlp: the ops its backward runs, called by hand in ember without autograd;\n"
              " gpu: a device-to-device copy of the same bytes, cuBLAS called directly, cudaMalloc+cudaFree)\n");
  return 0;
}
