#pragma once
// Internal services of the CUDA backend shared by its kernels and its Backend: device
// count, the device a pointer lives on, the current stream, and a device guard.
// Plain C++ over the CUDA runtime (no kernels), so .cu and .cpp files both include it.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/cuda_check.h"

namespace ember::detail {

/// Physical GPUs present; 0 when there is no GPU or no (or too old a) driver. Cached.
int cuda_device_count();
/// Throws InvalidArgument when no GPU exists or `device` is out of range; returns
/// the device, resolving -1 to the current one.
int cuda_checked_device(int device, const char* what);
/// The current stream of `device` on this thread (null: the default stream).
cudaStream_t cuda_current_stream(int device);
/// Makes `stream` the current stream of `device` on this thread.
void cuda_set_current_stream(int device, cudaStream_t stream);

/// Sets the current device for a scope and restores the previous one (skipped when
/// there is one GPU: nothing to switch).
class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int device);
  ~CudaDeviceGuard();
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

/// The device that owns `ptr` (device memory from cudaMalloc). Kernel argument blocks
/// carry pointers only, so launches find their device this way; with a single GPU it
/// is 0 without asking the driver.
int cuda_device_of(const void* ptr);

/// Streaming multiprocessors of a physical GPU (cached; 132 when the driver cannot say).
int cuda_sm_count(int device);

/// Scratch memory on a physical GPU from ember's caching allocator, tagged with the
/// device's current stream. The destructor hands it back to the cache, which is safe as
/// soon as the kernels using it are queued on that stream (stream order).
class CudaScratch {
 public:
  CudaScratch(int device, size_t bytes);
  ~CudaScratch();
  CudaScratch(const CudaScratch&) = delete;
  CudaScratch& operator=(const CudaScratch&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace ember::detail
