#pragma once
/// Pointwise functions, aliases and reductions of libtorch's ATen that ember composes of
/// its own ops (names, argument order, dtypes and errors of libtorch 1.13), so they run
/// on every device and autograd differentiates them.

#include <optional>
#include <string_view>
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

/// The remainder with the dividend's sign (C's fmod); integer division by zero throws.
EMBER_API Tensor fmod(const Tensor& a, const Tensor& b);
EMBER_API Tensor fmod(const Tensor& a, const Scalar& b);
/// floor(a / b) in the promoted dtype.
EMBER_API Tensor floor_divide(const Tensor& a, const Tensor& b);
EMBER_API Tensor floor_divide(const Tensor& a, const Scalar& b);
/// |a| with b's sign (-0.0 counts as negative).
EMBER_API Tensor copysign(const Tensor& a, const Tensor& b);
EMBER_API Tensor copysign(const Tensor& a, const Scalar& b);
EMBER_API Tensor signbit(const Tensor& x);
/// 0 where x < 0, values where x == 0, 1 where x > 0 (x and values of one dtype).
EMBER_API Tensor heaviside(const Tensor& x, const Tensor& values);
/// x * 2^other.
EMBER_API Tensor ldexp(const Tensor& x, const Tensor& other);
/// (mantissa, exponent): x = mantissa * 2^exponent with 0.5 <= |mantissa| < 1, exponent
/// int32; 0, inf and NaN give (x, 0).
EMBER_API std::tuple<Tensor, Tensor> frexp(const Tensor& x);
EMBER_API Tensor isposinf(const Tensor& x);
EMBER_API Tensor isneginf(const Tensor& x);
/// other - alpha * x.
EMBER_API Tensor rsub(const Tensor& x, const Tensor& other, const Scalar& alpha = 1);
EMBER_API Tensor rsub(const Tensor& x, const Scalar& other, const Scalar& alpha = 1);

// ---- aliases
EMBER_API Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = {});
EMBER_API Tensor true_divide(const Tensor& a, const Tensor& b);
EMBER_API Tensor true_divide(const Tensor& a, const Scalar& b);
/// a / b rounded as rounding_mode says: "trunc" toward zero, "floor" down, std::nullopt not
/// at all (true division); integer operands stay integers when rounded.
EMBER_API Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
EMBER_API Tensor div(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode);
EMBER_API Tensor divide(const Tensor& a, const Tensor& b);
EMBER_API Tensor divide(const Tensor& a, const Scalar& b);
EMBER_API Tensor divide(const Tensor& a, const Tensor& b, std::optional<std::string_view> rounding_mode);
EMBER_API Tensor divide(const Tensor& a, const Scalar& b, std::optional<std::string_view> rounding_mode);
EMBER_API Tensor multiply(const Tensor& a, const Tensor& b);
EMBER_API Tensor multiply(const Tensor& a, const Scalar& b);
EMBER_API Tensor negative(const Tensor& x);
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
/// Running log(sum(exp)), maximum and minimum along dim (the last index of a tie; a NaN
/// once seen stays, with its index).
EMBER_API Tensor logcumsumexp(const Tensor& x, int64_t dim);
EMBER_API std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim);
EMBER_API std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim);
/// The q-th quantiles (q in [0, 1], a double or a 0-d / 1-d tensor) of all elements or
/// along dim; interpolation "linear", "lower", "higher", "midpoint" or "nearest". quantile
/// gives NaN for rows with NaN, nanquantile ignores them.
EMBER_API Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                          std::string_view interpolation = "linear");
EMBER_API Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {},
                          bool keepdim = false, std::string_view interpolation = "linear");
EMBER_API Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                             std::string_view interpolation = "linear");
EMBER_API Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {},
                             bool keepdim = false, std::string_view interpolation = "linear");
/// The lower median of the values that are not NaN.
EMBER_API Tensor nanmedian(const Tensor& x);
EMBER_API std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
/// x sorted along dim 0.
EMBER_API Tensor msort(const Tensor& x);

