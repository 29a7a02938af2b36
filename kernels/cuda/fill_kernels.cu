// CUDA kernels that write without reading a tensor (fill, arange/linspace, random) and
// the dtype-converting copy: the semantics of kernels/cpu/fill_kernels.cpp. Random
// values come from ember/detail_random.h, so a seed gives the same numbers as on the
// CPU; the double arithmetic around them is written with __dadd_rn / __dmul_rn so nvcc
// does not fuse it into FMAs the CPU build does not use.
#include "cuda/cuda_kernels.h"
#include "cuda/elementwise_launch.cuh"
#include "ember/detail_random.h"
#include "ember/registry.h"
#include "iter/transpose_plan.h"

namespace ember::detail {

namespace {

// Element i of the output (its linear index in the output's shape, as on the CPU).
template <class T, class F>
__global__ void indexed_kernel(int64_t n, T* out, OffsetCalculator<1> calc, bool contiguous, F f) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t off[1] = {i};
    if (!contiguous) calc.get(i, off);
    out[off[0]] = f(i);
  }
}

template <class T, class F>
void launch_indexed(const ElementwiseArgs& a, F f) {
  const int64_t n = a.numel;
  if (n == 0) return;
  const int device = cuda_device_of(a.data[0]);
  CudaDeviceGuard guard(device);
  const bool contiguous = a.contiguous && (a.strides[0][0] == 1 || n == 1);
  indexed_kernel<T, F><<<grid_for(n), kBlockThreads, 0, cuda_current_stream(device)>>>(
      n, reinterpret_cast<T*>(a.data[0]), OffsetCalculator<1>(a), contiguous, f);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

template <class T>
struct FillOp {
  T v;
  __device__ T operator()() const { return v; }
};

template <class T>
struct LinspaceOp {
  double start, step, end;
  int64_t steps, half;
  __device__ T operator()(int64_t i) const {
    const double v = i < half ? __dadd_rn(start, __dmul_rn(step, double(i)))
                              : __dsub_rn(end, __dmul_rn(step, double(steps - i - 1)));
    return cuda_cast<T>(v);
  }
};
template <class T>
struct ArangeFloatOp {
  double start, step;
  __device__ T operator()(int64_t i) const { return cuda_cast<T>(__dadd_rn(start, __dmul_rn(double(i), step))); }
};
template <class T>
struct ArangeIntOp {
  int64_t start, step;
  __device__ T operator()(int64_t i) const { return cuda_cast<T>(start + i * step); }
};
template <class T>
struct UniformOp {
  uint64_t seed, offset;
  double lo, span;
  static constexpr int kDigits = mantissa_digits<T>();  // as the CPU: T's significand bits
  __device__ T operator()(int64_t i) const {
    return cuda_cast<T>(__dadd_rn(lo, __dmul_rn(span, random_uniform(seed, offset + uint64_t(i), kDigits))));
  }
};
template <class T>
struct NormalOp {
  uint64_t seed, offset;
  double mean, std;
  __device__ T operator()(int64_t i) const {
    return cuda_cast<T>(__dadd_rn(mean, __dmul_rn(std, random_normal(seed, normal_counter(offset, uint64_t(i))))));
  }
};
template <class T>
struct RandIntOp {
  uint64_t seed, offset;
  int64_t lo;
  uint64_t range;
  __device__ T operator()(int64_t i) const {
    // In uint64, where wrapping is defined: ranges up to 2^64 - 1 and any base.
    return cuda_cast<T>(int64_t(random_bits(seed, offset + uint64_t(i)) % range + uint64_t(lo)));
  }
};
template <class To, class From>
struct CastOp {
  __device__ To operator()(From x) const { return cuda_cast<To>(x); }
};

void fill_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda fill", a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    if constexpr (std::is_same_v<T, bool>) v = a.param[0].f != 0;  // as the CPU: 0.5 fills true
    else if constexpr (is_float_v<T>) v = T(cuda_opmath_t<T>(a.param[0].f));
    else v = cuda_cast<T>(a.param[0].i);
    launch_elementwise<T>(a, FillOp<T>{v});
  });
}

// arange: start + i * step; linspace (has_param[2]) mirrors torch's two-sided formula.
void arange_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda arange", a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (a.has_param[2]) {
      const int64_t steps = a.param[2].i;
      launch_indexed<T>(a, LinspaceOp<T>{a.param[0].f, a.param[1].f, a.param[2].f, steps, steps / 2});
    } else if constexpr (is_float_v<T>) {
      launch_indexed<T>(a, ArangeFloatOp<T>{a.param[0].f, a.param[1].f});
    } else {
      launch_indexed<T>(a, ArangeIntOp<T>{a.param[0].i, a.param[1].i});
    }
  });
}

