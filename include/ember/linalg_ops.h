#pragma once
/// Products of libtorch's ATen beyond matmul (names, argument order, results and errors of
/// libtorch 1.13), composed of ember's matmul family so that they run on every device,
/// take the BLAS path for the heavy part and are differentiated by autograd.

#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// beta * self + alpha * (mat @ vec).
EMBER_API Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                       const Scalar& alpha = 1);
/// beta * self + alpha * outer(vec1, vec2).
EMBER_API Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                      const Scalar& alpha = 1);
/// beta * self + alpha * bmm(batch1, batch2).
EMBER_API Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                         const Scalar& beta = 1, const Scalar& alpha = 1);
/// beta * self + alpha * (the sum over the batch of bmm(batch1, batch2)).
EMBER_API Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                        const Scalar& beta = 1, const Scalar& alpha = 1);
/// Sum of a matrix's diagonal.
EMBER_API Tensor trace(const Tensor& x);
/// Kronecker product.
EMBER_API Tensor kron(const Tensor& a, const Tensor& b);
/// Contracts a's dims_a with b's dims_b; the int form contracts a's last `dims` with b's first.
EMBER_API Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
EMBER_API Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
/// Einstein summation ("ij,jk->ik", "...ij,...jk", implicit outputs, repeated indices
/// within an operand for diagonals).
EMBER_API Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);
/// dot of 1-D tensors (real dtypes: no conjugation).
EMBER_API Tensor vdot(const Tensor& a, const Tensor& b);
/// Sum over the last dims of a and b of their products.
EMBER_API Tensor inner(const Tensor& a, const Tensor& b);
/// The product of the matrices, left to right.
EMBER_API Tensor chain_matmul(const std::vector<Tensor>& matrices);
/// p-norm distances between the rows of x1 [..., P, M] and x2 [..., R, M]: [..., P, R].
EMBER_API Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0,
                       std::optional<int64_t> compute_mode = {});

// ---- square matrices, batched over leading dims (lib/tensor/linalg_decompositions.cpp).
// The factorizations run on the host in float64 (a CUDA tensor is copied there and back).
EMBER_API Tensor det(const Tensor& a);
/// (sign of det, log |det|); a singular matrix gives (0, -inf).
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& a);
/// log det: NaN where det < 0, -inf where it is 0.
EMBER_API Tensor logdet(const Tensor& a);
/// A singular matrix is an error that names its zero pivot.
EMBER_API Tensor inverse(const Tensor& a);
/// The lower (or upper) Cholesky factor of a symmetric positive-definite matrix, from its
/// lower triangle.
EMBER_API Tensor cholesky(const Tensor& a, bool upper = false);
/// A^n by repeated squaring; n < 0 powers the inverse; n = 0 gives identities.
EMBER_API Tensor matrix_power(const Tensor& a, int64_t n);
EMBER_API Tensor linalg_inv(const Tensor& a);
EMBER_API Tensor linalg_det(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a);
EMBER_API Tensor linalg_cholesky(const Tensor& a, bool upper = false);
/// X with A X = B (left) or X A = B; B a matrix, or one vector per matrix.
EMBER_API Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left = true);
EMBER_API Tensor linalg_matrix_power(const Tensor& a, int64_t n);

/// Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices, read from
/// the lower ("L") or upper ("U") triangle (host float64 Jacobi; differentiable).
EMBER_API std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, std::string_view uplo = "L");
EMBER_API Tensor linalg_eigvalsh(const Tensor& a, std::string_view uplo = "L");
/// A = U diag(S) Vh, S descending; full_matrices makes U [m, m] and Vh [n, n].
EMBER_API std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices = true);
/// torch::svd: U, S and V (not Vh); some = reduced; without compute_uv, U and V are zeros.
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some = true, bool compute_uv = true);
/// The pseudo-inverse: singular values at most max(atol, rtol * largest) count as zero
/// (default rtol eps * max(m, n)); hermitian goes through eigh.
EMBER_API Tensor linalg_pinv(const Tensor& a, double rcond, bool hermitian = false);
EMBER_API Tensor linalg_pinv(const Tensor& a, std::optional<double> atol = {},
                             std::optional<double> rtol = {}, bool hermitian = false);
EMBER_API Tensor pinverse(const Tensor& a, double rcond = 1e-15);
/// Least squares (minimum norm when rank deficient): solution, residuals, rank, singular
/// values, each filled as libtorch's driver ("gels", "gelsy" (CPU default), "gelsd", "gelss")
/// fills it; rank counts singular values above rcond (default eps * max(m, n)) times the largest.
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(
    const Tensor& a, const Tensor& b, std::optional<double> rcond = {},
    std::optional<std::string_view> driver = {});
/// Householder QR: mode "reduced" (Q [m, k], R [k, n]), "complete" (Q [m, m]) or "r" (R only).
EMBER_API std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, std::string_view mode = "reduced");
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& a, bool some = true);
/// X with A X = B (left) or X A = B for triangular A; batch dims broadcast.
EMBER_API Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                                         bool unitriangular = false);
/// ATen's older form: (X with op(A) X = B, a copy of A), op(A) = A^T when transpose.
EMBER_API std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& a, bool upper = true,
                                                      bool transpose = false, bool unitriangular = false);
/// X = (L L^T)^-1 B from a Cholesky factor (upper: (U^T U)^-1 B).
EMBER_API Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper = false);
/// (L L^T)^-1 from a Cholesky factor.
EMBER_API Tensor cholesky_inverse(const Tensor& l, bool upper = false);

