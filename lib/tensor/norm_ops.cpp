// Norms and small products of torch::linalg and ATen: vector_norm, matrix_norm, norm,
// svdvals, frobenius/nuclear norms, dist, renorm, cross, vecdot, multi_dot, vander, ger,
// matrix_exp. Composed of ember's ops (libtorch 1.13's formulas, names and errors); the
// singular values come from a one-sided Jacobi SVD on the host in float64.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/linalg_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/host_linalg.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

void check_floating(const Tensor& x, const char* op) {
  EMBER_CHECK_ARG(x.defined(), "{}: the input is an undefined tensor", op);
  EMBER_CHECK_ARG(x.is_floating_point(), "{}: Expected a floating point or complex tensor as input. Got {}",
                  op, detail::torch_name(x.dtype()));
}

// The singular values; their gradient is U diag(g) V^T (distinct values; libtorch's too).
Tensor svdvals_impl(const Tensor& a, const char* op) {
  check_floating(a, op);
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  detail::HostSvd svd = detail::host_svd(a);
  Tensor s = svd.s;
  if (!GradMode::is_enabled() || !a.requires_grad()) return s;
  autograd::record(
      "LinalgSvdBackward0", {&a}, {&s},
      [u = svd.u, v = svd.v](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
        return {matmul(u * g[0].unsqueeze(-2), v.mT())};
      });
  return s;
}

Tensor vector_norm_impl(const Tensor& x, double ord, std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype, const char* op) {
  check_floating(x, op);
  const Tensor in = dtype ? x.to(*dtype) : x;
  std::vector<int64_t> dims;
  if (dim && !dim->empty())
    dims.assign(dim->begin(), dim->end());
  else
    for (int64_t d = 0; d < in.dim(); ++d) dims.push_back(d);
  if (in.dim() == 0) return ord == 0 ? (in != 0).to(in.dtype()) : abs(in);
  if (std::isinf(ord)) return ord > 0 ? amax(abs(in), dims, keepdim) : amin(abs(in), dims, keepdim);
  if (ord == 0) return sum(in != 0, dims, keepdim).to(in.dtype());
  return norm(in, ord, dims, keepdim);
}

// The two matrix dims of a matrix norm, wrapped and distinct.
std::pair<int64_t, int64_t> matrix_dims(const Tensor& a, IntArrayRef dim, const char* op) {
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK_ARG(dim.size() == 2, "{}: dim must be a 2-tuple. Got {}", op, detail::shape_str(dim));
  const int64_t d0 = detail::wrap_dim(dim[0], a.dim(), op), d1 = detail::wrap_dim(dim[1], a.dim(), op);
  EMBER_CHECK_ARG(d0 != d1, "{}: dims must be different. Got ({}, {})", op, dim[0], dim[1]);
  return {d0, d1};
}

// Singular values of the (d0, d1) matrices, reduced by `largest`/sum; keepdim as asked.
Tensor spectral(const Tensor& a, int64_t d0, int64_t d1, bool keepdim, int kind, const char* op) {
  const Tensor s = svdvals_impl(a.movedim({d0, d1}, {-2, -1}), op);
  Tensor r = kind == 0 ? s.sum(-1) : kind > 0 ? s.amax({-1}) : s.amin({-1});
  if (keepdim) r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
  return r;
}

Tensor matrix_norm_impl(const Tensor& a0, double ord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype, const char* op) {
  check_floating(a0, op);
  const Tensor a = dtype ? a0.to(*dtype) : a0;
  const auto [d0, d1] = matrix_dims(a, dim, op);
  if (ord == 2 || ord == -2) return spectral(a, d0, d1, keepdim, ord > 0 ? 1 : -1, op);
  const bool inf = std::isinf(ord);
  EMBER_CHECK_ARG(inf || ord == 1 || ord == -1, "{}: Order {} not supported.", op, ord);
  // ord 1: the largest column sum (over d0); inf: the largest row sum (over d1).
  const int64_t summed = inf ? d1 : d0;
  int64_t other = inf ? d0 : d1;
  const Tensor sums = sum(abs(a), {summed}, keepdim);
  if (!keepdim && other > summed) --other;
  return ord > 0 ? amax(sums, {other}, keepdim) : amin(sums, {other}, keepdim);
}

Tensor matrix_norm_impl(const Tensor& a0, std::string_view ord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype, const char* op) {
  check_floating(a0, op);
  const Tensor a = dtype ? a0.to(*dtype) : a0;
  const auto [d0, d1] = matrix_dims(a, dim, op);
  if (ord == "fro") return norm(a, 2, {d0, d1}, keepdim);
  EMBER_CHECK_ARG(ord == "nuc", "{}: Order {} not supported.", op, ord);
  return spectral(a, d0, d1, keepdim, 0, op);
}

