// CPU kernels of the reductions (sum .. logsumexp) over the driver in reduce_loops.h.
// Floating sums, products, variances and norms accumulate in double (float32 sums add
// small groups in float first: vec_rows.h); integer and bool sums and products in
// wrapping 64-bit integers (torch's int64 result); max / min work in opmath_t (float for
// Half / BFloat16) and propagate NaN, reporting its first index.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "cpu/vec_rows.h"
#include "cpu/reduce_loops.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

template <class T>
using M_t = opmath_t<T>;
template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<M_t<T>>;

// ---- sum / mean and prod
template <class T>
struct SumReducer {
  using Acc = std::conditional_t<kIsFloat<T>, double, uint64_t>;  // unsigned: wraps like torch
  bool mean = false;
  int64_t count = 1;
  Acc init() const { return 0; }
  static Acc widen(T x) {
    if constexpr (kIsFloat<T>) return double(M_t<T>(x));
    else return uint64_t(int64_t(x));
  }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t) const {
    Acc t = 0;
    if constexpr (std::is_same_v<T, float>) {
      if (s == 1) {
        acc += sum_f32(p, n);
        return;
      }
    } else if constexpr (std::is_same_v<T, double>) {
      if (s == 1) {
        acc += sum_f64(p, n);
        return;
      }
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      if (s == 1) {
        acc += sum_bf16(reinterpret_cast<const uint16_t*>(p), n);
        return;
      }
    } else if constexpr (std::is_same_v<M_t<T>, float>) {  // float16: through float32 copies
      if (s == 1) {
        constexpr int64_t kChunk = 256;
        float buf[kChunk];
        for (int64_t b = 0; b < n; b += kChunk) {
          const int64_t len = std::min(kChunk, n - b);
          for (int64_t k = 0; k < len; ++k) buf[k] = float(p[b + k]);
          acc += sum_f32(buf, len);
        }
        return;
      }
    }
    if (s == 1) {
#pragma omp simd reduction(+ : t)
      for (int64_t i = 0; i < n; ++i) t += widen(p[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) t += widen(p[i * s]);
    }
    acc += t;
  }
  void merge(Acc& a, const Acc& b) const { a += b; }
  auto project(const Acc& a) const {
    if constexpr (kIsFloat<T>) return mean ? a / double(count) : a;
    else return int64_t(a);
  }
  int64_t index(const Acc&) const { return 0; }
};

template <class T>
struct ProdReducer {
  using Acc = std::conditional_t<kIsFloat<T>, double, uint64_t>;
  Acc init() const { return 1; }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t) const {
    for (int64_t i = 0; i < n; ++i) acc *= SumReducer<T>::widen(p[i * s]);
  }
  void merge(Acc& a, const Acc& b) const { a *= b; }
  auto project(const Acc& a) const {
    if constexpr (kIsFloat<T>) return a;
    else return int64_t(a);
  }
  int64_t index(const Acc&) const { return 0; }
};

// ---- max / min (values and first index of the extreme; NaN is the extreme)
template <class T, bool kMax>
struct ExtremeReducer {
  using M = M_t<T>;
  struct Acc {
    M v{};
    int64_t i = -1;
  };
  static bool better(M x, M cur) {
    if constexpr (kIsFloat<T>) {
      if (std::isnan(cur)) return false;
      if (std::isnan(x)) return true;
    }
    return kMax ? x > cur : x < cur;
  }
  bool want_index = true;
  Acc init() const { return {}; }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t first) const {
    if constexpr (std::is_floating_point_v<T>) {
      // Values only over a contiguous run: a vectorised max/min plus a NaN test.
      if constexpr (std::is_same_v<T, float>) {
        if (!want_index && s == 1 && n >= 16) {
          merge(acc, Acc{extreme_f32<kMax>(p, n), first});
          return;
        }
      }
      if (!want_index && s == 1 && n >= 16) {
        T v = p[0];
        bool nan = false;
        if constexpr (kMax) {
#pragma omp simd reduction(max : v) reduction(|| : nan)
          for (int64_t i = 0; i < n; ++i) {
            v = p[i] > v ? p[i] : v;
            nan = nan || p[i] != p[i];
          }
        } else {
#pragma omp simd reduction(min : v) reduction(|| : nan)
          for (int64_t i = 0; i < n; ++i) {
            v = p[i] < v ? p[i] : v;
            nan = nan || p[i] != p[i];
          }
        }
        merge(acc, Acc{nan ? std::numeric_limits<T>::quiet_NaN() : v, first});
        return;
      }
    }
    int64_t i = 0;
    if (acc.i < 0 && n > 0) {
      acc.v = M(p[0]);
      acc.i = first;
      i = 1;
    }
    M v = acc.v;
    int64_t at = acc.i;
    for (; i < n; ++i) {
      const M x = M(p[i * s]);
      if (better(x, v)) {
        v = x;
        at = first + i;
      }
    }
    acc.v = v;
    acc.i = at;
  }
  void merge(Acc& a, const Acc& later) const {
    if (later.i >= 0 && (a.i < 0 || better(later.v, a.v))) a = later;
  }
  M project(const Acc& a) const { return a.v; }
  int64_t index(const Acc& a) const { return a.i; }
};

