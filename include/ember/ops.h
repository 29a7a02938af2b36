#pragma once
/// Free functions of API.md section 4, mirroring torch::. Each dispatches at once to
/// the kernel registered for (op, device type) on the device placement picks.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/export.h"
#include "ember/generator.h"
#include "ember/tensor.h"
#include "ember/tensor_literal.h"

namespace ember {

// ---- creation: options last; dtype and device inferred as libtorch does
/// Laid out in `memory_format` or the options' (ChannelsLast: 4 dims, ChannelsLast3d: 5;
/// not Preserve; not both), row-major when neither names one.
EMBER_API Tensor empty(IntArrayRef sizes, const TensorOptions& options = {},
                       std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {});
EMBER_API Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
                        const TensorOptions& options = {});
EMBER_API Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                          const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
// Random tensors (ember/generator.h): on the CPU the values are libtorch's for the same
// seed; `generator` (an empty optional: the default one) must be of the result's device type.
EMBER_API Tensor rand(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor rand(IntArrayRef sizes, std::optional<Generator> generator, const TensorOptions& options = {});
EMBER_API Tensor randn(IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor randn(IntArrayRef sizes, std::optional<Generator> generator, const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t high, IntArrayRef sizes, std::optional<Generator> generator,
                         const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, std::optional<Generator> generator,
                         const TensorOptions& options = {});
/// A random permutation of 0 .. n-1 (int64 unless told).
EMBER_API Tensor randperm(int64_t n, const TensorOptions& options = {});
EMBER_API Tensor randperm(int64_t n, std::optional<Generator> generator, const TensorOptions& options = {});
/// normal(mean, std) of the given size (the default dtype unless told).
EMBER_API Tensor normal(double mean, double std, IntArrayRef sizes, std::optional<Generator> generator = {},
                        const TensorOptions& options = {});
/// 0 or 1 with probability p per element: of the tensor of probabilities, or of the scalar p.
EMBER_API Tensor bernoulli(const Tensor& p, std::optional<Generator> generator = {});
EMBER_API Tensor bernoulli(const Tensor& self, double p, std::optional<Generator> generator = {});
/// A Poisson(rate) draw per element of the non-negative rates, in their dtype (floating);
/// on the CPU libtorch's samples for a seed.
EMBER_API Tensor poisson(const Tensor& rates, std::optional<Generator> generator = {});
/// A Binomial(count, prob) draw per element of count and prob (one floating dtype, broadcast);
/// on the CPU libtorch's samples for a seed.
EMBER_API Tensor binomial(const Tensor& count, const Tensor& prob, std::optional<Generator> generator = {});
/// num_samples category indices (int64) per row of a 1-D or 2-D tensor of non-negative
/// weights, drawn with or without replacement; on the CPU libtorch's samples for a seed.
EMBER_API Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false,
                             std::optional<Generator> generator = {});
// *_like: the input's sizes, dtype and device unless the options say otherwise, laid out
// in the memory format given (as an argument or in the options, not both; Preserve keeps
// the input's strides when they are dense, as libtorch). Without one the result is
// row-major, where libtorch's default is Preserve.
EMBER_API Tensor zeros_like(const Tensor& t, const TensorOptions& options = {},
                            std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor ones_like(const Tensor& t, const TensorOptions& options = {},
                           std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& options = {},
                           std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor empty_like(const Tensor& t, const TensorOptions& options = {},
                            std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor rand_like(const Tensor& t, const TensorOptions& options = {},
                           std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor randn_like(const Tensor& t, const TensorOptions& options = {},
                            std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& options = {},
                              std::optional<MemoryFormat> memory_format = std::nullopt);
EMBER_API Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& options = {},
                              std::optional<MemoryFormat> memory_format = std::nullopt);
/// Wraps memory the caller owns (no copy); the deleter, when given, runs when the last view dies.
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                           const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                           const TensorOptions& options = {});
EMBER_API Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, std::function<void(void*)> deleter,
                           const TensorOptions& options = {});

EMBER_API Tensor scalar_tensor(const Scalar& value, const TensorOptions& options = {});
/// The number of elements (torch::numel).
inline int64_t numel(const Tensor& t) { return t.numel(); }

// ---- binary elementwise (broadcasting, torch type promotion)
EMBER_API Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1);
EMBER_API Tensor mul(const Tensor& a, const Tensor& b);
EMBER_API Tensor mul(const Tensor& a, const Scalar& b);
/// True division: integer inputs give the default float dtype.
EMBER_API Tensor div(const Tensor& a, const Tensor& b);
EMBER_API Tensor div(const Tensor& a, const Scalar& b);
/// Python's modulo: the result takes the divisor's sign.
EMBER_API Tensor remainder(const Tensor& a, const Tensor& b);
EMBER_API Tensor remainder(const Tensor& a, const Scalar& b);
EMBER_API Tensor remainder(const Scalar& a, const Tensor& b);
EMBER_API Tensor pow(const Tensor& a, const Tensor& b);
EMBER_API Tensor pow(const Tensor& a, const Scalar& b);
EMBER_API Tensor pow(const Scalar& a, const Tensor& b);
EMBER_API Tensor maximum(const Tensor& a, const Tensor& b);
EMBER_API Tensor minimum(const Tensor& a, const Tensor& b);
EMBER_API Tensor atan2(const Tensor& a, const Tensor& b);
EMBER_API Tensor eq(const Tensor& a, const Tensor& b);
EMBER_API Tensor eq(const Tensor& a, const Scalar& b);
EMBER_API Tensor ne(const Tensor& a, const Tensor& b);
EMBER_API Tensor ne(const Tensor& a, const Scalar& b);
EMBER_API Tensor lt(const Tensor& a, const Tensor& b);
EMBER_API Tensor lt(const Tensor& a, const Scalar& b);
EMBER_API Tensor le(const Tensor& a, const Tensor& b);
EMBER_API Tensor le(const Tensor& a, const Scalar& b);
EMBER_API Tensor gt(const Tensor& a, const Tensor& b);
EMBER_API Tensor gt(const Tensor& a, const Scalar& b);
EMBER_API Tensor ge(const Tensor& a, const Tensor& b);
EMBER_API Tensor ge(const Tensor& a, const Scalar& b);
EMBER_API Tensor logical_and(const Tensor& a, const Tensor& b);
EMBER_API Tensor logical_or(const Tensor& a, const Tensor& b);
EMBER_API Tensor logical_xor(const Tensor& a, const Tensor& b);

// ---- integer ops (lib/dispatch/binary_ops.cpp): bitwise ones on integers and bool,
// shifts, gcd and lcm on integers; a floating operand is libtorch's NotImplemented.
EMBER_API Tensor bitwise_and(const Tensor& a, const Tensor& b);
EMBER_API Tensor bitwise_and(const Tensor& a, const Scalar& b);
EMBER_API Tensor bitwise_and(const Scalar& a, const Tensor& b);
EMBER_API Tensor bitwise_or(const Tensor& a, const Tensor& b);
EMBER_API Tensor bitwise_or(const Tensor& a, const Scalar& b);
EMBER_API Tensor bitwise_or(const Scalar& a, const Tensor& b);
EMBER_API Tensor bitwise_xor(const Tensor& a, const Tensor& b);
EMBER_API Tensor bitwise_xor(const Tensor& a, const Scalar& b);
EMBER_API Tensor bitwise_xor(const Scalar& a, const Tensor& b);
EMBER_API Tensor bitwise_not(const Tensor& x);
/// Shifts as PyTorch 2 defines them: a left shift by the width or more, or by a negative
/// count, gives 0; a right shift by such a count gives 0, or -1 for a negative value.
EMBER_API Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
EMBER_API Tensor bitwise_left_shift(const Tensor& a, const Scalar& b);
EMBER_API Tensor bitwise_left_shift(const Scalar& a, const Tensor& b);
EMBER_API Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
EMBER_API Tensor bitwise_right_shift(const Tensor& a, const Scalar& b);
EMBER_API Tensor bitwise_right_shift(const Scalar& a, const Tensor& b);
/// The non-negative gcd (gcd(0, 0) = 0) and lcm (0 when either is 0).
EMBER_API Tensor gcd(const Tensor& a, const Tensor& b);
EMBER_API Tensor lcm(const Tensor& a, const Tensor& b);
/// The next representable value after a towards b (float and double).
EMBER_API Tensor nextafter(const Tensor& a, const Tensor& b);

// ---- out variants (as at::add_out): write into an existing tensor of the result's shape
EMBER_API Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
EMBER_API Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b);
EMBER_API Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b);

