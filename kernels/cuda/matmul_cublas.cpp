// CUDA matmul through cublasGemmStridedBatchedEx: float32 (TF32 tensor cores when
// allowed), float64, and Half / BFloat16 with float accumulation. Integer dtypes have
// no CUDA kernel. cuBLAS handles are per (device, thread), made on first use and bound
// to the current stream at each call.
#include <algorithm>
#include <array>
#include <climits>

#include "core/check.h"
#include "cuda/cuda_context.h"
#include "cuda/cuda_kernels.h"
#include "ember/registry.h"
#include "ember/tensor.h"
#include "placement/device_table.h"
#include "tensor/tensor_factory.h"

namespace ember::detail {

namespace {

constexpr int kMaxDevices = 64;

// cuBLAS's workspace comes from ember's caching allocator (32 MiB, Hopper's advice), so
// it shows in memory::stats and counts against the device's limit.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

Tensor make_workspace(int device) {
  for (DeviceEntry* e : devices_of(kCUDA))
    if (e->physical_index == device) return empty_on({int64_t(kWorkspaceBytes)}, kUInt8, *e);
  EMBER_THROW(InvalidArgument, "cuBLAS workspace: no CUDA device with physical index {}", device);
}

// Handles are never destroyed: a thread's exit may come after the CUDA context is gone.
cublasHandle_t handle_for(int device) {
  thread_local std::array<cublasHandle_t, kMaxDevices> handles{};
  thread_local std::array<Tensor, kMaxDevices> workspaces;
  cublasHandle_t& h = handles[device];
  if (!h) {
    workspaces[device] = make_workspace(device);
    EMBER_CUBLAS_CHECK(cublasCreate(&h));
    EMBER_CUBLAS_CHECK(cublasSetWorkspace(h, workspaces[device].data_ptr(), kWorkspaceBytes));
  }
  return h;
}

// Note [Row-major matmul on column-major cuBLAS]
// C (m x n, row-major, row stride ldc) read column-major is C^T (n x m, ld ldc), and
// C^T = B^T A^T: call cuBLAS with the operands swapped. An operand with unit column
// stride is row-major, so its memory read column-major is already its transpose (OP_N);
// one with unit row stride is column-major (OP_T).
struct CublasOperand {
  cublasOperation_t op;
  int64_t ld;
};
CublasOperand cublas_operand(int64_t row_stride, int64_t col_stride, int64_t rows, int64_t cols) {
  if (col_stride == 1) return {CUBLAS_OP_N, std::max<int64_t>(row_stride, std::max<int64_t>(cols, 1))};
  return {CUBLAS_OP_T, std::max<int64_t>(col_stride, std::max<int64_t>(rows, 1))};
}

void matmul_kernel(const MatmulArgs& a) {
  if (a.m == 0 || a.n == 0 || a.batch == 0) return;
  EMBER_CHECK_ARG(a.m <= INT_MAX && a.n <= INT_MAX && a.k <= INT_MAX,
                  "matmul: CUDA supports matrix sizes up to {} (got m={}, n={}, k={})", INT_MAX, a.m, a.n, a.k);
  EMBER_CHECK_ARG(a.c_strides[2] == 1, "matmul: the output must be row-major (column stride {})", a.c_strides[2]);

  cudaDataType_t type;
  cublasComputeType_t compute;
  switch (a.dtype) {
    case kFloat:
      type = CUDA_R_32F;
      compute = a.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case kDouble: type = CUDA_R_64F; compute = CUBLAS_COMPUTE_64F; break;
    case kHalf: type = CUDA_R_16F; compute = CUBLAS_COMPUTE_32F; break;
    case kBFloat16: type = CUDA_R_16BF; compute = CUBLAS_COMPUTE_32F; break;
    default: EMBER_THROW(NotImplemented, "matmul: no CUDA kernel for dtype {}", name(a.dtype));
  }
  // alpha and beta are in the compute type: double for float64, float otherwise.
  const double alpha_d = a.alpha, beta_d = a.beta;
  const float alpha_f = float(a.alpha), beta_f = float(a.beta);
  const void* alpha = a.dtype == kDouble ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = a.dtype == kDouble ? static_cast<const void*>(&beta_d) : &beta_f;

  const CublasOperand A = cublas_operand(a.a_strides[1], a.a_strides[2], a.m, a.k);
  const CublasOperand B = cublas_operand(a.b_strides[1], a.b_strides[2], a.k, a.n);
  const int64_t ldc = std::max<int64_t>(a.c_strides[1], std::max<int64_t>(a.n, 1));
  const size_t esz = element_size(a.dtype);

  const int device = cuda_device_of(a.c);
  CudaDeviceGuard guard(device);
  cublasHandle_t handle = handle_for(device);
  EMBER_CUBLAS_CHECK(cublasSetStream(handle, cuda_current_stream(device)));

  constexpr int64_t kMaxBatch = 65535;  // per call, within every cuBLAS version's grid limits
  for (int64_t b0 = 0; b0 < a.batch; b0 += kMaxBatch) {
    const int64_t count = std::min(kMaxBatch, a.batch - b0);
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, B.op, A.op, int(a.n), int(a.m), int(a.k), alpha,  //
        a.b + b0 * a.b_strides[0] * esz, type, int(B.ld), a.b_strides[0],  //
        a.a + b0 * a.a_strides[0] * esz, type, int(A.ld), a.a_strides[0], beta,  //
        a.c + b0 * a.c_strides[0] * esz, type, int(ldc), a.c_strides[0], int(count), compute,
        CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace

void register_cuda_matmul_kernels() {
  register_kernel(Op::MatMul, kCUDA, matmul_kernel, DtypeSet({kHalf, kBFloat16, kFloat, kDouble}));
}

}  // namespace ember::detail