// ---- all / any (any dtype; bool result)
template <class T, bool kAll>
struct LogicalReducer {
  struct Acc {
    bool v = kAll;
  };
  Acc init() const { return {}; }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t) const {
    if (acc.v != kAll) return;  // already decided
    for (int64_t i = 0; i < n; ++i) {
      const bool nz = M_t<T>(p[i * s]) != M_t<T>(0);
      if (nz != kAll) {
        acc.v = !kAll;
        return;
      }
    }
  }
  void merge(Acc& a, const Acc& b) const { a.v = kAll ? (a.v && b.v) : (a.v || b.v); }
  bool project(const Acc& a) const { return a.v; }
  int64_t index(const Acc&) const { return 0; }
};

// ---- var / std: per-block two-pass moments merged with Chan's formula
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};
inline void merge_moments(Moments& a, const Moments& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  const double n = a.n + b.n, delta = b.mean - a.mean;
  a.mean += delta * (b.n / n);
  a.m2 += b.m2 + delta * delta * (a.n * b.n / n);
  a.n = n;
}

template <class T>
struct VarReducer {
  using Acc = Moments;
  double correction = 1;
  bool take_sqrt = false;
  static constexpr int64_t kBlock = 4096;
  Acc init() const { return {}; }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t) const {
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t len = std::min(kBlock, n - b);
      const T* q = p + b * s;
      double sum = 0;
      for (int64_t i = 0; i < len; ++i) sum += double(M_t<T>(q[i * s]));
      Moments blk;
      blk.n = double(len);
      blk.mean = sum / double(len);
      double m2 = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double d = double(M_t<T>(q[i * s])) - blk.mean;
        m2 += d * d;
      }
      blk.m2 = m2;
      merge_moments(acc, blk);
    }
  }
  void merge(Acc& a, const Acc& b) const { merge_moments(a, b); }
  double project(const Acc& a) const {
    const double v = a.m2 / std::max(0.0, a.n - correction);
    return take_sqrt ? std::sqrt(v) : v;
  }
  int64_t index(const Acc&) const { return 0; }
};

// ---- norm: p = 0 (count of nonzeros), 1, 2, inf, -inf, and any other p
enum class NormKind { Zero, One, Two, Inf, NegInf, General };

template <class T, NormKind kKind>
struct NormReducer {
  struct Acc {
    double v = kKind == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0;
  };
  double p = 2;
  Acc init() const { return {}; }
  static void extreme(double& v, double x) {
    if (std::isnan(v)) return;
    if (std::isnan(x) || (kKind == NormKind::Inf ? x > v : x < v)) v = x;
  }
  void row(Acc& acc, const T* q, int64_t n, int64_t s, int64_t) const {
    double t = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double x = std::abs(double(M_t<T>(q[i * s])));
      if constexpr (kKind == NormKind::Zero) t += x != 0 ? 1.0 : 0.0;
      else if constexpr (kKind == NormKind::One) t += x;
      else if constexpr (kKind == NormKind::Two) t += x * x;
      else if constexpr (kKind == NormKind::General) t += std::pow(x, p);
      else extreme(acc.v, x);
    }
    if constexpr (kKind != NormKind::Inf && kKind != NormKind::NegInf) acc.v += t;
  }
  void merge(Acc& a, const Acc& b) const {
    if constexpr (kKind == NormKind::Inf || kKind == NormKind::NegInf) extreme(a.v, b.v);
    else a.v += b.v;
  }
  double project(const Acc& a) const {
    if constexpr (kKind == NormKind::Two) return std::sqrt(a.v);
    else if constexpr (kKind == NormKind::General) return std::pow(a.v, 1.0 / p);
    else return a.v;
  }
  int64_t index(const Acc&) const { return 0; }
};

