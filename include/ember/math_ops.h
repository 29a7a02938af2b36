#pragma once
/// Pointwise functions, aliases and reductions of libtorch's ATen that ember composes of
/// its own ops (names, argument order, dtypes and errors of libtorch 1.13), so they run
/// on every device and autograd differentiates them.

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---- inverse and hyperbolic trigonometry, with NumPy's arc* aliases
EMBER_API Tensor asin(const Tensor& x);
EMBER_API Tensor acos(const Tensor& x);
EMBER_API Tensor atan(const Tensor& x);
EMBER_API Tensor sinh(const Tensor& x);
EMBER_API Tensor cosh(const Tensor& x);
EMBER_API Tensor asinh(const Tensor& x);
EMBER_API Tensor acosh(const Tensor& x);
EMBER_API Tensor atanh(const Tensor& x);
EMBER_API Tensor arcsin(const Tensor& x);
EMBER_API Tensor arccos(const Tensor& x);
EMBER_API Tensor arctan(const Tensor& x);
EMBER_API Tensor arcsinh(const Tensor& x);
EMBER_API Tensor arccosh(const Tensor& x);
EMBER_API Tensor arctanh(const Tensor& x);
EMBER_API Tensor arctan2(const Tensor& a, const Tensor& b);

// ---- logarithms, exponentials and friends (integer inputs give the default float type)
EMBER_API Tensor log2(const Tensor& x);
EMBER_API Tensor log10(const Tensor& x);
EMBER_API Tensor exp2(const Tensor& x);
EMBER_API Tensor logaddexp(const Tensor& a, const Tensor& b);
EMBER_API Tensor logaddexp2(const Tensor& a, const Tensor& b);
/// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given.
EMBER_API Tensor logit(const Tensor& x, std::optional<double> eps = {});
/// x * log(y), 0 where x == 0 (unless y is NaN).
EMBER_API Tensor xlogy(const Tensor& x, const Tensor& y);
EMBER_API Tensor xlogy(const Tensor& x, const Scalar& y);
EMBER_API Tensor xlogy(const Scalar& x, const Tensor& y);
EMBER_API Tensor hypot(const Tensor& a, const Tensor& b);
/// sin(pi x) / (pi x), 1 at 0.
EMBER_API Tensor sinc(const Tensor& x);
EMBER_API Tensor deg2rad(const Tensor& x);
EMBER_API Tensor rad2deg(const Tensor& x);
/// x - trunc(x).
EMBER_API Tensor frac(const Tensor& x);
/// sign(x) for real x.
EMBER_API Tensor sgn(const Tensor& x);
/// pow computed in float64.
EMBER_API Tensor float_power(const Tensor& a, const Tensor& b);
EMBER_API Tensor float_power(const Tensor& a, const Scalar& b);
EMBER_API Tensor float_power(const Scalar& a, const Tensor& b);
/// maximum / minimum that take the number when one side is NaN.
EMBER_API Tensor fmax(const Tensor& a, const Tensor& b);
EMBER_API Tensor fmin(const Tensor& a, const Tensor& b);

// ---- aliases
EMBER_API Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = {});
EMBER_API Tensor true_divide(const Tensor& a, const Tensor& b);
EMBER_API Tensor true_divide(const Tensor& a, const Scalar& b);
EMBER_API Tensor greater(const Tensor& a, const Tensor& b);
EMBER_API Tensor greater(const Tensor& a, const Scalar& b);
EMBER_API Tensor greater_equal(const Tensor& a, const Tensor& b);
EMBER_API Tensor greater_equal(const Tensor& a, const Scalar& b);
EMBER_API Tensor less(const Tensor& a, const Tensor& b);
EMBER_API Tensor less(const Tensor& a, const Scalar& b);
EMBER_API Tensor less_equal(const Tensor& a, const Tensor& b);
EMBER_API Tensor less_equal(const Tensor& a, const Scalar& b);
EMBER_API Tensor not_equal(const Tensor& a, const Tensor& b);
EMBER_API Tensor not_equal(const Tensor& a, const Scalar& b);

// ---- reductions
/// Sum / mean treating NaN as absent (nanmean of all-NaN is NaN).
EMBER_API Tensor nansum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false,
                        std::optional<ScalarType> dtype = {});
EMBER_API Tensor nanmean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false,
                         std::optional<ScalarType> dtype = {});
/// Non-zero elements over dims (all without dims), as int64.
EMBER_API Tensor count_nonzero(const Tensor& x, IntArrayRef dims = {});
EMBER_API Tensor count_nonzero(const Tensor& x, int64_t dim);
/// (amin, amax) in one call.
EMBER_API std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = {},
                                             bool keepdim = false);
/// Running product along dim.
EMBER_API Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
/// The lower median (of all elements, or along dim with its index).
EMBER_API Tensor median(const Tensor& x);
EMBER_API std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
/// The k-th smallest element along dim (k from 1) and its index.
EMBER_API std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1,
                                              bool keepdim = false);

}  // namespace ember
