// Public binary elementwise ops and operators: one line each over run_binary.
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/type_promotion.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::ComputeType;
using detail::OpParams;
using detail::run_binary;

namespace {
OpParams alpha_param(const Scalar& alpha) {
  OpParams p;
  p.param[0] = detail::kernel_scalar(alpha);
  return p;
}
// torch: an integral (or bool) result cannot take a floating alpha.
OpParams checked_alpha(ScalarType result, const Scalar& alpha, const char* op) {
  EMBER_CHECK_ARG(!alpha.is_floating_point() || is_floating_point(result) || alpha.to_double() == 1.0,
                  "{}: for integral input tensors, argument alpha must not be a floating point number (got {})", op,
                  alpha.to_double());
  return alpha_param(alpha);
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (alpha.is_floating_point() && a.defined() && b.defined())
    checked_alpha(detail::result_type(a, b), alpha, "add");
  return run_binary(Op::Add, a, b, ComputeType::Promoted, alpha_param(alpha));
}
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  if (alpha.is_floating_point() && a.defined()) checked_alpha(detail::result_type(a, b), alpha, "add");
  return run_binary(Op::Add, a, b, ComputeType::Promoted, alpha_param(alpha));
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "Sub: an input is an undefined tensor");
  if (alpha.is_floating_point()) checked_alpha(detail::result_type(a, b), alpha, "sub");
  EMBER_CHECK_ARG(a.dtype() != kBool || b.dtype() != kBool,
                  "sub: subtraction, the `-` operator, with two bool tensors is not supported; use "
                  "logical_xor instead");
  return run_binary(Op::Sub, a, b, ComputeType::Promoted, alpha_param(alpha));
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  return run_binary(Op::Sub, a, b, ComputeType::Promoted, alpha_param(alpha));
}
Tensor mul(const Tensor& a, const Tensor& b) { return run_binary(Op::Mul, a, b, ComputeType::Promoted); }
Tensor mul(const Tensor& a, const Scalar& b) { return run_binary(Op::Mul, a, b, ComputeType::Promoted); }
Tensor div(const Tensor& a, const Tensor& b) { return run_binary(Op::Div, a, b, ComputeType::Floating); }
Tensor div(const Tensor& a, const Scalar& b) { return run_binary(Op::Div, a, b, ComputeType::Floating); }
Tensor remainder(const Tensor& a, const Tensor& b) {
  return run_binary(Op::Remainder, a, b, ComputeType::Promoted);
}
Tensor remainder(const Tensor& a, const Scalar& b) {
  return run_binary(Op::Remainder, a, b, ComputeType::Promoted);
}
Tensor pow(const Tensor& a, const Tensor& b) { return run_binary(Op::Pow, a, b, ComputeType::Promoted); }
Tensor pow(const Tensor& a, const Scalar& b) {
  EMBER_CHECK_ARG(!(a.defined() && is_integral(a.dtype(), true) && b.is_integral() && b.to_long() < 0),
                  "pow: integers to negative integer powers are not allowed (exponent {})", b.to_long());
  return run_binary(Op::Pow, a, b, ComputeType::Promoted);
}
Tensor pow(const Scalar& a, const Tensor& b) { return run_binary(Op::Pow, a, b, ComputeType::Promoted); }
Tensor maximum(const Tensor& a, const Tensor& b) { return run_binary(Op::Maximum, a, b, ComputeType::Promoted); }
Tensor minimum(const Tensor& a, const Tensor& b) { return run_binary(Op::Minimum, a, b, ComputeType::Promoted); }
Tensor atan2(const Tensor& a, const Tensor& b) { return run_binary(Op::Atan2, a, b, ComputeType::Floating); }
Tensor special::zeta(const Tensor& x, const Tensor& q) {
  return run_binary(Op::Zeta, x, q, ComputeType::Floating);
}
Tensor special::zeta(const Scalar& x, const Tensor& q) {
  return run_binary(Op::Zeta, x, q, ComputeType::Floating);
}
Tensor special::zeta(const Tensor& x, const Scalar& q) {
  return run_binary(Op::Zeta, x, q, ComputeType::Floating);
}

#define EMBER_COMPARISON(fn, op)                                                             \
  Tensor fn(const Tensor& a, const Tensor& b) { return run_binary(op, a, b, ComputeType::BoolOut); } \
  Tensor fn(const Tensor& a, const Scalar& b) { return run_binary(op, a, b, ComputeType::BoolOut); }
