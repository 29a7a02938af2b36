// CUDA kernels of gather, scatter (assign / add / multiply) and sort, with the CPU's
// dtype sets and conventions (Note [Select kernels]):
//  - gather: one thread per index element; an out-of-range index is not read: the thread
//    raises the device-side status flag (first writer records the index) and moves on;
//  - scatter: a check kernel raises the flag, then the scatter kernel reads the flag and
//    writes nothing when it is set, so a failed scatter_ leaves self unchanged without a
//    host round trip in between; add / multiply use atomics (CAS loops for 1- and 2-byte
//    types), so duplicate indices accumulate;
//  - sort: two stable thrust sorts of flat positions (by value, then by slice), which
//    leaves each slice sorted by value with ties in their original order; NaN is largest.
#include <memory>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

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

// Element offsets (out, in, index) of flat position i of the index's shape.
__device__ __forceinline__ void offsets_of(const SelectArgs& a, int64_t i, int64_t* off) {
  off[0] = off[1] = off[2] = 0;
  for (int d = 0; d < a.ndim; ++d) {
    const int64_t c = i % a.sizes[d];
    i /= a.sizes[d];
    off[0] += c * a.out_strides[d];
    off[1] += c * a.in_strides[d];
    off[2] += c * a.index_strides[d];
  }
}

__device__ __forceinline__ void raise_flag(int64_t* status, int64_t bad) {
  auto* flag = reinterpret_cast<unsigned long long*>(status);
  if (atomicCAS(flag, 0ull, 1ull) == 0ull) status[1] = bad;
}

template <class T>
__global__ void gather_kernel_impl(SelectArgs a) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.numel; i += step) {
    int64_t off[3];
    offsets_of(a, i, off);
    const int64_t k = a.index[off[2]];
    if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(a.dim_size)) {
      raise_flag(a.status, k);
      continue;
    }
    reinterpret_cast<T*>(a.out)[off[0]] = reinterpret_cast<const T*>(a.in)[off[1] + k * a.indexed_stride];
  }
}

__global__ void check_index_kernel(SelectArgs a) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.numel; i += step) {
    int64_t off[3];
    offsets_of(a, i, off);
    const int64_t k = a.index[off[2]];
    if (static_cast<uint64_t>(k) >= static_cast<uint64_t>(a.dim_size)) raise_flag(a.status, k);
  }
}

template <class T>
__device__ __forceinline__ T combine(T old, T v, int reduce) {
  using M = cuda_opmath_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return reduce == 1 || reduce == 3 ? (old || v) : (old && v);
  } else {
    if (reduce == 1) return T(M(old) + M(v));
    if (reduce == 2) return T(M(old) * M(v));
    // scatter_reduce's amax (3) and amin (4): a NaN wins, as libtorch's
    const M o = M(old), w = M(v);
    if (o != o) return old;
    return (w != w || (reduce == 3 ? w > o : w < o)) ? v : old;
  }
}

// dst op= v atomically, for any element size: CAS on the aligned word that holds dst.
template <class T>
__device__ void atomic_combine(T* dst, T v, int reduce) {
  if constexpr (sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(dst);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, 8);
      const T next = combine(cur, v, reduce);
      unsigned long long bits;
      memcpy(&bits, &next, 8);
      old = atomicCAS(w, assumed, bits);
    } while (old != assumed);
  } else {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
    auto* w = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
    const unsigned shift = unsigned(addr & 3) * 8;
    const unsigned mask = sizeof(T) == 4 ? 0xffffffffu : ((1u << (sizeof(T) * 8)) - 1u) << shift;
    unsigned old = *w, assumed;
    do {
      assumed = old;
      const unsigned field = sizeof(T) == 4 ? assumed : (assumed & mask) >> shift;
      T cur;
      memcpy(&cur, &field, sizeof(T));
      const T next = combine(cur, v, reduce);
      unsigned bits = 0;
      memcpy(&bits, &next, sizeof(T));
      const unsigned merged = sizeof(T) == 4 ? bits : (assumed & ~mask) | (bits << shift);
      old = atomicCAS(w, assumed, merged);
    } while (old != assumed);
  }
}

template <class T>
__global__ void scatter_kernel_impl(SelectArgs a) {
  if (a.status[0] != 0) return;  // the check kernel found a bad index: write nothing
  T value{};
  if (a.in_is_scalar) memcpy(&value, a.scalar_value, sizeof(T));
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.numel; i += step) {
    int64_t off[3];
    offsets_of(a, i, off);
    T* dst = reinterpret_cast<T*>(a.out) + off[0] + a.index[off[2]] * a.indexed_stride;
    const T v = a.in_is_scalar ? value : reinterpret_cast<const T*>(a.in)[off[1]];
    if (a.reduce == 0) *dst = v;
    else atomic_combine(dst, v, a.reduce);
  }
}

