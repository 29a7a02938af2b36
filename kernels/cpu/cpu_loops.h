#pragma once
// Loops shared by the CPU elementwise kernels: a contiguous path the compiler
// vectorises (with scalar-broadcast variants) and a strided path that walks rows of
// the innermost dim. Work above kParallelGrain elements is split across OpenMP threads.
// Everything here is compiled per capability (Note [CPU capability]); the thread-pool
// guard is cpu/parallel_region.h.

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "cpu/parallel_region.h"
#include "cpu/vec.h"
#include "ember/kernel_args.h"

namespace ember::detail::EMBER_CPU_NS {

/// Below this many elements a kernel runs on the calling thread (threads cost ~µs).
constexpr int64_t kParallelGrain = 32768;

template <class Fn>
inline void parallel_for(int64_t n, int64_t grain, const Fn& fn) {
  // One call site for the serial path: a second inlined copy of fn made the add slower.
  ParallelRegionGuard region(n > grain && omp_get_max_threads() > 1 && !omp_in_parallel());
  if (!region.alone()) {
    fn(int64_t(0), n);
    return;
  }
  const int64_t max_chunks = (n + grain - 1) / grain;
#pragma omp parallel num_threads(int(std::min<int64_t>(omp_get_max_threads(), max_chunks)))
  {
    const int64_t nt = omp_get_num_threads(), tid = omp_get_thread_num();
    // Chunks aligned to 64 elements keep each thread's stores on its own cache lines.
    int64_t chunk = ((n + nt - 1) / nt + 63) / 64 * 64;
    int64_t b = std::min(n, tid * chunk), e = std::min(n, b + chunk);
    if (b < e) fn(b, e);
  }
}

/// Calls fn(ptrs, n, strides) for each row of the innermost dim in [row_begin, row_end).
/// ptrs[k] points at operand k's first element of the row; strides[k] is its step in bytes.
template <int N, class Fn>
void for_each_row(const ElementwiseArgs& a, const int64_t* elem_size, int64_t row_begin,
                  int64_t row_end, const Fn& fn) {
  int64_t idx[ElementwiseArgs::kMaxDims] = {};
  int64_t rem = row_begin;
  for (int d = 1; d < a.ndim; ++d) {
    idx[d] = rem % a.sizes[d];
    rem /= a.sizes[d];
  }
  char* ptrs[N];
  int64_t inner[N];
  for (int k = 0; k < N; ++k) inner[k] = a.strides[k][0] * elem_size[k];
  for (int64_t row = row_begin; row < row_end; ++row) {
    for (int k = 0; k < N; ++k) {
      int64_t off = 0;
      for (int d = 1; d < a.ndim; ++d) off += idx[d] * a.strides[k][d];
      ptrs[k] = a.data[k] + off * elem_size[k];
    }
    fn(ptrs, a.sizes[0], inner);
    for (int d = 1; d < a.ndim; ++d) {  // odometer increment
      if (++idx[d] < a.sizes[d]) break;
      idx[d] = 0;
    }
  }
}

/// out = f(in...) elementwise. Out and In are storage types; f takes and returns
/// whatever converts from/to them.
/// GCC vectorises neither a load of bool nor a select on one: typed loops read a bool
/// operand as its byte and convert it in the call.
template <class T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <class Out, class... In, class F>
void elementwise_kernel(const ElementwiseArgs& a, F f) {
  constexpr int N = 1 + sizeof...(In);
  const int64_t n = a.numel;
  if (n == 0) return;
  if (a.contiguous) {
    Out* out = reinterpret_cast<Out*>(a.data[0]);
    if constexpr (sizeof...(In) == 0) {
      parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = f();
      });
      return;
    } else if constexpr (sizeof...(In) == 1) {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      const Stored<A>* x = reinterpret_cast<const Stored<A>*>(a.data[1]);
      if (a.strides[1][0] == 1) {
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = f(A(x[i]));
        });
      } else {
        const A xv = A(x[0]);
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = f(xv);
        });
      }
      return;
    } else if constexpr (sizeof...(In) == 2) {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      using B = std::tuple_element_t<1, std::tuple<In...>>;
      const Stored<A>* x = reinterpret_cast<const Stored<A>*>(a.data[1]);
      const Stored<B>* y = reinterpret_cast<const Stored<B>*>(a.data[2]);
      const bool sx = a.strides[1][0] == 1, sy = a.strides[2][0] == 1;
      if (sx && sy) {
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = f(A(x[i]), B(y[i]));
        });
      } else if (sx) {
        const B yv = B(y[0]);
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = f(A(x[i]), yv);
        });
      } else if (sy) {
        const A xv = A(x[0]);
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = f(xv, B(y[i]));
        });
      } else {
        const Out v = f(A(x[0]), B(y[0]));
        parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = v;
        });
      }
      return;
    }
  }
  // Strided (or contiguous with three inputs): rows of the innermost dim. A row whose
  // operands all step by one element (a slice of wider rows, a row-broadcast bias) takes
  // typed pointers so the compiler vectorises it; a zero step (column broadcast) is read once.
  const int64_t esz[N] = {int64_t(sizeof(Out)), int64_t(sizeof(In))...};
  const int64_t rows = n / a.sizes[0];
  auto row_fn = [&](char** p, int64_t len, const int64_t* s) {
    Out* out = reinterpret_cast<Out*>(p[0]);
    if constexpr (sizeof...(In) == 0) {
      if (s[0] == esz[0]) {
        for (int64_t i = 0; i < len; ++i) out[i] = f();
        return;
      }
      for (int64_t i = 0; i < len; ++i) *reinterpret_cast<Out*>(p[0] + i * s[0]) = f();
    } else if constexpr (sizeof...(In) == 1) {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      if (s[0] == esz[0] && s[1] == esz[1]) {
        const Stored<A>* x = reinterpret_cast<const Stored<A>*>(p[1]);
        for (int64_t i = 0; i < len; ++i) out[i] = f(A(x[i]));
        return;
      }
      for (int64_t i = 0; i < len; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]));
    } else if constexpr (sizeof...(In) == 2) {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      using B = std::tuple_element_t<1, std::tuple<In...>>;
      if (s[0] == esz[0]) {
        const Stored<A>* x = reinterpret_cast<const Stored<A>*>(p[1]);
        const Stored<B>* y = reinterpret_cast<const Stored<B>*>(p[2]);
        const bool sx = s[1] == esz[1], sy = s[2] == esz[2];
        if (sx && sy) {
          for (int64_t i = 0; i < len; ++i) out[i] = f(A(x[i]), B(y[i]));
          return;
        }
        if (sx && s[2] == 0) {
          const B yv = B(*y);
          for (int64_t i = 0; i < len; ++i) out[i] = f(A(x[i]), yv);
          return;
        }
        if (sy && s[1] == 0) {
          const A xv = A(*x);
          for (int64_t i = 0; i < len; ++i) out[i] = f(xv, B(y[i]));
          return;
        }
      }
      for (int64_t i = 0; i < len; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]));
    } else {
      using A = std::tuple_element_t<0, std::tuple<In...>>;
      using B = std::tuple_element_t<1, std::tuple<In...>>;
      using C = std::tuple_element_t<2, std::tuple<In...>>;
      // The first input at unit step; each other one at unit step or a scalar (where(c, g, 0)).
      const bool unit_y = s[2] == esz[2], unit_z = s[3] == esz[3];
      if (s[0] == esz[0] && s[1] == esz[1] && (unit_y || s[2] == 0) && (unit_z || s[3] == 0)) {
        const Stored<A>* x = reinterpret_cast<const Stored<A>*>(p[1]);
        const Stored<B>* y = reinterpret_cast<const Stored<B>*>(p[2]);
        const Stored<C>* z = reinterpret_cast<const Stored<C>*>(p[3]);
        const auto run = [&](auto get_y, auto get_z) {
          for (int64_t i = 0; i < len; ++i) out[i] = f(A(x[i]), get_y(i), get_z(i));
        };
        const auto at_y = [y](int64_t i) { return B(y[i]); };
        const auto at_z = [z](int64_t i) { return C(z[i]); };
        const auto one_y = [v = B(*y)](int64_t) { return v; };
        const auto one_z = [v = C(*z)](int64_t) { return v; };
        if (unit_y && unit_z)
          run(at_y, at_z);
        else if (unit_y)
          run(at_y, one_z);
        else if (unit_z)
          run(one_y, at_z);
        else
          run(one_y, one_z);
        return;
      }
      for (int64_t i = 0; i < len; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]),
              *reinterpret_cast<const C*>(p[3] + i * s[3]));
    }
  };
  const int64_t grain_rows = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, a.sizes[0]));
  parallel_for(rows, grain_rows,
               [&](int64_t rb, int64_t re) { for_each_row<N>(a, esz, rb, re, row_fn); });
}

}  // namespace ember::detail::EMBER_CPU_NS