// ---- searching and counting
/// Whether each element of `elements` occurs in `test_elements` (negated with invert).
EMBER_API Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false,
                      bool invert = false);
/// For each value, the index where it would go in the sorted innermost dim of
/// sorted_sequence (the first such index, or the last with right / side "right").
EMBER_API Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                              bool right = false, std::optional<std::string_view> side = {},
                              const std::optional<Tensor>& sorter = {});
EMBER_API Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false,
                           bool right = false);
/// Occurrences of each value 0..max of a 1-D non-negative integer tensor (summed weights).
EMBER_API Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
/// A histogram of `bins` equal bins over [min, max] (the data's range when min == max).
EMBER_API Tensor histc(const Tensor& x, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);

/// The k-th smallest element along dim (k from 1) and its index.
EMBER_API std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1,
                                              bool keepdim = false);
/// The most frequent value along dim (the smallest of equally frequent ones) and an index
/// of it: libtorch's CPU choice (its std::sort of the row, the last of a run).
EMBER_API std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);
/// The argument of each element: pi for negative reals, 0 otherwise, NaN kept (integers
/// give the default dtype); its gradient is zero, as libtorch's for real inputs.
EMBER_API Tensor angle(const Tensor& x);

// ---- distinct values (lib/tensor/unique_ops.cpp). Without dim, outputs not asked for are
// empty tensors, as libtorch's; along a dim both are always computed, as there. Each NaN
// is a value of its own (libtorch 1.13 merges them, with wrong inverse and counts).
/// (sorted distinct values, inverse indices of x's shape, counts).
EMBER_API std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& x, bool sorted = true,
                                                      bool return_inverse = false,
                                                      bool return_counts = false);
EMBER_API std::tuple<Tensor, Tensor> _unique(const Tensor& x, bool sorted = true,
                                             bool return_inverse = false);
/// Distinct slices along dim (sorted lexicographically).
EMBER_API std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& x, int64_t dim, bool sorted = true,
                                                        bool return_inverse = false,
                                                        bool return_counts = false);
/// Runs of equal consecutive values (or slices along dim) reduced to one.
EMBER_API std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                                bool return_counts = false,
                                                                std::optional<int64_t> dim = {});
EMBER_API std::tuple<Tensor, Tensor, Tensor> unique_dim_consecutive(const Tensor& x, int64_t dim,
                                                                    bool return_inverse = false,
                                                                    bool return_counts = false);

// ---- statistics and integration (lib/tensor/statistics_ops.cpp)
/// The covariance matrix of the rows of x (variables) over its columns (observations).
EMBER_API Tensor cov(const Tensor& x, int64_t correction = 1, const std::optional<Tensor>& fweights = {},
                     const std::optional<Tensor>& aweights = {});
/// Pearson's correlation coefficients of the rows of x.
EMBER_API Tensor corrcoef(const Tensor& x);
/// The trapezoid rule along dim, at sample points x or a constant spacing dx.
EMBER_API Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
EMBER_API Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
/// The running trapezoid sums along dim (one fewer element).
EMBER_API Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
EMBER_API Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);

// ---- window functions (periodic: the first n of an n+1 symmetric window)
EMBER_API Tensor hann_window(int64_t window_length, bool periodic = true, const TensorOptions& options = {});
EMBER_API Tensor hamming_window(int64_t window_length, bool periodic = true, double alpha = 0.54,
                                double beta = 0.46, const TensorOptions& options = {});
EMBER_API Tensor blackman_window(int64_t window_length, bool periodic = true,
                                 const TensorOptions& options = {});
EMBER_API Tensor bartlett_window(int64_t window_length, bool periodic = true,
                                 const TensorOptions& options = {});
EMBER_API Tensor hann_window(int64_t window_length, const TensorOptions& options);
EMBER_API Tensor hamming_window(int64_t window_length, const TensorOptions& options);
EMBER_API Tensor blackman_window(int64_t window_length, const TensorOptions& options);
EMBER_API Tensor bartlett_window(int64_t window_length, const TensorOptions& options);

