// Running extremes and log-sum-exp, quantiles and NaN-aware medians (ember/math_ops.h),
// composed of sort, gather and elementwise ops: every device runs them and autograd
// differentiates the values through the elements they pick. Scans take log2(n) steps
// (Hillis-Steele: after the step of shift s, position p has combined the 2s positions up to p).
#include <cmath>
#include <limits>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::long_on;
using detail::wrap_dim;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Positions 0..n-1 along d, broadcast to x's shape.
Tensor positions_along(const Tensor& x, int64_t d) {
  std::vector<int64_t> shape(size_t(x.dim()), 1);
  shape[size_t(d)] = x.size(d);
  return arange(x.size(d), long_on(x)).view(shape).expand(x.sizes()).contiguous();
}

// cummax / cummin: the running extreme's index, a NaN winning from where it appears and a
// tie going to the later position (libtorch's rule), then the values gathered from x.
std::tuple<Tensor, Tensor> running_extreme(const Tensor& x, int64_t dim, bool largest, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  if (x.dim() == 0) return {x.clone(), zeros({}, long_on(x))};
  const int64_t n = x.size(d);
  Tensor index;
  {
    NoGradGuard no_grad;
    Tensor v = x.detach();
    index = positions_along(x, d);
    for (int64_t s = 1; s < n; s *= 2) {
      const Tensor earlier = v.narrow(d, 0, n - s), later = v.narrow(d, s, n - s);
      const Tensor beats = largest ? later >= earlier : later <= earlier;
      const Tensor take_later = logical_or(isnan(later), logical_and(logical_not(isnan(earlier)), beats));
      v = cat({v.narrow(d, 0, s), where(take_later, later, earlier)}, d);
      index = cat(
          {index.narrow(d, 0, s), where(take_later, index.narrow(d, s, n - s), index.narrow(d, 0, n - s))},
          d);
    }
  }
  return {x.gather(d, index), index};
}

void check_interpolation(std::string_view interpolation, const char* op) {
  EMBER_CHECK_ARG(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                      interpolation == "midpoint" || interpolation == "nearest",
                  "{}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {}",
                  op, interpolation);
}