EMBER_COMPARISON(eq, Op::Eq)
EMBER_COMPARISON(ne, Op::Ne)
EMBER_COMPARISON(lt, Op::Lt)
EMBER_COMPARISON(le, Op::Le)
EMBER_COMPARISON(gt, Op::Gt)
EMBER_COMPARISON(ge, Op::Ge)
#undef EMBER_COMPARISON

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return run_binary(Op::LogicalAnd, a, b, ComputeType::BoolOut);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return run_binary(Op::LogicalOr, a, b, ComputeType::BoolOut);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return run_binary(Op::LogicalXor, a, b, ComputeType::BoolOut);
}

// ---- integer ops: bitwise (bool too), shifts, gcd, lcm; and nextafter (float, double)
namespace {
void require_defined(const Tensor& t, Op op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op_name(op), what);
}
// libtorch's dispatch error for a dtype the kernel does not take, named after its kernel.
void check_kernel_dtype(Op op, const char* kernel, ScalarType t, DeviceType device) {
  const bool ok =
      op == Op::Nextafter ? (t == kFloat || t == kDouble)
      : (op == Op::BitwiseAnd || op == Op::BitwiseOr || op == Op::BitwiseXor || op == Op::BitwiseNot)
          ? is_integral(t, true)
          : is_integral(t, false);
  EMBER_CHECK_TYPED(ok, NotImplemented, "\"{}_{}\" not implemented for '{}'", kernel,
                    device == kCUDA ? "cuda" : "cpu", detail::torch_name(t));
}
Tensor integer_binary(Op op, const char* kernel, const Tensor& a, const Tensor& b, Tensor* out = nullptr) {
  require_defined(a, op, "the first input");
  require_defined(b, op, "the second input");
  check_kernel_dtype(op, kernel, detail::result_type(a, b), a.device().type());
  return run_binary(op, a, b, ComputeType::Promoted, {}, out);
}
Tensor integer_binary(Op op, const char* kernel, const Tensor& a, const Scalar& b, Tensor* out = nullptr) {
  require_defined(a, op, "the first input");
  check_kernel_dtype(op, kernel, detail::result_type(a, b), a.device().type());
  return run_binary(op, a, b, ComputeType::Promoted, {}, out);
}
Tensor integer_binary(Op op, const char* kernel, const Scalar& a, const Tensor& b) {
  require_defined(b, op, "the second input");
  check_kernel_dtype(op, kernel, detail::result_type(b, a), b.device().type());
  return run_binary(op, a, b, ComputeType::Promoted);
}
Tensor& integer_inplace(Op op, const char* kernel, const Tensor& self, const Tensor& o) {
  Tensor& s = const_cast<Tensor&>(self);
  integer_binary(op, kernel, s, o, &s);
  return s;
}
Tensor& integer_inplace(Op op, const char* kernel, const Tensor& self, const Scalar& o) {
  Tensor& s = const_cast<Tensor&>(self);
  integer_binary(op, kernel, s, o, &s);
  return s;
}
}  // namespace

#define EMBER_INTEGER_BINARY(fn, op, kernel)                                                     \
  Tensor fn(const Tensor& a, const Tensor& b) { return integer_binary(op, kernel, a, b); }       \
  Tensor fn(const Tensor& a, const Scalar& b) { return integer_binary(op, kernel, a, b); }       \
  Tensor fn(const Scalar& a, const Tensor& b) { return integer_binary(op, kernel, a, b); }       \
  Tensor Tensor::fn(const Tensor& o) const { return integer_binary(op, kernel, *this, o); }      \
  Tensor Tensor::fn(const Scalar& o) const { return integer_binary(op, kernel, *this, o); }      \
  Tensor& Tensor::fn##_(const Tensor& o) const { return integer_inplace(op, kernel, *this, o); } \
  Tensor& Tensor::fn##_(const Scalar& o) const { return integer_inplace(op, kernel, *this, o); }
EMBER_INTEGER_BINARY(bitwise_and, Op::BitwiseAnd, "bitwise_and")
EMBER_INTEGER_BINARY(bitwise_or, Op::BitwiseOr, "bitwise_or")
EMBER_INTEGER_BINARY(bitwise_xor, Op::BitwiseXor, "bitwise_xor")
EMBER_INTEGER_BINARY(bitwise_left_shift, Op::LeftShift, "lshift")
EMBER_INTEGER_BINARY(bitwise_right_shift, Op::RightShift, "rshift")
#undef EMBER_INTEGER_BINARY

