#pragma once
// Note [CUDA reductions]
// launch_reduce<T>(args, reducer) reduces a ReduceArgs (kept dims with in / out strides,
// reduced dims with in strides, as the CPU driver reads them) on the current stream of
// the input's device. A reducer R supplies, in device code,
//   Acc init(); void add(Acc&, T x, int64_t index); Acc combine(Acc earlier, Acc later);
//   void finish(const ReduceArgs&, int64_t out_offset, const Acc&)   (writes out / out_index)
// and combine must not depend on the order of its arguments beyond ties broken by index
// (the tree reductions below pair partials in no fixed order). Three kernels per (R, T):
//  - thread: one thread per output, serial over the reduced range; for short reductions,
//    and for "outer" reductions whose neighbouring outputs are neighbours in memory
//    (x.sum(0) of a row-major matrix), where the threads of a warp load one run together;
//  - columns: other outer reductions (x.sum(0) with few columns): the 32 lanes of a warp
//    take 32 neighbouring outputs, so every load is coalesced, and the 8 warps of a block
//    take every 8th row of the block's split of the reduced range, combined in shared memory;
//  - warp: one warp per (output, split) work item, lanes striding the item's chunk of the
//    reduced range, then a shuffle tree (cub::WarpReduce); with a unit-stride reduced dim
//    each lane loads 16 bytes at a time. With few outputs, the reduced range is split so
//    that the GPU fills up, and each split writes its Acc into scratch memory from ember's
//    caching allocator (stream-ordered: freed when the launch is queued);
//  - partials: one warp per output combines its splits and finishes (the second pass).
// Each thread adds its elements in increasing index order (the extreme reducers keep the
// first index of a tie that way); partials of different threads meet only in combine.
// Accumulation differs from the CPU: float for Half / BFloat16 / Float and double for
// Double (the CPU sums floats in double); integers and bool in wrapping 64-bit, as on the CPU.

#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cstdint>
#include <type_traits>

#include "cuda/cuda_context.h"
#include "cuda/cuda_dtype.cuh"
#include "ember/kernel_args.h"

