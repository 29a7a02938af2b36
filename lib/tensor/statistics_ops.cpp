// Statistics, integration and window functions of libtorch's ATen, composed of ember's
// own ops with libtorch 1.13's formulas (so float32 results round as libtorch's do):
// cov, corrcoef, trapezoid/trapz, cumulative_trapezoid, and the hann, hamming, blackman
// and bartlett windows.
#include <cmath>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/type_promotion.h"
#include "ember/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
constexpr double kPi = 3.14159265358979323846;

Tensor floating(const Tensor& x) { return x.is_floating_point() ? x : x.to(get_default_dtype()); }

void check_weights(const Tensor& w, const char* which, int64_t observations) {
  EMBER_CHECK_ARG(w.dim() <= 1,
                  "cov(): expected {} to have one or fewer dimensions but got {} with {} dimensions", which,
                  which, w.dim());
  EMBER_CHECK_ARG(
      w.numel() == observations,
      "cov(): expected {} to have the same numel as there are observations in the input but got {} "
      "!= {}",
      which, w.numel(), observations);
  EMBER_CHECK_ARG(w.numel() == 0 || w.min().item<double>() >= 0, "cov(): {} cannot be negative", which);
}
}  // namespace

Tensor cov(const Tensor& x, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK_ARG(x.defined(), "cov(): the input is an undefined tensor");
  EMBER_CHECK_ARG(x.dim() <= 2,
                  "cov(): expected input to have two or fewer dimensions but got an input with {} "
                  "dimensions",
                  x.dim());
  const Tensor in = x.dim() < 2 ? floating(x).reshape({1, -1}) : floating(x);
  const int64_t observations = in.size(1);
  Tensor w;
  if (fweights && fweights->defined()) {
    EMBER_CHECK_ARG(is_integral(fweights->dtype(), false),
                    "cov(): expected fweights to have integral dtype but got fweights with {} dtype",
                    detail::torch_name(fweights->dtype()));
    check_weights(*fweights, "fweights", observations);
    w = *fweights;
  }
  const bool has_aweights = aweights && aweights->defined();
  if (has_aweights) {
    EMBER_CHECK_ARG(aweights->is_floating_point(),
                    "cov(): expected aweights to have floating point dtype but got aweights with {} dtype",
                    detail::torch_name(aweights->dtype()));
    check_weights(*aweights, "aweights", observations);
    w = w.defined() ? w * *aweights : *aweights;
  }
  const Tensor w_sum = w.defined() ? w.sum().to(in.dtype()) : scalar_tensor(observations, in.options());
  const Tensor avg = w.defined() ? (in * w).sum(1) / w_sum : in.mean(1);
  Tensor norm_factor;
  if (w.defined() && correction != 0 && has_aweights)
    norm_factor = w_sum - correction * (w * *aweights).sum() / w_sum;
  else
    norm_factor = w_sum - correction;
  if (norm_factor.item<double>() <= 0) {
    EMBER_WARN("cov(): degrees of freedom is <= 0");
    norm_factor = zeros_like(norm_factor);
  }
  const Tensor centered = in - avg.unsqueeze(1);
  const Tensor c = matmul(centered, (w.defined() ? centered * w : centered).t());
  return (c / norm_factor).squeeze();
}

Tensor corrcoef(const Tensor& x) {
  EMBER_CHECK_ARG(x.defined() && x.dim() <= 2,
                  "corrcoef(): expected input to have two or fewer dimensions but got "
                  "an input with {} dimensions",
                  x.defined() ? x.dim() : 0);
  const Tensor c = cov(x);
  if (c.dim() == 0) return c / c;  // one variable: 1, or NaN for a constant one
  const Tensor stddev = sqrt(diagonal(c));
  return (c / stddev.unsqueeze(1) / stddev.unsqueeze(0)).clamp(-1, 1);
}
Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fweights,
                   const std::optional<Tensor>& aweights) const {
  return ember::cov(*this, correction, fweights, aweights);
}
Tensor Tensor::corrcoef() const { return ember::corrcoef(*this); }

