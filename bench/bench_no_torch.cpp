// Stands in for bench_torch.cpp when libtorch is not installed: no libtorch columns.
#include "bench_cases.h"

namespace ember_bench {
Implementation torch_implementation(bool& available) {
  available = false;
  return {"libtorch"};
}
GpuOp torch_gpu_case(const GpuCase&) { return nullptr; }
}  // namespace ember_bench
