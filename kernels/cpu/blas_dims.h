#pragma once
// CBLAS takes sizes and leading dimensions as int: the checks that keep int64 sizes
// from wrapping in blas_matmul.cpp (which falls back to matmul_generic beyond INT_MAX).

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "ember/kernel_args.h"

namespace ember::detail {

/// Leading dimension of a row-major BLAS operand with strides (row, col): the row
/// stride when columns are unit-stride (NoTrans), else the column stride (Trans).
inline int64_t blas_leading_dim(int64_t row_stride, int64_t col_stride, int64_t cols) {
  if (col_stride == 1) return std::max<int64_t>(row_stride, std::max<int64_t>(cols, 1));
  return std::max<int64_t>(col_stride, 1);
}

/// True when every value fits the int that CBLAS takes.
inline bool fits_blas_int(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims)
    if (d < 0 || d > int64_t(std::numeric_limits<int>::max())) return false;
  return true;
}

/// Whether a BLAS gemm can take a: m, n, k and the three leading dimensions fit an int.
inline bool blas_dims_fit_int(const MatmulArgs& a) {
  return fits_blas_int({a.m, a.n, a.k, blas_leading_dim(a.a_strides[1], a.a_strides[2], a.k),
                        blas_leading_dim(a.b_strides[1], a.b_strides[2], a.n),
                        std::max<int64_t>(a.c_strides[1], std::max<int64_t>(a.n, 1))});
}

}  // namespace ember::detail