Tensor cross_impl(const Tensor& a, const Tensor& b, int64_t dim, const char* op) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "{}: an input is an undefined tensor", op);
  EMBER_CHECK_ARG(a.dim() == b.dim(), "{}: inputs must have the same number of dimensions.", op);
  const int64_t d = detail::wrap_dim(dim, a.dim(), op);
  EMBER_CHECK_ARG(a.size(d) == 3 && b.size(d) == 3,
                  "{}: inputs dimension {} must have length 3. Got {} and {}", op, dim, a.size(d), b.size(d));
  const auto at = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return cat({at(a, 1) * at(b, 2) - at(a, 2) * at(b, 1), at(a, 2) * at(b, 0) - at(a, 0) * at(b, 2),
              at(a, 0) * at(b, 1) - at(a, 1) * at(b, 0)},
             d);
}

}  // namespace

Tensor linalg_svdvals(const Tensor& a) { return svdvals_impl(a, "linalg.svdvals"); }

Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return vector_norm_impl(x, ord.to_double(), dim, keepdim, dtype, "linalg.vector_norm");
}
Tensor linalg_matrix_norm(const Tensor& a, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return matrix_norm_impl(a, ord.to_double(), dim, keepdim, dtype, "linalg.matrix_norm");
}
Tensor linalg_matrix_norm(const Tensor& a, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  return matrix_norm_impl(a, ord, dim, keepdim, dtype, "linalg.matrix_norm");
}

Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord, std::optional<IntArrayRef> dim,
                   bool keepdim, std::optional<ScalarType> dtype) {
  check_floating(x, "linalg.norm");
  if (dim && dim->size() == 2 && ord)
    return matrix_norm_impl(x, ord->to_double(), *dim, keepdim, dtype, "linalg.norm");
  if (!dim && ord) {
    EMBER_CHECK_ARG(x.dim() == 1 || x.dim() == 2,
                    "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
                    x.dim());
    if (x.dim() == 2) return matrix_norm_impl(x, ord->to_double(), {-2, -1}, keepdim, dtype, "linalg.norm");
  }
  return vector_norm_impl(x, ord ? ord->to_double() : 2.0, dim, keepdim, dtype, "linalg.norm");
}
Tensor linalg_norm(const Tensor& x, std::string_view ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return matrix_norm_impl(x, ord, dim ? *dim : IntArrayRef({-2, -1}), keepdim, dtype, "linalg.norm");
}

Tensor frobenius_norm(const Tensor& x, IntArrayRef dim, bool keepdim) {
  check_floating(x, "frobenius_norm");
  return dim.empty() ? norm(x, 2) : norm(x, 2, dim, keepdim);
}
Tensor nuclear_norm(const Tensor& x, bool keepdim) {
  return matrix_norm_impl(x, "nuc", {-2, -1}, keepdim, {}, "nuclear_norm");
}
Tensor nuclear_norm(const Tensor& x, IntArrayRef dim, bool keepdim) {
  return matrix_norm_impl(x, "nuc", dim, keepdim, {}, "nuclear_norm");
}

Tensor dist(const Tensor& x, const Tensor& other, const Scalar& p) {
  return vector_norm_impl(x - other, p.to_double(), {}, false, {}, "dist");
}

Tensor renorm(const Tensor& x, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  check_floating(x, "renorm");
  EMBER_CHECK_ARG(p.to_double() > 0, "renorm: non-positive-norm not supported");
  EMBER_CHECK_ARG(maxnorm.to_double() >= 0, "renorm: expected maxnorm to be >= 0 but got {}",
                  maxnorm.to_double());
  const int64_t d = detail::wrap_dim(dim, x.dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != d) others.push_back(i);
  const Tensor norms = vector_norm_impl(x, p.to_double(), others, true, {}, "renorm");
  const double limit = maxnorm.to_double();
  // libtorch's factor: the norm is only ever scaled down, by max / (norm + 1e-7).
  const Tensor factor = where(norms > limit, limit / (norms + 1e-7), ones_like(norms));
  return x * factor;
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  if (dim) return cross_impl(a, b, *dim, "linalg.cross");
  EMBER_CHECK_ARG(a.defined() && b.defined(), "cross: an input is an undefined tensor");
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.size(d) == 3) return cross_impl(a, b, d, "linalg.cross");
  EMBER_THROW(InvalidArgument, "no dimension of size 3 in input");
}
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  return cross_impl(a, b, dim, "linalg.cross");
}
Tensor ger(const Tensor& a, const Tensor& b) { return outer(a, b); }

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  EMBER_CHECK_ARG(x.defined() && x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK_ARG(n >= 0, "N must be non-negative.");
  if (n == 0) return empty({x.size(0), 0}, x.options());
  // 1, x, x^2, ... as a running product (libtorch's cumprod), flipped unless increasing.
  Tensor columns = ones({x.size(0), 1}, x.options());
  if (n > 1) columns = cat({columns, x.unsqueeze(1).expand({x.size(0), n - 1}).cumprod(1)}, 1);
  return increasing ? columns : columns.flip({1});
}

