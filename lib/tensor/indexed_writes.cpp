// Writes at indexed positions that ember composes of its own ops: index_fill,
// masked_scatter, put and scatter_reduce (libtorch 1.13's names, argument order and
// errors). Each is differentiable; scatter_reduce's amax, amin and prod record their own
// backward (libtorch's formulas), the others are where/index_put compositions.
#include <cmath>
#include <limits>
#include <string>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/index_ops.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

void require(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op, what);
}

// The first entry of `index` outside [-n, n), if any (one device-to-host read).
std::optional<int64_t> first_out_of_range(const Tensor& index, int64_t n) {
  const Tensor bad = masked_select(index, logical_or(index >= n, index < -n));
  if (bad.numel() == 0) return std::nullopt;
  return bad.reshape({-1})[0].item<int64_t>();
}

Tensor index_fill_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  require(self, "index_fill", "self");
  require(index, "index_fill", "index");
  EMBER_CHECK_TYPED(index.dtype() == kInt64, InvalidArgument,
                    "index_fill_(): Expected dtype int64 for index.");
  EMBER_CHECK_ARG(index.dim() <= 1, "Index has to be a vector/scalar");
  EMBER_CHECK_ARG(
      value.dim() == 0,
      "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
      value.dim());
  const int64_t d = detail::wrap_dim(dim, self.dim(), "index_fill");
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  if (auto bad = first_out_of_range(index, n))
    EMBER_THROW(InvalidArgument, "index {} is out of bounds for dimension {} with size {}", *bad, d, n);
  const Tensor flat = index.reshape({-1});
  const Tensor wrapped = where(flat < 0, flat + n, flat);
  std::vector<int64_t> shape(size_t(self.dim()), 1);
  if (self.dim() > 0) shape[size_t(d)] = n;
  const Tensor mask =
      zeros({n}, TensorOptions(kBool).device(self.device())).scatter(0, wrapped, true).reshape(shape);
  return where(mask, value.to(self.dtype()), self);
}

// libtorch's masked_scatter mask: bool, or the deprecated uint8.
Tensor bool_mask(const Tensor& mask, const char* op) {
  require(mask, op, "mask");
  EMBER_CHECK_ARG(mask.dtype() == kBool || mask.dtype() == kUInt8,
                  "{} only supports boolean masks, but got mask with dtype {}", op,
                  detail::torch_name(mask.dtype()));
  return mask.dtype() == kBool ? mask : mask.to(kBool);
}

}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  require(self, "index_fill", "self");
  return index_fill_impl(self, dim, index, scalar_tensor(value, self.options()));
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  require(value, "index_fill", "value");
  return index_fill_impl(self, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return copy_(ember::index_fill(*this, dim, index, value));
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  return copy_(ember::index_fill(*this, dim, index, value));
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  require(self, "masked_scatter", "self");
  require(source, "masked_scatter", "source");
  const Tensor m0 = bool_mask(mask, "masked_scatter_");
  EMBER_CHECK_ARG(
      self.dtype() == source.dtype(),
      "masked_scatter: expected self and source to have same dtypes but got{} and {}",  // libtorch's
      detail::torch_name(self.dtype()), detail::torch_name(source.dtype()));
  const auto shape = detail::broadcast_shapes(self.sizes(), m0.sizes(), "masked_scatter");
  const Tensor m = m0.expand(shape.ref()), base = self.expand(shape.ref());
  const int64_t count = m.sum().item<int64_t>();
  EMBER_CHECK_ARG(
      count <= source.numel(),
      "Number of elements of source < number of ones in mask (source has {} elements, mask {} ones)",
      source.numel(), count);
  if (source.numel() == 0) return base.clone();  // nothing to take (count is 0 too)
  // The k-th true of the mask (row-major) takes source's k-th element.
  const Tensor position = (cumsum(m.reshape({-1}), 0) - 1).clamp_min(0);
  const Tensor picked = source.reshape({-1}).index_select(0, position).reshape(shape.ref());
  return where(m, picked, base);
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  const Tensor result = ember::masked_scatter(*this, mask, source);
  EMBER_CHECK_ARG(result.sizes() == sizes(),
                  "masked_scatter_: mask of shape {} does not broadcast to self's {}",
                  detail::shape_str(mask.sizes()), detail::shape_str(sizes()));
  return copy_(result);
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  require(self, "put", "self");
  require(index, "put", "index");
  require(source, "put", "source");
  EMBER_CHECK_TYPED(index.dtype() == kInt64, InvalidArgument,
                    "put_(): Expected a long tensor for index, but got {}",
                    detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(self.dtype() == source.dtype(),
                  "put_(): self and source expected to have the same dtype, but got self.dtype = {} and "
                  "source.dtype = {}",
                  detail::torch_name(self.dtype()), detail::torch_name(source.dtype()));
  EMBER_CHECK_TYPED(index.numel() == source.numel(), InvalidArgument,
                    "put_(): Expected source and index to have the same number of elements, but got "
                    "source.numel() = {}, index.numel() = {}",
                    source.numel(), index.numel());
  const int64_t n = self.numel();
  if (auto bad = first_out_of_range(index, n))
    EMBER_THROW(InvalidArgument, "out of range: tried to access index {} on a tensor of {} elements.", *bad,
                n);
  return self.reshape({-1})
      .index_put({index.reshape({-1})}, source.reshape({-1}), accumulate)
      .reshape(self.sizes());
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  return ember::put(*this, index, source, accumulate);
}
Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) const {
  detail::check_no_indexed_write_overlap(*this, {&index, &source}, "put_");
  return copy_(ember::put(*this, index, source, accumulate));
}

