#pragma once
// The benchmark cases shared by ember's, libtorch's and the bound implementations:
// each side provides the same case functions, and bench_main.cpp registers them
// interleaved so that every ratio comes from one run.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ember_bench {

/// Out-of-place add of two float32 vectors of n elements (c = a + b).
using SizedCase = void (*)(benchmark::State&, int64_t n);

struct Implementation {
  const char* name;         // "ember", "libtorch", "bound"
  SizedCase add = nullptr;  // out of place
  SizedCase add_out = nullptr;
  SizedCase matmul = nullptr;  // square n x n float32
  SizedCase index_select = nullptr;  // n float32 read at n random int64 positions
  SizedCase mask_index = nullptr;    // x.index({x > 0.5}) on n float32 (about half kept)
};

Implementation ember_implementation();
/// libtorch's side; `available` is false when the bench was built without libtorch.
Implementation torch_implementation(bool& available);
/// Bounds: memcpy of the same bytes (add) and cblas_sgemm called directly (matmul).
Implementation bound_implementation();
/// The caching allocator's cached allocate+free pair vs malloc/free.
void allocator_cached_pair(benchmark::State& state);
void malloc_free_pair(benchmark::State& state);
/// GPU cases (ember vs cuBLAS / copy bound) when a CUDA device is present.
void register_gpu_cases(bool short_run);
std::vector<std::string> gpu_case_names(bool short_run);
/// Threads each side uses (stated in the report).
int bench_threads();

}  // namespace ember_bench
