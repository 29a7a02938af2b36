// Distinct values: libtorch's _unique2, _unique, unique_dim, unique_consecutive and
// unique_dim_consecutive, composed of a stable sort and comparisons of neighbours, so every
// device runs them. Outputs that were not asked for are empty int64 tensors, as libtorch's.
#include <tuple>

#include "core/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

// Row i of `rows` ([n, m]) starts a new group when it differs from row i - 1 (row 0 always
// does). NaN differs from NaN, so each NaN is a value of its own.
Tensor group_starts(const Tensor& rows) {
  const int64_t n = rows.size(0);
  const Tensor first = ones({std::min<int64_t>(n, 1)}, TensorOptions(kBool).device(rows.device()));
  if (n <= 1) return first;
  Tensor differs = ne(rows.slice(0, 1, n), rows.slice(0, 0, n - 1));
  differs = rows.size(1) == 0 ? zeros({n - 1}, differs.options()) : differs.any(1);
  return cat({first, differs}, 0);
}

struct Groups {
  Tensor starts;    // bool [n]: where each group begins, in the sorted (or given) order
  Tensor group_of;  // int64 [n]: each position's group
  Tensor counts;    // int64 [groups]
};

Groups groups_of(const Tensor& rows) {
  Groups g;
  g.starts = group_starts(rows);
  g.group_of = cumsum(g.starts, 0) - 1;
  const Tensor begin = g.starts.nonzero().reshape({-1});
  const Tensor end = cat({begin.slice(0, 1, begin.size(0)), full({1}, rows.size(0), begin.options())}, 0);
  g.counts = end - begin;
  return g;
}

Tensor empty_long(const Tensor& like) { return empty({0}, detail::long_on(like)); }

// A stable lexicographic order of the rows of [n, m]: stable sorts from the last column
// to the first (a radix sort over columns).
Tensor row_order(const Tensor& rows) {
  const int64_t n = rows.size(0), m = rows.size(1);
  Tensor order = arange(n, detail::long_on(rows));
  for (int64_t c = m - 1; c >= 0; --c) {
    const Tensor key = rows.select(1, c).index_select(0, order);
    order = order.index_select(0, std::get<1>(sort(key, std::optional<bool>(true), 0, false)));
  }
  return order;
}

// Sortable stand-in for bool (the sort kernels order numbers).
Tensor sortable(const Tensor& x) { return x.dtype() == kBool ? x.to(kUInt8) : x; }

std::tuple<Tensor, Tensor, Tensor> unique_rows(const Tensor& x, int64_t dim, bool sort_rows,
                                               bool return_inverse, bool return_counts, const char* op) {
  EMBER_CHECK_ARG(x.defined(), "{}: the input is an undefined tensor", op);
  const int64_t d = detail::wrap_dim(dim, x.dim(), op);
  const Tensor moved = x.dim() == 0 ? x.reshape({1}) : x.movedim(d, 0);
  const int64_t n = moved.size(0);
  EMBER_CHECK_ARG(n == 0 || moved.numel() > 0,
                  "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  if (n == 0) return {x.clone(), empty_long(x), empty_long(x)};
  const Tensor rows = sortable(moved.reshape({n, moved.numel() / n}).contiguous());
  const Tensor order = sort_rows ? row_order(rows) : arange(n, detail::long_on(x));
  const Groups g = groups_of(rows.index_select(0, order));
  const Tensor firsts = order.masked_select(g.starts);
  const Tensor values = x.dim() == 0 ? x.reshape({1}) : x.index_select(d, firsts);
  Tensor inverse = empty_long(x);
  if (return_inverse) inverse = zeros({n}, detail::long_on(x)).scatter(0, order, g.group_of);
  return {values, inverse, return_counts ? g.counts : empty_long(x)};
}

std::tuple<Tensor, Tensor, Tensor> unique_flat(const Tensor& x, bool sort_values, bool return_inverse,
                                               bool return_counts, const char* op) {
  EMBER_CHECK_ARG(x.defined(), "{}: the input is an undefined tensor", op);
  const Tensor flat = x.reshape({-1});
  const int64_t n = flat.numel();
  if (n == 0)
    return {flat.clone(), return_inverse ? empty(x.sizes(), detail::long_on(x)) : empty_long(x),
            empty_long(x)};
  Tensor ordered = flat, order;
  if (sort_values) {
    auto [v, i] = sort(sortable(flat), std::optional<bool>(true), 0, false);
    ordered = v.to(x.dtype());
    order = i;
  }
  const Groups g = groups_of(sortable(ordered).reshape({n, 1}));
  const Tensor values = ordered.masked_select(g.starts);
  Tensor inverse = empty_long(x);
  if (return_inverse) {
    inverse = sort_values ? zeros({n}, detail::long_on(x)).scatter(0, order, g.group_of) : g.group_of;
    inverse = inverse.reshape(x.sizes());
  }
  return {values, inverse, return_counts ? g.counts : empty_long(x)};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& x, bool sorted, bool return_inverse,
                                            bool return_counts) {
  (void)sorted;  // always sorted: a valid order for sorted=false too
  return unique_flat(x, true, return_inverse, return_counts, "_unique2");
}

std::tuple<Tensor, Tensor> _unique(const Tensor& x, bool sorted, bool return_inverse) {
  auto [values, inverse, counts] = _unique2(x, sorted, return_inverse, false);
  return {values, inverse};
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  (void)sorted, (void)return_inverse, (void)return_counts;  // along a dim libtorch computes both always
  return unique_rows(x, dim, true, true, true, "unique_dim");
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse,
                                                      bool return_counts, std::optional<int64_t> dim) {
  if (dim) return unique_rows(x, *dim, false, true, true, "unique_consecutive");
  return unique_flat(x, false, return_inverse, return_counts, "unique_consecutive");
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& x, int64_t dim, bool return_inverse,
                                                          bool return_counts) {
  (void)return_inverse, (void)return_counts;
  return unique_rows(x, dim, false, true, true, "unique_dim_consecutive");
}

std::tuple<Tensor, Tensor, Tensor> Tensor::unique_consecutive(bool return_inverse, bool return_counts,
                                                              std::optional<int64_t> dim) const {
  return ember::unique_consecutive(*this, return_inverse, return_counts, dim);
}

}  // namespace ember