Tensor quantile_of(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation, bool ignore_nan) {
  const char* op = ignore_nan ? "nanquantile" : "quantile";
  EMBER_CHECK_ARG(x.numel() > 0, "{}() input tensor must be non-empty", op);
  EMBER_CHECK_ARG(q.dim() <= 1, "{}() q must be a scalar or 1D tensor", op);
  EMBER_CHECK_ARG(x.dtype() == kFloat || x.dtype() == kDouble,
                  "{}() input tensor must be either float or double dtype", op);
  EMBER_CHECK_ARG(q.dtype() == x.dtype(), "{}() q tensor must be same dtype as the input tensor", op);
  check_interpolation(interpolation, op);
  {
    NoGradGuard no_grad;
    EMBER_CHECK_ARG(q.numel() == 0 || logical_and(q >= 0, q <= 1).all().item<bool>(),
                    "{}() q values must be in the range [0, 1]", op);
  }
  const Tensor in = dim ? (x.dim() == 0 ? x.reshape({1}) : x) : x.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, x.dim(), op) : 0;
  // Rows along the last dim, sorted with NaN last.
  const Tensor sorted = std::get<0>(sort(in, std::optional<bool>(true), d)).movedim(d, -1);
  const int64_t n = sorted.size(-1);
  const Tensor nan = isnan(sorted);
  const Tensor valid =
      ignore_nan ? sum(logical_not(nan), {-1}, true).to(x.dtype()) : full({}, double(n), x.options());
  // ranks: [Q, rows..., 1]
  const int64_t nq = q.numel();
  std::vector<int64_t> q_shape(size_t(sorted.dim()) + 1, 1);
  q_shape[0] = nq;
  Tensor rank = q.reshape(q_shape) * (valid - 1).unsqueeze(0);
  if (!ignore_nan) rank = where(nan.any(-1, true).unsqueeze(0), full({}, double(n - 1), x.options()), rank);
  rank = rank.clamp_min(0.0);  // an all-NaN row has valid == 0: its first (NaN) element
  Tensor lo = floor(rank), hi = ceil(rank);
  if (interpolation == "nearest")
    lo = hi = round(rank);
  else if (interpolation == "lower")
    hi = lo;
  else if (interpolation == "higher")
    lo = hi;
  std::vector<int64_t> expanded = sorted.sizes().vec();
  expanded.insert(expanded.begin(), nq);
  const Tensor rows = sorted.unsqueeze(0).expand(expanded);
  std::vector<int64_t> idx_shape = rank.sizes().vec();
  for (size_t i = 0; i + 1 < idx_shape.size(); ++i) idx_shape[i] = expanded[i];
  const Tensor below = rows.gather(-1, lo.to(kLong).expand(idx_shape)),
               above = rows.gather(-1, hi.to(kLong).expand(idx_shape));
  Tensor result;
  if (interpolation == "linear")
    result = lerp(below, above, (rank - floor(rank)).expand(idx_shape));
  else if (interpolation == "midpoint")
    result = lerp(below, above, 0.5);
  else
    result = below;
  // An all-NaN row under nanquantile is NaN.
  if (ignore_nan) result = where((valid == 0).unsqueeze(0), full({}, kNaN, x.options()), result);
  result = result.squeeze(-1);  // [Q, rows...]
  if (keepdim) {
    if (dim) {
      result = result.unsqueeze(d + 1);
    } else {
      std::vector<int64_t> ones_shape(size_t(x.dim()) + 1, 1);
      ones_shape[0] = nq;
      result = result.reshape(ones_shape);
    }
  }
  return q.dim() == 0 ? result.squeeze(0) : result;
}

}  // namespace

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, x.dim(), "logcumsumexp");
  Tensor out = x.is_floating_point() ? x : x.to(get_default_dtype());
  if (out.dim() == 0 || out.numel() == 0) return out.clone();
  const int64_t n = out.size(d);
  for (int64_t s = 1; s < n; s *= 2)
    out = cat({out.narrow(d, 0, s), logaddexp(out.narrow(d, s, n - s), out.narrow(d, 0, n - s))}, d);
  return n == 1 ? out.clone() : out;
}

std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  return running_extreme(x, dim, true, "cummax");
}
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  return running_extreme(x, dim, false, "cummin");
}

Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_of(x, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  EMBER_CHECK_ARG(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got {}", q);
  return quantile_of(x, scalar_tensor(q, x.options()), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_of(x, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_CHECK_ARG(q >= 0 && q <= 1, "nanquantile() q must be in the range [0, 1] but got {}", q);
  return quantile_of(x, scalar_tensor(q, x.options()), dim, keepdim, interpolation, true);
}

std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t d = wrap_dim(dim, x.dim(), "nanmedian");
  EMBER_CHECK_ARG(in.size(d) > 0, "nanmedian(): Expected reduction dim {} to have non-zero size.", dim);
  auto [values, indices] = sort(in, std::optional<bool>(true), d);
  // The lower median of the numbers; an all-NaN row gives its first element.
  Tensor position;
  {
    NoGradGuard no_grad;
    const Tensor count = in.is_floating_point() ? sum(logical_not(isnan(in)), {d}, true)
                                                : full(std::vector<int64_t>{}, in.size(d), long_on(in));
    position = ((count - 1).clamp_min(0) / 2).floor().to(kLong);
    std::vector<int64_t> shape = in.sizes().vec();
    shape[size_t(d)] = 1;
    position = position.expand(shape).contiguous();
  }
  Tensor v = values.gather(d, position), i = indices.gather(d, position);
  if (!keepdim || x.dim() == 0) {
    v = v.squeeze(d);
    i = i.squeeze(d);
  }
  if (x.dim() == 0) return {v.reshape({}), i.reshape({})};
  return {v, i};
}

Tensor nanmedian(const Tensor& x) {
  if (x.numel() == 0) return full({}, kNaN, x.options());
  return std::get<0>(nanmedian(x.reshape({-1}), 0));
}

Tensor msort(const Tensor& x) { return std::get<0>(sort(x, 0)); }

}  // namespace ember
