// CUDA kernels of the optim family (OptimArgs): one grid-stride launch per parameter
// tensor per step, the per-element update from optim_update.h (the CPU's own code), so
// the two backends round alike. 16-bit parameters compute in float.
#include "cuda/cuda_context.h"
#include "cuda/cuda_dtype.cuh"
#include "cuda/cuda_kernels.h"
#include "ember/registry.h"
#include "optim_update.h"

namespace ember::detail {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t work, int device) {
  const int64_t cap = int64_t(cuda_sm_count(device)) * 8;
  const int64_t b = (work + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : b < cap ? b : cap);
}

template <class T, class M>
__global__ void sgd_kernel(SgdScalars<M> s, T* p, const T* g, T* buf, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    T unused{};
    sgd_update<T, M>(s, p[i], g[i], buf ? buf[i] : unused);
  }
}

template <class T, class M>
__global__ void adam_kernel(AdamScalars<M> s, T* p, const T* g, T* m, T* v, T* vmax, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    adam_update<T, M>(s, p[i], g[i], m[i], v[i], vmax ? vmax + i : nullptr);
}

template <class T, class M>
__global__ void rmsprop_kernel(RmspropScalars<M> s, T* p, const T* g, T* sq, T* mom, T* gavg, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    rmsprop_update<T, M>(s, p[i], g[i], sq[i], mom ? mom + i : nullptr, gavg ? gavg + i : nullptr);
}

template <class T, class M>
__global__ void adagrad_kernel(AdagradScalars<M> s, T* p, const T* g, T* sum, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    adagrad_update<T, M>(s, p[i], g[i], sum[i]);
}

template <class T, class M>
__global__ void amp_unscale_kernel(M inv_scale, T* g, float* found, int64_t n) {
  bool bad = false;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    bad |= amp_unscale<T, M>(inv_scale, g[i]);
  if (bad) *found = 1.0f;  // every writer stores the same value
}

void sgd_step(const OptimArgs& a) {
  const int device = cuda_device_of(a.param);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  cuda_dispatch<kFloatingMask>("SgdStep", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    sgd_kernel<T, M><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(
        SgdScalars<M>(a), reinterpret_cast<T*>(a.param), reinterpret_cast<const T*>(a.grad),
        reinterpret_cast<T*>(a.buf0), a.numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void adam_step(const OptimArgs& a) {
  const int device = cuda_device_of(a.param);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  cuda_dispatch<kFloatingMask>("AdamStep", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    adam_kernel<T, M><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(
        AdamScalars<M>(a), reinterpret_cast<T*>(a.param), reinterpret_cast<const T*>(a.grad),
        reinterpret_cast<T*>(a.buf0), reinterpret_cast<T*>(a.buf1), reinterpret_cast<T*>(a.buf2), a.numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void rmsprop_step(const OptimArgs& a) {
  const int device = cuda_device_of(a.param);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  cuda_dispatch<kFloatingMask>("RmspropStep", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    rmsprop_kernel<T, M><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(
        RmspropScalars<M>(a), reinterpret_cast<T*>(a.param), reinterpret_cast<const T*>(a.grad),
        reinterpret_cast<T*>(a.buf0), reinterpret_cast<T*>(a.buf1), reinterpret_cast<T*>(a.buf2), a.numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void adagrad_step(const OptimArgs& a) {
  const int device = cuda_device_of(a.param);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  cuda_dispatch<kFloatingMask>("AdagradStep", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    adagrad_kernel<T, M><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(
        AdagradScalars<M>(a), reinterpret_cast<T*>(a.param), reinterpret_cast<const T*>(a.grad),
        reinterpret_cast<T*>(a.buf0), a.numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

void amp_unscale_step(const OptimArgs& a) {
  const int device = cuda_device_of(a.param);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  cuda_dispatch<kFloatingMask>("AmpUnscale", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    amp_unscale_kernel<T, M><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(
        M(a.lr), reinterpret_cast<T*>(a.param), reinterpret_cast<float*>(a.buf0), a.numel);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void register_cuda_optim_kernels() {
  register_kernel(Op::SgdStep, kCUDA, sgd_step, DtypeSet::floating());
  register_kernel(Op::AdamStep, kCUDA, adam_step, DtypeSet::floating());
  register_kernel(Op::RmspropStep, kCUDA, rmsprop_step, DtypeSet::floating());
  register_kernel(Op::AdagradStep, kCUDA, adagrad_step, DtypeSet::floating());
  register_kernel(Op::AmpUnscale, kCUDA, amp_unscale_step, DtypeSet::floating());
}

}  // namespace ember::detail
