// Public unary elementwise ops (and clamp, where, lerp, addcmul, addcdiv) over run_unary / run_ternary.
#include <cmath>
#include <limits>

#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/type_promotion.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "tensor/inference.h"

namespace ember {

using detail::ComputeType;
using detail::OpParams;
using detail::run_unary;

#define EMBER_UNARY(fn, op, ct) \
  Tensor fn(const Tensor& x) { return run_unary(op, x, ct); }
EMBER_UNARY(exp, Op::Exp, ComputeType::Floating)
EMBER_UNARY(log, Op::Log, ComputeType::Floating)
EMBER_UNARY(log1p, Op::Log1p, ComputeType::Floating)
EMBER_UNARY(expm1, Op::Expm1, ComputeType::Floating)
EMBER_UNARY(sqrt, Op::Sqrt, ComputeType::Floating)
EMBER_UNARY(rsqrt, Op::Rsqrt, ComputeType::Floating)
EMBER_UNARY(sin, Op::Sin, ComputeType::Floating)
EMBER_UNARY(cos, Op::Cos, ComputeType::Floating)
EMBER_UNARY(tan, Op::Tan, ComputeType::Floating)
EMBER_UNARY(tanh, Op::Tanh, ComputeType::Floating)
EMBER_UNARY(sigmoid, Op::Sigmoid, ComputeType::Floating)
EMBER_UNARY(reciprocal, Op::Reciprocal, ComputeType::Floating)
EMBER_UNARY(erf, Op::Erf, ComputeType::Floating)
EMBER_UNARY(erfc, Op::Erfc, ComputeType::Floating)
EMBER_UNARY(erfinv, Op::Erfinv, ComputeType::Floating)
EMBER_UNARY(lgamma, Op::Lgamma, ComputeType::Floating)
EMBER_UNARY(digamma, Op::Digamma, ComputeType::Floating)

EMBER_UNARY(abs, Op::Abs, ComputeType::Promoted)
EMBER_UNARY(sign, Op::Sign, ComputeType::Promoted)
EMBER_UNARY(relu, Op::Relu, ComputeType::Promoted)
EMBER_UNARY(floor, Op::Floor, ComputeType::Promoted)
EMBER_UNARY(ceil, Op::Ceil, ComputeType::Promoted)
EMBER_UNARY(round, Op::Round, ComputeType::Promoted)
EMBER_UNARY(trunc, Op::Trunc, ComputeType::Promoted)
EMBER_UNARY(isnan, Op::IsNan, ComputeType::BoolOut)
EMBER_UNARY(isinf, Op::IsInf, ComputeType::BoolOut)
EMBER_UNARY(logical_not, Op::LogicalNot, ComputeType::BoolOut)
#undef EMBER_UNARY

// |x| < inf is false for NaN and the infinities; integer and bool tensors are all finite.
Tensor isfinite(const Tensor& x) {
  EMBER_CHECK_ARG(x.defined(), "isfinite: undefined tensor");
  if (!is_floating_point(x.dtype())) return ones_like(x, kBool);
  NoGradGuard no_grad;  // the result is bool: nothing to record
  return lt(abs(x), std::numeric_limits<double>::infinity());
}
Tensor Tensor::isfinite() const { return ember::isfinite(*this); }

// nan_to_num: where() of the replacements, recorded as one NanToNumBackward0 (g where x is
// finite, 0 elsewhere), as libtorch.
Tensor nan_to_num(const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  EMBER_CHECK_ARG(x.defined(), "nan_to_num: undefined tensor");
  if (!is_floating_point(x.dtype())) return x.clone();
  double largest = std::numeric_limits<double>::max();
  if (x.dtype() == kFloat) largest = double(std::numeric_limits<float>::max());
  if (x.dtype() == kHalf) largest = 65504.0;
  if (x.dtype() == kBFloat16) largest = 3.3895313892515355e38;
  const double inf = std::numeric_limits<double>::infinity();
  Tensor y;
  {
    NoGradGuard no_grad;
    y = where(isnan(x), nan.value_or(0.0), x);
    y = where(eq(x, inf), posinf.value_or(largest), y);
    y = where(eq(x, -inf), neginf.value_or(-largest), y);
  }
  if (!EMBER_GRAD_RECORDING(x) || !x.requires_grad()) return y;
  // libtorch's formula: the gradient passes where x is finite. The mask, not x, is kept, so
  // nan_to_num_ may overwrite x.
  const Tensor finite = isfinite(x);
  autograd::record("NanToNumBackward0", {&x}, {&y},
                   [finite](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                     return {g[0] * finite};
                   });
  return y;
}

Tensor& nan_to_num_out(Tensor& out, const Tensor& x, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  EMBER_CHECK_ARG(out.defined(), "nan_to_num: the output is an undefined tensor");
  EMBER_CHECK_ARG(out.dtype() == x.dtype(), "nan_to_num: dtype of out: {} should be same as input: {}",
                  detail::torch_name(out.dtype()), detail::torch_name(x.dtype()));
  const Tensor y = nan_to_num(x, nan, posinf, neginf);
  out.resize_(y.sizes());
  out.copy_(y);
  return out;
}

Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return ember::nan_to_num(*this, nan, posinf, neginf);
}

const Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf,
                                  std::optional<double> neginf) const {
  copy_(ember::nan_to_num(*this, nan, posinf, neginf));
  return *this;
}

// square is pow(x, 2): a bool tensor promotes with the integer 2 to int64, as in libtorch.
Tensor square(const Tensor& x) {
  const bool is_bool = x.defined() && x.dtype() == kBool;
  return run_unary(Op::Square, is_bool ? x.to(kInt64) : x, ComputeType::Promoted);
}

// libtorch has no integer gelu; ember does not invent one by promoting to float.
Tensor gelu(const Tensor& x) {
  EMBER_CHECK_TYPED(!x.defined() || is_floating_point(x.dtype()), NotImplemented,
                    "gelu: not implemented for '{}'; gelu takes a floating-point tensor (convert with .to(kFloat))",
                    detail::torch_name(x.dtype()));
  return run_unary(Op::Gelu, x, ComputeType::Floating);
}

Tensor neg(const Tensor& x) {
  EMBER_CHECK_ARG(!x.defined() || x.dtype() != kBool,
                  "neg: negation, the `-` operator, on a bool tensor is not supported; use logical_not "
                  "instead");
  return run_unary(Op::Neg, x, ComputeType::Promoted);
}

namespace {
OpParams clamp_params(const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  EMBER_CHECK_ARG(lo || hi, "clamp: at least one of 'min' or 'max' must not be None");
  OpParams p;
  if (lo) p.param[0] = detail::kernel_scalar(*lo), p.has_param[0] = true;
  if (hi) p.param[1] = detail::kernel_scalar(*hi), p.has_param[1] = true;
  return p;
}
// Bounds take part in type promotion: clamp(int tensor, 1.5) is float32, as in torch.
ScalarType clamp_result_type(const Tensor& x, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  detail::ResultType rt;
  rt.add(x);
  if (lo) rt.add(*lo);
  if (hi) rt.add(*hi);
  return rt.get();
}
}  // namespace

Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  EMBER_CHECK_ARG(x.defined(), "clamp: undefined tensor");
  const ScalarType rt = clamp_result_type(x, lo, hi);
  const Tensor in = rt == x.dtype() ? x : x.to(rt);
  return run_unary(Op::Clamp, in, ComputeType::Promoted, clamp_params(lo, hi));
}
Tensor clamp_min(const Tensor& x, const Scalar& lo) { return clamp(x, lo, std::nullopt); }
Tensor clamp_max(const Tensor& x, const Scalar& hi) { return clamp(x, std::nullopt, hi); }

