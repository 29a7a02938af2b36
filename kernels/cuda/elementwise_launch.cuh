#pragma once
// Note [CUDA elementwise launcher]
// launch_elementwise<Out, In...>(args, f) runs out = f(in...) over an ElementwiseArgs on
// the current stream of the output's device. Two kernels:
//  - vectorised: every tensor operand is unit-stride and 16-byte aligned; each thread
//    moves 16 bytes of the widest type per load/store (four vectors per thread, loads before stores; scalar tail);
//    an input may also be one broadcast element (stride 0) or a Scalar. Which access
//    each operand takes is plan_vector_access's choice (iter/vector_plan.h, tested on CPU);
//  - strided: offsets from the same OffsetCalculator the CPU iterator tests; it also
//    takes contiguous launches whose pointers are not aligned (views at odd offsets).
// Two kernels per (op, dtype) rather than three keep nvcc's time down.
// Scalar operands (is_scalar[k]) are read from args.scalar_value on the host and passed
// by value. f is a functor with a __device__ operator(); it takes and returns compute
// types (float for Half / BFloat16), converted to and from the storage types here.
// Nullary kernels may take the element's linear index: see launch_indexed.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/cuda_context.h"
#include "cuda/cuda_dtype.cuh"
#include "ember/kernel_args.h"
#include "iter/offset_calculator.h"
#include "iter/vector_plan.h"

namespace ember::detail {

constexpr int kBlockThreads = 256;

template <int I, class T0, class... Rest>
struct TypeAt {
  using type = typename TypeAt<I - 1, Rest...>::type;
};
template <class T0, class... Rest>
struct TypeAt<0, T0, Rest...> {
  using type = T0;
};

/// The inputs of one launch, by value in the kernel's parameters.
template <int N>
struct InputPack {
  const char* ptr[N > 0 ? N : 1] = {};
  OperandAccess access[N > 0 ? N : 1] = {};
  alignas(8) char value[N > 0 ? N : 1][8] = {};  // Scalar operands
};

template <class T, int N>
__device__ __forceinline__ T fetch(const InputPack<N>& p, int k, int64_t elem_offset) {
  if (p.access[k] == OperandAccess::Scalar) {
    T v;
    memcpy(&v, p.value[k], sizeof(T));
    return v;
  }
  return reinterpret_cast<const T*>(p.ptr[k])[elem_offset];
}

template <class T, int VEC>
struct alignas(sizeof(T) * VEC) Vec {
  T v[VEC];
};

template <class T, int VEC, int N>
__device__ __forceinline__ Vec<T, VEC> fetch_vec(const InputPack<N>& p, int k, int64_t base) {
  Vec<T, VEC> r;
  if (p.access[k] != OperandAccess::Contiguous) {  // Scalar or Broadcast: one value repeated
    T v;
    if (p.access[k] == OperandAccess::Scalar)
      memcpy(&v, p.value[k], sizeof(T));
    else
      v = *reinterpret_cast<const T*>(p.ptr[k]);
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = v;
  } else {
    r = *reinterpret_cast<const Vec<T, VEC>*>(reinterpret_cast<const T*>(p.ptr[k]) + base);
  }
  return r;
}

template <class Out, class... In, class F>
__device__ __forceinline__ Out element(const F& f, const InputPack<sizeof...(In)>& p, const int64_t* off) {
  constexpr int N = sizeof...(In);
  if constexpr (N == 0) {
    return Out(f());
  } else if constexpr (N == 1) {
    using A = typename TypeAt<0, In...>::type;
    return Out(f(fetch<A>(p, 0, off[0])));
  } else if constexpr (N == 2) {
    using A = typename TypeAt<0, In...>::type;
    using B = typename TypeAt<1, In...>::type;
    return Out(f(fetch<A>(p, 0, off[0]), fetch<B>(p, 1, off[1])));
  } else {
    using A = typename TypeAt<0, In...>::type;
    using B = typename TypeAt<1, In...>::type;
    using C = typename TypeAt<2, In...>::type;
    return Out(f(fetch<A>(p, 0, off[0]), fetch<B>(p, 1, off[1]), fetch<C>(p, 2, off[2])));
  }
}

/// The VEC results at element `base` (all operands contiguous or repeated).
template <int VEC, class Out, class F, class... In>
__device__ __forceinline__ Vec<Out, VEC> compute_vec(const F& f, const InputPack<sizeof...(In)>& p, int64_t base) {
  constexpr int N = sizeof...(In);
  Vec<Out, VEC> r;
  if constexpr (N == 0) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = Out(f());
  } else if constexpr (N == 1) {
    const auto a = fetch_vec<typename TypeAt<0, In...>::type, VEC>(p, 0, base);
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = Out(f(a.v[j]));
  } else if constexpr (N == 2) {
    const auto a = fetch_vec<typename TypeAt<0, In...>::type, VEC>(p, 0, base);
    const auto b = fetch_vec<typename TypeAt<1, In...>::type, VEC>(p, 1, base);
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = Out(f(a.v[j], b.v[j]));
  } else {
    const auto a = fetch_vec<typename TypeAt<0, In...>::type, VEC>(p, 0, base);
    const auto b = fetch_vec<typename TypeAt<1, In...>::type, VEC>(p, 1, base);
    const auto c = fetch_vec<typename TypeAt<2, In...>::type, VEC>(p, 2, base);
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.v[j] = Out(f(a.v[j], b.v[j], c.v[j]));
  }
  return r;
}