namespace ember::detail {

constexpr int kReduceWarps = 8;  // warps per block of the warp and partials kernels
constexpr int kReduceThreads = 32 * kReduceWarps;

/// Accumulator of floating sums: float for 16-bit floats and float, double for double,
/// wrapping uint64 for integers and bool.
template <class T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                     std::conditional_t<is_float_v<T>, float, uint64_t>>;
/// Floating accumulator of statistics (var, norm, logsumexp): double for double, else float.
template <class T>
using float_acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// Writes v into an element of dtype dt, as cast_to does on the CPU (one switch per
/// output, not per element; not inlined, so each kernel carries one copy less).
__device__ __noinline__ inline void store_f(ScalarType dt, char* p, double v) {
  switch (dt) {
    case kBool: *reinterpret_cast<bool*>(p) = cuda_cast<bool>(v); break;
    case kUInt8: *reinterpret_cast<uint8_t*>(p) = cuda_cast<uint8_t>(v); break;
    case kInt8: *reinterpret_cast<int8_t*>(p) = cuda_cast<int8_t>(v); break;
    case kInt16: *reinterpret_cast<int16_t*>(p) = cuda_cast<int16_t>(v); break;
    case kInt32: *reinterpret_cast<int32_t*>(p) = cuda_cast<int32_t>(v); break;
    case kInt64: *reinterpret_cast<int64_t*>(p) = cuda_cast<int64_t>(v); break;
    case kHalf: *reinterpret_cast<Half*>(p) = cuda_cast<Half>(v); break;
    case kBFloat16: *reinterpret_cast<BFloat16*>(p) = cuda_cast<BFloat16>(v); break;
    case kFloat: *reinterpret_cast<float*>(p) = cuda_cast<float>(v); break;
    case kDouble: *reinterpret_cast<double*>(p) = v; break;
  }
}
__device__ __noinline__ inline void store_i(ScalarType dt, char* p, int64_t v) {
  switch (dt) {
    case kBool: *reinterpret_cast<bool*>(p) = cuda_cast<bool>(v); break;
    case kUInt8: *reinterpret_cast<uint8_t*>(p) = cuda_cast<uint8_t>(v); break;
    case kInt8: *reinterpret_cast<int8_t*>(p) = cuda_cast<int8_t>(v); break;
    case kInt16: *reinterpret_cast<int16_t*>(p) = cuda_cast<int16_t>(v); break;
    case kInt32: *reinterpret_cast<int32_t*>(p) = cuda_cast<int32_t>(v); break;
    case kInt64: *reinterpret_cast<int64_t*>(p) = v; break;
    case kHalf: *reinterpret_cast<Half*>(p) = cuda_cast<Half>(v); break;
    case kBFloat16: *reinterpret_cast<BFloat16*>(p) = cuda_cast<BFloat16>(v); break;
    case kFloat: *reinterpret_cast<float*>(p) = cuda_cast<float>(v); break;
    case kDouble: *reinterpret_cast<double*>(p) = cuda_cast<double>(v); break;
  }
}

/// Stores a reducer's value (double or integer) at output offset `off`.
template <class V>
__device__ __forceinline__ void store_out(const ReduceArgs& a, int64_t off, V v) {
  char* p = a.out + off * int64_t(element_size(a.out_dtype));
  if constexpr (std::is_floating_point_v<V>) store_f(a.out_dtype, p, double(v));
  else store_i(a.out_dtype, p, int64_t(v));
}

/// Element offsets of output k's first input element and of output k.
__device__ __forceinline__ void reduce_output_offsets(const ReduceArgs& a, int64_t k, int64_t& in_off,
                                                      int64_t& out_off) {
  in_off = out_off = 0;
  for (int d = 0; d < a.nkept; ++d) {
    const int64_t i = k % a.kept_sizes[d];
    k /= a.kept_sizes[d];
    in_off += i * a.kept_in_strides[d];
    out_off += i * a.kept_out_strides[d];
  }
}

/// Element offset of reduced element r (flat, innermost reduced dim fastest).
__device__ __forceinline__ int64_t reduce_input_offset(const ReduceArgs& a, int64_t r) {
  if (a.nreduced == 1) return r * a.reduced_in_strides[0];
  int64_t off = 0;
  for (int d = 0; d < a.nreduced; ++d) {
    off += (r % a.reduced_sizes[d]) * a.reduced_in_strides[d];
    r /= a.reduced_sizes[d];
  }
  return off;
}

template <class R>
struct CombineOp {
  R r;
  template <class Acc>
  __device__ __forceinline__ Acc operator()(const Acc& x, const Acc& y) const {
    return r.combine(x, y);
  }
};

template <class T, class R>
__global__ void reduce_thread_kernel(ReduceArgs a, R r) {
  const T* in = reinterpret_cast<const T*>(a.in);
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < a.num_outputs; k += stride) {
    int64_t in_off, out_off;
    reduce_output_offsets(a, k, in_off, out_off);
    auto acc = r.init();
    for (int64_t i = 0; i < a.reduce_size; ++i) r.add(acc, in[in_off + reduce_input_offset(a, i)], i);
    r.finish(a, out_off, acc);
  }
}