/// LU with partial pivoting (LAPACK's getrf): the packed factors and 1-based int32 pivots;
/// a zero pivot raises libtorch's error (linalg.lu does not).
EMBER_API std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a, bool pivot = true);
/// P, L (unit lower, [m, k]) and U ([k, n]) with A = P L U.
EMBER_API std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& a, bool pivot = true);
EMBER_API std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& lu, const Tensor& pivots,
                                                       bool unpack_data = true, bool unpack_pivots = true);
/// X with A X = B (left) or X A = B, A^T for adjoint, from lu_factor's results.
EMBER_API Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left = true,
                                 bool adjoint = false);
EMBER_API Tensor lu_solve(const Tensor& b, const Tensor& lu, const Tensor& pivots);

/// exp(A) by scaling and squaring a degree-18 Taylor polynomial (differentiable).
EMBER_API Tensor matrix_exp(const Tensor& a);
/// The singular values of each matrix, largest first (one-sided Jacobi on the host).
EMBER_API Tensor linalg_svdvals(const Tensor& a);
/// The p-norm of x - other.
EMBER_API Tensor dist(const Tensor& x, const Tensor& other, const Scalar& p = 2);
EMBER_API Tensor renorm(const Tensor& x, const Scalar& p, int64_t dim, const Scalar& maxnorm);
/// The cross product along dim (without dim: the first dim of size 3, as libtorch 1.13).
EMBER_API Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = {});
EMBER_API Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
EMBER_API Tensor ger(const Tensor& a, const Tensor& b);
/// Columns x^(N-1), ..., x, 1 (increasing: 1, x, ...); N defaults to x's length.
EMBER_API Tensor vander(const Tensor& x, std::optional<int64_t> N = {}, bool increasing = false);
EMBER_API Tensor frobenius_norm(const Tensor& x, IntArrayRef dim = {}, bool keepdim = false);
EMBER_API Tensor nuclear_norm(const Tensor& x, bool keepdim = false);
EMBER_API Tensor nuclear_norm(const Tensor& x, IntArrayRef dim, bool keepdim = false);
/// The vector p-norm over dim (all elements without it): inf, -inf, 0 (a count) or any p.
EMBER_API Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord = 2,
                                    std::optional<IntArrayRef> dim = {}, bool keepdim = false,
                                    std::optional<ScalarType> dtype = {});
/// Matrix norms over two dims: "fro", "nuc", 1, -1, 2, -2, inf, -inf.
EMBER_API Tensor linalg_matrix_norm(const Tensor& a, const Scalar& ord, IntArrayRef dim = {-2, -1},
                                    bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor linalg_matrix_norm(const Tensor& a, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                                    bool keepdim = false, std::optional<ScalarType> dtype = {});
/// A vector norm, or a matrix norm for two dims (or a 2-D input with ord and no dim).
EMBER_API Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord = {},
                             std::optional<IntArrayRef> dim = {}, bool keepdim = false,
                             std::optional<ScalarType> dtype = {});
EMBER_API Tensor linalg_norm(const Tensor& x, std::string_view ord, std::optional<IntArrayRef> dim = {},
                             bool keepdim = false, std::optional<ScalarType> dtype = {});

/// torch::linalg's spellings.
namespace linalg {
EMBER_API Tensor matrix_exp(const Tensor& a);
EMBER_API Tensor svdvals(const Tensor& a);
EMBER_API Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
EMBER_API Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
/// The product of the matrices; the first may be a row vector and the last a column.
EMBER_API Tensor multi_dot(const std::vector<Tensor>& tensors);
EMBER_API Tensor matmul(const Tensor& a, const Tensor& b);
EMBER_API Tensor diagonal(const Tensor& a, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
EMBER_API Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, std::optional<IntArrayRef> dim = {},
                             bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor matrix_norm(const Tensor& a, const Scalar& ord, IntArrayRef dim = {-2, -1},
                             bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor matrix_norm(const Tensor& a, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                             bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor norm(const Tensor& x, const std::optional<Scalar>& ord = {},
                      std::optional<IntArrayRef> dim = {}, bool keepdim = false,
                      std::optional<ScalarType> dtype = {});
EMBER_API Tensor norm(const Tensor& x, std::string_view ord, std::optional<IntArrayRef> dim = {},
                      bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor vander(const Tensor& x, std::optional<int64_t> N = {});
EMBER_API Tensor inv(const Tensor& a);
EMBER_API Tensor det(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& a);
EMBER_API Tensor cholesky(const Tensor& a, bool upper = false);
EMBER_API Tensor solve(const Tensor& a, const Tensor& b, bool left = true);
EMBER_API Tensor matrix_power(const Tensor& a, int64_t n);
EMBER_API std::tuple<Tensor, Tensor> eigh(const Tensor& a, std::string_view uplo = "L");
EMBER_API Tensor eigvalsh(const Tensor& a, std::string_view uplo = "L");
EMBER_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices = true);
EMBER_API Tensor pinv(const Tensor& a, double rcond, bool hermitian = false);
EMBER_API Tensor pinv(const Tensor& a, std::optional<double> atol = {}, std::optional<double> rtol = {},
                      bool hermitian = false);
EMBER_API std::tuple<Tensor, Tensor> qr(const Tensor& a, std::string_view mode = "reduced");
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a, const Tensor& b,
                                                           std::optional<double> rcond = {},
                                                           std::optional<std::string_view> driver = {});
EMBER_API Tensor solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                                  bool unitriangular = false);
EMBER_API std::tuple<Tensor, Tensor> lu_factor(const Tensor& a, bool pivot = true);
EMBER_API std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& a, bool pivot = true);
EMBER_API Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left = true,
                          bool adjoint = false);
}  // namespace linalg

}  // namespace ember
