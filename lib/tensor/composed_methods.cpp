// Tensor methods of the composed ops (ember/shape_ops.h, math_ops.h, linalg_ops.h): each
// calls the free function, as libtorch's methods do.
#include "ember/linalg_ops.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "ember/tensor.h"

namespace ember {

Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }
Tensor& Tensor::tril_(int64_t diagonal) const { return copy_(ember::tril(*this, diagonal)); }
Tensor& Tensor::triu_(int64_t diagonal) const { return copy_(ember::triu(*this, diagonal)); }
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal(*this, offset, dim1, dim2);
}
Tensor Tensor::diag(int64_t diagonal) const { return ember::diag(*this, diagonal); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }
Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  return ember::movedim(*this, source, destination);
}
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return ember::movedim(*this, source, destination);
}
Tensor Tensor::moveaxis(IntArrayRef source, IntArrayRef destination) const {
  return ember::moveaxis(*this, source, destination);
}
Tensor Tensor::moveaxis(int64_t source, int64_t destination) const {
  return ember::moveaxis(*this, source, destination);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return ember::swapaxes(*this, axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return ember::swapdims(*this, dim0, dim1); }
Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const { return ember::unflatten(*this, dim, sizes); }
Tensor Tensor::broadcast_to(IntArrayRef size) const { return ember::broadcast_to(*this, size); }
Tensor Tensor::tile(IntArrayRef reps) const { return ember::tile(*this, reps); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim) const {
  return ember::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim) const {
  return ember::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  return ember::diff(*this, n, dim, prepend, append);
}

Tensor Tensor::asin() const { return ember::asin(*this); }
Tensor Tensor::acos() const { return ember::acos(*this); }
Tensor Tensor::atan() const { return ember::atan(*this); }
Tensor Tensor::sinh() const { return ember::sinh(*this); }
Tensor Tensor::cosh() const { return ember::cosh(*this); }
Tensor Tensor::asinh() const { return ember::asinh(*this); }
Tensor Tensor::acosh() const { return ember::acosh(*this); }
Tensor Tensor::atanh() const { return ember::atanh(*this); }
Tensor Tensor::arcsin() const { return ember::asin(*this); }
Tensor Tensor::arccos() const { return ember::acos(*this); }
Tensor Tensor::arctan() const { return ember::atan(*this); }
Tensor Tensor::arcsinh() const { return ember::asinh(*this); }
Tensor Tensor::arccosh() const { return ember::acosh(*this); }
Tensor Tensor::arctanh() const { return ember::atanh(*this); }
Tensor Tensor::arctan2(const Tensor& other) const { return ember::atan2(*this, other); }
Tensor Tensor::log2() const { return ember::log2(*this); }
Tensor Tensor::log10() const { return ember::log10(*this); }
Tensor Tensor::exp2() const { return ember::exp2(*this); }
Tensor Tensor::logaddexp(const Tensor& other) const { return ember::logaddexp(*this, other); }
Tensor Tensor::logaddexp2(const Tensor& other) const { return ember::logaddexp2(*this, other); }
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::xlogy(const Tensor& other) const { return ember::xlogy(*this, other); }
Tensor Tensor::xlogy(const Scalar& other) const { return ember::xlogy(*this, other); }
Tensor Tensor::hypot(const Tensor& other) const { return ember::hypot(*this, other); }
Tensor Tensor::sinc() const { return ember::sinc(*this); }
Tensor Tensor::deg2rad() const { return ember::deg2rad(*this); }
Tensor Tensor::rad2deg() const { return ember::rad2deg(*this); }
Tensor Tensor::frac() const { return ember::frac(*this); }
Tensor Tensor::sgn() const { return ember::sgn(*this); }
Tensor Tensor::float_power(const Tensor& exponent) const { return ember::float_power(*this, exponent); }
Tensor Tensor::float_power(const Scalar& exponent) const { return ember::float_power(*this, exponent); }
Tensor Tensor::fmax(const Tensor& other) const { return ember::fmax(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return ember::fmin(*this, other); }
Tensor Tensor::clip(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor& Tensor::clip_(std::optional<Scalar> min, std::optional<Scalar> max) const { return clamp_(min, max); }
Tensor Tensor::true_divide(const Tensor& other) const { return ember::div(*this, other); }
Tensor Tensor::true_divide(const Scalar& other) const { return ember::div(*this, other); }
Tensor Tensor::greater(const Tensor& other) const { return ember::gt(*this, other); }
Tensor Tensor::greater(const Scalar& other) const { return ember::gt(*this, other); }
Tensor Tensor::greater_equal(const Tensor& other) const { return ember::ge(*this, other); }
Tensor Tensor::greater_equal(const Scalar& other) const { return ember::ge(*this, other); }
Tensor Tensor::less(const Tensor& other) const { return ember::lt(*this, other); }
Tensor Tensor::less(const Scalar& other) const { return ember::lt(*this, other); }
Tensor Tensor::less_equal(const Tensor& other) const { return ember::le(*this, other); }
Tensor Tensor::less_equal(const Scalar& other) const { return ember::le(*this, other); }
Tensor Tensor::not_equal(const Tensor& other) const { return ember::ne(*this, other); }
Tensor Tensor::not_equal(const Scalar& other) const { return ember::ne(*this, other); }
Tensor Tensor::nansum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nansum(*this, dims, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nanmean(*this, dims, keepdim, dtype);
}
Tensor Tensor::count_nonzero(IntArrayRef dims) const { return ember::count_nonzero(*this, dims); }
Tensor Tensor::count_nonzero(int64_t dim) const { return ember::count_nonzero(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ember::median(*this, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta, const Scalar& alpha) const {
  return ember::addr(*this, vec1, vec2, beta, alpha);
}
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::trace() const { return ember::trace(*this); }
Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::inner(const Tensor& other) const { return ember::inner(*this, other); }

Tensor Tensor::fmod(const Tensor& other) const { return ember::fmod(*this, other); }
Tensor Tensor::fmod(const Scalar& other) const { return ember::fmod(*this, other); }
Tensor Tensor::floor_divide(const Tensor& other) const { return ember::floor_divide(*this, other); }
Tensor Tensor::floor_divide(const Scalar& other) const { return ember::floor_divide(*this, other); }
Tensor Tensor::copysign(const Tensor& other) const { return ember::copysign(*this, other); }
Tensor Tensor::copysign(const Scalar& other) const { return ember::copysign(*this, other); }
Tensor Tensor::signbit() const { return ember::signbit(*this); }
Tensor Tensor::heaviside(const Tensor& values) const { return ember::heaviside(*this, values); }
Tensor& Tensor::heaviside_(const Tensor& values) const { return copy_(ember::heaviside(*this, values)); }
Tensor Tensor::ldexp(const Tensor& other) const { return ember::ldexp(*this, other); }
Tensor& Tensor::ldexp_(const Tensor& other) const { return mul_(ember::pow(2.0, other)); }
std::tuple<Tensor, Tensor> Tensor::frexp() const { return ember::frexp(*this); }
Tensor Tensor::isposinf() const { return ember::isposinf(*this); }
Tensor Tensor::isneginf() const { return ember::isneginf(*this); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  return ember::bincount(*this, weights, minlength);
}
Tensor Tensor::histc(int64_t bins, const Scalar& min, const Scalar& max) const {
  return ember::histc(*this, bins, min, max);
}
std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return ember::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t dim) const {
  return ember::tensor_split(*this, indices, dim);
}
std::vector<Tensor> Tensor::hsplit(int64_t sections) const { return ember::hsplit(*this, sections); }
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const { return ember::hsplit(*this, indices); }
std::vector<Tensor> Tensor::vsplit(int64_t sections) const { return ember::vsplit(*this, sections); }
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const { return ember::vsplit(*this, indices); }
std::vector<Tensor> Tensor::dsplit(int64_t sections) const { return ember::dsplit(*this, sections); }
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const { return ember::dsplit(*this, indices); }
std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return ember::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  return ember::split_with_sizes(*this, split_sizes, dim);
}
Tensor Tensor::ravel() const { return ember::ravel(*this); }
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return ember::take_along_dim(*this, indices, dim);
}

Tensor Tensor::type_as(const Tensor& other) const { return to(other.dtype()); }

namespace {
// options with this tensor's dtype and device wherever options leaves them unset.
TensorOptions like(const Tensor& self, const TensorOptions& options) {
  TensorOptions o = options;
  if (!o.has_dtype()) o = o.dtype(self.dtype());
  if (!o.has_device()) o = o.device(self.device());
  return o;
}
}  // namespace

Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& options) const {
  return ember::zeros(size, like(*this, options));
}
Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& options) const {
  return ember::ones(size, like(*this, options));
}
Tensor Tensor::new_full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options) const {
  return ember::full(size, fill_value, like(*this, options));
}
Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& options) const {
  return ember::empty(size, like(*this, options));
}

}  // namespace ember
