// CUDA kernels of softmax, log_softmax and cumsum along one dim of a contiguous
// [outer, size, inner] block (in_dtype == out_dtype; the front-end casts first), with the
// CPU's dtype sets. Accumulation is float for Half / BFloat16 / Float and double for
// Double (the CPU sums in double), wrapping 64-bit for integers and bool, as on the CPU.
//  - inner == 1 (the dim is the innermost): softmax takes one warp per row (max, then the
//    sum of exp(x - max), by shuffles) for rows of up to 1024 elements, whose three passes
//    hit the cache; longer rows take one block each, the row held in shared memory so
//    that global memory is read once and written once; cumsum one block per row with
//    cub::BlockScan over tiles, carrying the running total from tile to tile;
//  - inner > 1: one thread per (outer, inner) column walks the dim serially; the threads
//    of a warp read neighbouring columns, so every load is coalesced.
#include <cub/block/block_scan.cuh>

#include "cuda/cuda_kernels.h"
#include "cuda/reduce_launch.cuh"
#include "ember/registry.h"

namespace ember::detail {

namespace {

constexpr int kThreads = 256;

template <class T>
using acc_t = float_acc_t<T>;

unsigned blocks_for(int64_t work, int device) {
  const int64_t cap = int64_t(cuda_sm_count(device)) * 8;
  const int64_t b = (work + kThreads - 1) / kThreads;
  return unsigned(b < 1 ? 1 : b < cap ? b : cap);
}

template <class T>
__device__ __forceinline__ acc_t<T> load(T x) {
  return acc_t<T>(cuda_opmath_t<T>(x));
}

template <class A>
__device__ __forceinline__ A nan_max(A x, A y) {
  return (x != x || y != y) ? A(NAN) : (x > y ? x : y);  // a NaN spreads, as on the CPU
}

template <class T, bool kLog>
__device__ __forceinline__ T softmax_value(acc_t<T> x, acc_t<T> mx, acc_t<T> sum) {
  if constexpr (kLog) return T(x - mx - m_log(sum));
  else return T(m_exp(x - mx) / sum);
}

// One warp per row of `size` contiguous elements.
template <class T, bool kLog>
__global__ void softmax_rows_kernel(const T* in, T* out, int64_t rows, int64_t size) {
  using A = acc_t<T>;
  const int lane = threadIdx.x % 32;
  const int64_t step = int64_t(gridDim.x) * (kThreads / 32);
  for (int64_t row = int64_t(blockIdx.x) * (kThreads / 32) + threadIdx.x / 32; row < rows; row += step) {
    const T* x = in + row * size;
    T* y = out + row * size;
    A mx = A(-INFINITY);
    for (int64_t j = lane; j < size; j += 32) mx = nan_max(mx, load(x[j]));
    for (int o = 16; o > 0; o /= 2) mx = nan_max(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    A sum = 0;
    for (int64_t j = lane; j < size; j += 32) sum += m_exp(load(x[j]) - mx);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    for (int64_t j = lane; j < size; j += 32) y[j] = softmax_value<T, kLog>(load(x[j]), mx, sum);
  }
}

struct MaxOp {
  template <class A>
  __device__ A operator()(A x, A y) const {
    return nan_max(x, y);
  }
};
struct SumOp {
  template <class A>
  __device__ A operator()(A x, A y) const {
    return x + y;
  }
};

// The op of v over the block, returned to every thread. `slots` holds one value per warp.
template <class A, class Op>
__device__ A block_all_reduce(A v, Op op, A* slots) {
  for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();  // every thread has read the slots of the previous call
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  v = slots[0];
  for (int w = 1; w < kThreads / 32; ++w) v = op(v, slots[w]);
  return v;
}

constexpr int64_t kWarpRowMax = 1024;  // longest row for the warp-per-row kernel

// One block per row, the row kept in shared memory as A (dynamic, size * sizeof(A)).
// Thread t always handles elements t, t + kThreads, ... of the row, so the buffer needs
// no barrier between passes or rows.
template <class T, bool kLog>
__global__ void softmax_block_rows_kernel(const T* in, T* out, int64_t rows, int64_t size) {
  using A = acc_t<T>;
  extern __shared__ double smem[];  // double: aligned for any A
  A* buf = reinterpret_cast<A*>(smem);
  __shared__ A slots[kThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * size;
    T* y = out + row * size;
    A mx = A(-INFINITY);
    for (int64_t j = threadIdx.x; j < size; j += kThreads) {
      const A v = load(x[j]);
      buf[j] = v;
      mx = nan_max(mx, v);
    }
    mx = block_all_reduce(mx, MaxOp{}, slots);
    A sum = 0;
    for (int64_t j = threadIdx.x; j < size; j += kThreads) sum += m_exp(buf[j] - mx);
    sum = block_all_reduce(sum, SumOp{}, slots);
    for (int64_t j = threadIdx.x; j < size; j += kThreads) y[j] = softmax_value<T, kLog>(buf[j], mx, sum);
  }
}

// One thread per (outer, inner) column.
template <class T, bool kLog>
__global__ void softmax_columns_kernel(const T* in, T* out, int64_t outer, int64_t size, int64_t inner) {
  using A = acc_t<T>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < outer * inner; c += stride) {
    const int64_t base = (c / inner) * size * inner + c % inner;
    const T* x = in + base;
    T* y = out + base;
    A mx = A(-INFINITY);
    for (int64_t j = 0; j < size; ++j) mx = nan_max(mx, load(x[j * inner]));
    A sum = 0;
    for (int64_t j = 0; j < size; ++j) sum += m_exp(load(x[j * inner]) - mx);
    for (int64_t j = 0; j < size; ++j) y[j * inner] = softmax_value<T, kLog>(load(x[j * inner]), mx, sum);
  }
}

template <bool kLog>
void softmax_kernel(const DimArgs& a) {
  cuda_dispatch<kFloatingMask>(kLog ? "cuda log_softmax" : "cuda softmax", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int device = cuda_device_of(a.in);
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    using A = acc_t<T>;
    const size_t row_bytes = size_t(a.size) * sizeof(A);
    // The static slots count against the same 48 KiB as the row buffer.
    const size_t static_bytes = sizeof(A) * (kThreads / 32);
    if (a.inner == 1 && a.size > kWarpRowMax && row_bytes + static_bytes <= 48 * 1024) {
      const int64_t cap = int64_t(cuda_sm_count(device)) * 8;
      const unsigned blocks = unsigned(a.outer < 1 ? 1 : a.outer < cap ? a.outer : cap);
      softmax_block_rows_kernel<T, kLog><<<blocks, kThreads, row_bytes, stream>>>(in, out, a.outer, a.size);
    } else if (a.inner == 1) {
      softmax_rows_kernel<T, kLog><<<blocks_for(a.outer * 32, device), kThreads, 0, stream>>>(in, out, a.outer, a.size);
    } else
      softmax_columns_kernel<T, kLog>
          <<<blocks_for(a.outer * a.inner, device), kThreads, 0, stream>>>(in, out, a.outer, a.size, a.inner);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

// ---- cumsum
template <class T>
using cumsum_acc_t = sum_acc_t<T>;

template <class T>
__device__ __forceinline__ cumsum_acc_t<T> widen(T x) {
  if constexpr (is_float_v<T>) return cumsum_acc_t<T>(cuda_opmath_t<T>(x));
  else return cumsum_acc_t<T>(int64_t(x));
}
template <class T>
__device__ __forceinline__ T narrow(cumsum_acc_t<T> v) {
  if constexpr (is_float_v<T>) return cuda_cast<T>(v);
  else return cuda_cast<T>(int64_t(v));
}

template <class T>
__global__ void cumsum_columns_kernel(const T* in, T* out, int64_t outer, int64_t size, int64_t inner) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < outer * inner; c += stride) {
    const int64_t base = (c / inner) * size * inner + c % inner;
    cumsum_acc_t<T> acc = 0;
    for (int64_t j = 0; j < size; ++j) {
      acc += widen(in[base + j * inner]);
      out[base + j * inner] = narrow<T>(acc);
    }
  }
}

// Adds the running total of the tiles before to each tile's scan, and advances it.
template <class Acc>
struct RunningTotal {
  Acc total;
  __device__ Acc operator()(Acc tile_sum) {
    const Acc before = total;
    total += tile_sum;
    return before;
  }
};

constexpr int kScanItems = 4;  // elements per thread per tile

// One block per row of `size` contiguous elements.
template <class T>
__global__ void cumsum_rows_kernel(const T* in, T* out, int64_t rows, int64_t size) {
  using Acc = cumsum_acc_t<T>;
  using BlockScan = cub::BlockScan<Acc, kThreads>;
  __shared__ typename BlockScan::TempStorage tmp;
  constexpr int64_t kTile = int64_t(kThreads) * kScanItems;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * size;
    T* y = out + row * size;
    RunningTotal<Acc> prefix{Acc(0)};
    for (int64_t t = 0; t < size; t += kTile) {
      Acc v[kScanItems];
      const int64_t first = t + int64_t(threadIdx.x) * kScanItems;  // blocked arrangement
#pragma unroll
      for (int i = 0; i < kScanItems; ++i) v[i] = first + i < size ? widen(x[first + i]) : Acc(0);
      BlockScan(tmp).InclusiveSum(v, v, prefix);
      __syncthreads();  // tmp is reused by the next tile
#pragma unroll
      for (int i = 0; i < kScanItems; ++i)
        if (first + i < size) y[first + i] = narrow<T>(v[i]);
    }
  }
}

void cumsum_kernel(const DimArgs& a) {
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int device = cuda_device_of(a.in);
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    const T* in = reinterpret_cast<const T*>(a.in);
    T* out = reinterpret_cast<T*>(a.out);
    // A block per row pays off once rows are long; short rows take a thread each.
    if (a.inner == 1 && a.size >= 64) {
      const int64_t cap = int64_t(cuda_sm_count(device)) * 8;
      const unsigned blocks = unsigned(a.outer < cap ? a.outer : cap);
      cumsum_rows_kernel<T><<<blocks, kThreads, 0, stream>>>(in, out, a.outer, a.size);
    } else {
      cumsum_columns_kernel<T>
          <<<blocks_for(a.outer * a.inner, device), kThreads, 0, stream>>>(in, out, a.outer, a.size, a.inner);
    }
    EMBER_CUDA_CHECK(cudaGetLastError());
  };
  cuda_dispatch<kAllMask>("cuda cumsum", a.in_dtype, run);
}

}  // namespace

void register_cuda_dim_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  register_kernel(Op::Softmax, kCUDA, softmax_kernel<false>, fl);
  register_kernel(Op::LogSoftmax, kCUDA, softmax_kernel<true>, fl);
  register_kernel(Op::Cumsum, kCUDA, cumsum_kernel, DtypeSet::all());
}

}  // namespace ember::detail
