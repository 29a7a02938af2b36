// libtorch's in-place methods that ember computes out of place (asin_, log2_, pow_,
// addcmul_, eq_, cumsum_, polygamma_, ...):
// f(x) computed out of place, then written into x by copy_, which bumps the version,
// writes through views and records the copy for autograd. When x takes part in autograd
// the result is computed from a clone, so the formula keeps the old values it needs.
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember {

namespace {

template <class F>
Tensor& write_back(const Tensor& self, const char* op, F f) {
  EMBER_CHECK_ARG(self.defined(), "{}: undefined tensor", op);
  const Tensor result = f(GradMode::is_enabled() && self.requires_grad() ? self.clone() : self);
  EMBER_CHECK_ARG(can_cast(result.dtype(), self.dtype()),
                  "result type {} can't be cast to the desired output type {}",
                  detail::torch_name(result.dtype()), detail::torch_name(self.dtype()));
  return const_cast<Tensor&>(self).copy_(result);
}

}  // namespace

#define EMBER_COMPOSED_INPLACE(name)                                               \
  Tensor& Tensor::name##_() const {                                                \
    return write_back(*this, #name "_", [](const Tensor& x) { return x.name(); }); \
  }
EMBER_COMPOSED_INPLACE(asin)
EMBER_COMPOSED_INPLACE(acos)
EMBER_COMPOSED_INPLACE(atan)
EMBER_COMPOSED_INPLACE(sinh)
EMBER_COMPOSED_INPLACE(cosh)
EMBER_COMPOSED_INPLACE(asinh)
EMBER_COMPOSED_INPLACE(acosh)
EMBER_COMPOSED_INPLACE(atanh)
EMBER_COMPOSED_INPLACE(exp2)
EMBER_COMPOSED_INPLACE(log2)
EMBER_COMPOSED_INPLACE(log10)
EMBER_COMPOSED_INPLACE(frac)
EMBER_COMPOSED_INPLACE(sgn)
EMBER_COMPOSED_INPLACE(sinc)
EMBER_COMPOSED_INPLACE(deg2rad)
EMBER_COMPOSED_INPLACE(rad2deg)
EMBER_COMPOSED_INPLACE(square)
#undef EMBER_COMPOSED_INPLACE

Tensor& Tensor::logit_(std::optional<double> eps) const {
  return write_back(*this, "logit_", [&](const Tensor& x) { return x.logit(eps); });
}
Tensor& Tensor::polygamma_(int64_t n) const {
  return write_back(*this, "polygamma_", [&](const Tensor& x) { return x.polygamma(n); });
}
Tensor& Tensor::mvlgamma_(int64_t p) const {
  return write_back(*this, "mvlgamma_", [&](const Tensor& x) { return x.mvlgamma(p); });
}

Tensor Tensor::div(const Tensor& other, std::optional<std::string_view> mode) const {
  return ember::div(*this, other, mode);
}
Tensor Tensor::div(const Scalar& other, std::optional<std::string_view> mode) const {
  return ember::div(*this, other, mode);
}
Tensor Tensor::divide(const Tensor& other) const { return ember::div(*this, other); }
Tensor Tensor::divide(const Scalar& other) const { return ember::div(*this, other); }
Tensor Tensor::divide(const Tensor& other, std::optional<std::string_view> mode) const {
  return ember::div(*this, other, mode);
}
Tensor Tensor::multiply(const Tensor& other) const { return ember::mul(*this, other); }
Tensor Tensor::multiply(const Scalar& other) const { return ember::mul(*this, other); }
Tensor Tensor::negative() const { return ember::neg(*this); }

// x.f_(a...) as x.copy_(x.f(a...)), through write_back.
#define EMBER_INPLACE_METHOD(name, params, call)                                \
  Tensor& Tensor::name##_ params const {                                        \
    return write_back(*this, #name "_", [&](const Tensor& x) { return call; }); \
  }
EMBER_INPLACE_METHOD(div, (const Tensor& o, std::optional<std::string_view> m), ember::div(x, o, m))
EMBER_INPLACE_METHOD(div, (const Scalar& o, std::optional<std::string_view> m), ember::div(x, o, m))
EMBER_INPLACE_METHOD(pow, (const Tensor& e), x.pow(e))
EMBER_INPLACE_METHOD(pow, (const Scalar& e), x.pow(e))
EMBER_INPLACE_METHOD(remainder, (const Tensor& o), x.remainder(o))
EMBER_INPLACE_METHOD(remainder, (const Scalar& o), x.remainder(o))
EMBER_INPLACE_METHOD(fmod, (const Tensor& o), x.fmod(o))
EMBER_INPLACE_METHOD(fmod, (const Scalar& o), x.fmod(o))
EMBER_INPLACE_METHOD(atan2, (const Tensor& o), x.atan2(o))
EMBER_INPLACE_METHOD(hypot, (const Tensor& o), x.hypot(o))
EMBER_INPLACE_METHOD(xlogy, (const Tensor& o), x.xlogy(o))
EMBER_INPLACE_METHOD(xlogy, (const Scalar& o), x.xlogy(o))
EMBER_INPLACE_METHOD(igamma, (const Tensor& o), x.igamma(o))
EMBER_INPLACE_METHOD(igammac, (const Tensor& o), x.igammac(o))
EMBER_INPLACE_METHOD(copysign, (const Tensor& o), x.copysign(o))
EMBER_INPLACE_METHOD(copysign, (const Scalar& o), x.copysign(o))
EMBER_INPLACE_METHOD(true_divide, (const Tensor& o), ember::div(x, o))
EMBER_INPLACE_METHOD(true_divide, (const Scalar& o), ember::div(x, o))
EMBER_INPLACE_METHOD(divide, (const Tensor& o), ember::div(x, o))
EMBER_INPLACE_METHOD(divide, (const Scalar& o), ember::div(x, o))
EMBER_INPLACE_METHOD(round, (int64_t decimals), ember::round(x, decimals))
Tensor Tensor::round(int64_t decimals) const { return ember::round(*this, decimals); }
EMBER_INPLACE_METHOD(divide, (const Tensor& o, std::optional<std::string_view> m), ember::div(x, o, m))
EMBER_INPLACE_METHOD(multiply, (const Tensor& o), ember::mul(x, o))
EMBER_INPLACE_METHOD(multiply, (const Scalar& o), ember::mul(x, o))
EMBER_INPLACE_METHOD(floor_divide, (const Tensor& o), x.floor_divide(o))
EMBER_INPLACE_METHOD(floor_divide, (const Scalar& o), x.floor_divide(o))
EMBER_INPLACE_METHOD(negative, (), ember::neg(x))
EMBER_INPLACE_METHOD(clamp_min, (const Scalar& lo), x.clamp_min(lo))
EMBER_INPLACE_METHOD(clamp_max, (const Scalar& hi), x.clamp_max(hi))
EMBER_INPLACE_METHOD(lerp, (const Tensor& end, const Scalar& w), x.lerp(end, w))
EMBER_INPLACE_METHOD(lerp, (const Tensor& end, const Tensor& w), x.lerp(end, w))
EMBER_INPLACE_METHOD(addcmul, (const Tensor& t1, const Tensor& t2, const Scalar& v), x.addcmul(t1, t2, v))
EMBER_INPLACE_METHOD(addcdiv, (const Tensor& t1, const Tensor& t2, const Scalar& v), x.addcdiv(t1, t2, v))
EMBER_INPLACE_METHOD(addmm, (const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha),
                     x.addmm(m1, m2, beta, alpha))
EMBER_INPLACE_METHOD(addmv, (const Tensor& m, const Tensor& v, const Scalar& beta, const Scalar& alpha),
                     x.addmv(m, v, beta, alpha))
EMBER_INPLACE_METHOD(addr, (const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha),
                     x.addr(v1, v2, beta, alpha))
EMBER_INPLACE_METHOD(baddbmm, (const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha),
                     x.baddbmm(b1, b2, beta, alpha))
EMBER_INPLACE_METHOD(addbmm, (const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha),
                     x.addbmm(b1, b2, beta, alpha))
EMBER_INPLACE_METHOD(cumsum, (int64_t dim, std::optional<ScalarType> dtype), x.cumsum(dim, dtype))
EMBER_INPLACE_METHOD(cumprod, (int64_t dim, std::optional<ScalarType> dtype), x.cumprod(dim, dtype))
EMBER_INPLACE_METHOD(eq, (const Tensor& o), x.eq(o))
EMBER_INPLACE_METHOD(eq, (const Scalar& o), x.eq(o))
EMBER_INPLACE_METHOD(ne, (const Tensor& o), x.ne(o))
EMBER_INPLACE_METHOD(ne, (const Scalar& o), x.ne(o))
EMBER_INPLACE_METHOD(lt, (const Tensor& o), x.lt(o))
EMBER_INPLACE_METHOD(lt, (const Scalar& o), x.lt(o))
EMBER_INPLACE_METHOD(le, (const Tensor& o), x.le(o))
EMBER_INPLACE_METHOD(le, (const Scalar& o), x.le(o))
EMBER_INPLACE_METHOD(gt, (const Tensor& o), x.gt(o))
EMBER_INPLACE_METHOD(gt, (const Scalar& o), x.gt(o))
EMBER_INPLACE_METHOD(ge, (const Tensor& o), x.ge(o))
EMBER_INPLACE_METHOD(ge, (const Scalar& o), x.ge(o))
EMBER_INPLACE_METHOD(logical_and, (const Tensor& o), x.logical_and(o))
EMBER_INPLACE_METHOD(logical_or, (const Tensor& o), x.logical_or(o))
EMBER_INPLACE_METHOD(logical_xor, (const Tensor& o), x.logical_xor(o))
EMBER_INPLACE_METHOD(logical_not, (), x.logical_not())
#undef EMBER_INPLACE_METHOD

// libtorch refuses a base that is not float64 (the result's dtype) rather than rounding it.
Tensor& Tensor::float_power_(const Tensor& exponent) const {
  EMBER_CHECK_ARG(
      !defined() || dtype() == kDouble,
      "the base given to float_power_ has dtype {} but the operation's result requires dtype Double",
      detail::torch_name(dtype()));
  return write_back(*this, "float_power_", [&](const Tensor& x) { return x.float_power(exponent); });
}
Tensor& Tensor::float_power_(const Scalar& exponent) const {
  EMBER_CHECK_ARG(
      !defined() || dtype() == kDouble,
      "the base given to float_power_ has dtype {} but the operation's result requires dtype Double",
      detail::torch_name(dtype()));
  return write_back(*this, "float_power_", [&](const Tensor& x) { return x.float_power(exponent); });
}

}  // namespace ember
