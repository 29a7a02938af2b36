// libtorch's other names for ember's ops (absolute, fix, subtract, argwhere, unsafe_*,
// torch::special's functions), its small queries (is_signed, is_nonzero, sum_to_size, ...)
// and two factories (logspace, empty_strided). Each is a line or two over existing ops.
#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "dispatch/type_promotion.h"
#include "ember/linalg_ops.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "iter/elementwise_iter.h"
#include "tensor/tensor_factory.h"

namespace ember {

Tensor absolute(const Tensor& x) { return abs(x); }
Tensor fix(const Tensor& x) { return trunc(x); }
Tensor subtract(const Tensor& a, const Tensor& b, const Scalar& alpha) { return sub(a, b, alpha); }
Tensor subtract(const Tensor& a, const Scalar& b, const Scalar& alpha) { return sub(a, b, alpha); }
Tensor argwhere(const Tensor& x) { return nonzero(x); }
std::vector<Tensor> unsafe_chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  return chunk(x, chunks, dim);
}
std::vector<Tensor> unsafe_split(const Tensor& x, int64_t split_size, int64_t dim) {
  return split(x, split_size, dim);
}
Tensor isreal(const Tensor& x) { return ones_like(x, TensorOptions(kBool)); }

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  const ScalarType dtype = options.has_dtype() ? options.dtype() : get_default_dtype();
  const Tensor exponents = linspace(start, end, steps, TensorOptions(options).dtype(kDouble));
  return pow(base, exponents).to(dtype);
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  EMBER_CHECK_ARG(size.size() == stride.size(),
                  "empty_strided: mismatch in length of strides and shape: {} sizes and {} strides",
                  size.size(), stride.size());
  for (size_t i = 0; i < size.size(); ++i)
    EMBER_CHECK_ARG(
        size[i] >= 0 && stride[i] >= 0,
        "empty_strided: sizes and strides must be non-negative, got size {} and stride {} at dim {}", size[i],
        stride[i], i);
  const int64_t extent = detail::storage_extent(size, stride);
  // The strided view is made of a plain buffer, then becomes the leaf the options ask for.
  Tensor t = empty({extent}, options.requires_grad(false).memory_format(std::nullopt)).as_strided(size, stride);
  return options.requires_grad() ? t.requires_grad_() : t;
}

// ---- Tensor methods
Tensor Tensor::absolute() const { return abs(); }
Tensor& Tensor::absolute_() const { return abs_(); }
Tensor Tensor::fix() const { return ember::trunc(*this); }
Tensor& Tensor::fix_() const { return copy_(ember::trunc(*this)); }
Tensor Tensor::subtract(const Tensor& other, const Scalar& alpha) const { return sub(other, alpha); }
Tensor Tensor::subtract(const Scalar& other, const Scalar& alpha) const { return sub(other, alpha); }
Tensor& Tensor::subtract_(const Tensor& other, const Scalar& alpha) const { return sub_(other, alpha); }
Tensor& Tensor::subtract_(const Scalar& other, const Scalar& alpha) const { return sub_(other, alpha); }
Tensor Tensor::argwhere() const { return nonzero(); }
std::vector<Tensor> Tensor::unsafe_chunk(int64_t chunks, int64_t dim) const { return chunk(chunks, dim); }
std::vector<Tensor> Tensor::unsafe_split(int64_t split_size, int64_t dim) const {
  return split(split_size, dim);
}
bool Tensor::is_signed() const { return dtype() != kUInt8 && dtype() != kBool; }
bool Tensor::is_complex() const { return false; }
bool Tensor::is_nonzero() const {
  EMBER_CHECK_ARG(numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK_ARG(numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return item<double>() != 0;
}
bool Tensor::is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }
Tensor Tensor::isreal() const { return ember::isreal(*this); }
Tensor Tensor::numpy_T() const {
  std::vector<int64_t> reversed;
  for (int64_t d = dim() - 1; d >= 0; --d) reversed.push_back(d);
  return permute(reversed);
}
Tensor Tensor::matrix_H() const {
  EMBER_CHECK_ARG(dim() == 2, "tensor.H is only supported on matrices (2-D tensors). Got {}-D tensor.",
                  dim());
  return t();
}
Tensor Tensor::new_empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) const {
  TensorOptions o = options;
  if (!o.has_dtype()) o = o.dtype(dtype());
  if (!o.has_device()) o = o.device(device());
  return ember::empty_strided(size, stride, o);
}