void gather_kernel(const SelectArgs& a) {
  cuda_dispatch<kAllMask>("cuda gather", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int device = cuda_device_of(a.out);
    CudaDeviceGuard guard(device);
    gather_kernel_impl<T><<<blocks_for(a.numel, device), kThreads, 0, cuda_current_stream(device)>>>(a);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

void scatter_kernel(const SelectArgs& a) {
  cuda_dispatch<kAllMask>("cuda scatter", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int device = cuda_device_of(a.out);
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    check_index_kernel<<<blocks_for(a.numel, device), kThreads, 0, stream>>>(a);
    EMBER_CUDA_CHECK(cudaGetLastError());
    scatter_kernel_impl<T><<<blocks_for(a.numel, device), kThreads, 0, stream>>>(a);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

template <class T>
struct ValueLess {  // orders flat positions by value; NaN is the largest value
  const T* in;
  bool descending;
  __device__ bool operator()(int64_t x, int64_t y) const {
    using M = cuda_opmath_t<T>;
    const M a = M(in[x]), b = M(in[y]);
    bool a_nan = false, b_nan = false;
    if constexpr (is_float_v<T>) a_nan = a != a, b_nan = b != b;
    if (descending) return a > b || (a_nan && !b_nan);
    return a < b || (!a_nan && b_nan);
  }
};

struct SliceLess {  // orders flat positions of [outer, size, inner] by their slice
  int64_t size, inner;
  __device__ int64_t slice(int64_t i) const { return (i / (size * inner)) * inner + i % inner; }
  __device__ bool operator()(int64_t x, int64_t y) const { return slice(x) < slice(y); }
};

template <class T>
__global__ void sort_write_kernel(const int64_t* order, const T* in, T* values, int64_t* indices, int64_t n,
                                  int64_t size, int64_t inner) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < n; p += step) {
    const int64_t i = order[p], s = p / size, r = p % size;
    const int64_t dst = (s / inner) * size * inner + r * inner + s % inner;
    values[dst] = in[i];
    indices[dst] = (i / inner) % size;
  }
}

// Thrust's temporary storage, taken from ember's caching allocator instead of cudaMalloc
// (a block goes back to the cache at deallocate, which stream order makes safe).
struct ScratchAllocator {
  using value_type = char;
  int device;
  std::vector<std::unique_ptr<CudaScratch>>* blocks;
  char* allocate(std::ptrdiff_t n) {
    blocks->push_back(std::make_unique<CudaScratch>(device, size_t(n)));
    return static_cast<char*>(blocks->back()->get());
  }
  void deallocate(char* p, size_t) {
    for (auto it = blocks->begin(); it != blocks->end(); ++it)
      if ((*it)->get() == p) {
        blocks->erase(it);
        return;
      }
  }
};

void sort_kernel(const SortArgs& a) {
  cuda_dispatch<kAllMask>("cuda sort", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int device = cuda_device_of(a.values);
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    const int64_t n = a.outer * a.size * a.inner;
    CudaScratch scratch(device, size_t(n) * sizeof(int64_t));
    int64_t* order = static_cast<int64_t*>(scratch.get());
    const T* in = reinterpret_cast<const T*>(a.in);
    std::vector<std::unique_ptr<CudaScratch>> blocks;
    ScratchAllocator alloc{device, &blocks};
    auto policy = thrust::cuda::par(alloc).on(stream);
    thrust::sequence(policy, order, order + n);
    thrust::stable_sort(policy, order, order + n, ValueLess<T>{in, a.descending});
    if (a.outer * a.inner > 1) thrust::stable_sort(policy, order, order + n, SliceLess{a.size, a.inner});
    sort_write_kernel<T><<<blocks_for(n, device), kThreads, 0, stream>>>(order, in, reinterpret_cast<T*>(a.values),
                                                                         a.indices, n, a.size, a.inner);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

void register_cuda_select_kernels() {
  register_kernel(Op::Gather, kCUDA, gather_kernel, DtypeSet::all());
  register_kernel(Op::Scatter, kCUDA, scatter_kernel, DtypeSet::all());
  register_kernel(Op::Sort, kCUDA, sort_kernel, DtypeSet::all());
}

}  // namespace ember::detail
