// The bounds each result is compared with: memory copy bandwidth for add, and
// OpenBLAS sgemm called directly for matmul; plus malloc/free for the allocator.
#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_cases.h"

namespace ember_bench {

namespace {

// Copies the 12 bytes per element that an add moves (two 4-byte reads, one write)
// as one memcpy of 6n bytes: read 6n + write 6n = 12n bytes.
void copy_same_bytes(benchmark::State& state, int64_t n) {
  const size_t bytes = size_t(n) * 6;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
}

void sgemm(benchmark::State& state, int64_t n) {
  std::vector<float> a(size_t(n * n)), b(size_t(n * n)), c(size_t(n * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) / 7, b[i] = float(i % 5) / 5;
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, a.data(), int(n),
                b.data(), int(n), 0.0f, c.data(), int(n));
    benchmark::DoNotOptimize(c.data());
  }
}

}  // namespace

Implementation bound_implementation() { return {"bound", copy_same_bytes, copy_same_bytes, sgemm}; }

void malloc_free_pair(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(4096);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

}  // namespace ember_bench
