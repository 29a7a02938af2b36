// ember/shape_ops.h: libtorch 1.13's rearranging ops composed of views, index_select, cat
// and where, so every device runs them and autograd needs no formula of their own.
#include "ember/shape_ops.h"

#include <algorithm>
#include <numeric>

#include "autograd/grad_ops.h"
#include "autograd/meta.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/ops.h"
#include "ember/tensor_literal.h"
#include "iter/elementwise_iter.h"
#include "tensor/place_on_diagonal.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::long_on;
using detail::shape_str;
using detail::wrap_dim;

namespace {

// True where column - row <= diagonal (lower) or >= diagonal (upper) of the last two dims.
Tensor triangle(const Tensor& x, int64_t diagonal, bool lower) {
  // libtorch 1.13 reaches for dim -2 first, so its error is the dim's.
  const int64_t n = std::max<int64_t>(x.dim(), 1);
  EMBER_CHECK_ARG(x.dim() >= 2, "Dimension out of range (expected to be in range of [{}, {}], but got -2)",
                  -n, n - 1);
  const Tensor rows = arange(x.size(-2), long_on(x)).unsqueeze(1);
  const Tensor offset = arange(x.size(-1), long_on(x)).unsqueeze(0) - rows;
  const Tensor keep = lower ? offset <= diagonal : offset >= diagonal;
  return where(keep, x, zeros({}, x.options()));
}

// libtorch's enumeration of a triangle's coordinates, row-major.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options, bool lower) {
  EMBER_CHECK_ARG(row >= 0, "row must be non-negative, got{}", row);
  EMBER_CHECK_ARG(col >= 0, "col must be non-negative, got{}", col);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < row; ++i)
    for (int64_t j = 0; j < col; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        rows.push_back(i);
        cols.push_back(j);
      }
  const int64_t n = int64_t(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  return tensor(rows, kLong).view({2, n}).to(options);
}

std::vector<int64_t> wrap_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim, op));
  return out;
}

Tensor reversed(const Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  return x.index_select(dim, arange(n - 1, -1, -1, long_on(x)));
}

Tensor roll_one(const Tensor& x, int64_t shift, int64_t dim) {
  const int64_t n = x.size(dim);
  if (n == 0) return x.clone();
  const int64_t s = ((shift % n) + n) % n;
  if (s == 0) return x.clone();
  return cat({x.narrow(dim, n - s, s), x.narrow(dim, 0, n - s)}, dim);
}

void check_not_empty(const std::vector<Tensor>& tensors, const char* op) {
  EMBER_CHECK_ARG(!tensors.empty(), "{} expects a non-empty TensorList", op);
}

}  // namespace

namespace detail {

Tensor place_on_diagonal(const Tensor& values, int64_t rows, int64_t cols, int64_t offset) {
  // Element (i, j) is on the diagonal when j - i == offset; its value is values[i] when
  // offset >= 0 (one per row) and values[j] otherwise (one per column), values padded
  // with zeros to the rows or columns.
  const int64_t along = offset >= 0 ? rows : cols;
  Tensor padded = values;
  if (values.size(-1) < along) {
    std::vector<int64_t> pad_shape = values.sizes().vec();
    pad_shape.back() = along - values.size(-1);
    padded = cat({values, zeros(pad_shape, values.options())}, -1);
  }
  padded = padded.narrow(-1, 0, along);
  const Tensor on =
      (arange(cols, long_on(values)).unsqueeze(0) - arange(rows, long_on(values)).unsqueeze(1)) == offset;
  const Tensor spread = offset >= 0 ? padded.unsqueeze(-1) : padded.unsqueeze(-2);
  return where(on, spread, zeros({}, values.options()));
}

}  // namespace detail

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false); }

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, true);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, options, false);
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = x.dim();
  const int64_t d1 = wrap_dim(dim1, n, "diagonal"), d2 = wrap_dim(dim2, n, "diagonal");
  EMBER_CHECK_ARG(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t len = std::max<int64_t>(
      offset >= 0 ? std::min(x.size(d1), x.size(d2) - offset) : std::min(x.size(d1) + offset, x.size(d2)), 0);
  int64_t start = x.storage_offset();
  if (len > 0) start += offset >= 0 ? offset * x.stride(d2) : -offset * x.stride(d1);
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(x.size(d));
    strides.push_back(x.stride(d));
  }
  sizes.push_back(len);
  strides.push_back(x.stride(d1) + x.stride(d2));
  if (!EMBER_GRAD_RECORDING(x)) return x.as_strided(sizes, strides, start);
  Tensor view;
  {
    NoGradGuard no_grad;
    view = x.as_strided(sizes, strides, start);
  }
  return autograd::detail::diagonal(x, view, offset, d1, d2);
}