// ---- ternary
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const Tensor ins[3] = {cond, a, b};
  const std::optional<Scalar> sc[3];
  return detail::run_ternary(Op::Where, ins, sc, ComputeType::Promoted);
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  const Tensor ins[3] = {cond, a, Tensor()};
  const std::optional<Scalar> sc[3] = {std::nullopt, std::nullopt, b};
  return detail::run_ternary(Op::Where, ins, sc, ComputeType::Promoted);
}
Tensor where(const Tensor& cond, const Scalar& a, const Scalar& b) {
  // Two numbers: the result takes their promoted type, shaped like the condition.
  EMBER_CHECK_ARG(cond.defined(), "where: the condition is an undefined tensor");
  detail::ResultType rt;
  rt.add(a);
  rt.add(b);
  return where(cond, full({}, a, TensorOptions(rt.get()).device(cond.device())), b);
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  const Tensor ins[3] = {cond, Tensor(), b};
  const std::optional<Scalar> sc[3] = {std::nullopt, a, std::nullopt};
  return detail::run_ternary(Op::Where, ins, sc, ComputeType::Promoted);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Scalar& weight) {
  const Tensor ins[3] = {start, end, Tensor()};
  const std::optional<Scalar> sc[3] = {std::nullopt, std::nullopt, weight};
  return detail::run_ternary(Op::Lerp, ins, sc, ComputeType::Floating);
}
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight) {
  const Tensor ins[3] = {start, end, weight};
  const std::optional<Scalar> sc[3];
  return detail::run_ternary(Op::Lerp, ins, sc, ComputeType::Floating);
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const Tensor ins[3] = {self, t1, t2};
  const std::optional<Scalar> sc[3];
  OpParams p;
  p.param[0] = detail::kernel_scalar(value);
  return detail::run_ternary(Op::Addcmul, ins, sc, ComputeType::Promoted, p);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const Tensor ins[3] = {self, t1, t2};
  const std::optional<Scalar> sc[3];
  OpParams p;
  p.param[0] = detail::kernel_scalar(value);
  EMBER_CHECK_ARG(t1.defined() && t2.defined(), "addcdiv: an input is an undefined tensor");
  EMBER_CHECK_ARG(is_floating_point(t1.dtype()) || is_floating_point(t2.dtype()),
                  "addcdiv: integer division with addcdiv is no longer supported; got {} and {}",
                  detail::torch_name(t1.dtype()), detail::torch_name(t2.dtype()));
  return detail::run_ternary(Op::Addcdiv, ins, sc, ComputeType::Floating, p);
}

// ---- in-place unary methods
#define EMBER_UNARY_INPLACE(method, op, ct)            \
  Tensor& Tensor::method() const {                     \
    Tensor& self = const_cast<Tensor&>(*this);         \
    run_unary(op, self, ct, {}, &self);                \
    return self;                                       \
  }
EMBER_UNARY_INPLACE(relu_, Op::Relu, ComputeType::Promoted)
EMBER_UNARY_INPLACE(exp_, Op::Exp, ComputeType::Floating)
EMBER_UNARY_INPLACE(log_, Op::Log, ComputeType::Floating)
EMBER_UNARY_INPLACE(sqrt_, Op::Sqrt, ComputeType::Floating)
EMBER_UNARY_INPLACE(neg_, Op::Neg, ComputeType::Promoted)
EMBER_UNARY_INPLACE(abs_, Op::Abs, ComputeType::Promoted)
EMBER_UNARY_INPLACE(sigmoid_, Op::Sigmoid, ComputeType::Floating)
EMBER_UNARY_INPLACE(tanh_, Op::Tanh, ComputeType::Floating)
EMBER_UNARY_INPLACE(log1p_, Op::Log1p, ComputeType::Floating)
EMBER_UNARY_INPLACE(expm1_, Op::Expm1, ComputeType::Floating)
EMBER_UNARY_INPLACE(rsqrt_, Op::Rsqrt, ComputeType::Floating)
EMBER_UNARY_INPLACE(sin_, Op::Sin, ComputeType::Floating)
EMBER_UNARY_INPLACE(cos_, Op::Cos, ComputeType::Floating)
EMBER_UNARY_INPLACE(tan_, Op::Tan, ComputeType::Floating)
EMBER_UNARY_INPLACE(reciprocal_, Op::Reciprocal, ComputeType::Floating)
EMBER_UNARY_INPLACE(erf_, Op::Erf, ComputeType::Floating)
EMBER_UNARY_INPLACE(erfc_, Op::Erfc, ComputeType::Floating)
EMBER_UNARY_INPLACE(erfinv_, Op::Erfinv, ComputeType::Floating)
EMBER_UNARY_INPLACE(lgamma_, Op::Lgamma, ComputeType::Floating)
EMBER_UNARY_INPLACE(digamma_, Op::Digamma, ComputeType::Floating)
EMBER_UNARY_INPLACE(sign_, Op::Sign, ComputeType::Promoted)
EMBER_UNARY_INPLACE(floor_, Op::Floor, ComputeType::Promoted)
EMBER_UNARY_INPLACE(ceil_, Op::Ceil, ComputeType::Promoted)
EMBER_UNARY_INPLACE(round_, Op::Round, ComputeType::Promoted)
EMBER_UNARY_INPLACE(trunc_, Op::Trunc, ComputeType::Promoted)
#undef EMBER_UNARY_INPLACE

