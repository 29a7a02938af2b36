// ember/math_ops.h: libtorch 1.13's functions that ember composes of its own ops. Where a
// formula has a branch that overflows or divides by zero, each branch gets an input that
// cannot (a clamp, or 1 where the other branch is taken), so that where() never passes a
// NaN gradient from the branch it did not take.
#include "ember/math_ops.h"

#include <cmath>
#include <limits>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;

// Integer and bool inputs compute in the default floating dtype, as libtorch's unary
// floating ops.
Tensor floating(const Tensor& x) { return x.is_floating_point() ? x : x.to(get_default_dtype()); }

Tensor scalar_like(const Scalar& s, const Tensor& like) {
  return scalar_tensor(s, TensorOptions(s.is_floating_point() ? kDouble : kLong).device(like.device()));
}

// log computed in float64 for narrower dtypes, so that log2(8) is 3 and log10(1000) is 3 after rounding.
Tensor log_scaled(const Tensor& x, double scale) {
  const Tensor f = floating(x);
  if (f.dtype() == kDouble) return log(f) * scale;
  return (log(f.to(kDouble)) * scale).to(f.dtype());
}

// sinh for |x| >= 1 and cosh, from exp(|x| - ln 2) past where exp(|x|) overflows float32.
Tensor half_exp_sum(const Tensor& a, double sign) {
  const Tensor small = a.clamp_max(80.0), big = a.clamp_min(80.0);
  return where(a < 80.0, (exp(small) + exp(-small) * sign) * 0.5, exp(big - kLn2));
}

}  // namespace

Tensor asin(const Tensor& x) {
  const Tensor f = floating(x);
  return atan2(f, sqrt((1 - f) * (1 + f)));
}

Tensor acos(const Tensor& x) {
  const Tensor f = floating(x);
  return atan2(sqrt((1 - f) * (1 + f)), f);
}

Tensor atan(const Tensor& x) {
  const Tensor f = floating(x);
  return atan2(f, ones_like(f));
}

Tensor sinh(const Tensor& x) {
  const Tensor f = floating(x), a = abs(f);
  const Tensor near = f.clamp(-1.0, 1.0);  // expm1 keeps the small values exact
  return where(a < 1.0, (expm1(near) - expm1(-near)) * 0.5, sign(f) * half_exp_sum(a.clamp_min(1.0), -1));
}

Tensor cosh(const Tensor& x) { return half_exp_sum(abs(floating(x)), 1); }

namespace {
// asinh of t >= 0: log1p(t + t^2 / (1 + sqrt(1 + t^2))) (no cancellation), log(2t) past 1e8.
Tensor asinh_of_nonnegative(const Tensor& t) {
  const Tensor moderate = t.clamp_max(1e8), huge = t.clamp_min(1e8);
  return where(t < 1e8, log1p(moderate + moderate * moderate / (1 + sqrt(1 + moderate * moderate))),
               log(huge) + kLn2);
}
}  // namespace

// An odd function through where() rather than sign(x) * f(|x|): the gradient at 0 is 1.
Tensor asinh(const Tensor& x) {
  const Tensor f = floating(x);
  return where(f < 0, -asinh_of_nonnegative((-f).clamp_min(0.0)), asinh_of_nonnegative(f.clamp_min(0.0)));
}

Tensor acosh(const Tensor& x) {
  const Tensor f = floating(x);
  const Tensor t = f.clamp_max(1e8) - 1, huge = f.clamp_min(1e8);
  return where(f < 1e8, log1p(t + sqrt(t * (t + 2))), log(huge) + kLn2);
}

Tensor atanh(const Tensor& x) {
  const Tensor f = floating(x);
  return log1p(2 * f / (1 - f)) * 0.5;
}

Tensor arcsin(const Tensor& x) { return asin(x); }
Tensor arccos(const Tensor& x) { return acos(x); }
Tensor arctan(const Tensor& x) { return atan(x); }
Tensor arcsinh(const Tensor& x) { return asinh(x); }
Tensor arccosh(const Tensor& x) { return acosh(x); }
Tensor arctanh(const Tensor& x) { return atanh(x); }
Tensor arctan2(const Tensor& a, const Tensor& b) { return atan2(a, b); }