// ---- slice, select and diagonal scatters: a clone of self with src copied into the view
namespace {
template <class MakeView>
Tensor scatter_into_view(const Tensor& self, const Tensor& src, MakeView view_of) {
  EMBER_CHECK_ARG(self.defined() && src.defined(), "scatter into a view: an input is an undefined tensor");
  Tensor result = self.clone();
  Tensor view = view_of(result);
  EMBER_CHECK_ARG(view.sizes() == src.sizes(),
                  "expected src to have a size equal to the slice of self. src size = {}, slice size = {}",
                  detail::shape_str(src.sizes()), detail::shape_str(view.sizes()));
  view.copy_(src);
  return result;
}
}  // namespace

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return scatter_into_view(self, src, [&](const Tensor& t) {
    const int64_t d = detail::wrap_dim(dim, t.dim(), "slice_scatter");
    return t.slice(d, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()), step);
  });
}
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return scatter_into_view(self, src, [&](const Tensor& t) { return t.select(dim, index); });
}
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return scatter_into_view(self, src, [&](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}
Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start,
                             std::optional<int64_t> end, int64_t step) const {
  return ember::slice_scatter(*this, src, dim, start, end, step);
}
Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  return ember::select_scatter(*this, src, dim, index);
}
Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal_scatter(*this, src, offset, dim1, dim2);
}

Tensor& Tensor::fill_diagonal_(const Scalar& fill_value, bool wrap) const {
  EMBER_CHECK_ARG(defined(), "fill_diagonal_: undefined tensor");
  EMBER_CHECK_ARG(dim() >= 2, "dimensions must larger than 1");
  if (dim() > 2)
    for (int64_t d = 1; d < dim(); ++d)
      EMBER_CHECK_ARG(size(d) == size(0), "all dimensions of input must be of equal length");
  // The diagonal's row-major positions step by the sum of the row-major strides; a tall
  // matrix with wrap starts again below the square every cols + 1 rows, as libtorch's.
  int64_t step = 0, inner = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    step += inner;
    inner *= size(d);
  }
  int64_t count = size(0);
  for (int64_t d = 1; d < dim(); ++d) count = std::min(count, size(d));
  if (wrap && dim() == 2 && size(0) > size(1) + 1) count = (numel() + step - 1) / step;
  if (count == 0) return const_cast<Tensor&>(*this);
  const Tensor positions = arange(count, detail::long_on(*this)) * step;
  return copy_(ember::put(*this, positions, full({count}, fill_value, options())));
}

// ---- scatter_reduce
namespace {

enum class ScatterReduce { Sum, Prod, Mean, Amax, Amin };

ScatterReduce parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return ScatterReduce::Sum;
  if (reduce == "prod") return ScatterReduce::Prod;
  if (reduce == "mean") return ScatterReduce::Mean;
  if (reduce == "amax") return ScatterReduce::Amax;
  if (reduce == "amin") return ScatterReduce::Amin;
  EMBER_THROW(InvalidArgument, "reduce argument must be either sum, prod, mean, amax or amin. Got {}.",
              reduce);
}