// ---- logsumexp: running (max, sum of exp(x - max)), exact for +-inf and NaN
template <class T>
struct LogSumExpReducer {
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  struct Acc {
    double m = -kInf, s = 0;
  };
  Acc init() const { return {}; }
  static void add(Acc& a, double x) {
    if (std::isnan(x)) {
      a.m = a.s = x;
    } else if (x == -kInf) {
      // contributes exp(-inf) = 0
    } else if (x > a.m) {
      a.s = (a.m == -kInf ? 0.0 : a.s * std::exp(a.m - x)) + 1.0;
      a.m = x;
    } else if (x == a.m) {
      a.s += 1.0;
    } else {
      a.s += std::exp(x - a.m);
    }
  }
  void row(Acc& acc, const T* p, int64_t n, int64_t s, int64_t) const {
    for (int64_t i = 0; i < n; ++i) add(acc, double(M_t<T>(p[i * s])));
  }
  void merge(Acc& a, const Acc& b) const {
    if (std::isnan(a.m) || std::isnan(b.m)) {
      a.m = a.s = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    if (b.m == -kInf) return;
    if (a.m == -kInf) {
      a = b;
      return;
    }
    const double m = std::max(a.m, b.m);
    a.s = (a.m == m ? a.s : a.s * std::exp(a.m - m)) + (b.m == m ? b.s : b.s * std::exp(b.m - m));
    a.m = m;
  }
  double project(const Acc& a) const {
    if (std::isnan(a.m)) return a.m;
    if (std::isinf(a.m)) return a.m;
    return a.m + std::log(a.s);
  }
  int64_t index(const Acc&) const { return 0; }
};

// Sum over strided dims with contiguous outputs (x.sum(0) of a row-major matrix): each
// work item keeps a block of adjacent outputs as accumulators and adds one input row
// segment at a time, so every load is unit-stride instead of one strided walk per output.
template <class T>
bool outer_sum(const ReduceArgs& a, bool mean) {
  constexpr int64_t kLanes = 256;
  if (a.nkept < 1 || a.kept_in_strides[0] != 1 || a.kept_out_strides[0] != 1 || a.kept_sizes[0] < 16 ||
      a.reduce_size < 2 || a.reduced_in_strides[0] == 1 || a.nreduced > 1)
    return false;
  using Acc = typename SumReducer<T>::Acc;
  const int64_t inner = a.kept_sizes[0], nblk = (inner + kLanes - 1) / kLanes;
  const int64_t groups = a.num_outputs / inner, n_red = a.reduce_size, rs = a.reduced_in_strides[0];
  const T* in = reinterpret_cast<const T*>(a.in);
  const int64_t out_esz = int64_t(element_size(a.out_dtype));
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (n_red * std::min(inner, kLanes)));
  // Float32 adds rows in pairs in float first (half the conversions to double), then
  // redoes in double any output that a pair overflowed.
  constexpr bool pairs = std::is_same_v<T, float>;
  parallel_for(groups * nblk, grain, [&](int64_t b, int64_t e) {
    Acc acc[kLanes];
    for (int64_t it = b; it < e; ++it) {
      const int64_t g = it / nblk, lb = (it % nblk) * kLanes, len = std::min(kLanes, inner - lb);
      int64_t in_off, out_off;
      output_offsets(a, g * inner, in_off, out_off);  // output g*inner is lane 0 of group g
      const T* base = in + in_off + lb;
      for (int64_t i = 0; i < len; ++i) acc[i] = 0;
      int64_t r = 0;
      if constexpr (pairs)
        for (; r + 2 <= n_red; r += 2) accumulate2_f32(acc, base + r * rs, base + (r + 1) * rs, len);
      for (; r < n_red; ++r) {
        const T* x = base + r * rs;
#pragma omp simd
        for (int64_t i = 0; i < len; ++i) acc[i] += SumReducer<T>::widen(x[i]);
      }
      if (pairs)
        for (int64_t i = 0; i < len; ++i)
          if (!std::isfinite(double(acc[i]))) {
            acc[i] = 0;
            for (int64_t q = 0; q < n_red; ++q) acc[i] += SumReducer<T>::widen(base[q * rs + i]);
          }
      char* out = a.out + (out_off + lb) * out_esz;
      dispatch_dtype(a.out_dtype, [&](auto otag) {
        using O = typename decltype(otag)::type;
        O* o = reinterpret_cast<O*>(out);
        for (int64_t i = 0; i < len; ++i) {
          if constexpr (kIsFloat<T>) o[i] = cast_to<O>(mean ? acc[i] / double(n_red) : acc[i]);
          else o[i] = cast_to<O>(int64_t(acc[i]));
        }
      });
    }
  });
  return true;
}