// ---- trapezoid rule
namespace {
// The spacing between sample points, shaped to broadcast against y's slices along dim.
Tensor spacing(const Tensor& y, const Tensor& x, int64_t d, const char* op) {
  EMBER_CHECK_ARG(x.defined(), "{}: x is an undefined tensor", op);
  if (x.dim() == 1) {
    EMBER_CHECK_ARG(x.size(0) == y.size(d), "{}: There must be one `x` value for each sample point", op);
    std::vector<int64_t> shape(size_t(y.dim()), 1);
    shape[size_t(d)] = x.size(0) - 1;
    return diff(x).reshape(shape);
  }
  const int64_t xd = x.dim() - (y.dim() - d);  // x's dims align with y's from the right
  EMBER_CHECK_ARG(xd >= 0, "{}: x of shape {} does not broadcast against y of shape {}", op,
                  detail::shape_str(x.sizes()), detail::shape_str(y.sizes()));
  return diff(x, 1, xd);
}

int64_t checked_dim(const Tensor& y, int64_t dim, const char* op) {
  EMBER_CHECK_ARG(y.defined(), "{}: y is an undefined tensor", op);
  return detail::wrap_dim(dim, y.dim(), op);
}

Tensor pair_sums(const Tensor& y, int64_t d) {
  const int64_t n = y.size(d);
  return y.slice(d, 1, n) + y.slice(d, 0, n - 1);
}
}  // namespace

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = checked_dim(y, dim, "trapezoid");
  if (y.size(d) == 0) return zeros_like(floating(y).sum(d));
  return (spacing(y, x, d, "trapezoid") * pair_sums(y, d)).sum(d) / 2.;
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = checked_dim(y, dim, "trapezoid");
  if (y.size(d) == 0) return zeros_like(floating(y).sum(d));
  return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx;
}
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = checked_dim(y, dim, "cumulative_trapezoid");
  if (y.size(d) == 0) return floating(y).clone();
  return (spacing(y, x, d, "cumulative_trapezoid") / 2. * pair_sums(y, d)).cumsum(d);
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = checked_dim(y, dim, "cumulative_trapezoid");
  if (y.size(d) == 0) return floating(y).clone();
  return (pair_sums(y, d) * (dx.to_double() / 2.)).cumsum(d);
}

// ---- window functions
namespace {
// The window's options (default dtype when none is given), checked as libtorch checks them;
// `length` is the symmetric window's (n + 1 when periodic).
TensorOptions window_options(const char* op, int64_t n, const TensorOptions& options) {
  EMBER_CHECK_ARG(n >= 0, "{} requires non-negative window_length, got window_length={}", op, n);
  const ScalarType t = options.has_dtype() ? options.dtype() : get_default_dtype();
  EMBER_CHECK_ARG(is_floating_point(t), "{} expects floating point dtypes, got: {}", op,
                  detail::torch_name(t));
  return TensorOptions(options).dtype(t);
}

// Windows of length 0 and 1 are [] and [1]; a periodic window is a symmetric one of n + 1
// with its last point dropped.
template <class F>
Tensor make_window(const char* op, int64_t n, bool periodic, const TensorOptions& options, F symmetric) {
  const TensorOptions o = window_options(op, n, options);
  if (n == 0) return empty({0}, o);
  if (n == 1) return ones({1}, o);
  const int64_t length = periodic ? n + 1 : n;
  const Tensor w = symmetric(arange(length, o), length);
  return periodic ? w.slice(0, 0, n) : w;
}
}  // namespace

Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options) {
  return make_window("hamming_window", window_length, periodic, options,
                     [&](const Tensor& k, int64_t length) {
                       return cos(k * (kPi * 2. / double(length - 1))) * -beta + alpha;
                     });
}
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  window_options("hann_window", window_length, options);
  return hamming_window(window_length, periodic, 0.5, 0.5, options);
}
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("blackman_window", window_length, periodic, options,
                     [](const Tensor& k, int64_t length) {
                       const Tensor phase = k * (kPi / double(length - 1));
                       return cos(phase * 4) * 0.08 - cos(phase * 2) * 0.5 + 0.42;
                     });
}
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("bartlett_window", window_length, periodic, options,
                     [](const Tensor& k, int64_t length) {
                       const Tensor ramp = k * (2. / double(length - 1));
                       const int64_t rising = ((length - 1) >> 1) + 1;
                       return cat({ramp.slice(0, 0, rising), 2 - ramp.slice(0, rising, length)}, 0);
                     });
}
Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, 0.54, 0.46, options);
}
Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}
Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}

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