Tensor gcd(const Tensor& a, const Tensor& b) { return integer_binary(Op::Gcd, "gcd", a, b); }
Tensor lcm(const Tensor& a, const Tensor& b) { return integer_binary(Op::Lcm, "lcm", a, b); }
Tensor Tensor::gcd(const Tensor& o) const { return ember::gcd(*this, o); }
Tensor Tensor::lcm(const Tensor& o) const { return ember::lcm(*this, o); }
Tensor& Tensor::gcd_(const Tensor& o) const { return integer_inplace(Op::Gcd, "gcd", *this, o); }
Tensor& Tensor::lcm_(const Tensor& o) const { return integer_inplace(Op::Lcm, "lcm", *this, o); }

namespace {
// libtorch records nextafter with a backward that throws; ember refuses at the forward.
void check_no_derivative(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_TYPED(!GradMode::is_enabled() || !(a.requires_grad() || b.requires_grad()), NotImplemented,
                    "the derivative for '{}' is not implemented.", op);
}
}  // namespace
Tensor nextafter(const Tensor& a, const Tensor& b) {
  check_no_derivative("nextafter", a, b);
  return integer_binary(Op::Nextafter, "nextafter", a, b);
}
Tensor Tensor::nextafter(const Tensor& o) const { return ember::nextafter(*this, o); }
Tensor& Tensor::nextafter_(const Tensor& o) const {
  check_no_derivative("nextafter", *this, o);
  return integer_inplace(Op::Nextafter, "nextafter", *this, o);
}

Tensor bitwise_not(const Tensor& x) {
  require_defined(x, Op::BitwiseNot, "the input");
  check_kernel_dtype(Op::BitwiseNot, "bitwise_not", x.dtype(), x.device().type());
  return detail::run_unary(Op::BitwiseNot, x, ComputeType::Promoted);
}
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }
Tensor& Tensor::bitwise_not_() const {
  Tensor& self = const_cast<Tensor&>(*this);
  require_defined(self, Op::BitwiseNot, "the input");
  check_kernel_dtype(Op::BitwiseNot, "bitwise_not", self.dtype(), self.device().type());
  detail::run_unary(Op::BitwiseNot, self, ComputeType::Promoted, {}, &self);
  return self;
}

namespace {
// An out= binary op: an empty output first takes the broadcast shape (libtorch's resize_output).
void binary_out(Op op, Tensor& out, const Tensor& a, const Tensor& b, const OpParams& p) {
  if (out.defined() && out.numel() == 0 && a.defined() && b.defined()) {
    detail::EmptyOutputResize resize(out, detail::broadcast_shapes(a.sizes(), b.sizes(), op_name(op)));
    run_binary(op, a, b, ComputeType::Promoted, p, &out);
    resize.commit();
    return;
  }
  run_binary(op, a, b, ComputeType::Promoted, p, &out);
}
}  // namespace

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  binary_out(Op::Add, out, a, b, alpha_param(alpha));
  return out;
}
Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  binary_out(Op::Mul, out, a, b, {});
  return out;
}

// ---- operators
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) {
  return run_binary(Op::Sub, a, b, ComputeType::Promoted, alpha_param(1));
}
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return run_binary(Op::Div, a, b, ComputeType::Floating); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
// A number on the left compares as the mirrored comparison: 0.5 < x is x > 0.5.
Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }
Tensor operator%(const Scalar& a, const Tensor& b) { return remainder(a, b); }
Tensor remainder(const Scalar& a, const Tensor& b) { return run_binary(Op::Remainder, a, b, ComputeType::Promoted); }
Tensor operator&&(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor operator||(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor operator!(const Tensor& a) { return logical_not(a); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }
Tensor operator-(const Tensor& a) { return neg(a); }

// ---- in-place methods: the same front-end writing into *this (const as libtorch's: the
// handle stays, the data changes)
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Add, self, o, ComputeType::Promoted, alpha_param(alpha), &self);
  return self;
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Add, self, o, ComputeType::Promoted, alpha_param(alpha), &self);
  return self;
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Sub, self, o, ComputeType::Promoted, alpha_param(alpha), &self);
  return self;
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Sub, self, o, ComputeType::Promoted, alpha_param(alpha), &self);
  return self;
}
Tensor& Tensor::mul_(const Tensor& o) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Mul, self, o, ComputeType::Promoted, {}, &self);
  return self;
}
Tensor& Tensor::mul_(const Scalar& o) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Mul, self, o, ComputeType::Promoted, {}, &self);
  return self;
}
Tensor& Tensor::div_(const Tensor& o) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Div, self, o, ComputeType::Floating, {}, &self);
  return self;
}
Tensor& Tensor::div_(const Scalar& o) const {
  Tensor& self = const_cast<Tensor&>(*this);
  run_binary(Op::Div, self, o, ComputeType::Floating, {}, &self);
  return self;
}

}  // namespace ember
