// CUDA kernels of the reductions (sum .. logsumexp), with the dtype sets and argument
// conventions of kernels/cpu/reduce_kernels.cpp (see kernel_args.h) over the launcher of
// reduce_launch.cuh. Differences from the CPU: floating sums, products, variances, norms
// and logsumexp accumulate in float for Half / BFloat16 / Float (double for Double) and
// in a tree order, so results differ from the CPU's double sums by float rounding.
#include <cmath>

#include "cuda/cuda_kernels.h"
#include "cuda/reduce_launch.cuh"
#include "ember/registry.h"

namespace ember::detail {

namespace {

template <class T>
using M_t = cuda_opmath_t<T>;

// ---- sum / mean and prod (floats in sum_acc_t, integers and bool in wrapping uint64)
template <class T, bool kProd>
struct SumR {
  using Acc = sum_acc_t<T>;
  bool mean = false;
  int64_t count = 1;
  __device__ Acc init() const { return Acc(kProd ? 1 : 0); }
  __device__ void add(Acc& acc, T x, int64_t) const {
    Acc v;
    if constexpr (is_float_v<T>) v = Acc(M_t<T>(x));
    else v = Acc(int64_t(x));
    if constexpr (kProd) acc *= v;
    else acc += v;
  }
  __device__ Acc combine(Acc a, Acc b) const { return kProd ? Acc(a * b) : Acc(a + b); }
  __device__ void finish(const ReduceArgs& a, int64_t off, Acc acc) const {
    if constexpr (is_float_v<T>) store_out(a, off, mean ? acc / Acc(count) : acc);
    else store_out(a, off, int64_t(acc));
  }
};

// ---- max / min and argmax / argmin: the first index of the extreme, NaN the extreme
template <class T, bool kMax>
struct ExtremeR {
  using M = M_t<T>;
  struct Acc {
    M v;
    int64_t i;
  };
  __device__ static bool better(M x, M cur) {
    if (cur != cur) return false;  // NaN (never true for integers)
    if (x != x) return true;
    return kMax ? x > cur : x < cur;
  }
  __device__ Acc init() const { return {M(0), -1}; }
  __device__ void add(Acc& acc, T x, int64_t i) const {
    const M v = M(x);
    if (acc.i < 0 || better(v, acc.v)) acc = {v, i};
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if (better(b.v, a.v)) return b;
    if (better(a.v, b.v)) return a;
    return a.i <= b.i ? a : b;  // equal (or both NaN): the first index
  }
  __device__ void finish(const ReduceArgs& a, int64_t off, const Acc& acc) const {
    if (a.out) store_out(a, off, acc.v);
    if (a.out_index) reinterpret_cast<int64_t*>(a.out_index)[off] = acc.i;
  }
};

// ---- all / any (any dtype; bool result). An element is nonzero when any of its bits
// but a floating sign bit is set (-0.0 is zero, NaN is not), so the kernels are per
// element size, not per dtype.
template <class U, bool kAll>
struct LogicalR {
  using Acc = bool;
  U value_bits;
  __device__ Acc init() const { return kAll; }
  __device__ void add(Acc& acc, U x, int64_t) const {
    const bool nz = (x & value_bits) != 0;
    acc = kAll ? (acc && nz) : (acc || nz);
  }
  __device__ Acc combine(Acc a, Acc b) const { return kAll ? (a && b) : (a || b); }
  __device__ void finish(const ReduceArgs& a, int64_t off, Acc acc) const { store_out(a, off, int64_t(acc)); }
};

// ---- var / std: Welford per thread, merged with Chan's formula
template <class T>
struct VarR {
  using A = float_acc_t<T>;
  struct Acc {
    int64_t n;
    A mean, m2;
  };
  A correction = 1;
  bool take_sqrt = false;
  __device__ Acc init() const { return {0, A(0), A(0)}; }
  __device__ void add(Acc& acc, T x, int64_t) const {
    const A v = A(M_t<T>(x));
    acc.n += 1;
    const A d = v - acc.mean;
    acc.mean += d / A(acc.n);
    acc.m2 += d * (v - acc.mean);
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const int64_t n = a.n + b.n;
    const A delta = b.mean - a.mean, nb = A(b.n) / A(n);
    return {n, a.mean + delta * nb, a.m2 + b.m2 + delta * delta * A(a.n) * nb};
  }
  __device__ void finish(const ReduceArgs& a, int64_t off, const Acc& acc) const {
    const A den = A(acc.n) - correction;
    const A v = acc.m2 / (den > A(0) ? den : A(0));
    store_out(a, off, take_sqrt ? m_sqrt(v) : v);
  }
};

// ---- norm: p = 0 (count of nonzeros), 1, 2, inf, -inf, and any other p
enum class NormKind : int { Zero, One, Two, Inf, NegInf, General };

template <class T>
struct NormR {
  using A = float_acc_t<T>;
  using Acc = A;
  NormKind kind = NormKind::Two;
  A p = 2;
  __device__ bool is_extreme() const { return kind == NormKind::Inf || kind == NormKind::NegInf; }
  __device__ Acc init() const { return kind == NormKind::NegInf ? A(INFINITY) : A(0); }
  __device__ A extreme(A v, A x) const {
    if (v != v) return v;
    return (x != x || (kind == NormKind::Inf ? x > v : x < v)) ? x : v;
  }
  __device__ void add(Acc& acc, T x, int64_t) const {
    const A v = m_fabs(A(M_t<T>(x)));
    switch (kind) {
      case NormKind::Zero: acc += v != A(0) ? A(1) : A(0); break;
      case NormKind::One: acc += v; break;
      case NormKind::Two: acc += v * v; break;
      case NormKind::General: acc += m_pow(v, p); break;
      default: acc = extreme(acc, v);
    }
  }
  __device__ Acc combine(Acc a, Acc b) const { return is_extreme() ? extreme(a, b) : a + b; }
  __device__ void finish(const ReduceArgs& a, int64_t off, Acc acc) const {
    if (kind == NormKind::Two) acc = m_sqrt(acc);
    else if (kind == NormKind::General) acc = m_pow(acc, A(1) / p);
    store_out(a, off, acc);
  }
};

// ---- logsumexp: (max, sum of exp(x - max)), exact for +-inf and NaN
template <class T>
struct LogSumExpR {
  using A = float_acc_t<T>;
  struct Acc {
    A m, s;
  };
  __device__ Acc init() const { return {A(-INFINITY), A(0)}; }
  __device__ void add(Acc& acc, T x, int64_t) const {
    const A v = A(M_t<T>(x));
    if (v != v) {
      acc.m = acc.s = v;
    } else if (acc.m != acc.m || v == A(-INFINITY)) {
      // NaN stays; exp(-inf) adds 0
    } else if (v > acc.m) {
      acc.s = (acc.m == A(-INFINITY) ? A(0) : acc.s * m_exp(acc.m - v)) + A(1);
      acc.m = v;
    } else if (v == acc.m) {
      acc.s += A(1);
    } else {
      acc.s += m_exp(v - acc.m);
    }
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.m != a.m) return a;
    if (b.m != b.m) return b;
    if (b.m == A(-INFINITY)) return a;
    if (a.m == A(-INFINITY)) return b;
    const A m = a.m > b.m ? a.m : b.m;
    return {m, (a.m == m ? a.s : a.s * m_exp(a.m - m)) + (b.m == m ? b.s : b.s * m_exp(b.m - m))};
  }
  __device__ void finish(const ReduceArgs& a, int64_t off, const Acc& acc) const {
    const bool special = acc.m != acc.m || acc.m == A(INFINITY) || acc.m == A(-INFINITY);
    store_out(a, off, special ? acc.m : acc.m + m_log(acc.s));
  }
};

// ---- kernels: one dtype switch each
// Bool reads as uint8 (its bytes are 0 and 1) for sum, prod, max and min.
template <class Fn>
void dispatch_bool_as_byte(const char* kernel, ScalarType dtype, Fn&& fn) {
  if (dtype == kBool) return fn(CudaTypeTag<uint8_t>{});
  cuda_dispatch<kNumericMask>(kernel, dtype, fn);
}

void sum_kernel(const ReduceArgs& a) {
  dispatch_bool_as_byte("cuda sum", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    SumR<T, false> r;
    r.mean = a.param[0].i != 0;
    r.count = a.reduce_size;
    launch_reduce<T>(a, r);
  });
}
void prod_kernel(const ReduceArgs& a) {
  dispatch_bool_as_byte("cuda prod", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(a, SumR<T, true>{});
  });
}
template <bool kMax>
void extreme_kernel(const ReduceArgs& a) {
  dispatch_bool_as_byte(kMax ? "cuda max" : "cuda min", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(a, ExtremeR<T, kMax>{});
  });
}
template <bool kAll>
void logical_kernel(const ReduceArgs& a) {
  const bool fl = is_floating_point(a.in_dtype);
  switch (element_size(a.in_dtype)) {
    case 1: return launch_reduce<uint8_t>(a, LogicalR<uint8_t, kAll>{0xffu});
    case 2: return launch_reduce<uint16_t>(a, LogicalR<uint16_t, kAll>{uint16_t(fl ? 0x7fffu : 0xffffu)});
    case 4: return launch_reduce<uint32_t>(a, LogicalR<uint32_t, kAll>{fl ? 0x7fffffffu : 0xffffffffu});
    default:
      return launch_reduce<uint64_t>(a, LogicalR<uint64_t, kAll>{fl ? ~(uint64_t(1) << 63) : ~uint64_t(0)});
  }
}
void var_kernel(const ReduceArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda var", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    VarR<T> r;
    r.correction = float_acc_t<T>(a.param[0].f);
    r.take_sqrt = a.param[1].i != 0;
    launch_reduce<T>(a, r);
  });
}
void norm_kernel(const ReduceArgs& a) {
  const double p = a.param[0].f;
  const NormKind kind = p == 0                    ? NormKind::Zero
                        : p == 1                  ? NormKind::One
                        : p == 2                  ? NormKind::Two
                        : std::isinf(p) && p > 0  ? NormKind::Inf
                        : std::isinf(p)           ? NormKind::NegInf
                                                  : NormKind::General;
  cuda_dispatch<kFloatingMask>("cuda norm", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    NormR<T> r;
    r.kind = kind;
    r.p = float_acc_t<T>(p);
    launch_reduce<T>(a, r);
  });
}
void logsumexp_kernel(const ReduceArgs& a) {
  cuda_dispatch<kFloatingMask>("cuda logsumexp", a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_reduce<T>(a, LogSumExpR<T>{});
  });
}

}  // namespace

void register_cuda_reduce_kernels() {
  const DtypeSet all = DtypeSet::all();
  const DtypeSet fl = DtypeSet::floating();
  register_kernel(Op::Sum, kCUDA, sum_kernel, all);
  register_kernel(Op::Prod, kCUDA, prod_kernel, all);
  register_kernel(Op::Max, kCUDA, extreme_kernel<true>, all);
  register_kernel(Op::Min, kCUDA, extreme_kernel<false>, all);
  register_kernel(Op::ArgMax, kCUDA, extreme_kernel<true>, all);
  register_kernel(Op::ArgMin, kCUDA, extreme_kernel<false>, all);
  register_kernel(Op::All, kCUDA, logical_kernel<true>, all);
  register_kernel(Op::Any, kCUDA, logical_kernel<false>, all);
  register_kernel(Op::Var, kCUDA, var_kernel, fl);
  register_kernel(Op::Norm, kCUDA, norm_kernel, fl);
  register_kernel(Op::LogSumExp, kCUDA, logsumexp_kernel, fl);
}

}  // namespace ember::detail
