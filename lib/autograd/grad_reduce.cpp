// Backward formulas of the reductions (sum ... logsumexp), softmax, log_softmax and cumsum.
// A reduced gradient is first put back in the input's shape (expand_back), then scaled.
#include <algorithm>
#include <cmath>

#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd::detail {

namespace {

using G = variable_list;
using N = FormulaNode;

// Wrapped, sorted reduced dims; all dims when none are given.
std::vector<int64_t> reduced_dims(IntArrayRef dims, int64_t ndim) {
  std::vector<int64_t> r;
  if (dims.size() == 0)
    for (int64_t d = 0; d < ndim; ++d) r.push_back(d);
  for (int64_t d : dims) r.push_back(ember::detail::wrap_dim(d, ndim, "backward"));
  std::sort(r.begin(), r.end());
  return r;
}

// g (the shape of a reduction's result) broadcast back over the reduced dims to `sizes`.
Tensor expand_back(const Tensor& g, IntArrayRef sizes, const std::vector<int64_t>& dims, bool keepdim) {
  Tensor r = g;
  if (!keepdim)
    for (int64_t d : dims) r = r.unsqueeze(d);
  return r.expand(sizes);
}

int64_t count(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= sizes.size() ? sizes[size_t(d)] : 1;
  return n;
}

}  // namespace

Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::sum(x, dims, keepdim, dtype);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  const char* name = dims.size() == 0 && !keepdim ? "SumBackward0" : "SumBackward1";
  record(name, {&x}, {&y}, [rd = reduced_dims(dims, x.dim()), keepdim](N& n, G& g) -> G {
    return {expand_back(g[0], n.in_sizes(0), rd, keepdim)};
  });
  return y;
}

Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::mean(x, dims, keepdim, dtype);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  const char* name = dims.size() == 0 && !keepdim ? "MeanBackward0" : "MeanBackward1";
  auto rd = reduced_dims(dims, x.dim());
  const double k = double(count(x.sizes(), rd));
  record(name, {&x}, {&y}, [rd, keepdim, k](N& n, G& g) -> G {
    return {expand_back(g[0], n.in_sizes(0), rd, keepdim) / k};
  });
  return y;
}

Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<ScalarType> dtype) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = dim ? ember::prod(x, *dim, keepdim, dtype) : ember::prod(x, dtype);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  auto rd = dim ? reduced_dims(*dim, x.dim()) : reduced_dims({}, x.dim());
  auto node = record(dim ? "ProdBackward1" : "ProdBackward0", {&x}, {&y}, [rd, keepdim](N& n, G& g) -> G {
    // d prod / d x_i = prod / x_i; a zero input takes the product of the others instead.
    Tensor v = n.saved(0);
    Tensor out = expand_back(n.saved(1), n.in_sizes(0), rd, keepdim);
    Tensor ge = expand_back(g[0], n.in_sizes(0), rd, keepdim);
    Tensor safe = where(v == 0, ones_like(v), v);
    Tensor zeros_in = ember::sum(eq(v, 0).to(v.dtype()), IntArrayRef(rd), true).expand(v.sizes());
    // With exactly one zero in a slice, that element's gradient is the product of the rest.
    Tensor prod_nonzero = safe;
    for (int64_t d : rd) prod_nonzero = ember::prod(prod_nonzero, d, true, std::nullopt);
    Tensor at_zero = where(logical_and(v == 0, zeros_in == 1), prod_nonzero.expand(v.sizes()), zeros_like(v));
    return {ge * where(v == 0, at_zero, out / safe)};
  });
  node->saved_[0] = SavedVariable(x, false);
  node->saved_[1] = SavedVariable(y, true);
  return y;
}

Tensor amax_amin(bool is_max, const char* name, const Tensor& x, IntArrayRef dims, bool keepdim) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = is_max ? ember::amax(x, dims, keepdim) : ember::amin(x, dims, keepdim);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  auto rd = reduced_dims(dims, x.dim());
  auto node = record(name, {&x}, {&y}, [rd, keepdim](N& n, G& g) -> G {
    // The gradient is shared evenly among the elements equal to the extreme (libtorch's rule).
    Tensor v = n.saved(0);
    Tensor mask = eq(v, expand_back(n.saved(1), v.sizes(), rd, keepdim)).to(g[0].dtype());
    Tensor k = ember::sum(mask, IntArrayRef(rd), true);
    return {expand_back(g[0], v.sizes(), rd, keepdim) * mask / k};
  });
  node->saved_[0] = SavedVariable(x, false);
  node->saved_[1] = SavedVariable(y, true);
  return y;
}

