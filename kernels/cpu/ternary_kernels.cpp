// CPU kernels of where, lerp, addcmul and addcdiv.
#include "cpu/cpu_loops.h"
#include "core/dtype_dispatch.h"
#include "cpu/register_cpu.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {


// Operands: out, cond (bool), a, b (dtype).
void where_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    elementwise_kernel<T, bool, T, T>(a, [](bool c, T x, T y) -> T { return c ? x : y; });
  });
}

// lerp: start + weight * (end - start); weight is operand 3, or param[0] when scalar.
void lerp_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    elementwise_kernel<T, T, T, T>(a, [](M s, M e, M w) -> M {
      // torch's form: exact at w == 0 and w == 1.
      return std::abs(w) < M(0.5) ? s + w * (e - s) : e - (e - s) * (M(1) - w);
    });
  });
}

void addcmul_kernel(const ElementwiseArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      elementwise_kernel<T, T, T, T>(a, [](bool s, bool x, bool y) -> bool { return s || (x && y); });
    } else {
      const M v = kernel_param<M>(a.param[0]);
      elementwise_kernel<T, T, T, T>(a, [v](M s, M x, M y) -> M { return s + v * x * y; });
    }
  });
}

void addcdiv_kernel(const ElementwiseArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M v = kernel_param<M>(a.param[0]);
    elementwise_kernel<T, T, T, T>(a, [v](M s, M x, M y) -> M { return s + v * (x / y); });
  });
}

}  // namespace

void register_cpu_ternary_kernels() {
  const DtypeSet fl = DtypeSet::floating();
  const DtypeSet numeric = DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64}) | fl;
  register_kernel(Op::Where, kCPU, where_kernel, DtypeSet::all());
  register_kernel(Op::Lerp, kCPU, lerp_kernel, fl);
  register_kernel(Op::Addcmul, kCPU, addcmul_kernel, numeric);
  register_kernel(Op::Addcdiv, kCPU, addcdiv_kernel, fl);
}

}  // namespace ember::detail::EMBER_CPU_NS