// ---- kernels
void sum_kernel(const ReduceArgs& a) {
  dispatch_dtype(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    SumReducer<T> r;
    r.mean = a.param[0].i != 0;
    r.count = a.reduce_size;
    if (!outer_sum<T>(a, r.mean)) reduce_driver<T>(a, r);
  });
}
void prod_kernel(const ReduceArgs& a) {
  dispatch_dtype(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_driver<T>(a, ProdReducer<T>{});
  });
}
template <bool kMax>
void extreme_kernel(const ReduceArgs& a) {
  dispatch_dtype(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ExtremeReducer<T, kMax> r;
    r.want_index = a.out_index != nullptr;
    reduce_driver<T>(a, r);
  });
}
template <bool kAll>
void logical_kernel(const ReduceArgs& a) {
  dispatch_dtype(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_driver<T>(a, LogicalReducer<T, kAll>{});
  });
}
void var_kernel(const ReduceArgs& a) {
  dispatch_floating(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    VarReducer<T> r;
    r.correction = a.param[0].f;
    r.take_sqrt = a.param[1].i != 0;
    reduce_driver<T>(a, r);
  });
}
void norm_kernel(const ReduceArgs& a) {
  const double p = a.param[0].f;
  dispatch_floating(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (p == 0) reduce_driver<T>(a, NormReducer<T, NormKind::Zero>{p});
    else if (p == 1) reduce_driver<T>(a, NormReducer<T, NormKind::One>{p});
    else if (p == 2) reduce_driver<T>(a, NormReducer<T, NormKind::Two>{p});
    else if (std::isinf(p) && p > 0) reduce_driver<T>(a, NormReducer<T, NormKind::Inf>{p});
    else if (std::isinf(p)) reduce_driver<T>(a, NormReducer<T, NormKind::NegInf>{p});
    else reduce_driver<T>(a, NormReducer<T, NormKind::General>{p});
  });
}
void logsumexp_kernel(const ReduceArgs& a) {
  dispatch_floating(a.in_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_driver<T>(a, LogSumExpReducer<T>{});
  });
}

}  // namespace

void register_cpu_reduce_kernels() {
  const DtypeSet all = DtypeSet::all();
  const DtypeSet fl = DtypeSet::floating();
  register_kernel(Op::Sum, kCPU, sum_kernel, all);
  register_kernel(Op::Prod, kCPU, prod_kernel, all);
  register_kernel(Op::Max, kCPU, extreme_kernel<true>, all);
  register_kernel(Op::Min, kCPU, extreme_kernel<false>, all);
  register_kernel(Op::ArgMax, kCPU, extreme_kernel<true>, all);
  register_kernel(Op::ArgMin, kCPU, extreme_kernel<false>, all);
  register_kernel(Op::All, kCPU, logical_kernel<true>, all);
  register_kernel(Op::Any, kCPU, logical_kernel<false>, all);
  register_kernel(Op::Var, kCPU, var_kernel, fl);
  register_kernel(Op::Norm, kCPU, norm_kernel, fl);
  register_kernel(Op::LogSumExp, kCPU, logsumexp_kernel, fl);
}

}  // namespace ember::detail::EMBER_CPU_NS