// ---- unary elementwise
EMBER_API Tensor neg(const Tensor& x);
EMBER_API Tensor abs(const Tensor& x);
EMBER_API Tensor sign(const Tensor& x);
EMBER_API Tensor exp(const Tensor& x);
EMBER_API Tensor log(const Tensor& x);
EMBER_API Tensor log1p(const Tensor& x);
EMBER_API Tensor expm1(const Tensor& x);
EMBER_API Tensor sqrt(const Tensor& x);
EMBER_API Tensor rsqrt(const Tensor& x);
EMBER_API Tensor square(const Tensor& x);
EMBER_API Tensor sin(const Tensor& x);
EMBER_API Tensor cos(const Tensor& x);
EMBER_API Tensor tan(const Tensor& x);
EMBER_API Tensor tanh(const Tensor& x);
EMBER_API Tensor sigmoid(const Tensor& x);
EMBER_API Tensor relu(const Tensor& x);
EMBER_API Tensor gelu(const Tensor& x);
/// x where x > 0, negative_slope * x elsewhere (floating dtypes); leaky_relu_ in place.
EMBER_API Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope = 0.01);
EMBER_API Tensor& leaky_relu_(Tensor& x, const Scalar& negative_slope = 0.01);
// The other activations of libtorch's ATen (lib/nn/activations.cpp): floating dtypes only,
// except hardtanh, relu6 and threshold, which take integers too (not bool); x_ in place.
/// gelu(x, "tanh"): 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); "none" is gelu(x).
EMBER_API Tensor gelu(const Tensor& x, std::string_view approximate);
/// scale * x where x > 0, scale * alpha * (exp(input_scale * x) - 1) elsewhere.
EMBER_API Tensor elu(const Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1,
                     const Scalar& input_scale = 1);
