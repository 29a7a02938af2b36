#pragma once
// Builds an ElementwiseArgs from tensors: broadcasting, dropping size-1 dims, ordering
// dims by the output's layout and coalescing dims that are contiguous for every operand,
// so that most calls end up one-dimensional and take the kernels' contiguous path.

#include "ember/kernel_args.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::detail {

/// Broadcast shape of two shapes (torch rules); InvalidArgument naming the op otherwise.
SizesVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);

/// Sets operand 0 to `out` and operands 1..n to inputs (each broadcastable to out's
/// shape; an undefined tensor marks a Scalar operand set later), then coalesces.
void build_elementwise(ElementwiseArgs& args, const Tensor& out, const Tensor* inputs, int n);

/// Stores v, converted to dtype, as input operand k (k >= 1) with stride 0.
void set_scalar_operand(ElementwiseArgs& args, int k, const Scalar& v, ScalarType dtype);

/// Writes v converted to dtype into 8 bytes at dst.
void store_scalar(void* dst, const Scalar& v, ScalarType dtype);

}  // namespace ember::detail