// Work item w = output w / splits, chunk w % splits of its reduced range.
template <class T, class R>
__global__ void reduce_warp_kernel(ReduceArgs a, R r, int64_t splits, int64_t chunk,
                                   typename R::Acc* partial) {
  using Acc = typename R::Acc;
  using WarpReduce = cub::WarpReduce<Acc>;
  __shared__ typename WarpReduce::TempStorage tmp[kReduceWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const T* in = reinterpret_cast<const T*>(a.in);
  const int64_t items = a.num_outputs * splits;
  const int64_t step = int64_t(gridDim.x) * kReduceWarps;
  for (int64_t w = int64_t(blockIdx.x) * kReduceWarps + warp; w < items; w += step) {
    const int64_t k = w / splits, b = (w % splits) * chunk;
    const int64_t e = b + chunk < a.reduce_size ? b + chunk : a.reduce_size;
    int64_t in_off, out_off;
    reduce_output_offsets(a, k, in_off, out_off);
    Acc acc = r.init();
    for (int64_t i = b + lane; i < e; i += 32) r.add(acc, in[in_off + reduce_input_offset(a, i)], i);
    acc = WarpReduce(tmp[warp]).Reduce(acc, CombineOp<R>{r});
    if (lane == 0) {
      if (partial) partial[w] = acc;
      else r.finish(a, out_off, acc);
    }
    __syncwarp();  // tmp[warp] is reused by the next item
  }
}

template <class T>
struct alignas(16) Vec16 {
  T v[16 / sizeof(T)];
};

// As reduce_warp_kernel, for one unit-stride reduced dim: each lane reads 16 bytes at a
// time, after the few elements before the first 16-byte boundary of its item.
template <class T, class R>
__global__ void reduce_warp_contig_kernel(ReduceArgs a, R r, int64_t splits, int64_t chunk,
                                          typename R::Acc* partial) {
  using Acc = typename R::Acc;
  using WarpReduce = cub::WarpReduce<Acc>;
  constexpr int kVec = int(16 / sizeof(T));
  __shared__ typename WarpReduce::TempStorage tmp[kReduceWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t items = a.num_outputs * splits;
  const int64_t step = int64_t(gridDim.x) * kReduceWarps;
  for (int64_t w = int64_t(blockIdx.x) * kReduceWarps + warp; w < items; w += step) {
    const int64_t k = w / splits, b = (w % splits) * chunk;
    const int64_t e = b + chunk < a.reduce_size ? b + chunk : a.reduce_size;
    const int64_t len = e > b ? e - b : 0;
    int64_t in_off, out_off;
    reduce_output_offsets(a, k, in_off, out_off);
    const T* x = reinterpret_cast<const T*>(a.in) + in_off;  // reduced element i at x[i]
    Acc acc = r.init();
    const uintptr_t misalign = reinterpret_cast<uintptr_t>(x + b) % 16;
    int64_t head = int64_t((16 - misalign) % 16 / sizeof(T));
    if (head > len) head = len;
    if (lane < head) r.add(acc, x[b + lane], b + lane);
    const int64_t vb = b + head, nvec = (len - head) / kVec;
    const Vec16<T>* xv = reinterpret_cast<const Vec16<T>*>(x + vb);
    // Four loads in flight per lane before their adds (in index order) keep HBM busy.
    int64_t v = lane;
    for (; v + 96 < nvec; v += 128) {
      Vec16<T> q[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) q[u] = xv[v + 32 * u];
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int j = 0; j < kVec; ++j) r.add(acc, q[u].v[j], vb + (v + 32 * u) * kVec + j);
    }
    for (; v < nvec; v += 32) {
      const Vec16<T> chunk_v = xv[v];
#pragma unroll
      for (int j = 0; j < kVec; ++j) r.add(acc, chunk_v.v[j], vb + v * kVec + j);
    }
    for (int64_t i = vb + nvec * kVec + lane; i < e; i += 32) r.add(acc, x[i], i);
    acc = WarpReduce(tmp[warp]).Reduce(acc, CombineOp<R>{r});
    if (lane == 0) {
      if (partial) partial[w] = acc;
      else r.finish(a, out_off, acc);
    }
    __syncwarp();  // tmp[warp] is reused by the next item
  }
}

// Block (x, y): outputs 32x .. 32x + 31 (one per lane), split y of the reduced range
// (rows [y * chunk, (y + 1) * chunk)), warp w taking rows w, w + 8, ... of it.
template <class T, class R>
__global__ void reduce_columns_kernel(ReduceArgs a, R r, int64_t splits, int64_t chunk,
                                      typename R::Acc* partial) {
  using Acc = typename R::Acc;
  __shared__ alignas(16) unsigned char raw[sizeof(Acc) * kReduceThreads];  // Acc may not be trivially constructible
  Acc* parts = reinterpret_cast<Acc*>(raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t k = int64_t(blockIdx.x) * 32 + lane, s = blockIdx.y;
  const int64_t b = s * chunk, e = b + chunk < a.reduce_size ? b + chunk : a.reduce_size;
  const T* in = reinterpret_cast<const T*>(a.in);
  Acc acc = r.init();
  int64_t in_off = 0, out_off = 0;
  if (k < a.num_outputs) {
    reduce_output_offsets(a, k, in_off, out_off);
    int64_t i = b + warp;
    if (a.nreduced == 1) {
      // Four rows' loads in flight per thread before their adds (in row order).
      const T* p = in + in_off;
      const int64_t rs = a.reduced_in_strides[0];
      for (; i + 3 * kReduceWarps < e; i += 4 * kReduceWarps) {
        T q[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) q[u] = p[(i + u * kReduceWarps) * rs];
#pragma unroll
        for (int u = 0; u < 4; ++u) r.add(acc, q[u], i + u * kReduceWarps);
      }
    }
    for (; i < e; i += kReduceWarps) r.add(acc, in[in_off + reduce_input_offset(a, i)], i);
  }
  parts[threadIdx.x] = acc;
  __syncthreads();
  if (warp == 0 && k < a.num_outputs) {
    for (int w2 = 1; w2 < kReduceWarps; ++w2) acc = r.combine(acc, parts[w2 * 32 + lane]);
    if (partial) partial[k * splits + s] = acc;
    else r.finish(a, out_off, acc);
  }
}

template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T v[4];
};

// As reduce_columns_kernel with four neighbouring outputs per lane, read as one vector
// (16 bytes for float): block x takes outputs 128x .. 128x + 127. Needs one kept dim of
// unit stride, a vector-aligned input and row stride, and num_outputs % 4 == 0.
template <class T, class R>
__global__ void reduce_columns_vec_kernel(ReduceArgs a, R r, int64_t splits, int64_t chunk,
                                          typename R::Acc* partial) {
  using Acc = typename R::Acc;
  __shared__ alignas(16) unsigned char raw[sizeof(Acc) * kReduceThreads];
  Acc* parts = reinterpret_cast<Acc*>(raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t k0 = (int64_t(blockIdx.x) * 32 + lane) * 4, s = blockIdx.y;
  const int64_t b = s * chunk, e = b + chunk < a.reduce_size ? b + chunk : a.reduce_size;
  const bool active = k0 < a.num_outputs;
  const int64_t rs = a.reduced_in_strides[0] / 4;  // in vectors
  const Vec4<T>* p = reinterpret_cast<const Vec4<T>*>(a.in) + k0 / 4;
  Acc acc[4] = {r.init(), r.init(), r.init(), r.init()};
  if (active) {
    int64_t i = b + warp;
    for (; i + kReduceWarps < e; i += 2 * kReduceWarps) {  // two rows' loads in flight
      const Vec4<T> q0 = p[i * rs], q1 = p[(i + kReduceWarps) * rs];
#pragma unroll
      for (int j = 0; j < 4; ++j) r.add(acc[j], q0.v[j], i);
#pragma unroll
      for (int j = 0; j < 4; ++j) r.add(acc[j], q1.v[j], i + kReduceWarps);
    }
    if (i < e) {
      const Vec4<T> q = p[i * rs];
#pragma unroll
      for (int j = 0; j < 4; ++j) r.add(acc[j], q.v[j], i);
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    parts[threadIdx.x] = acc[j];
    __syncthreads();
    if (warp == 0 && active) {
      Acc c = acc[j];
      for (int w2 = 1; w2 < kReduceWarps; ++w2) c = r.combine(c, parts[w2 * 32 + lane]);
      const int64_t k = k0 + j;
      if (partial) partial[k * splits + s] = c;
      else r.finish(a, k * a.kept_out_strides[0], c);
    }
    __syncthreads();
  }
}

// The second pass for many splits per output: a block per output, each thread combining
// a strided share of the splits (four loads in flight), then a block-wide tree.
template <class R>
__global__ void reduce_partials_block_kernel(ReduceArgs a, R r, int64_t splits, const typename R::Acc* partial) {
  using Acc = typename R::Acc;
  using BlockReduce = cub::BlockReduce<Acc, kReduceThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  for (int64_t k = blockIdx.x; k < a.num_outputs; k += gridDim.x) {
    const Acc* p = partial + k * splits;
    Acc acc = r.init();
    int64_t s = threadIdx.x;
    for (; s + 3 * kReduceThreads < splits; s += 4 * kReduceThreads) {
      const Acc q0 = p[s], q1 = p[s + kReduceThreads], q2 = p[s + 2 * kReduceThreads], q3 = p[s + 3 * kReduceThreads];
      acc = r.combine(r.combine(acc, q0), r.combine(q1, r.combine(q2, q3)));
    }
    for (; s < splits; s += kReduceThreads) acc = r.combine(acc, p[s]);
    acc = BlockReduce(tmp).Reduce(acc, CombineOp<R>{r});
    if (threadIdx.x == 0) {
      int64_t in_off, out_off;
      reduce_output_offsets(a, k, in_off, out_off);
      r.finish(a, out_off, acc);
    }
    __syncthreads();  // tmp is reused by the next output
  }
}

template <class R>
__global__ void reduce_partials_kernel(ReduceArgs a, R r, int64_t splits, const typename R::Acc* partial) {
  using Acc = typename R::Acc;
  using WarpReduce = cub::WarpReduce<Acc>;
  __shared__ typename WarpReduce::TempStorage tmp[kReduceWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t step = int64_t(gridDim.x) * kReduceWarps;
  for (int64_t k = int64_t(blockIdx.x) * kReduceWarps + warp; k < a.num_outputs; k += step) {
    Acc acc = r.init();
    for (int64_t s = lane; s < splits; s += 32) acc = r.combine(acc, partial[k * splits + s]);
    acc = WarpReduce(tmp[warp]).Reduce(acc, CombineOp<R>{r});
    if (lane == 0) {
      int64_t in_off, out_off;
      reduce_output_offsets(a, k, in_off, out_off);
      r.finish(a, out_off, acc);
    }
    __syncwarp();
  }
}


/// The second pass: a warp per output for few splits, a block per output for many.
template <class R>
void launch_partials(const ReduceArgs& a, const R& r, int64_t splits, const typename R::Acc* partial,
                     int64_t sms, cudaStream_t stream) {
  const int64_t n_out = a.num_outputs;
  if (splits > 128) {
    const int64_t cap = sms * 8;
    reduce_partials_block_kernel<R><<<unsigned(n_out < cap ? n_out : cap), kReduceThreads, 0, stream>>>(a, r, splits,
                                                                                                      partial);
  } else {
    const int64_t b = (n_out * 32 + kReduceThreads - 1) / kReduceThreads, cap = sms * 8;
    reduce_partials_kernel<R><<<unsigned(b < cap ? b : cap), kReduceThreads, 0, stream>>>(a, r, splits, partial);
  }
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T, class R>
void launch_reduce(const ReduceArgs& a, const R& r) {
  using Acc = typename R::Acc;
  const int64_t n_out = a.num_outputs, n_red = a.reduce_size;
  if (n_out == 0) return;
  const int device = cuda_device_of(a.in);
  CudaDeviceGuard guard(device);
  cudaStream_t stream = cuda_current_stream(device);
  const int64_t sms = cuda_sm_count(device);
  auto blocks_for = [&](int64_t threads) {
    const int64_t b = (threads + kReduceThreads - 1) / kReduceThreads, cap = sms * 8;
    return unsigned(b < 1 ? 1 : b < cap ? b : cap);
  };
  // Neighbouring outputs are neighbours in the input, and each walks a strided dim.
  const bool outer = a.nkept >= 1 && a.kept_in_strides[0] == 1 && a.reduced_in_strides[0] != 1;
  if (n_red <= 16 || (outer && n_out >= sms * 512)) {
    reduce_thread_kernel<T, R><<<blocks_for(n_out), kReduceThreads, 0, stream>>>(a, r);
    EMBER_CUDA_CHECK(cudaGetLastError());
    return;
  }
  if (outer) {
    // Four outputs per lane when they can be read as one aligned vector.
    const bool vec4 = a.nkept == 1 && a.nreduced == 1 && n_out % 4 == 0 && a.reduced_in_strides[0] % 4 == 0 &&
                      reinterpret_cast<uintptr_t>(a.in) % (4 * sizeof(T)) == 0;
    // Enough blocks to fill the GPU, each warp walking at least 16 rows.
    const int64_t col_blocks = vec4 ? (n_out + 127) / 128 : (n_out + 31) / 32;
    int64_t splits = (sms * 8 + col_blocks - 1) / col_blocks;
    const int64_t max_splits = (n_red + kReduceWarps * 16 - 1) / (kReduceWarps * 16);
    if (splits > max_splits) splits = max_splits;
    if (splits > 65535) splits = 65535;
    if (splits < 1) splits = 1;
    const int64_t chunk = (n_red + splits - 1) / splits;
    const dim3 grid{unsigned(col_blocks), unsigned(splits), 1};
    auto columns_pass = [&](int64_t sp, Acc* partial) {
      if (vec4)
        reduce_columns_vec_kernel<T, R><<<grid, kReduceThreads, 0, stream>>>(a, r, sp, chunk, partial);
      else
        reduce_columns_kernel<T, R><<<grid, kReduceThreads, 0, stream>>>(a, r, sp, chunk, partial);
      EMBER_CUDA_CHECK(cudaGetLastError());
    };
    if (splits == 1) {
      columns_pass(1, nullptr);
      return;
    }
    CudaScratch scratch(device, size_t(n_out * splits) * sizeof(Acc));
    Acc* partial = static_cast<Acc*>(scratch.get());
    columns_pass(splits, partial);
    launch_partials(a, r, splits, partial, sms, stream);
    return;
  }
  const bool contig = a.nreduced == 1 && a.reduced_in_strides[0] == 1;
  auto warp_pass = [&](int64_t splits, int64_t chunk, Acc* partial) {
    const unsigned blocks = blocks_for(n_out * splits * 32);
    if (contig)
      reduce_warp_contig_kernel<T, R><<<blocks, kReduceThreads, 0, stream>>>(a, r, splits, chunk, partial);
    else
      reduce_warp_kernel<T, R><<<blocks, kReduceThreads, 0, stream>>>(a, r, splits, chunk, partial);
    EMBER_CUDA_CHECK(cudaGetLastError());
  };
  // Enough warps to fill the GPU (64 per SM), each with at least 1024 elements of its output.
  const int64_t target = sms * 64;
  int64_t splits = n_out >= target ? 1 : (target + n_out - 1) / n_out;
  const int64_t max_splits = (n_red + 1023) / 1024;
  if (splits > max_splits) splits = max_splits;
  if (splits > 16384) splits = 16384;
  if (splits <= 1) {
    warp_pass(1, n_red, nullptr);
    return;
  }
  // Chunks of whole 16-byte vectors of every lane keep each chunk's start aligned.
  const int64_t chunk = ((n_red + splits - 1) / splits + 511) / 512 * 512;
  CudaScratch scratch(device, size_t(n_out * splits) * sizeof(Acc));
  Acc* partial = static_cast<Acc*>(scratch.get());
  warp_pass(splits, chunk, partial);
  launch_partials(a, r, splits, partial, sms, stream);
}

}  // namespace ember::detail