Tensor diag_embed(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = x.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, n, "diag_embed"), d2 = wrap_dim(dim2, n, "diag_embed");
  EMBER_CHECK_ARG(d1 != d2, "diagonal dimensions cannot be identical {}, {}", dim1, dim2);
  const int64_t side = x.size(-1) + (offset < 0 ? -offset : offset);
  return movedim(detail::place_on_diagonal(x, side, side, offset), {-2, -1}, {d1, d2});
}

Tensor diag(const Tensor& x, int64_t d) {
  EMBER_CHECK_ARG(x.dim() == 1 || x.dim() == 2, "matrix or a vector expected");
  if (x.dim() == 2) return diagonal(x, d, 0, 1).clone();
  return diag_embed(x, d, 0, 1);
}

Tensor flip(const Tensor& x, IntArrayRef dims) {
  std::vector<int64_t> wrapped = wrap_dims(dims, x.dim(), "flip");
  std::vector<int64_t> unique = wrapped;
  std::sort(unique.begin(), unique.end());
  for (size_t i = 1; i < unique.size(); ++i)
    EMBER_CHECK_ARG(unique[i] != unique[i - 1], "dim {} appears multiple times in the list of dims",
                    unique[i]);
  Tensor out = x;
  if (x.dim() == 0) return x.clone();
  for (int64_t d : unique) out = reversed(out, d);
  return unique.empty() ? x.clone() : out;  // index_select copies
}

Tensor fliplr(const Tensor& x) {
  EMBER_CHECK_ARG(x.dim() >= 2, "Input must be >= 2-d.");
  return flip(x, {1});
}

Tensor flipud(const Tensor& x) {
  EMBER_CHECK_ARG(x.dim() >= 1, "Input must be >= 1-d.");
  return flip(x, {0});
}

Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK_ARG(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) return roll_one(x.flatten(), shifts[0], 0).view(x.sizes());
  EMBER_CHECK_ARG(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: {}, dims:{}",
                  shifts.size(), dims.size());
  Tensor out = x;
  for (size_t i = 0; i < dims.size(); ++i) out = roll_one(out, shifts[i], wrap_dim(dims[i], x.dim(), "roll"));
  return out;
}

Tensor rot90(const Tensor& x, int64_t k, IntArrayRef dims) {
  EMBER_CHECK_ARG(dims.size() == 2, "expected total rotation dims == 2, but got dims = {}", dims.size());
  EMBER_CHECK_ARG(x.dim() >= 2, "expected total dims >= 2, but got total dims = {}", x.dim());
  const int64_t d0 = wrap_dim(dims[0], x.dim(), "rot90"), d1 = wrap_dim(dims[1], x.dim(), "rot90");
  EMBER_CHECK_ARG(d0 != d1, "expected rotation dims to be different, but got dim0 = {} and dim1 = {}",
                  dims[0], dims[1]);
  switch (((k % 4) + 4) % 4) {
    case 1:
      return flip(x, {d1}).transpose(d0, d1);
    case 2:
      return flip(x, {d0, d1});
    case 3:
      return flip(x, {d0}).transpose(d0, d1);
    default:
      return x.clone(MemoryFormat::Contiguous);
  }
}

Tensor movedim(const Tensor& x, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK_ARG(
      source.size() == destination.size(),
      "movedim: Invalid source or destination dims: source ({} dims) should contain the same number "
      "of dims as destination ({} dims)",
      shape_str(source), shape_str(destination));
  const int64_t n = x.dim();
  const std::vector<int64_t> src = wrap_dims(source, n, "movedim"),
                             dst = wrap_dims(destination, n, "movedim");
  if (n == 0) return x.alias();  // dims 0 and -1 name a 0-d tensor's only position
  for (const auto* list : {&src, &dst}) {
    std::vector<int64_t> sorted = *list;
    std::sort(sorted.begin(), sorted.end());
    EMBER_CHECK_ARG(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
                    "movedim: repeated dim in `{}` ({})", list == &src ? "source" : "destination",
                    shape_str(list == &src ? source : destination));
  }
  std::vector<int64_t> perm(size_t(n), -1);
  std::vector<bool> moved(size_t(n), false);
  for (size_t i = 0; i < src.size(); ++i) {
    perm[size_t(dst[i])] = src[i];
    moved[size_t(src[i])] = true;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (moved[size_t(next)]) ++next;
    p = next++;
  }
  return x.permute(perm);
}

