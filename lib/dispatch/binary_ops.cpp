// Public binary elementwise ops and operators: one line each over run_binary.
#include "core/check.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/type_promotion.h"
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
