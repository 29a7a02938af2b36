// CUDA kernels of the index family (IndexArgs): index_select, index_copy_, index_add_
// and nonzero's flat positions, with the CPU's contract. Bounds: a position out of range
// sets error[0] / error[1] in device memory, which the front-end reads after the launch
// (a typed error, never a silent wrong read). IndexCopy / IndexAdd launch a check kernel
// first, and their write kernel returns at once when the flag is set, so a failed call
// leaves self unchanged without a host round trip in between.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/cuda_context.h"
#include "cuda/cuda_dtype.cuh"
#include "cuda/cuda_kernels.h"
#include "ember/registry.h"

namespace ember::detail {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t work, int device) {
  const int64_t cap = int64_t(cuda_sm_count(device)) * 16;
  const int64_t b = (work + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : b < cap ? b : cap);
}

struct Geometry {
  int64_t outer, size, inner, nindex, index_stride;
  int64_t ss[3], os[3];
  bool allow_negative;
};

Geometry geometry(const IndexArgs& a) {
  Geometry g{a.outer, a.size, a.inner, a.nindex, a.index_stride, {}, {}, a.allow_negative};
  for (int k = 0; k < 3; ++k) g.ss[k] = a.self_strides[k], g.os[k] = a.other_strides[k];
  return g;
}

// The wrapped position, or -1 after reporting it.
__device__ __forceinline__ int64_t wrap(const Geometry& g, const int64_t* index, int64_t j, int64_t* error) {
  int64_t p = index[j * g.index_stride];
  if (p < (g.allow_negative ? -g.size : 0) || p >= g.size) {
    error[1] = p;  // any one bad position is reported
    atomicExch(reinterpret_cast<unsigned long long*>(error), 1ull);
    return -1;
  }
  return p < 0 ? p + g.size : p;
}

template <class T>
__global__ void index_select_kernel(Geometry g, const T* self, T* out, const int64_t* index, int64_t* error) {
  const int64_t total = g.outer * g.nindex * g.inner;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % g.inner, r = e / g.inner, j = r % g.nindex, o = r / g.nindex;
    const int64_t p = wrap(g, index, j, error);
    if (p < 0) return;
    out[o * g.os[0] + j * g.os[1] + i * g.os[2]] = self[o * g.ss[0] + p * g.ss[1] + i * g.ss[2]];
  }
}

__global__ void check_kernel(Geometry g, const int64_t* index, int64_t* error) {
  for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < g.nindex; j += int64_t(gridDim.x) * blockDim.x)
    wrap(g, index, j, error);
}

// An atomic add for any element type: native where CUDA has one, else a compare-and-swap
// on the aligned 32-bit word that holds the element.
template <class T>
__device__ __forceinline__ void atomic_add(T* addr, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else {
    static_assert(sizeof(T) <= 2, "sub-word types only");
    auto* word = reinterpret_cast<unsigned int*>(reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(3));
    const unsigned shift = unsigned(reinterpret_cast<uintptr_t>(addr) & 3) * 8;
    const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned old = *word, assumed;
    do {
      assumed = old;
      T cur;
      const auto bits = static_cast<std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>>((assumed & mask) >> shift);
      memcpy(&cur, &bits, sizeof(T));
      T sum;
      if constexpr (std::is_same_v<T, bool>) sum = cur || v;
      else sum = T(cuda_opmath_t<T>(cur) + cuda_opmath_t<T>(v));
      std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t> nb;
      memcpy(&nb, &sum, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (unsigned(nb) << shift));
    } while (old != assumed);
  }
}

template <class T, bool kAdd>
__global__ void index_put_kernel(Geometry g, T* self, const T* src, const int64_t* index, const int64_t* error) {
  if (error[0]) return;  // the check kernel found a bad position: write nothing
  const int64_t total = g.outer * g.nindex * g.inner;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % g.inner, r = e / g.inner, j = r % g.nindex, o = r / g.nindex;
    int64_t p = index[j * g.index_stride];
    if (p < 0) p += g.size;
    T* d = self + o * g.ss[0] + p * g.ss[1] + i * g.ss[2];
    const T v = src[o * g.os[0] + j * g.os[1] + i * g.os[2]];
    if constexpr (kAdd) atomic_add(d, v);
    else *d = v;
  }
}

template <class Fn>
void dispatch_size(ScalarType dtype, const Fn& fn) {
  switch (element_size(dtype)) {
    case 1: return fn(CudaTypeTag<uint8_t>{});
    case 2: return fn(CudaTypeTag<uint16_t>{});
    case 4: return fn(CudaTypeTag<uint32_t>{});
    default: return fn(CudaTypeTag<uint64_t>{});
  }
}

void index_select(const IndexArgs& a) {
  const int device = cuda_device_of(a.out);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  const Geometry g = geometry(a);
  dispatch_size(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_select_kernel<T><<<blocks_for(a.outer * a.nindex * a.inner, device), kThreads, 0, stream>>>(
        g, reinterpret_cast<const T*>(a.self), reinterpret_cast<T*>(a.out), a.index, a.error);
  });
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <bool kAdd>
void index_put(const IndexArgs& a) {
  const int device = cuda_device_of(a.self);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  const Geometry g = geometry(a);
  check_kernel<<<blocks_for(a.nindex, device), kThreads, 0, stream>>>(g, a.index, a.error);
  const unsigned blocks = blocks_for(a.outer * a.nindex * a.inner, device);
  if constexpr (kAdd) {
    cuda_dispatch<kAllMask>("cuda index_add_", a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      index_put_kernel<T, true><<<blocks, kThreads, 0, stream>>>(g, reinterpret_cast<T*>(a.self),
                                                                 reinterpret_cast<const T*>(a.src), a.index, a.error);
    });
  } else {
    dispatch_size(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      index_put_kernel<T, false><<<blocks, kThreads, 0, stream>>>(g, reinterpret_cast<T*>(a.self),
                                                                  reinterpret_cast<const T*>(a.src), a.index, a.error);
    });
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// Flat positions of the trues, in order: cub's stream compaction of 0..size-1.
void nonzero(const IndexArgs& a) {
  const int device = cuda_device_of(a.self);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  thrust::counting_iterator<int64_t> positions(0);
  const bool* flags = reinterpret_cast<const bool*>(a.self);
  int64_t* out = reinterpret_cast<int64_t*>(a.out);
  size_t temp = 0;
  EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp, positions, flags, out,
                                              static_cast<int64_t*>(nullptr), a.size, stream));
  CudaScratch scratch(device, temp + 16);
  auto* count = reinterpret_cast<int64_t*>(static_cast<char*>(scratch.get()) + (temp + 7) / 8 * 8);
  EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch.get(), temp, positions, flags, out, count, a.size, stream));
}

}  // namespace

void register_cuda_index_kernels() {
  register_kernel(Op::IndexSelect, kCUDA, index_select, DtypeSet::all());
  register_kernel(Op::IndexCopy, kCUDA, index_put<false>, DtypeSet::all());
  register_kernel(Op::IndexAdd, kCUDA, index_put<true>, DtypeSet::all());
  register_kernel(Op::Nonzero, kCUDA, nonzero, DtypeSet({kBool}));
}

}  // namespace ember::detail
