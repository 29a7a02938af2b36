// Stands in for bench_cuda.cpp in builds without CUDA: no GPU cases.
#include "bench_cases.h"

namespace ember_bench {
std::vector<RegisteredCase> register_gpu_cases(bool) { return {}; }
void gpu_synchronize() {}
}  // namespace ember_bench