constexpr int kVecPerThread = 4;  // vectors per thread of the vectorised kernel

// Block b takes vectors [b * 1024, (b + 1) * 1024), each thread four of them a block apart,
// all loaded before any is stored: the blocks in flight cover one compact window of memory.
template <int VEC, class Out, class F, class... In>
__global__ void vectorized_kernel(int64_t n, Out* out, InputPack<sizeof...(In)> p, F f) {
  constexpr int N = sizeof...(In);
  const int64_t nvec = n / VEC;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x * kVecPerThread + threadIdx.x;
  Vec<Out, VEC> r[kVecPerThread];
#pragma unroll
  for (int u = 0; u < kVecPerThread; ++u) {
    const int64_t v = first + int64_t(u) * blockDim.x;
    if (v < nvec) r[u] = compute_vec<VEC, Out, F, In...>(f, p, v * VEC);
  }
#pragma unroll
  for (int u = 0; u < kVecPerThread; ++u) {
    const int64_t v = first + int64_t(u) * blockDim.x;
    if (v < nvec) *reinterpret_cast<Vec<Out, VEC>*>(out + v * VEC) = r[u];
  }
  // Tail: the last n % VEC elements, one per thread of the first block.
  const int64_t i = nvec * VEC + int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 && i < n) {
    int64_t off[N > 0 ? N : 1];
    for (int k = 0; k < N; ++k) off[k] = p.access[k] == OperandAccess::Contiguous ? i : 0;
    out[i] = element<Out, In...>(f, p, off);
  }
}

template <class Out, class F, class... In>
__global__ void strided_kernel(int64_t n, Out* out, InputPack<sizeof...(In)> p,
                               OffsetCalculator<1 + sizeof...(In)> calc, F f) {
  constexpr int N = sizeof...(In);
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t off[N + 1];
    calc.get(i, off);
    out[off[0]] = element<Out, In...>(f, p, off + 1);
  }
}

/// Grid for a grid-stride loop over `work` items: enough blocks to fill the GPU a few
/// times over, never more than the work needs.
inline unsigned grid_for(int64_t work) {
  static const int64_t max_blocks = [] {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      (void)cudaGetLastError();
      sms = 132;
    }
    return int64_t(sms) * 8;  // 8 blocks of 256 threads per SM: full occupancy
  }();
  const int64_t blocks = (work + kBlockThreads - 1) / kBlockThreads;
  return unsigned(blocks < 1 ? 1 : blocks < max_blocks ? blocks : max_blocks);
}

/// out = f(in...) over args (see Note [CUDA elementwise launcher]). Vectorise=false
/// skips the vectorised kernel (Copy's many dtype pairs keep one kernel less each).
template <bool Vectorise, class Out, class... In, class F>
void launch_elementwise_impl(const ElementwiseArgs& a, F f) {
  constexpr int N = sizeof...(In);
  const int64_t n = a.numel;
  if (n == 0) return;
  const int device = cuda_device_of(a.data[0]);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);

  const VectorPlan plan = plan_vector_access(a, 16);
  InputPack<N> p;
  for (int k = 0; k < N; ++k) {
    p.ptr[k] = a.data[1 + k];
    p.access[k] = plan.access[1 + k];
    if (p.access[k] == OperandAccess::Scalar) std::memcpy(p.value[k], a.scalar_value[1 + k], 8);
  }
  Out* out = reinterpret_cast<Out*>(a.data[0]);
  if constexpr (Vectorise) {
    constexpr int kVec = 16 / max_size<Out, In...>();
    if (plan.vectorised) {
      const int64_t per_block = int64_t(kBlockThreads) * kVecPerThread * kVec;
      const int64_t blocks = (n + per_block - 1) / per_block;  // < 2^31 for any n that fits memory
      vectorized_kernel<kVec, Out, F, In...><<<unsigned(blocks), kBlockThreads, 0, stream>>>(n, out, p, f);
      EMBER_CUDA_CHECK(cudaGetLastError());
      return;
    }
  }
  OffsetCalculator<N + 1> calc(a);
  if (a.contiguous) {  // one dim of n elements; stride 1, or 0 for broadcast operands
    calc.ndim = 1;
    calc.sizes[0] = n;
    for (int k = 0; k <= N; ++k) calc.strides[k][0] = a.strides[k][0];
  }
  strided_kernel<Out, F, In...><<<grid_for(n), kBlockThreads, 0, stream>>>(n, out, p, calc, f);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class Out, class... In, class F>
void launch_elementwise(const ElementwiseArgs& a, F f) {
  launch_elementwise_impl<true, Out, In...>(a, f);
}

}  // namespace ember::detail
