#pragma once
/// Rearranging ops of libtorch's ATen (names, argument order, results and errors of
/// libtorch 1.13): triangles and diagonals, flips and rolls, moving and broadcasting
/// dims, stacking, tiling and repeating. Each is composed of ember's own ops, so it runs
/// on every device and autograd differentiates it.

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// The lower (tril) or upper (triu) triangle of the last two dims, the rest zero;
/// `diagonal` > 0 moves the boundary up, < 0 down.
EMBER_API Tensor tril(const Tensor& x, int64_t diagonal = 0);
EMBER_API Tensor triu(const Tensor& x, int64_t diagonal = 0);
/// The 2 x N coordinates (row first) of a row x col matrix's lower / upper triangle.
EMBER_API Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                              const TensorOptions& options = kLong);
EMBER_API Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                              const TensorOptions& options = kLong);
/// A view of the diagonal of dims (dim1, dim2), offset above (> 0) or below, as the last dim.
EMBER_API Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
/// 1-D: the square matrix with x on its `diagonal`; 2-D: that diagonal as a copy.
EMBER_API Tensor diag(const Tensor& x, int64_t diagonal = 0);
/// Matrices (in dims dim1, dim2) with the last dim of x on their `offset` diagonal.
EMBER_API Tensor diag_embed(const Tensor& x, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);

/// Elements in reverse order along each of dims.
EMBER_API Tensor flip(const Tensor& x, IntArrayRef dims);
EMBER_API Tensor fliplr(const Tensor& x);
EMBER_API Tensor flipud(const Tensor& x);
/// Elements shifted cyclically by shifts[i] along dims[i]; no dims: over the flattened tensor.
EMBER_API Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims = {});
/// Rotated k quarter turns in the plane of dims, from the first towards the second.
EMBER_API Tensor rot90(const Tensor& x, int64_t k = 1, IntArrayRef dims = {0, 1});

/// Dims source moved to positions destination, the others keeping their order.
EMBER_API Tensor movedim(const Tensor& x, IntArrayRef source, IntArrayRef destination);
EMBER_API Tensor movedim(const Tensor& x, int64_t source, int64_t destination);
EMBER_API Tensor moveaxis(const Tensor& x, IntArrayRef source, IntArrayRef destination);
EMBER_API Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination);
EMBER_API Tensor swapaxes(const Tensor& x, int64_t axis0, int64_t axis1);
EMBER_API Tensor swapdims(const Tensor& x, int64_t dim0, int64_t dim1);
/// Dim `dim` split into sizes (one entry may be -1).
EMBER_API Tensor unflatten(const Tensor& x, int64_t dim, IntArrayRef sizes);

EMBER_API Tensor broadcast_to(const Tensor& x, IntArrayRef size);
EMBER_API std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
EMBER_API Tensor atleast_1d(const Tensor& x);
EMBER_API Tensor atleast_2d(const Tensor& x);
EMBER_API Tensor atleast_3d(const Tensor& x);
EMBER_API std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors);
EMBER_API std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors);
EMBER_API std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors);
EMBER_API Tensor hstack(const std::vector<Tensor>& tensors);
EMBER_API Tensor vstack(const std::vector<Tensor>& tensors);
EMBER_API Tensor row_stack(const std::vector<Tensor>& tensors);
EMBER_API Tensor dstack(const std::vector<Tensor>& tensors);
EMBER_API Tensor column_stack(const std::vector<Tensor>& tensors);
/// Coordinate grids of 1-D tensors; indexing "ij" (matrix) or "xy" (Cartesian).
EMBER_API std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing = "ij");

/// Views of x along dim: `sections` parts (the first size % sections one longer), or the
/// pieces between the given indices.
EMBER_API std::vector<Tensor> tensor_split(const Tensor& x, int64_t sections, int64_t dim = 0);
EMBER_API std::vector<Tensor> tensor_split(const Tensor& x, IntArrayRef indices, int64_t dim = 0);
/// tensor_split along dim 1 (0 for 1-D), 0 and 2, with equal parts required for an int.
EMBER_API std::vector<Tensor> hsplit(const Tensor& x, int64_t sections);
EMBER_API std::vector<Tensor> hsplit(const Tensor& x, IntArrayRef indices);
EMBER_API std::vector<Tensor> vsplit(const Tensor& x, int64_t sections);
EMBER_API std::vector<Tensor> vsplit(const Tensor& x, IntArrayRef indices);
EMBER_API std::vector<Tensor> dsplit(const Tensor& x, int64_t sections);
EMBER_API std::vector<Tensor> dsplit(const Tensor& x, IntArrayRef indices);
/// Views of x along dim with the given lengths (summing to the dim's size).
EMBER_API std::vector<Tensor> split_with_sizes(const Tensor& x, IntArrayRef split_sizes, int64_t dim = 0);
/// x flattened (a view when possible).
EMBER_API Tensor ravel(const Tensor& x);
EMBER_API Tensor concat(const std::vector<Tensor>& tensors, int64_t dim = 0);
EMBER_API Tensor concatenate(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// gather along dim with x and indices broadcast over the other dims; without dim, over
/// the flattened x.
EMBER_API Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim = {});

