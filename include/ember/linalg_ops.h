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

}  // namespace ember