// ---- libtorch's aliases (lib/tensor/alias_ops.cpp)
EMBER_API Tensor absolute(const Tensor& x);
EMBER_API Tensor fix(const Tensor& x);
EMBER_API Tensor subtract(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor subtract(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
/// The indices of the nonzero elements, one row each (nonzero).
EMBER_API Tensor argwhere(const Tensor& x);
EMBER_API std::vector<Tensor> unsafe_chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
EMBER_API std::vector<Tensor> unsafe_split(const Tensor& x, int64_t split_size, int64_t dim = 0);
/// base^linspace(start, end, steps).
EMBER_API Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                          const TensorOptions& options = {});
/// Uninitialized memory viewed with the given strides.
EMBER_API Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options = {});
/// All true: ember's tensors are real.
EMBER_API Tensor isreal(const Tensor& x);

/// log of the multivariate gamma function of dimension p: p(p-1)/4 log(pi) plus the sum of
/// lgamma(x - j/2) for j < p; every element must exceed (p - 1) / 2.
EMBER_API Tensor mvlgamma(const Tensor& x, int64_t p);
/// The modified Bessel function of the first kind of order 0 (float, double, bfloat16).
EMBER_API Tensor i0(const Tensor& x);
/// A Kaiser window: I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta), a = (length - 1) / 2.
EMBER_API Tensor kaiser_window(int64_t window_length, bool periodic = true, double beta = 12.0,
                               const TensorOptions& options = {});
EMBER_API Tensor kaiser_window(int64_t window_length, const TensorOptions& options);