Tensor movedim(const Tensor& x, int64_t source, int64_t destination) {
  return movedim(x, IntArrayRef{source}, IntArrayRef{destination});
}
Tensor moveaxis(const Tensor& x, IntArrayRef source, IntArrayRef destination) {
  return movedim(x, source, destination);
}
Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination) {
  return movedim(x, source, destination);
}
Tensor swapaxes(const Tensor& x, int64_t axis0, int64_t axis1) { return x.transpose(axis0, axis1); }
Tensor swapdims(const Tensor& x, int64_t dim0, int64_t dim1) { return x.transpose(dim0, dim1); }

Tensor unflatten(const Tensor& x, int64_t dim, IntArrayRef sizes) {
  const int64_t d = wrap_dim(dim, x.dim(), "unflatten");
  EMBER_CHECK_ARG(!sizes.empty(), "unflatten: sizes must be non-empty");
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK_ARG(inferred == -1, "only one dimension can be inferred");
      inferred = int64_t(i);
    } else {
      known *= sizes[i];
    }
  }
  std::vector<int64_t> inner(sizes.begin(), sizes.end());
  if (inferred >= 0 && known != 0 && x.size(d) % known == 0) inner[size_t(inferred)] = x.size(d) / known;
  const int64_t product = std::accumulate(inner.begin(), inner.end(), int64_t{1}, std::multiplies<>());
  EMBER_CHECK_ARG(
      product == x.size(d),
      "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
      shape_str(sizes), dim, x.size(d));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().begin() + d);
  shape.insert(shape.end(), inner.begin(), inner.end());
  shape.insert(shape.end(), x.sizes().begin() + d + 1, x.sizes().end());
  return x.view(shape);
}

Tensor broadcast_to(const Tensor& x, IntArrayRef size) { return x.expand(size); }

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  std::vector<int64_t> shape;
  for (const Tensor& t : tensors)
    shape = detail::broadcast_shapes(shape, t.sizes(), "broadcast_tensors").ref().vec();
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

Tensor atleast_1d(const Tensor& x) { return x.dim() == 0 ? x.reshape({1}) : x; }
Tensor atleast_2d(const Tensor& x) {
  if (x.dim() == 0) return x.reshape({1, 1});
  return x.dim() == 1 ? x.unsqueeze(0) : x;
}
Tensor atleast_3d(const Tensor& x) {
  switch (x.dim()) {
    case 0:
      return x.reshape({1, 1, 1});
    case 1:
      return x.unsqueeze(0).unsqueeze(-1);
    case 2:
      return x.unsqueeze(-1);
    default:
      return x;
  }
}

namespace {
template <Tensor (*F)(const Tensor&)>
std::vector<Tensor> each(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(F(t));
  return out;
}
}  // namespace

std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors) { return each<atleast_1d>(tensors); }
std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors) { return each<atleast_2d>(tensors); }
std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors) { return each<atleast_3d>(tensors); }