Tensor Tensor::sum_to_size(IntArrayRef size) const {
  const int64_t lead = dim() - int64_t(size.size());
  bool expandable = lead >= 0;
  for (int64_t d = std::max<int64_t>(lead, 0); expandable && d < dim(); ++d)
    expandable = size[size_t(d - lead)] == this->size(d) || size[size_t(d - lead)] == 1;
  EMBER_CHECK_ARG(expandable, "size {{{}}} is not expandable to size {{{}}}.", detail::shape_str(size),
                  detail::shape_str(sizes()));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < dim(); ++d)
    if (d < lead || (size[size_t(d - lead)] == 1 && this->size(d) != 1)) dims.push_back(d);
  if (dims.empty()) return *this;
  return ember::sum(*this, dims, true).reshape(size);
}

// ---- torch::special
namespace special {
Tensor erf(const Tensor& x) { return ember::erf(x); }
Tensor erfc(const Tensor& x) { return ember::erfc(x); }
Tensor erfinv(const Tensor& x) { return ember::erfinv(x); }
Tensor expm1(const Tensor& x) { return ember::expm1(x); }
Tensor exp2(const Tensor& x) { return ember::exp2(x); }
Tensor expit(const Tensor& x) { return ember::sigmoid(x); }
Tensor log1p(const Tensor& x) { return ember::log1p(x); }
Tensor logit(const Tensor& x) { return ember::logit(x); }
Tensor xlogy(const Tensor& x, const Tensor& y) { return ember::xlogy(x, y); }
Tensor xlog1py(const Tensor& x, const Tensor& y) {
  const Tensor product = x * ember::log1p(y);
  return where(logical_and(x == 0, logical_not(ember::isnan(y))), zeros_like(product), product);
}
Tensor sinc(const Tensor& x) { return ember::sinc(x); }
Tensor digamma(const Tensor& x) { return ember::digamma(x); }
Tensor psi(const Tensor& x) { return ember::digamma(x); }
Tensor polygamma(int64_t n, const Tensor& x) { return ember::polygamma(n, x); }
Tensor gammaln(const Tensor& x) { return ember::lgamma(x); }
Tensor ndtr(const Tensor& x) { return ember::erfc(x * -M_SQRT1_2) * 0.5; }
Tensor log_ndtr(const Tensor& x) { return ember::log(ndtr(x)); }
Tensor ndtri(const Tensor& p) { return ember::erfinv(p * 2 - 1) * M_SQRT2; }
Tensor entr(const Tensor& x) {
  const Tensor f = x.is_floating_point() ? x : x.to(get_default_dtype());
  const Tensor inner = -f * ember::log(where(f > 0, f, ones_like(f)));
  return where(f < 0, full({}, -INFINITY, f.options()), where(f == 0, zeros_like(f), inner));
}
Tensor round(const Tensor& x) { return ember::round(x); }
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  return ember::logsumexp(x, dims, keepdim);
}
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::softmax(x, dim, dtype);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::log_softmax(x, dim, dtype);
}
}  // namespace special

// ---- dtype queries
ScalarType result_type(const Tensor& a, const Tensor& b) { return detail::result_type(a, b); }
ScalarType result_type(const Tensor& a, const Scalar& b) { return detail::result_type(a, b); }
ScalarType result_type(const Scalar& a, const Tensor& b) { return detail::result_type(b, a); }
ScalarType result_type(const Scalar& a, const Scalar& b) { return detail::result_type(a, b); }
bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  return from == kBool || to != kBool;
}

}  // namespace ember