EMBER_API Tensor& elu_(Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1,
                       const Scalar& input_scale = 1);
/// elu with libtorch's fixed alpha and scale.
EMBER_API Tensor selu(const Tensor& x);
EMBER_API Tensor& selu_(Tensor& x);
/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)); alpha must not be 0.
EMBER_API Tensor celu(const Tensor& x, const Scalar& alpha = 1.0);
EMBER_API Tensor& celu_(Tensor& x, const Scalar& alpha = 1.0);
/// x clamped to [min_val, max_val] (gradient 0 outside the open interval).
EMBER_API Tensor hardtanh(const Tensor& x, const Scalar& min_val = -1, const Scalar& max_val = 1);
EMBER_API Tensor& hardtanh_(Tensor& x, const Scalar& min_val = -1, const Scalar& max_val = 1);
/// hardtanh(x, 0, 6).
EMBER_API Tensor relu6(const Tensor& x);
EMBER_API Tensor& relu6_(Tensor& x);
/// x * relu6(x + 3) / 6.
EMBER_API Tensor hardswish(const Tensor& x);
EMBER_API Tensor& hardswish_(Tensor& x);
/// relu6(x + 3) / 6.
EMBER_API Tensor hardsigmoid(const Tensor& x);
EMBER_API Tensor& hardsigmoid_(Tensor& x);
/// log(1 + exp(beta x)) / beta, or x where beta x > threshold.
EMBER_API Tensor softplus(const Tensor& x, const Scalar& beta = 1, const Scalar& threshold = 20);
/// x - lambd where x > lambd, x + lambd where x < -lambd, 0 elsewhere (lambd >= 0).
EMBER_API Tensor softshrink(const Tensor& x, const Scalar& lambd = 0.5);
/// 0 where -lambd <= x <= lambd, x elsewhere.
EMBER_API Tensor hardshrink(const Tensor& x, const Scalar& lambd = 0.5);
/// value where x <= threshold, x elsewhere.
EMBER_API Tensor threshold(const Tensor& x, const Scalar& threshold, const Scalar& value);
EMBER_API Tensor& threshold_(Tensor& x, const Scalar& threshold, const Scalar& value);
/// x where x > 0, weight * x elsewhere; weight: one value, or one per channel (dim 1).
EMBER_API Tensor prelu(const Tensor& x, const Tensor& weight);
/// Training: each x <= 0 times a slope drawn from U(lower, upper), in x's element order
/// (libtorch's draws for a seed); otherwise leaky_relu(x, (lower + upper) / 2).
EMBER_API Tensor rrelu(const Tensor& x, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
                       bool training = false, std::optional<Generator> generator = {});
EMBER_API Tensor& rrelu_(Tensor& x, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
                         bool training = false, std::optional<Generator> generator = {});