Tensor hstack(const std::vector<Tensor>& tensors) {
  check_not_empty(tensors, "hstack");
  const std::vector<Tensor> rs = atleast_1d(tensors);
  return cat(rs, rs[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  check_not_empty(tensors, "vstack");
  return cat(atleast_2d(tensors), 0);
}

Tensor row_stack(const std::vector<Tensor>& tensors) { return vstack(tensors); }

Tensor dstack(const std::vector<Tensor>& tensors) {
  check_not_empty(tensors, "dstack");
  return cat(atleast_3d(tensors), 2);
}

Tensor column_stack(const std::vector<Tensor>& tensors) {
  check_not_empty(tensors, "column_stack");
  std::vector<Tensor> columns;
  for (const Tensor& t : tensors) columns.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cat(columns, 1);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, std::string_view indexing) {
  EMBER_CHECK_ARG(indexing == "ij" || indexing == "xy",
                  "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}", indexing);
  EMBER_CHECK_ARG(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  for (const Tensor& t : tensors) {
    EMBER_CHECK_ARG(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}",
                    shape_str(t.sizes()));
    EMBER_CHECK_ARG(t.dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
    EMBER_CHECK_ARG(t.device() == tensors[0].device(),
                    "meshgrid expects all tensors to have the same device");
  }
  // "xy" is "ij" with the first two inputs, and then the first two outputs, swapped.
  std::vector<Tensor> in = tensors;
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  std::vector<int64_t> shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> view(in.size(), 1);
    view[i] = -1;
    grids.push_back(in[i].view(view).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

std::vector<Tensor> tensor_split(const Tensor& x, int64_t sections, int64_t dim) {
  EMBER_CHECK_ARG(x.dim() > 0,
                  "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  EMBER_CHECK_ARG(sections > 0, "number of sections must be larger than 0, got {}", sections);
  const int64_t d = wrap_dim(dim, x.dim(), "tensor_split");
  const int64_t n = x.size(d), base = n / sections, extra = n % sections;
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    parts.push_back(x.narrow(d, start, len));
    start += len;
  }
  return parts;
}

std::vector<Tensor> tensor_split(const Tensor& x, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK_ARG(x.dim() > 0,
                  "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const int64_t d = wrap_dim(dim, x.dim(), "tensor_split");
  const int64_t n = x.size(d);
  std::vector<Tensor> parts;
  int64_t start = 0;
  // As Python slicing: indices beyond the size clamp, a smaller end gives an empty piece.
  const auto clamp = [n](int64_t i) { return std::min(std::max<int64_t>(i < 0 ? i + n : i, 0), n); };
  for (int64_t index : indices) {
    const int64_t end = clamp(index);
    parts.push_back(x.narrow(d, start, std::max<int64_t>(end - start, 0)));
    start = std::max(start, end);
  }
  parts.push_back(x.narrow(d, start, n - start));
  return parts;
}

namespace {
// hsplit / vsplit / dsplit: at least min_dims dims, equal parts for an int.
void check_split_dims(const Tensor& x, int64_t min_dims, const char* op) {
  EMBER_CHECK_ARG(
      x.dim() >= min_dims,
      "torch.{} requires a tensor with at least {} dimension, but got a tensor with {} dimensions!", op,
      min_dims, x.dim());
}
std::vector<Tensor> split_along(const Tensor& x, int64_t sections, int64_t dim, int64_t min_dims,
                                const char* op) {
  check_split_dims(x, min_dims, op);
  EMBER_CHECK_ARG(
      sections != 0 && x.size(dim) % sections == 0,
      "torch.{} attempted to split along dimension {}, but the size of the dimension {} is not divisible "
      "by the split_size {}!",
      op, dim, x.size(dim), sections);
  return tensor_split(x, sections, dim);
}
std::vector<Tensor> split_at(const Tensor& x, IntArrayRef indices, int64_t dim, int64_t min_dims,
                             const char* op) {
  check_split_dims(x, min_dims, op);
  return tensor_split(x, indices, dim);
}
}  // namespace

std::vector<Tensor> hsplit(const Tensor& x, int64_t sections) {
  return split_along(x, sections, x.dim() == 1 ? 0 : 1, 1, "hsplit");
}
std::vector<Tensor> hsplit(const Tensor& x, IntArrayRef indices) {
  return split_at(x, indices, x.dim() == 1 ? 0 : 1, 1, "hsplit");
}
std::vector<Tensor> vsplit(const Tensor& x, int64_t sections) {
  return split_along(x, sections, 0, 2, "vsplit");
}
std::vector<Tensor> vsplit(const Tensor& x, IntArrayRef indices) {
  return split_at(x, indices, 0, 2, "vsplit");
}
std::vector<Tensor> dsplit(const Tensor& x, int64_t sections) {
  return split_along(x, sections, 2, 3, "dsplit");
}
std::vector<Tensor> dsplit(const Tensor& x, IntArrayRef indices) {
  return split_at(x, indices, 2, 3, "dsplit");
}

std::vector<Tensor> split_with_sizes(const Tensor& x, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK_ARG(x.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, x.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK_ARG(
        s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={}",
        shape_str(split_sizes));
    total += s;
  }
  EMBER_CHECK_ARG(
      total == x.size(d),
      "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), "
      "but got split_sizes={}",
      x.size(d), dim, shape_str(split_sizes));
  std::vector<Tensor> parts;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    parts.push_back(x.narrow(d, start, s));
    start += s;
  }
  return parts;
}

Tensor ravel(const Tensor& x) { return x.reshape({-1}); }
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) { return cat(tensors, dim); }
Tensor concatenate(const std::vector<Tensor>& tensors, int64_t dim) { return cat(tensors, dim); }

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK_ARG(indices.dtype() == kLong,
                  "torch.take_along_dim(): dtype of indices should be Long but got {}",
                  detail::torch_name(indices.dtype()));
  if (!dim) return x.reshape({-1}).gather(0, indices.reshape({-1}));
  EMBER_CHECK_ARG(
      x.dim() == indices.dim(),
      "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} "
      "dimensions for input, and {} dimensions for indices",
      x.dim(), indices.dim());
  const int64_t d = wrap_dim(*dim, x.dim(), "take_along_dim");
  // Both broadcast over every dim but `dim`, which keeps its own sizes.
  std::vector<int64_t> xs = x.sizes().vec(), is = indices.sizes().vec();
  xs[size_t(d)] = is[size_t(d)] = 1;
  std::vector<int64_t> shape = detail::broadcast_shapes(xs, is, "take_along_dim").ref().vec();
  std::vector<int64_t> x_shape = shape, i_shape = shape;
  x_shape[size_t(d)] = x.size(d);
  i_shape[size_t(d)] = indices.size(d);
  return x.expand(x_shape).gather(d, indices.expand(i_shape));
}

Tensor tile(const Tensor& x, IntArrayRef reps) {
  std::vector<int64_t> r(reps.begin(), reps.end());
  if (int64_t(r.size()) < x.dim()) r.insert(r.begin(), size_t(x.dim()) - r.size(), 1);
  return x.repeat(r);
}

Tensor repeat_interleave(const Tensor& repeats) {
  EMBER_CHECK_ARG(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK_ARG(repeats.dtype() == kLong || repeats.dtype() == kInt,
                  "repeats has to be Long or Int tensor");
  const Tensor counts = repeats.reshape({-1}).to(kCPU).to(kLong).contiguous();
  const int64_t* c = counts.data_ptr<int64_t>();
  std::vector<int64_t> index;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    EMBER_CHECK_ARG(c[i] >= 0, "repeats can not be negative");
    index.insert(index.end(), size_t(c[i]), i);
  }
  return tensor(index, kLong).to(TensorOptions(repeats.dtype()).device(repeats.device()));
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim) {
  const Tensor input = dim ? x : x.flatten();
  const int64_t d = dim ? wrap_dim(*dim, x.dim(), "repeat_interleave") : 0;
  EMBER_CHECK_ARG(repeats.dim() <= 1, "repeats must be 0-dim or 1-dim tensor");
  Tensor counts = repeats.reshape({-1});
  if (counts.numel() == 1) counts = counts.expand({input.size(d)});
  EMBER_CHECK_ARG(counts.numel() == input.size(d), "repeats must have the same size as input along dim");
  return input.index_select(d, repeat_interleave(counts.contiguous()).to(input.device()).to(kLong));
}

Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim) {
  EMBER_CHECK_ARG(repeats >= 0, "repeats can not be negative");
  return repeat_interleave(x, tensor({repeats}, kLong), dim);
}

Tensor diff(const Tensor& x, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK_ARG(x.dim() >= 1, "diff expects input to be at least one-dimensional");
  const int64_t d = wrap_dim(dim, x.dim(), "diff");
  Tensor out = x;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(x);
    if (append && append->defined()) parts.push_back(*append);
    out = cat(parts, d);
  }
  for (int64_t i = 0; i < n && out.size(d) > 0; ++i) {
    const int64_t len = out.size(d) - 1;
    const Tensor later = out.narrow(d, 1, len), earlier = out.narrow(d, 0, len);
    out = out.dtype() == kBool ? logical_xor(later, earlier) : later - earlier;
  }
  return n <= 0 ? out.clone() : out;  // libtorch 1.13 takes n <= 0 as no difference
}

}  // namespace ember
