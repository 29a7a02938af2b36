// Stands in for bench_cuda.cpp in builds without CUDA: no GPU cases.
#include "bench_cases.h"

namespace ember_bench {
void register_gpu_cases(bool) {}
std::vector<std::string> gpu_case_names(bool) { return {}; }
}  // namespace ember_bench