Tensor log2(const Tensor& x) { return log_scaled(x, 1 / kLn2); }
Tensor log10(const Tensor& x) { return log_scaled(x, 1 / kLn10); }
Tensor exp2(const Tensor& x) { return pow(2.0, floating(x)); }

namespace {
// log_base(base^a + base^b) = max + log_base(1 + base^-|a - b|); equal infinities (where
// a - b is NaN) give that infinity.
Tensor log_add(const Tensor& a, const Tensor& b, bool base2) {
  for (const Tensor* t : {&a, &b})
    EMBER_CHECK_TYPED(t->is_floating_point(), NotImplemented, "\"{}_cpu\" not implemented for '{}'",
                      base2 ? "logaddexp2" : "logaddexp", detail::torch_name(t->dtype()));
  const Tensor m = maximum(a, b);
  const Tensor same_inf = logical_and(isinf(a), a == b);
  const Tensor d = -abs(where(same_inf, zeros({}, m.options()), a - b));
  return where(same_inf, a, m + (base2 ? log1p(exp2(d)) / kLn2 : log1p(exp(d))));
}
}  // namespace

Tensor logaddexp(const Tensor& a, const Tensor& b) { return log_add(a, b, false); }
Tensor logaddexp2(const Tensor& a, const Tensor& b) { return log_add(a, b, true); }

Tensor logit(const Tensor& x, std::optional<double> eps) {
  const Tensor f = floating(x);
  const Tensor z = eps ? f.clamp(*eps, 1 - *eps) : f;
  return log(z / (1 - z));
}

Tensor xlogy(const Tensor& x, const Tensor& y) {
  // 0 where x == 0 unless y is NaN. y is taken as 1 where x == 0 and log(y) would not be
  // finite, so the product is 0 there and x's gradient (log y) is 0 only there, as libtorch's.
  const Tensor no_log = logical_and(x == 0, logical_or(y <= 0, isinf(y)));
  const Tensor safe_y = where(no_log, ones({}, y.options()), y);
  return floating(x) * log(floating(safe_y));
}
Tensor xlogy(const Tensor& x, const Scalar& y) { return xlogy(x, scalar_like(y, x)); }
Tensor xlogy(const Scalar& x, const Tensor& y) { return xlogy(scalar_like(x, y), y); }

Tensor hypot(const Tensor& a, const Tensor& b) {
  for (const Tensor* t : {&a, &b})
    EMBER_CHECK_TYPED(t->is_floating_point(), NotImplemented, "\"hypot_cpu\" not implemented for '{}'",
                      detail::torch_name(t->dtype()));
  // Scaled by the larger magnitude so that neither square overflows or underflows.
  const Tensor aa = abs(a), ab = abs(b);
  const Tensor big = maximum(aa, ab), small = minimum(aa, ab);
  const Tensor zero = big == 0, inf = isinf(big);
  const Tensor safe_big = where(logical_or(zero, inf), ones({}, big.options()), big);
  const Tensor ratio = small / safe_big;
  return where(zero, zeros({}, big.options()), where(inf, big, safe_big * sqrt(1 + ratio * ratio)));
}

Tensor sinc(const Tensor& x) {
  // Near 0, sin(z)/z and its gradient cancel badly: the Taylor series to z^8 takes over
  // below |z| = 0.1 (its error there is below 3e-18).
  const Tensor z = floating(x) * kPi;
  const Tensor near = abs(z) < 0.1;
  const Tensor zs = where(near, zeros({}, z.options()), z).clamp(-0.1, 0.1);
  const Tensor z2 = where(near, z, zs) * where(near, z, zs);
  const Tensor series = 1 - z2 / 6 * (1 - z2 / 20 * (1 - z2 / 42 * (1 - z2 / 72)));
  const Tensor far = where(near, ones({}, z.options()), z);
  return where(near, series, sin(far) / far);
}

Tensor deg2rad(const Tensor& x) { return floating(x) * (kPi / 180); }
Tensor rad2deg(const Tensor& x) { return floating(x) * (180 / kPi); }

Tensor frac(const Tensor& x) {
  EMBER_CHECK_TYPED(x.is_floating_point(), NotImplemented, "\"frac_cpu\" not implemented for '{}'",
                    detail::torch_name(x.dtype()));
  return x - trunc(x);
}

Tensor sgn(const Tensor& x) { return sign(x); }

