#pragma once
// The portable CPU matmul: blocked i-k-j loops over opmath_t, parallel over rows.
// Serves dtypes BLAS lacks (integers, Half, BFloat16) and builds without BLAS.

#include <algorithm>
#include <vector>

#include "cpu/cpu_loops.h"
#include "core/dtype_dispatch.h"

namespace ember::detail {

template <class T>
void matmul_generic_typed(const MatmulArgs& a) {
  using M = opmath_t<T>;
  constexpr int64_t kBlockK = 256, kBlockJ = 512;
  const M alpha = M(a.alpha), beta = M(a.beta);
  for (int64_t b = 0; b < a.batch; ++b) {
    const T* A = reinterpret_cast<const T*>(a.a) + b * a.a_strides[0];
    const T* B = reinterpret_cast<const T*>(a.b) + b * a.b_strides[0];
    T* C = reinterpret_cast<T*>(a.c) + b * a.c_strides[0];
    const int64_t ar = a.a_strides[1], ac = a.a_strides[2], br = a.b_strides[1], bc = a.b_strides[2];
    const int64_t cr = a.c_strides[1];
    const int64_t work = a.m * a.n * std::max<int64_t>(a.k, 1);
    EMBER_CPU_NS::parallel_for(a.m, std::max<int64_t>(1, EMBER_CPU_NS::kParallelGrain * 4 / std::max<int64_t>(1, work / std::max<int64_t>(a.m, 1))),
                 [&](int64_t i0, int64_t i1) {
                   std::vector<M> acc(size_t(std::min(a.n, kBlockJ)));
                   for (int64_t i = i0; i < i1; ++i) {
                     for (int64_t j0 = 0; j0 < a.n; j0 += kBlockJ) {
                       const int64_t jn = std::min(kBlockJ, a.n - j0);
                       std::fill(acc.begin(), acc.begin() + jn, M(0));
                       for (int64_t k0 = 0; k0 < a.k; k0 += kBlockK) {
                         const int64_t kn = std::min(kBlockK, a.k - k0);
                         for (int64_t kk = k0; kk < k0 + kn; ++kk) {
                           const M aik = M(A[i * ar + kk * ac]);
                           const T* brow = B + kk * br + j0 * bc;
                           if (bc == 1)
                             for (int64_t j = 0; j < jn; ++j) acc[j] += aik * M(brow[j]);
                           else
                             for (int64_t j = 0; j < jn; ++j) acc[j] += aik * M(brow[j * bc]);
                         }
                       }
                       T* crow = C + i * cr + j0;
                       for (int64_t j = 0; j < jn; ++j)
                         crow[j] = T(beta == M(0) ? alpha * acc[j] : alpha * acc[j] + beta * M(crow[j]));
                     }
                   }
                 });
  }
}

inline void matmul_generic(const MatmulArgs& a) {
  dispatch_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_THROW(NotImplemented, "matmul: bool tensors are not supported");
    } else {
      matmul_generic_typed<T>(a);
    }
  });
}

}  // namespace ember::detail