Tensor round(const Tensor& x, int64_t decimals) {
  EMBER_CHECK_ARG(x.defined(), "round: undefined tensor");
  if (decimals == 0) return round(x);
  // libtorch's CPU kernel takes float, double and bfloat16.
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()) && !(x.dtype() == kHalf && x.is_cpu()), NotImplemented,
                    "\"round_cpu\" not implemented for '{}'", detail::torch_name(x.dtype()));
  // libtorch's kernel: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d, with the
  // power held in x's dtype and each step rounded to it (so the gradient is zero, as round's).
  const bool negative = decimals < 0;
  const double power = scalar_tensor(std::pow(10.0, double(negative ? -decimals : decimals)), x.dtype()).item<double>();
  Tensor y = negative ? round(x / power) * power : round(x * power) / power;
  autograd::name_grad_fn(y, "RoundBackward1");
  return y;
}

// i0 and torch::special's i0e, i1 and i1e take libtorch's CPU dtypes (the I0 pair also bfloat16),
// refused with its kernels' names; integers compute in the default dtype.
namespace {
Tensor modified_bessel(Op op, const char* kernel, const Tensor& x, Tensor* out = nullptr) {
  EMBER_CHECK_ARG(x.defined(), "{}: undefined tensor", kernel);
  const ScalarType t = detail::to_floating(x.dtype());
  EMBER_CHECK_ARG(!out || is_floating_point(out->dtype()),
                  "result type {} can't be cast to the desired output type {}", detail::torch_name(t),
                  detail::torch_name(out ? out->dtype() : t));
  const bool cpu = x.device().is_cpu();
  const bool i0_pair = op == Op::I0 || op == Op::I0e;
  const bool ok = t == kFloat || t == kDouble || (i0_pair && t == kBFloat16);
  EMBER_CHECK_TYPED(ok, NotImplemented, "\"{}{}\" not implemented for '{}'", kernel,
                    cpu ? (op == Op::I0 ? "_vml_cpu" : "_cpu") : "_cuda", detail::torch_name(t));
  return run_unary(op, x, ComputeType::Floating, {}, out);
}
}  // namespace
Tensor i0(const Tensor& x) { return modified_bessel(Op::I0, "i0", x); }
Tensor special::i0(const Tensor& x) { return modified_bessel(Op::I0, "i0", x); }
Tensor special::i0e(const Tensor& x) { return modified_bessel(Op::I0e, "i0e", x); }
Tensor special::i1(const Tensor& x) { return modified_bessel(Op::I1, "i1", x); }
Tensor special::i1e(const Tensor& x) { return modified_bessel(Op::I1e, "i1e", x); }
Tensor Tensor::i0() const { return modified_bessel(Op::I0, "i0", *this); }
Tensor& Tensor::i0_() const {
  Tensor& self = const_cast<Tensor&>(*this);
  modified_bessel(Op::I0, "i0", self, &self);
  return self;
}

Tensor& Tensor::clamp_(std::optional<Scalar> lo, std::optional<Scalar> hi) const {
  Tensor& self = const_cast<Tensor&>(*this);
  EMBER_CHECK_ARG(defined(), "clamp_: undefined tensor");
  // An in-place result must fit this dtype.
  const ScalarType rt = clamp_result_type(*this, lo, hi);
  EMBER_CHECK_ARG(!ember::is_floating_point(rt) || ember::is_floating_point(dtype()),
                  "clamp_: result type {} can't be cast to the desired output type {}",
                  detail::torch_name(rt), detail::torch_name(dtype()));
  run_unary(Op::Clamp, self, ComputeType::Promoted, clamp_params(lo, hi), &self);
  return self;
}
Tensor& Tensor::fill_(const Scalar& value) const {
  Tensor& self = const_cast<Tensor&>(*this);
  EMBER_CHECK_ARG(defined(), "fill_: undefined tensor");
  detail::check_writable(*this);
  if (EMBER_GRAD_RECORDING(*this)) {
    autograd::detail::fill_(self, value);
    return self;
  }
  detail::fill_tensor(*this, value);
  detail::bump_version(*this);
  return self;
}
Tensor& Tensor::zero_() const { return fill_(0); }

}  // namespace ember