std::tuple<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim) {
  std::tuple<Tensor, Tensor> r;
  {
    NoGradGuard no_grad;
    r = is_max ? ember::max(x, dim, keepdim) : ember::min(x, dim, keepdim);
  }
  Tensor& values = std::get<0>(r);
  if (!requires_grad(x) || !is_floating_point(values.dtype())) return r;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "max");
  auto node = record(is_max ? "MaxBackward0" : "MinBackward0", {&x}, {&values}, [d, keepdim](N& n, G& g) -> G {
    // The whole gradient goes to the element the index names, as libtorch's indices do.
    IntArrayRef sizes = n.in_sizes(0);
    Tensor idx = n.saved(0);
    if (!keepdim && sizes.size()) idx = idx.unsqueeze(d);
    Tensor gk = keepdim || !sizes.size() ? g[0] : g[0].unsqueeze(d);
    if (!sizes.size()) return {gk};
    SizesVector shape(sizes.size(), 1);
    shape[size_t(d)] = sizes[size_t(d)];
    Tensor pos = arange(sizes[size_t(d)], TensorOptions(kInt64).device(idx.device())).view(shape.ref());
    return {where(eq(pos, idx), gk.expand(sizes), 0.0)};
  });
  node->saved_[0] = SavedVariable(std::get<1>(r), false);
  return r;
}

Tensor var_std(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim, bool take_sqrt) {
  Tensor y;
  {
    NoGradGuard no_grad;
    const std::optional<int64_t> c = correction;
    y = take_sqrt ? ember::std(x, dims, c, keepdim) : ember::var(x, dims, c, keepdim);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  auto rd = reduced_dims(dims, x.dim());
  const double denom = double(count(x.sizes(), rd)) - double(correction);
  auto node = record(take_sqrt ? "StdBackward0" : "VarBackward0", {&x}, {&y},
                     [rd, keepdim, denom, take_sqrt](N& n, G& g) -> G {
                       Tensor v = n.saved(0);
                       Tensor centered = v - ember::mean(v, IntArrayRef(rd), true);
                       Tensor ge = expand_back(g[0], v.sizes(), rd, keepdim);
                       if (!take_sqrt) return {ge * centered * (2.0 / denom)};
                       Tensor s = expand_back(n.saved(1), v.sizes(), rd, keepdim);
                       return {ge * centered / (s * denom)};
                     });
  node->saved_[0] = SavedVariable(x, false);
  if (take_sqrt) node->saved_[1] = SavedVariable(y, true);
  return y;
}

Tensor norm(const Tensor& x, const Scalar& p, IntArrayRef dims, bool keepdim) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::norm(x, p, dims, keepdim);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  auto rd = reduced_dims(dims, x.dim());
  const double pv = p.to_double();
  auto node = record(dims.size() ? "NormBackward1" : "NormBackward0", {&x}, {&y}, [rd, keepdim, pv](N& n, G& g) -> G {
    Tensor v = n.saved(0);
    Tensor ge = expand_back(g[0], v.sizes(), rd, keepdim);
    Tensor out = expand_back(n.saved(1), v.sizes(), rd, keepdim);
    if (pv == 0) return {zeros_like(v)};
    if (pv == 1) return {ge * sign(v)};
    if (std::isinf(pv)) {
      Tensor mask = eq(abs(v), out).to(v.dtype());
      return {ge * sign(v) * mask / ember::sum(mask, IntArrayRef(rd), true)};
    }
    // x |x|^(p-2) / ||x||^(p-1); a zero norm has a zero (sub)gradient.
    Tensor scale = pv == 2 ? v : v * pow(abs(v), pv - 2);
    Tensor safe = where(out == 0, ones_like(out), out);
    return {where(out == 0, zeros_like(v), ge * scale / (pv == 2 ? safe : pow(safe, pv - 1)))};
  });
  node->saved_[0] = SavedVariable(x, false);
  node->saved_[1] = SavedVariable(y, true);
  return y;
}

Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::logsumexp(x, dims, keepdim);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  auto rd = reduced_dims(dims, x.dim());
  auto node = record("LogsumexpBackward0", {&x}, {&y}, [rd, keepdim](N& n, G& g) -> G {
    Tensor v = n.saved(0);
    return {expand_back(g[0], v.sizes(), rd, keepdim) * exp(v - expand_back(n.saved(1), v.sizes(), rd, keepdim))};
  });
  node->saved_[0] = SavedVariable(x, false);
  node->saved_[1] = SavedVariable(y, true);
  return y;
}

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = log ? ember::log_softmax(x, dim, dtype) : ember::softmax(x, dim, dtype);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "softmax");
  auto node = record(log ? "LogSoftmaxBackward0" : "SoftmaxBackward0", {&x}, {&y}, [d, log](N& n, G& g) -> G {
    Tensor out = n.saved(0);
    if (log) return {g[0] - exp(out) * ember::sum(g[0], d, true)};
    return {out * (g[0] - ember::sum(g[0] * out, d, true))};
  });
  node->saved_[0] = SavedVariable(y, true);
  return y;
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::cumsum(x, dim, dtype);
  }
  if (!requires_grad(x) || !is_floating_point(y.dtype())) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "cumsum");
  // The reversed cumulative sum: total - (inclusive prefix) + own.
  record("CumsumBackward0", {&x}, {&y}, [d](N&, G& g) -> G {
    if (g[0].dim() == 0) return {g[0]};
    return {ember::sum(g[0], d, true) - ember::cumsum(g[0], d) + g[0]};
  });
  return y;
}

}  // namespace ember::autograd::detail