Tensor float_power(const Tensor& a, const Tensor& b) { return pow(a.to(kDouble), b.to(kDouble)); }
Tensor float_power(const Tensor& a, const Scalar& b) { return pow(a.to(kDouble), b.toDouble()); }
Tensor float_power(const Scalar& a, const Tensor& b) { return pow(a.toDouble(), b.to(kDouble)); }

// The gradient follows the selection, all of it to a on a tie (libtorch's fmax/fmin).
Tensor fmax(const Tensor& a, const Tensor& b) { return where(logical_or(a >= b, isnan(b)), a, b); }
Tensor fmin(const Tensor& a, const Tensor& b) { return where(logical_or(a <= b, isnan(b)), a, b); }

Tensor fmod(const Tensor& a, const Tensor& b) {
  if (!a.is_floating_point() && !b.is_floating_point())
    EMBER_CHECK_TYPED(!(b == 0).any().item<bool>(), InvalidArgument, "ZeroDivisionError");
  // remainder() takes the divisor's sign; where it differs from the dividend's, step back by b.
  const Tensor r = remainder(a, b);
  const Tensor flip_sign = logical_and(r != 0, (r < 0) != (a < 0));
  return where(flip_sign, r - b, r);
}
Tensor fmod(const Tensor& a, const Scalar& b) {
  return fmod(a, scalar_like(b, a).to(b.is_floating_point() && !a.is_floating_point() ? get_default_dtype()
                                                                                      : a.dtype()));
}

Tensor floor_divide(const Tensor& a, const Tensor& b) {
  const ScalarType dt = promote_types(a.dtype(), b.dtype());
  if (is_floating_point(dt)) return floor(a.to(dt) / b.to(dt));
  EMBER_CHECK_TYPED(!(b == 0).any().item<bool>(), InvalidArgument, "ZeroDivisionError");
  return floor(a.to(kDouble) / b.to(kDouble)).to(dt);
}
Tensor floor_divide(const Tensor& a, const Scalar& b) {
  return floor_divide(
      a, scalar_like(b, a).to(b.is_floating_point() && !a.is_floating_point() ? get_default_dtype()
                                                                              : a.dtype()));
}