Tensor matrix_exp(const Tensor& a) {
  check_floating(a, "linalg.matrix_exp");
  EMBER_CHECK_ARG(a.dim() >= 2 && a.size(-1) == a.size(-2),
                  "linalg.matrix_exp: A must be batches of square matrices, but they are {} by {} matrices",
                  a.dim() >= 2 ? a.size(-2) : 0, a.size(-1));
  if (a.numel() == 0) return a.clone();
  // Scale by 2^-s so that every matrix's 1-norm is at most 1/2, sum 18 Taylor terms
  // (error below 1e-20), then square s times.
  double worst;
  {
    NoGradGuard no_grad;
    worst = sum(abs(a), {-2}).amax().item<double>();
  }
  const int s = worst > 0.5 ? int(std::ceil(std::log2(worst / 0.5))) : 0;
  const Tensor scaled = a * std::ldexp(1.0, -s);
  const Tensor identity = eye(a.size(-1), a.options()).expand(a.sizes());
  Tensor term = identity, result = identity;
  for (int k = 1; k <= 18; ++k) {
    term = matmul(term, scaled) / double(k);
    result = result + term;
  }
  for (int i = 0; i < s; ++i) result = matmul(result, result);
  return result;
}

namespace linalg {
Tensor matrix_exp(const Tensor& a) { return ember::matrix_exp(a); }
Tensor svdvals(const Tensor& a) { return linalg_svdvals(a); }
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) { return linalg_cross(a, b, dim); }
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) { return (x * y).sum({dim}); }
Tensor multi_dot(const std::vector<Tensor>& tensors) {
  EMBER_CHECK_ARG(tensors.size() >= 2, "multi_dot(): expected at least 2 tensors but got {}", tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const bool end = i == 0 || i + 1 == tensors.size();
    EMBER_CHECK_ARG(tensors[i].defined() && (tensors[i].dim() == 2 || (end && tensors[i].dim() == 1)),
                    "multi_dot(): tensor {} must be {}D but got {}D", i, end ? "1D or 2" : "2",
                    tensors[i].defined() ? tensors[i].dim() : 0);
  }
  Tensor result = tensors[0].dim() == 1 ? tensors[0].unsqueeze(0) : tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i)
    result = ember::matmul(result, tensors[i].dim() == 1 ? tensors[i].unsqueeze(1) : tensors[i]);
  if (tensors.front().dim() == 1) result = result.squeeze(0);
  if (tensors.back().dim() == 1) result = result.squeeze(-1);
  return result;
}
Tensor matmul(const Tensor& a, const Tensor& b) { return ember::matmul(a, b); }
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  return ember::diagonal(a, offset, dim1, dim2);
}
Tensor vector_norm(const Tensor& x, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg_vector_norm(x, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& a, const Scalar& ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg_matrix_norm(a, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& a, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return linalg_matrix_norm(a, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& x, const std::optional<Scalar>& ord, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  return linalg_norm(x, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& x, std::string_view ord, std::optional<IntArrayRef> dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  return linalg_norm(x, ord, dim, keepdim, dtype);
}
Tensor vander(const Tensor& x, std::optional<int64_t> N) { return ember::vander(x, N, true); }
}  // namespace linalg

Tensor Tensor::matrix_exp() const { return ember::matrix_exp(*this); }
Tensor Tensor::dist(const Tensor& other, const Scalar& p) const { return ember::dist(*this, other, p); }
Tensor Tensor::renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return ember::renorm(*this, p, dim, maxnorm);
}
Tensor& Tensor::renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const {
  return copy_(ember::renorm(clone(), p, dim, maxnorm));  // the backward reads self as it was
}
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return ember::cross(*this, other, dim);
}
Tensor Tensor::ger(const Tensor& vec2) const { return ember::ger(*this, vec2); }

}  // namespace ember
