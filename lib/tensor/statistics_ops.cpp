// Statistics and integration of libtorch's ATen, composed of ember's own ops with
// libtorch 1.13's formulas: cov, corrcoef, trapezoid/trapz, cumulative_trapezoid.
#include <cmath>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
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
  EMBER_CHECK_ARG(x.dtype() != kBool, "cov(): bool dtype is not supported for input.");
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
  if (w.defined())
    EMBER_CHECK_ARG(w_sum.item<double>() != 0, "cov(): weights sum to zero, can't be normalized");
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

}  // namespace ember