void uniform_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda uniform", a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_indexed<T>(a, UniformOp<T>{a.seed, a.offset, a.param[0].f, a.param[1].f - a.param[0].f});
  });
}

void normal_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda normal", a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_indexed<T>(a, NormalOp<T>{a.seed, a.offset, a.param[0].f, a.param[1].f});
  });
}

void randint_kernel(const ElementwiseArgs& a) {
  const uint64_t range = uint64_t(a.param[1].i) - uint64_t(a.param[0].i);  // mod 2^64 (RandIntMode)
  cuda_dispatch<kAllMask>("cuda randint", a.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_indexed<T>(a, RandIntOp<T>{a.seed, a.offset, a.param[0].i, range});
  });
}

constexpr int kTile = 32, kTileRows = 8;

// A 2-D transposing copy through a shared-memory tile (see iter/transpose_plan.h): the
// block reads a 32 x 32 tile along dim 1, where the input is unit-stride, and writes it
// along dim 0, where the output is; both sides coalesce. U: an unsigned type of the
// element's size (the copy moves bits; the padding column avoids bank conflicts).
template <class U>
__global__ void transpose_copy_kernel(U* out, const U* in, TransposePlan p) {
  __shared__ U tile[kTile][kTile + 1];
  const int64_t t0 = int64_t(blockIdx.x) * kTile, t1 = int64_t(blockIdx.y) * kTile;
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int64_t i0 = t0 + r, i1 = t1 + threadIdx.x;
    if (i0 < p.n0 && i1 < p.n1) tile[r][threadIdx.x] = in[i0 * p.in_stride0 + i1];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int64_t i0 = t0 + threadIdx.x, i1 = t1 + r;
    if (i0 < p.n0 && i1 < p.n1) out[i0 + i1 * p.out_stride1] = tile[threadIdx.x][r];
  }
}

template <class U>
void launch_transpose_copy(const ElementwiseArgs& a, const TransposePlan& p, cudaStream_t stream) {
  const dim3 grid(unsigned((p.n0 + kTile - 1) / kTile), unsigned((p.n1 + kTile - 1) / kTile));
  transpose_copy_kernel<U><<<grid, dim3(kTile, kTileRows), 0, stream>>>(reinterpret_cast<U*>(a.data[0]),
                                                                        reinterpret_cast<const U*>(a.data[1]), p);
  EMBER_CUDA_CHECK(cudaGetLastError());
}

// Same dtype, both unit-stride: a device-to-device memcpy; a 2-D transpose: tiles.
// Otherwise one kernel per (from, to) pair, without the vectorised variant (100 pairs).
void copy_kernel(const ElementwiseArgs& a) {
  const TransposePlan tp = plan_transpose_copy(a, kTile, 65535);
  if (tp.tiled) {
    const int device = cuda_device_of(a.data[0]);
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    switch (element_size(a.dtype)) {
      case 1: return launch_transpose_copy<uint8_t>(a, tp, stream);
      case 2: return launch_transpose_copy<uint16_t>(a, tp, stream);
      case 4: return launch_transpose_copy<uint32_t>(a, tp, stream);
      default: return launch_transpose_copy<uint64_t>(a, tp, stream);
    }
  }
  if (a.dtype == a.out_dtype && a.contiguous && a.strides[0][0] == 1 && a.strides[1][0] == 1 && !a.is_scalar[1]) {
    const int device = cuda_device_of(a.data[0]);
    CudaDeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(a.data[0], a.data[1], size_t(a.numel) * element_size(a.dtype),
                                     cudaMemcpyDeviceToDevice, cuda_current_stream(device)));
    return;
  }
  cuda_dispatch<kAllMask>("cuda copy", a.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    cuda_dispatch<kAllMask>("cuda copy", a.dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      launch_elementwise_impl<false, To, From>(a, CastOp<To, From>{});
    });
  });
}

}  // namespace

void register_cuda_fill_kernels() {
  const DtypeSet all = DtypeSet::all();
  register_kernel(Op::Fill, kCUDA, fill_kernel, all);
  register_kernel(Op::Arange, kCUDA, arange_kernel, all);
  register_kernel(Op::Uniform, kCUDA, uniform_kernel, DtypeSet::floating());
  register_kernel(Op::Normal, kCUDA, normal_kernel, DtypeSet::floating());
  register_kernel(Op::RandInt, kCUDA, randint_kernel, all);
  register_kernel(Op::Copy, kCUDA, copy_kernel, all);
}

}  // namespace ember::detail
