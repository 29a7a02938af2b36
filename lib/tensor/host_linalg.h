#pragma once
// The host factorizations behind torch::linalg's front-ends (Note [Host factorizations] in
// linalg_decompositions.cpp): each batch matrix in float64 on the host, results back in the
// input's dtype and on its device. Inputs are [..., m, n]; batch dims are kept.

#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::detail {

struct HostSvd {
  Tensor u, s, v;
};
/// U [.., m, k], S [.., k] (descending) and V [.., n, k], k = min(m, n), by Hestenes'
/// one-sided Jacobi rotations. Columns of U for zero singular values are zero.
HostSvd host_svd(const Tensor& a);

/// Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix, read from
/// its lower (or upper) triangle, by cyclic Jacobi rotations.
std::pair<Tensor, Tensor> host_eigh(const Tensor& a, bool upper);

/// Householder QR with LAPACK's conventions (geqrf's reflectors, orgqr's Q): Q [.., m, m or
/// k] and R [.., m or k, n] (complete or reduced), k = min(m, n).
std::pair<Tensor, Tensor> host_qr(const Tensor& a, bool complete);

/// X with A X = B for triangular A [.., n, n] and B [.., n, k] of the same batch shape;
/// unitriangular takes A's diagonal as ones.
Tensor host_triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool unitriangular);

/// LU with partial pivoting (LAPACK getrf): the packed factors [.., m, n] (L unit lower
/// below the diagonal, U on and above it) in a's dtype, the 1-based pivots [.., k] as int32
/// (row i was swapped with row pivots[i] - 1 at step i), and per matrix the first zero
/// pivot (1-based, 0 when none).
struct HostLu {
  Tensor lu, pivots;
  std::vector<int64_t> zero_pivot;
};
HostLu host_lu_factor(const Tensor& a);

/// q [.., m, k] whose columns are orthonormal or zero, as [.., m, cols] (cols >= k) with
/// orthonormal columns: zero columns are replaced and new ones appended, each the first
/// unit vector left after Gram-Schmidt against the columns so far.
Tensor host_complete_orthonormal(const Tensor& q, int64_t cols);

}  // namespace ember::detail