// The value every reduced position starts from when self is left out.
Scalar identity_of(ScatterReduce r, ScalarType t) {
  switch (r) {
    case ScatterReduce::Sum:
    case ScatterReduce::Mean:
      return 0;
    case ScatterReduce::Prod:
      return 1;
    default:
      break;
  }
  const bool max = r == ScatterReduce::Amax;
  if (is_floating_point(t)) return max ? -INFINITY : INFINITY;
  switch (t) {
    case kBool:
      return max ? false : true;
    case kUInt8:
      return max ? 0 : 255;
    case kInt8:
      return max ? -128 : 127;
    case kInt16:
      return max ? -32768 : 32767;
    case kInt32:
      return max ? int64_t(std::numeric_limits<int32_t>::min())
                 : int64_t(std::numeric_limits<int32_t>::max());
    default:
      return max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
}

// Where nothing of src lands: the positions that keep self when self is left out.
Tensor untouched(const Tensor& self, int64_t d, const Tensor& index) {
  return zeros_like(self, TensorOptions(kBool)).scatter(d, index, true).logical_not();
}

}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  require(self, "scatter_reduce", "self");
  require(index, "scatter_reduce", "index");
  require(src, "scatter_reduce", "src");
  const ScatterReduce r = parse_reduce(reduce);
  const int64_t d = detail::wrap_dim(dim, self.dim(), "scatter_reduce");
  Tensor y = self.detach().clone();
  {
    NoGradGuard no_grad;
    if (!include_self) y.scatter_(d, index, identity_of(r, self.dtype()));
    const int mode = r == ScatterReduce::Prod   ? 2
                     : r == ScatterReduce::Amax ? 3
                     : r == ScatterReduce::Amin ? 4
                                                : 1;
    detail::scatter_combine_(y, d, index, src, mode);
  }
  Tensor count;  // elements reduced into each position (mean; ties for amax/amin below)
  if (r == ScatterReduce::Mean) {
    NoGradGuard no_grad;
    count = include_self ? ones_like(self) : zeros_like(self);
    detail::scatter_combine_(count, d, index, ones_like(src), 1);
    count.masked_fill_(count == 0, 1);
    y = is_floating_point(y.dtype()) ? y / count : floor_divide(y, count).to(y.dtype());
  }
  const bool grads = GradMode::is_enabled() && (self.requires_grad() || src.requires_grad());
  if (!grads || !is_floating_point(y.dtype())) return y;
  // libtorch's formulas (ScatterReduceBackward0); ties in amax/amin share the gradient.
  auto node = autograd::record(
      "ScatterReduceBackward0", {&self, &src}, {&y},
      [r, d, index, include_self, count](autograd::FormulaNode& n,
                                         autograd::variable_list& g) -> autograd::variable_list {
        const Tensor x = n.saved(0), s = n.saved(1), out = n.saved(2);
        const Tensor keep = include_self ? ones_like(x, TensorOptions(kBool)) : untouched(x, d, index);
        Tensor gx, gs;
        switch (r) {
          case ScatterReduce::Sum:
            gx = where(keep, g[0], zeros_like(g[0]));
            gs = g[0].gather(d, index);
            break;
          case ScatterReduce::Mean: {
            const Tensor per = g[0] / count;
            gx = where(keep, per, zeros_like(per));
            gs = per.gather(d, index);
            break;
          }
          case ScatterReduce::Amax:
          case ScatterReduce::Amin: {
            const Tensor x_wins = logical_and(keep, x == out);
            const Tensor s_wins = s == out.gather(d, index);
            Tensor ties = x_wins.to(x.dtype()).scatter_add(d, index, s_wins.to(x.dtype()));
            const Tensor per = g[0] / ties;
            gx = where(x_wins, per, zeros_like(per));
            gs = where(s_wins, per.gather(d, index), zeros_like(s));
            break;
          }
          case ScatterReduce::Prod: {
            // The product of the others: out / v where v != 0; where v is a position's one
            // zero, the product of its nonzero values; with two or more zeros, 0.
            const Tensor x_zero = logical_and(keep, x == 0), s_zero = s == 0;
            const Tensor zeros_in = x_zero.to(x.dtype()).scatter_add(d, index, s_zero.to(x.dtype()));
            Tensor nonzero_prod = where(logical_or(x_zero, keep.logical_not()), ones_like(x), x);
            nonzero_prod = nonzero_prod.scatter(d, index, where(s_zero, ones_like(s), s), "multiply");
            const Tensor one_zero_prod = where(zeros_in == 1, nonzero_prod, zeros_like(nonzero_prod));
            gx = where(keep, g[0] * where(x == 0, one_zero_prod, out / x), zeros_like(x));
            gs = g[0].gather(d, index) *
                 where(s_zero, one_zero_prod.gather(d, index), out.gather(d, index) / s);
            break;
          }
        }
        return {n.needs(0) ? gx : Tensor(), n.needs(1) ? gs : Tensor()};
      });
  node->saved_[0] = autograd::SavedVariable(self, false);
  node->saved_[1] = autograd::SavedVariable(src, false);
  node->saved_[2] = autograd::SavedVariable(y, true);
  return y;
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) const {
  detail::check_no_indexed_write_overlap(*this, {&index, &src}, "scatter_reduce_");
  // From a copy: the backward reads self as it was, which the copy_ below overwrites.
  return copy_(ember::scatter_reduce(clone(), dim, index, src, reduce, include_self));
}