/// x repeated reps[i] times along dim i (reps padded with leading ones, or x with leading dims).
EMBER_API Tensor tile(const Tensor& x, IntArrayRef reps);
/// Each element repeated `repeats` times (or repeats[i] times) along dim, or over the
/// flattened tensor without dim.
EMBER_API Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim = {});
EMBER_API Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim = {});
/// Indices 0, 1, ... each repeated repeats[i] times.
EMBER_API Tensor repeat_interleave(const Tensor& repeats);
/// The n-th forward difference along dim, after prepend / append are joined on.
EMBER_API Tensor diff(const Tensor& x, int64_t n = 1, int64_t dim = -1,
                      const std::optional<Tensor>& prepend = {}, const std::optional<Tensor>& append = {});

// ---- matrices built from pieces (lib/tensor/combine_ops.cpp)
/// The last two dims swapped (libtorch's adjoint; ember's tensors are real).
EMBER_API Tensor adjoint(const Tensor& x);
/// The flattened x on the `offset` diagonal of a square matrix.
EMBER_API Tensor diagflat(const Tensor& x, int64_t offset = 0);
/// The tensors (0-, 1- or 2-D) along the diagonal of one matrix, zeros elsewhere.
EMBER_API Tensor block_diag(const std::vector<Tensor>& tensors);
/// Every combination of one element of each 1-D tensor, one per row.
EMBER_API Tensor cartesian_prod(const std::vector<Tensor>& tensors);
/// The length-r combinations of a 1-D tensor's elements (with_replacement: repeats too), in order.
EMBER_API Tensor combinations(const Tensor& x, int64_t r = 2, bool with_replacement = false);

// ---- writes at indexed positions (lib/tensor/indexed_writes.cpp), out of place
/// self with the entries at `index` along dim set to value (a number or a 0-dim tensor).
EMBER_API Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
EMBER_API Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
/// self where mask is false; where it is true, source's elements in row-major order.
EMBER_API Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
/// self with its flat (row-major) positions `index` set to (or increased by) source.
EMBER_API Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
/// self with src written into self.slice(dim, start, end, step), self.select(dim, index),
/// or self.diagonal(offset, dim1, dim2).
EMBER_API Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                               std::optional<int64_t> start = {}, std::optional<int64_t> end = {},
                               int64_t step = 1);
EMBER_API Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
EMBER_API Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                                  int64_t dim2 = 1);
/// scatter that reduces what lands on one position: "sum", "prod", "mean", "amax" or
/// "amin", counting self's value unless include_self is false.
EMBER_API Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self = true);
/// scatter_reduce of whole slices: source's slice i reduced into self's slice index[i] along
/// dim ("prod", "mean", "amax" or "amin"; libtorch's beta API, warned once).
EMBER_API Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                              std::string_view reduce, bool include_self = true);

// libtorch's free-function forms of the view and shape methods (torch::squeeze(x, 1)).
inline Tensor reshape(const Tensor& self, IntArrayRef sizes) { return self.reshape(sizes); }
inline Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1) {
  return self.flatten(start_dim, end_dim);
}
inline Tensor permute(const Tensor& self, IntArrayRef dims) { return self.permute(dims); }
inline Tensor squeeze(const Tensor& self) { return self.squeeze(); }
inline Tensor squeeze(const Tensor& self, int64_t dim) { return self.squeeze(dim); }
inline Tensor unsqueeze(const Tensor& self, int64_t dim) { return self.unsqueeze(dim); }
inline Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = {},
                    std::optional<int64_t> end = {}, int64_t step = 1) {
  return self.slice(dim, start, end, step);
}
inline Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow_copy(dim, start, length);
}
inline Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length);
}
inline Tensor select(const Tensor& self, int64_t dim, int64_t index) { return self.select(dim, index); }
inline Tensor detach(const Tensor& self) { return self.detach(); }
inline bool is_nonzero(const Tensor& self) { return self.is_nonzero(); }
inline bool is_same_size(const Tensor& self, const Tensor& other) { return self.is_same_size(other); }

}  // namespace ember
