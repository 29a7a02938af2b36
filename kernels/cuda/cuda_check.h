#pragma once
// EMBER_CUDA_CHECK / EMBER_CUBLAS_CHECK: a failed CUDA runtime or cuBLAS call becomes an
// ember::DeviceError naming the call, the error's name and text, and where it was made.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace ember::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace ember::detail

#define EMBER_CUDA_CHECK(call)                                                        \
  do {                                                                                \
    const cudaError_t ember_cuda_err_ = (call);                                       \
    if (__builtin_expect(ember_cuda_err_ != cudaSuccess, 0))                          \
      ::ember::detail::throw_cuda_error(ember_cuda_err_, #call, __FILE__, __LINE__);  \
  } while (0)

#define EMBER_CUBLAS_CHECK(call)                                                          \
  do {                                                                                    \
    const cublasStatus_t ember_cublas_st_ = (call);                                       \
    if (__builtin_expect(ember_cublas_st_ != CUBLAS_STATUS_SUCCESS, 0))                   \
      ::ember::detail::throw_cublas_error(ember_cublas_st_, #call, __FILE__, __LINE__);   \
  } while (0)