// index_reduce is scatter_reduce with the index repeated over source's other dims; libtorch's
// checks and texts first (an out-of-range index included, so self is never half written).
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  const char* op = "index_reduce_()";
  require(self, op, "self");
  require(index, op, "index");
  require(source, op, "source");
  EMBER_CHECK_ARG(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
                  "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {}.",
                  reduce);
  EMBER_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
  const int64_t d = detail::wrap_dim(dim, self.dim(), "index_reduce");
  EMBER_CHECK_ARG(index.dim() <= 1,
                  "{}: Index is supposed to be a vector, but got dim: {} with type: {} and size: {}", op,
                  index.dim(), detail::torch_name(index.dtype()), detail::shape_str(index.sizes()));
  EMBER_CHECK_ARG(index.dtype() == kInt64 || index.dtype() == kInt32,
                  "{}: Expected dtype int32/int64 for index but got: {}", op,
                  detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(self.dtype() == source.dtype(),
                  "{}: self ({}) and source ({}) must have the same scalar type", op,
                  detail::torch_name(self.dtype()), detail::torch_name(source.dtype()));
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  const int64_t n = index.numel();
  EMBER_CHECK_ARG(n == src.size(d),
                  "{}: Number of indices ({}) should be equal to source.size(dim): ({}), for dim: {}", op, n,
                  src.size(d), d);
  // source's slices broadcast to self's (a size 1 stretches), as libtorch's.
  bool slices_fit = src.dim() == x.dim();
  for (int64_t k = 0; slices_fit && k < x.dim(); ++k)
    slices_fit = k == d || src.size(k) == x.size(k) || src.size(k) == 1;
  EMBER_CHECK_ARG(slices_fit, "{}: source {} does not broadcast to self {} in the dims other than {}", op,
                  detail::shape_str(source.sizes()), detail::shape_str(self.sizes()), d);
  const Tensor idx = index.to(kInt64).reshape({-1});
  if (auto bad = first_out_of_range(idx, x.size(d)); bad || (n > 0 && idx.min().item<int64_t>() < 0))
    EMBER_THROW(InvalidArgument, "index out of range in self");
  std::vector<int64_t> line(size_t(x.dim()), 1), full(x.sizes().begin(), x.sizes().end());
  line[size_t(d)] = n;
  full[size_t(d)] = n;
  const Tensor spread = idx.view(line).expand(full).contiguous();
  Tensor y = scatter_reduce(x, d, spread, src.expand(full), reduce, include_self);
  autograd::name_grad_fn(y, "IndexReduceBackward0");
  return self.dim() == 0 ? y.reshape({}) : y;
}
Tensor Tensor::index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                            bool include_self) const {
  return ember::index_reduce(*this, dim, index, source, reduce, include_self);
}
Tensor& Tensor::index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                              bool include_self) const {
  detail::check_no_indexed_write_overlap(*this, {&index, &source}, "index_reduce_()");
  // From a copy: the backward reads self as it was, which the copy_ below overwrites.
  return copy_(ember::index_reduce(clone(), dim, index, source, reduce, include_self));
}

}  // namespace ember
