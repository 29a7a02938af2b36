#pragma once
/// Products of libtorch's ATen beyond matmul (names, argument order, results and errors of
/// libtorch 1.13), composed of ember's matmul family so that they run on every device,
/// take the BLAS path for the heavy part and are differentiated by autograd.

#include <optional>
#include <string_view>
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

/// torch::linalg's spellings.
namespace linalg {
EMBER_API Tensor inv(const Tensor& a);
EMBER_API Tensor det(const Tensor& a);
EMBER_API std::tuple<Tensor, Tensor> slogdet(const Tensor& a);
EMBER_API Tensor cholesky(const Tensor& a, bool upper = false);
EMBER_API Tensor solve(const Tensor& a, const Tensor& b, bool left = true);
EMBER_API Tensor matrix_power(const Tensor& a, int64_t n);
}  // namespace linalg

}  // namespace ember