/// a * sigmoid(b), a and b the two halves of x along dim.
EMBER_API Tensor glu(const Tensor& x, int64_t dim = -1);
/// log(sigmoid(x)), computed without overflow.
EMBER_API Tensor log_sigmoid(const Tensor& x);
/// x * sigmoid(x).
EMBER_API Tensor silu(const Tensor& x);
EMBER_API Tensor& silu_(Tensor& x);
/// x * tanh(softplus(x)).
EMBER_API Tensor mish(const Tensor& x);
EMBER_API Tensor& mish_(Tensor& x);
EMBER_API Tensor floor(const Tensor& x);
EMBER_API Tensor ceil(const Tensor& x);
/// Half to even, as torch.round.
EMBER_API Tensor round(const Tensor& x);
/// x rounded to `decimals` places, half to even (libtorch's round.decimals; gradient zero).
EMBER_API Tensor round(const Tensor& x, int64_t decimals);
EMBER_API Tensor trunc(const Tensor& x);
EMBER_API Tensor reciprocal(const Tensor& x);
/// The error function, its complement and its inverse; log|gamma(x)|; digamma (psi).
EMBER_API Tensor erf(const Tensor& x);
EMBER_API Tensor erfc(const Tensor& x);
EMBER_API Tensor erfinv(const Tensor& x);
EMBER_API Tensor lgamma(const Tensor& x);
EMBER_API Tensor digamma(const Tensor& x);
/// The n-th derivative of digamma, for n = 0 and 1 (NotImplemented beyond).
EMBER_API Tensor polygamma(int64_t n, const Tensor& x);
EMBER_API Tensor isnan(const Tensor& x);
EMBER_API Tensor isinf(const Tensor& x);
/// Neither infinite nor NaN (bool); integer and bool tensors are all finite.
EMBER_API Tensor isfinite(const Tensor& x);
EMBER_API Tensor logical_not(const Tensor& x);
/// NaN as `nan` (default 0), +inf as `posinf` and -inf as `neginf` (default: the dtype's
/// largest and lowest finite values), as torch::nan_to_num; integer and bool tensors are
/// copied. The gradient passes where x is finite.
EMBER_API Tensor nan_to_num(const Tensor& x, std::optional<double> nan = std::nullopt,
                            std::optional<double> posinf = std::nullopt,
                            std::optional<double> neginf = std::nullopt);
EMBER_API Tensor& nan_to_num_out(Tensor& out, const Tensor& x, std::optional<double> nan = std::nullopt,
                                 std::optional<double> posinf = std::nullopt,
                                 std::optional<double> neginf = std::nullopt);
EMBER_API Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = {});
EMBER_API Tensor clamp_min(const Tensor& x, const Scalar& min);
EMBER_API Tensor clamp_max(const Tensor& x, const Scalar& max);

// ---- other elementwise
EMBER_API Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
EMBER_API Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b);
EMBER_API Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b);
EMBER_API Tensor where(const Tensor& cond, const Scalar& a, const Scalar& b);
/// The indices of cond's non-zero elements, one int64 tensor per dim (libtorch's where(cond),
/// nonzero(as_tuple=True)); a 0-dim cond counts as one element.
EMBER_API std::vector<Tensor> where(const Tensor& cond);
EMBER_API Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight);
EMBER_API Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
EMBER_API Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
EMBER_API Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);

// ---- reductions
EMBER_API Tensor sum(const Tensor& x, std::optional<ScalarType> dtype = {});
EMBER_API Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor mean(const Tensor& x, std::optional<ScalarType> dtype = {});
EMBER_API Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor prod(const Tensor& x, std::optional<ScalarType> dtype = {});
EMBER_API Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = {});
EMBER_API Tensor max(const Tensor& x);
EMBER_API std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
EMBER_API Tensor min(const Tensor& x);
/// libtorch's elementwise overloads: maximum(a, b) and minimum(a, b).
inline Tensor max(const Tensor& a, const Tensor& b) { return maximum(a, b); }
inline Tensor min(const Tensor& a, const Tensor& b) { return minimum(a, b); }
EMBER_API std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
EMBER_API Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
EMBER_API Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
EMBER_API Tensor argmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
EMBER_API Tensor argmin(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
EMBER_API Tensor var(const Tensor& x, bool unbiased = true);
EMBER_API Tensor var(const Tensor& x, int dim, bool unbiased = true, bool keepdim = false);
EMBER_API Tensor var(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
/// Divides by (count - correction); an empty correction means 1, as libtorch's.
EMBER_API Tensor var(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction, bool keepdim = false);
EMBER_API Tensor std(const Tensor& x, bool unbiased = true);
EMBER_API Tensor std(const Tensor& x, int dim, bool unbiased = true, bool keepdim = false);
EMBER_API Tensor std(const Tensor& x, IntArrayRef dims, bool unbiased = true, bool keepdim = false);
EMBER_API Tensor std(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction, bool keepdim = false);
/// (var, mean) and (std, mean), as libtorch's var_mean / std_mean; the int overloads make
/// var_mean(x, 0) reduce dim 0 (the literal would otherwise convert to `unbiased`).
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& x, bool unbiased = true);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& x, int dim, bool unbiased = true, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, bool unbiased = true,
                                              bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction,
                                              bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& x, bool unbiased = true);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& x, int dim, bool unbiased = true, bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, bool unbiased = true,
                                              bool keepdim = false);
