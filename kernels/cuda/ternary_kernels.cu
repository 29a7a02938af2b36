// CUDA kernels of where, lerp, addcmul and addcdiv: the dtype sets and semantics of
// kernels/cpu/ternary_kernels.cpp.
#include "cuda/cuda_kernels.h"
#include "cuda/elementwise_launch.cuh"
#include "ember/registry.h"

namespace ember::detail {

namespace {

template <class T>
struct WhereOp {
  __device__ T operator()(bool c, T x, T y) const { return c ? x : y; }
};
template <class M>
struct LerpOp {  // torch's form: exact at w == 0 and w == 1
  __device__ M operator()(M s, M e, M w) const {
    return m_fabs(w) < M(0.5) ? s + w * (e - s) : e - (e - s) * (M(1) - w);
  }
};
template <class M>
struct AddcmulOp {
  M v;
  __device__ M operator()(M s, M x, M y) const { return s + v * x * y; }
};
template <class M>
struct AddcdivOp {
  M v;
  __device__ M operator()(M s, M x, M y) const { return s + v * (x / y); }
};

// Operands: out, cond (bool), a, b (dtype).
void where_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kAllMask>("cuda where", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, bool, T, T>(a, WhereOp<T>{});
  });
}

// The weight is operand 3 (a Scalar weight arrives as a scalar operand).
void lerp_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda lerp", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, T, T, T>(a, LerpOp<cuda_opmath_t<T>>{});
  });
}

void addcmul_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kNumericMask>("cuda addcmul", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    launch_elementwise<T, T, T, T>(a, AddcmulOp<M>{param_as<M>(a.param[0])});
  });
}

void addcdiv_kernel(const ElementwiseArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda addcdiv", a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = cuda_opmath_t<T>;
    launch_elementwise<T, T, T, T>(a, AddcdivOp<M>{param_as<M>(a.param[0])});
  });
}

}  // namespace

void register_cuda_ternary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  register_kernel(Op::Where, kCUDA, where_kernel, DtypeSet::all());
  register_kernel(Op::Lerp, kCUDA, lerp_kernel, fl);
  register_kernel(Op::Addcmul, kCUDA, addcmul_kernel, numeric);
  register_kernel(Op::Addcdiv, kCUDA, addcdiv_kernel, fl);
}

}  // namespace ember::detail