namespace {
void check_rounding_mode(std::string_view mode) {
  EMBER_CHECK_ARG(mode == "trunc" || mode == "floor",
                  "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", mode);
}
}  // namespace

Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  check_rounding_mode(*rounding_mode);
  if (*rounding_mode == "floor") return floor_divide(a, b);
  const ScalarType dt = promote_types(a.dtype(), b.dtype());
  if (is_floating_point(dt)) return trunc(a.to(dt) / b.to(dt));
  EMBER_CHECK_TYPED(!(b == 0).any().item<bool>(), InvalidArgument, "ZeroDivisionError");
  return trunc(a.to(kDouble) / b.to(kDouble)).to(dt);
}
Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(a, b);
  return div(
      a,
      scalar_like(b, a).to(b.is_floating_point() && !a.is_floating_point() ? get_default_dtype() : a.dtype()),
      rounding_mode);
}
Tensor divide(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor divide(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor divide(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode) {
  return div(a, b, rounding_mode);
}
Tensor divide(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode) {
  return div(a, b, rounding_mode);
}
Tensor multiply(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor multiply(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor negative(const Tensor& x) { return neg(x); }

Tensor signbit(const Tensor& x) {
  if (x.dtype() == kBool) return zeros(x.sizes(), TensorOptions(kBool).device(x.device()));
  if (!x.is_floating_point()) return x < 0;
  // -0.0 compares equal to 0: its reciprocal is -inf.
  return logical_or(x < 0, logical_and(x == 0, reciprocal(x) < 0));
}

Tensor copysign(const Tensor& a, const Tensor& b) {
  const Tensor magnitude = abs(floating(a));
  const Tensor result = where(signbit(b), -magnitude, magnitude);
  if (!b.requires_grad() || !b.is_floating_point()) return result;
  // b's gradient is zeros, as libtorch's (a sign has no slope); the added term is 0 (or
  // -0.0, which leaves every sum unchanged) and finite whatever b holds.
  return result + where(isfinite(b), b, zeros({}, b.options())) * 0;
}
Tensor copysign(const Tensor& a, const Scalar& b) { return copysign(a, scalar_like(b, a)); }

Tensor isposinf(const Tensor& x) { return logical_and(isinf(x), x > 0); }
Tensor isneginf(const Tensor& x) { return logical_and(isinf(x), x < 0); }

Tensor rsub(const Tensor& x, const Tensor& other, const Scalar& alpha) { return sub(other, x, alpha); }
Tensor rsub(const Tensor& x, const Scalar& other, const Scalar& alpha) {
  return sub(scalar_like(other, x).to(
                 other.is_floating_point() && !x.is_floating_point() ? get_default_dtype() : x.dtype()),
             x, alpha);
}

Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(x, min, max);
}
Tensor true_divide(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor true_divide(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor greater(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor greater(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor greater_equal(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor greater_equal(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor less(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor less(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor less_equal(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor less_equal(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor not_equal(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor not_equal(const Tensor& a, const Scalar& b) { return ne(a, b); }

Tensor nansum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor kept = x.is_floating_point() ? where(isnan(x), zeros({}, x.options()), x) : x;
  return sum(kept, dims, keepdim, dtype);
}

Tensor nanmean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK_ARG(x.is_floating_point(), "nanmean(): expected input to have floating point dtype but got {}",
                  detail::torch_name(x.dtype()));
  const Tensor counted = sum(logical_not(isnan(x)), dims, keepdim);
  return nansum(x, dims, keepdim, dtype) / counted;
}

Tensor count_nonzero(const Tensor& x, IntArrayRef dims) { return sum(x != 0, dims); }
Tensor count_nonzero(const Tensor& x, int64_t dim) { return count_nonzero(x, IntArrayRef{dim}); }

std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return {amin(x, {*dim}, keepdim), amax(x, {*dim}, keepdim)};
  EMBER_CHECK_ARG(
      x.numel() > 0,
      "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  Tensor lo = amin(x), hi = amax(x);
  if (keepdim) {
    const std::vector<int64_t> ones_shape(size_t(x.dim()), 1);
    lo = lo.reshape(ones_shape);
    hi = hi.reshape(ones_shape);
  }
  return {lo, hi};
}

Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  const int64_t d = detail::wrap_dim(dim, x.dim(), "cumprod");
  Tensor out = dtype ? x.to(*dtype) : is_integral(x.dtype(), true) ? x.to(kLong) : x;
  if (out.dim() == 0 || out.numel() == 0) return out.is_same(x) ? out.clone() : out;
  const int64_t n = out.size(d);
  // A scan in log2(n) products: after the step with shift s, element i holds the product
  // of the 2s elements ending at i.
  for (int64_t s = 1; s < n; s *= 2)
    out = cat({out.narrow(d, 0, s), out.narrow(d, s, n - s) * out.narrow(d, 0, n - s)}, d);
  return n == 1 ? out.clone() : out;
}

namespace {

// The value and index at `position` (per row, along dim) of x sorted ascending with NaN
// last; NaN rows give their first NaN, as libtorch's median and kthvalue.
std::tuple<Tensor, Tensor> sorted_at(const Tensor& x, int64_t d, const Tensor& position, bool keepdim) {
  auto [values, indices] = sort(x, std::optional<bool>(true), d);
  Tensor v = values.gather(d, position), i = indices.gather(d, position);
  if (!keepdim) {
    v = v.squeeze(d);
    i = i.squeeze(d);
  }
  return {v, i};
}

std::vector<int64_t> keep_shape(const Tensor& x, int64_t d) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape[size_t(d)] = 1;
  return shape;
}

}  // namespace

// The argument of a real number: pi for negatives, 0 otherwise, NaN kept. libtorch's
// gradient for real inputs is zero everywhere.
Tensor angle(const Tensor& x) {
  EMBER_CHECK_ARG(x.defined(), "angle: undefined tensor");
  Tensor y;
  {
    NoGradGuard no_grad;
    const Tensor f = floating(x);
    y = where(isnan(f), f, where(f < 0, full({}, M_PI, f.options()), zeros({}, f.options())));
  }
  if (!GradMode::is_enabled() || !x.requires_grad()) return y;
  autograd::record("AngleBackward0", {&x}, {&y},
                   [](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                     return {zeros_like(g[0])};
                   });
  return y;
}
Tensor Tensor::angle() const { return ember::angle(*this); }

Tensor median(const Tensor& x) {
  if (x.numel() == 0) return full({}, std::numeric_limits<double>::quiet_NaN(), x.options());
  Tensor value;
  {
    NoGradGuard no_grad;
    value = std::get<0>(median(x.reshape({-1}), 0));
  }
  if (!x.requires_grad() || !GradMode::is_enabled()) return value;
  // The gradient is shared evenly by the elements equal to the median, as libtorch's.
  // value + (x_i - value) / count over the tied elements: exactly value, and 1/count each.
  const Tensor tied = x == value;
  return value + where(tied, x - value, zeros({}, x.options())).sum() / tied.sum();
}

std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim) {
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t d = detail::wrap_dim(dim, x.dim(), "median");
  const int64_t n = in.size(d);
  EMBER_CHECK_TYPED(n > 0, InvalidArgument, "median(): Expected reduction dim {} to have non-zero size.",
                    dim);
  Tensor position = full(keep_shape(in, d), (n - 1) / 2, detail::long_on(in));
  if (in.is_floating_point()) {
    const Tensor nans = sum(isnan(in), {d}, true);
    position = where(nans > 0, n - nans, position);
  }
  auto result = sorted_at(in, d, position, keepdim || x.dim() == 0);
  if (x.dim() == 0) return {std::get<0>(result).reshape({}), std::get<1>(result).reshape({})};
  return result;
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t d = detail::wrap_dim(dim, x.dim(), "kthvalue");
  EMBER_CHECK_TYPED(k >= 1 && k <= in.size(d), InvalidArgument,
                    "kthvalue(): selected number k out of range for dimension {}", d);
  auto result =
      sorted_at(in, d, full(keep_shape(in, d), k - 1, detail::long_on(in)), keepdim || x.dim() == 0);
  if (x.dim() == 0) return {std::get<0>(result).reshape({}), std::get<1>(result).reshape({})};
  return result;
}

// ---- heaviside, ldexp, frexp
Tensor heaviside(const Tensor& x, const Tensor& values) {
  EMBER_CHECK_ARG(x.defined() && values.defined(), "heaviside: an input is an undefined tensor");
  EMBER_CHECK_ARG(x.dtype() == values.dtype(),
                  "heaviside is not yet implemented for tensors with different dtypes.");
  // libtorch records a backward that throws; ember refuses at the forward.
  EMBER_CHECK_TYPED(!GradMode::is_enabled() || !(x.requires_grad() || values.requires_grad()), NotImplemented,
                    "derivative for aten::heaviside is not implemented");
  return where(x == 0, values, (x > 0).to(x.dtype()));
}

// libtorch's definition: x * 2^other (integer x gives the default float type).
Tensor ldexp(const Tensor& x, const Tensor& other) { return mul(x, pow(2.0, other)); }

namespace {
// d * 2^k exactly for integral k in double's whole exponent range: two factors, neither of
// which overflows (2^1074 does not fit; 2^537 does).
Tensor times_pow2(const Tensor& d, const Tensor& k) {
  const Tensor low = floor(k / 2);
  return d * pow(2.0, low) * pow(2.0, k - low);
}
}  // namespace

std::tuple<Tensor, Tensor> frexp(const Tensor& x) {
  EMBER_CHECK_TYPED(x.defined() && x.is_floating_point(), NotImplemented,
                    "torch.frexp() only supports floating-point dtypes");
  // In float64, whose range holds every exponent of every dtype; 2^-e is applied as two
  // factors so that neither overflows for double's subnormals.
  Tensor exponent;
  {
    NoGradGuard no_grad;
    const Tensor d = x.to(kDouble);
    const Tensor regular = logical_and(isfinite(d), d != 0);  // 0, inf, NaN: (x, 0)
    const Tensor a = where(regular, abs(d), ones_like(d));
    Tensor e = floor(log2(a)) + 1;
    // log2 may round across a power of two: step e so that 0.5 <= a / 2^e < 1.
    const Tensor m = times_pow2(a, -e);
    e = where(m >= 1, e + 1, where(m < 0.5, e - 1, e));
    e = where(regular, e, zeros_like(e));
    exponent = e;
  }
  const Tensor mantissa = times_pow2(x.to(kDouble), -exponent).to(x.dtype());
  exponent = exponent.to(kInt32);
  return {mantissa, exponent};
}

}  // namespace ember