EMBER_API std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction,
                                              bool keepdim = false);
EMBER_API Tensor clone(const Tensor& x);
EMBER_API Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                            std::optional<int64_t> storage_offset = {});
// The view methods t(), transpose() and alias() as free functions, as torch::t etc.
EMBER_API Tensor t(const Tensor& x);
EMBER_API Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
EMBER_API Tensor alias(const Tensor& x);
EMBER_API Tensor norm(const Tensor& x, const Scalar& p = 2);
EMBER_API Tensor norm(const Tensor& x, const Scalar& p, IntArrayRef dims, bool keepdim = false);
EMBER_API Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
EMBER_API Tensor all(const Tensor& x);
EMBER_API Tensor all(const Tensor& x, int64_t dim, bool keepdim = false);
EMBER_API Tensor any(const Tensor& x);
EMBER_API Tensor any(const Tensor& x, int64_t dim, bool keepdim = false);
EMBER_API Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
EMBER_API Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});
// ---- selection along a dim (libtorch's names; negative positions are out of range)
EMBER_API Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
EMBER_API Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha = 1);
EMBER_API Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
EMBER_API Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                             bool accumulate = false);
EMBER_API Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                           bool accumulate = false);
/// libtorch's at::index: self indexed by a list of index tensors, an empty entry taking a whole
/// dim (self.index with those tensors and Slice()s).
EMBER_API Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
/// The coordinates of the nonzero elements, one row each: int64 [count, self.dim()].
EMBER_API Tensor nonzero(const Tensor& self);
/// The elements where mask (bool or uint8, broadcast with self) is set, as a 1-D tensor.
EMBER_API Tensor masked_select(const Tensor& self, const Tensor& mask);

EMBER_API Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = {});

// ---- linear algebra (torch.matmul's rules)
EMBER_API Tensor matmul(const Tensor& a, const Tensor& b);
EMBER_API Tensor mm(const Tensor& a, const Tensor& b);
EMBER_API Tensor bmm(const Tensor& a, const Tensor& b);
EMBER_API Tensor mv(const Tensor& a, const Tensor& v);
EMBER_API Tensor dot(const Tensor& a, const Tensor& b);
EMBER_API Tensor outer(const Tensor& a, const Tensor& b);
EMBER_API Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
                       const Scalar& alpha = 1);
EMBER_API Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});

// ---- joining and splitting
EMBER_API Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
EMBER_API Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
EMBER_API std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
EMBER_API std::vector<Tensor> split(const Tensor& x, IntArrayRef split_sizes, int64_t dim = 0);
EMBER_API std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
EMBER_API std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
/// tf.add_n: the sum of same-shaped tensors, on the current device.
EMBER_API Tensor add_n(const std::vector<Tensor>& tensors);

// ---- comparison helpers
/// |a - b| <= atol + rtol * |b| elementwise (bool); infinities are close only to themselves,
/// NaN only to NaN with equal_nan; a and b must share a dtype, as in libtorch.
EMBER_API Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
                         bool equal_nan = false);
/// isclose(...).all(): whether every element is close.
EMBER_API bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
                        bool equal_nan = false);
EMBER_API bool equal(const Tensor& a, const Tensor& b);

// ---- selection (libtorch's semantics and errors; indices are int64, out-of-range ones
// are InvalidArgument on every device)
/// out[i][j] = self[index[i][j]][j] (dim 0): index has self's number of dims.
EMBER_API Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
/// A copy of self with self[index[i][j]][j] = src[i][j] (dim 0); reduce: "add" or "multiply".
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         const std::string& reduce);
EMBER_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                         const std::string& reduce);
/// scatter that sums the values sent to the same element.
EMBER_API Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
/// self with value where the (broadcast, bool) mask is true; value: a Scalar or a 0-dim tensor.
EMBER_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
EMBER_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
/// int64 class indices -> int64 one-hot vectors in a new last dim (-1: max + 1 classes).
EMBER_API Tensor one_hot(const Tensor& self, int64_t num_classes = -1);
/// (values, int64 indices) sorted along dim; stable; NaN sorts as the largest value.
EMBER_API std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
EMBER_API std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                          bool descending = false);
EMBER_API Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
/// dim has no default here, so that argsort(x, 1) is not ambiguous (it is in libtorch).
EMBER_API Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending = false);
/// The k largest (or smallest) values along dim and their indices, sorted.
EMBER_API std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                                          bool sorted = true);

}  // namespace ember
