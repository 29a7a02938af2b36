#pragma once
// The values of a diagonal put back into a matrix of zeros, with ordinary differentiable
// ops: diag_embed's forward and diagonal's backward.

#include "ember/tensor.h"

namespace ember::detail {

/// [..., rows, cols] zeros with values[..., k] on the `offset` diagonal (above the main
/// one when offset > 0); values' last dim holds the diagonal (shorter ones are padded).
Tensor place_on_diagonal(const Tensor& values, int64_t rows, int64_t cols, int64_t offset);

}  // namespace ember::detail
