// CPU matmul for builds without CBLAS: the portable blocked kernel for every dtype.
#include "cpu/blas_library.h"
#include "cpu/matmul_generic.h"
#include "cpu/register_cpu.h"

namespace ember::detail {

namespace {
void matmul_kernel(const MatmulArgs& a) {
  if (a.m == 0 || a.n == 0) return;
  matmul_generic(a);
}
}  // namespace

int blas_library_parallel_mode() { return -1; }

void register_cpu_matmul_kernels() {
  register_kernel(Op::MatMul, kCPU, matmul_kernel,
                  DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}));
}

}  // namespace ember::detail