/// torch::special's spellings of the special functions.
namespace special {
EMBER_API Tensor erf(const Tensor& x);
EMBER_API Tensor erfc(const Tensor& x);
EMBER_API Tensor erfinv(const Tensor& x);
EMBER_API Tensor expm1(const Tensor& x);
EMBER_API Tensor exp2(const Tensor& x);
EMBER_API Tensor expit(const Tensor& x);
EMBER_API Tensor log1p(const Tensor& x);
/// logit without eps: libtorch 1.13's torch::special::logit takes the input alone.
EMBER_API Tensor logit(const Tensor& x);
EMBER_API Tensor xlogy(const Tensor& x, const Tensor& y);
/// x * log1p(y), 0 where x == 0 (unless y is NaN).
EMBER_API Tensor xlog1py(const Tensor& x, const Tensor& y);
EMBER_API Tensor sinc(const Tensor& x);
EMBER_API Tensor digamma(const Tensor& x);
EMBER_API Tensor psi(const Tensor& x);
EMBER_API Tensor polygamma(int64_t n, const Tensor& x);
EMBER_API Tensor gammaln(const Tensor& x);
/// Modified Bessel functions of the first kind: I0, exp(-|x|) I0(x), I1, exp(-|x|) I1(x).
EMBER_API Tensor i0(const Tensor& x);
EMBER_API Tensor i0e(const Tensor& x);
EMBER_API Tensor i1(const Tensor& x);
EMBER_API Tensor i1e(const Tensor& x);
/// The Hurwitz zeta function sum_k (k + q)^-x (x > 1); the gradient flows to q only.
EMBER_API Tensor zeta(const Tensor& x, const Tensor& q);
EMBER_API Tensor zeta(const Scalar& x, const Tensor& q);
EMBER_API Tensor zeta(const Tensor& x, const Scalar& q);
/// The multivariate log-gamma function of dimension p (mvlgamma).
EMBER_API Tensor multigammaln(const Tensor& x, int64_t p);
/// The standard normal's CDF, and its log and inverse.
EMBER_API Tensor ndtr(const Tensor& x);
EMBER_API Tensor log_ndtr(const Tensor& x);
EMBER_API Tensor ndtri(const Tensor& p);
/// -x log x (0 at 0, -inf below 0).
EMBER_API Tensor entr(const Tensor& x);
EMBER_API Tensor round(const Tensor& x);
EMBER_API Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
EMBER_API Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
EMBER_API Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
/// exp(x^2) erfc(x), without the overflow of the product.
EMBER_API Tensor erfcx(const Tensor& x);
/// The regularized lower and upper incomplete gamma functions P(a, x) and Q(a, x).
EMBER_API Tensor gammainc(const Tensor& a, const Tensor& x);
EMBER_API Tensor gammaincc(const Tensor& a, const Tensor& x);
/// Bessel functions of the first and second kind, modified ones of the first and second kind
/// (k0/k1 also scaled by e^x), the spherical j0 and the Airy function Ai. float and double
/// only and not differentiable, as libtorch's.
EMBER_API Tensor bessel_j0(const Tensor& x);
EMBER_API Tensor bessel_j1(const Tensor& x);
EMBER_API Tensor bessel_y0(const Tensor& x);
EMBER_API Tensor bessel_y1(const Tensor& x);
EMBER_API Tensor modified_bessel_i0(const Tensor& x);
EMBER_API Tensor modified_bessel_i1(const Tensor& x);
EMBER_API Tensor modified_bessel_k0(const Tensor& x);
EMBER_API Tensor modified_bessel_k1(const Tensor& x);
EMBER_API Tensor scaled_modified_bessel_k0(const Tensor& x);
EMBER_API Tensor scaled_modified_bessel_k1(const Tensor& x);
EMBER_API Tensor spherical_bessel_j0(const Tensor& x);
EMBER_API Tensor airy_ai(const Tensor& x);
/// The classical orthogonal polynomials of degree n (truncated to an integer) at x: Chebyshev
/// of the four kinds and their shifted forms on [0, 1], Hermite (physicists' h, probabilists'
/// he), Laguerre and Legendre. float and double only and not differentiable, as libtorch's.
#define EMBER_SPECIAL_POLYNOMIAL_DECL(name)                \
  EMBER_API Tensor name(const Tensor& x, const Tensor& n); \
  EMBER_API Tensor name(const Scalar& x, const Tensor& n); \
  EMBER_API Tensor name(const Tensor& x, const Scalar& n);
EMBER_SPECIAL_POLYNOMIAL_DECL(chebyshev_polynomial_t)
EMBER_SPECIAL_POLYNOMIAL_DECL(chebyshev_polynomial_u)
EMBER_SPECIAL_POLYNOMIAL_DECL(chebyshev_polynomial_v)
EMBER_SPECIAL_POLYNOMIAL_DECL(chebyshev_polynomial_w)
EMBER_SPECIAL_POLYNOMIAL_DECL(shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_POLYNOMIAL_DECL(shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_POLYNOMIAL_DECL(shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_POLYNOMIAL_DECL(shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_POLYNOMIAL_DECL(hermite_polynomial_h)
EMBER_SPECIAL_POLYNOMIAL_DECL(hermite_polynomial_he)
EMBER_SPECIAL_POLYNOMIAL_DECL(laguerre_polynomial_l)
EMBER_SPECIAL_POLYNOMIAL_DECL(legendre_polynomial_p)
#undef EMBER_SPECIAL_POLYNOMIAL_DECL
}  // namespace special

/// torch::igamma / igammac: special::gammainc / gammaincc (floating dtypes; the gradient
/// flows to x only, as libtorch's).
EMBER_API Tensor igamma(const Tensor& a, const Tensor& x);
EMBER_API Tensor igammac(const Tensor& a, const Tensor& x);

// ---- dtype queries
/// The dtype an op on these operands computes in (libtorch's result_type).
EMBER_API ScalarType result_type(const Tensor& a, const Tensor& b);
EMBER_API ScalarType result_type(const Tensor& a, const Scalar& b);
EMBER_API ScalarType result_type(const Scalar& a, const Tensor& b);
EMBER_API ScalarType result_type(const Scalar& a, const Scalar& b);
/// Whether an in-place op may write a `from` result into a `to` tensor (no floating to
/// integral, nothing but bool to bool).
EMBER_API bool can_cast(ScalarType from, ScalarType to);

}  // namespace ember
