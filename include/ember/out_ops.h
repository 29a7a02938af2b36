#pragma once
/// libtorch's out= variants (`exp_out(out, x)`, `sum_out(out, x, {1})`, `special::i0e_out`):
/// the op's result written into `out`, which is resized to the result's shape (with
/// libtorch's deprecation warning when it had elements) and may be of any dtype the
/// result can be cast to, except where libtorch asks for one: mm, bmm, mv, addmm and dot
/// take an out of the inputs' dtype, and the reductions compute in out's dtype. As in
/// libtorch, none of them records autograd: an argument that requires grad is refused.
/// add_out, mul_out, matmul_out and nan_to_num_out (ops.h) write in place; these compute
/// the result and then copy it.

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember {
namespace detail {
/// libtorch's refusal, "exp(): functions with out=... arguments don't support automatic
/// differentiation, but one of the arguments requires grad.", under grad mode.
EMBER_API void check_out_arguments(const char* name, std::initializer_list<const Tensor*> arguments);
/// Writes `result` into `out` with libtorch's checks (dtype cast, device) and resize.
EMBER_API Tensor& write_out(const char* name, Tensor& out, const Tensor& result);
/// libtorch's refusal of an out whose dtype is not `dtype`, before any work (mm & co.):
/// "Expected out tensor to have dtype float, but got double instead".
EMBER_API void check_out_dtype(const Tensor& out, ScalarType dtype);
/// The dtype a reduction into `out` computes in: the one asked for (which out must have),
/// else out's when the input casts to it, else the input's (write_out then refuses).
EMBER_API std::optional<ScalarType> reduction_out_dtype(const Tensor& out, const Tensor& self,
                                                        std::optional<ScalarType> dtype);
}  // namespace detail

#define EMBER_OUT_UNARY(fn)                                        \
  inline Tensor& fn##_out(Tensor& out, const Tensor& self) {       \
    detail::check_out_arguments(#fn, {&self, &out});               \
    return detail::write_out(#fn, out, fn(self));                  \
  }
#define EMBER_OUT_BINARY(fn)                                                    \
  inline Tensor& fn##_out(Tensor& out, const Tensor& self, const Tensor& other) { \
    detail::check_out_arguments(#fn, {&self, &other, &out});                    \
    return detail::write_out(#fn, out, fn(self, other));                        \
  }

EMBER_OUT_UNARY(abs)
EMBER_OUT_UNARY(neg)
EMBER_OUT_UNARY(sign)
EMBER_OUT_UNARY(sgn)
EMBER_OUT_UNARY(exp)
EMBER_OUT_UNARY(exp2)
EMBER_OUT_UNARY(expm1)
EMBER_OUT_UNARY(log)
EMBER_OUT_UNARY(log2)
EMBER_OUT_UNARY(log10)
EMBER_OUT_UNARY(log1p)
EMBER_OUT_UNARY(sqrt)
EMBER_OUT_UNARY(rsqrt)
EMBER_OUT_UNARY(square)
EMBER_OUT_UNARY(reciprocal)
EMBER_OUT_UNARY(sin)
EMBER_OUT_UNARY(cos)
EMBER_OUT_UNARY(tan)
EMBER_OUT_UNARY(asin)
EMBER_OUT_UNARY(acos)
EMBER_OUT_UNARY(atan)
EMBER_OUT_UNARY(sinh)
EMBER_OUT_UNARY(cosh)
EMBER_OUT_UNARY(tanh)
EMBER_OUT_UNARY(asinh)
EMBER_OUT_UNARY(acosh)
EMBER_OUT_UNARY(atanh)
EMBER_OUT_UNARY(sigmoid)
EMBER_OUT_UNARY(erf)
EMBER_OUT_UNARY(erfc)
EMBER_OUT_UNARY(erfinv)
EMBER_OUT_UNARY(lgamma)
EMBER_OUT_UNARY(digamma)
EMBER_OUT_UNARY(i0)
EMBER_OUT_UNARY(sinc)
EMBER_OUT_UNARY(floor)
EMBER_OUT_UNARY(ceil)
EMBER_OUT_UNARY(round)
EMBER_OUT_UNARY(trunc)
EMBER_OUT_UNARY(frac)
EMBER_OUT_UNARY(deg2rad)
EMBER_OUT_UNARY(rad2deg)
EMBER_OUT_UNARY(logical_not)
EMBER_OUT_UNARY(bitwise_not)

EMBER_OUT_BINARY(div)
EMBER_OUT_BINARY(remainder)
EMBER_OUT_BINARY(fmod)
EMBER_OUT_BINARY(pow)
EMBER_OUT_BINARY(atan2)
EMBER_OUT_BINARY(hypot)
EMBER_OUT_BINARY(maximum)
EMBER_OUT_BINARY(minimum)
EMBER_OUT_BINARY(fmax)
EMBER_OUT_BINARY(fmin)
EMBER_OUT_BINARY(copysign)
EMBER_OUT_BINARY(xlogy)
EMBER_OUT_BINARY(logaddexp)
EMBER_OUT_BINARY(logaddexp2)
EMBER_OUT_BINARY(floor_divide)
EMBER_OUT_BINARY(eq)
EMBER_OUT_BINARY(ne)
EMBER_OUT_BINARY(lt)
EMBER_OUT_BINARY(le)
EMBER_OUT_BINARY(gt)
EMBER_OUT_BINARY(ge)
EMBER_OUT_BINARY(logical_and)
EMBER_OUT_BINARY(logical_or)
EMBER_OUT_BINARY(logical_xor)
EMBER_OUT_BINARY(bitwise_and)
EMBER_OUT_BINARY(bitwise_or)
EMBER_OUT_BINARY(bitwise_xor)
EMBER_OUT_BINARY(gcd)
EMBER_OUT_BINARY(lcm)
EMBER_OUT_BINARY(outer)

// The matrix products take an out of the inputs' dtype, as libtorch's.
#define EMBER_OUT_PRODUCT(fn)                                                      \
  inline Tensor& fn##_out(Tensor& out, const Tensor& self, const Tensor& other) { \
    detail::check_out_arguments(#fn, {&self, &other, &out});                      \
    detail::check_out_dtype(out, self.dtype());                                   \
    return detail::write_out(#fn, out, fn(self, other));                          \
  }
EMBER_OUT_PRODUCT(mm)
EMBER_OUT_PRODUCT(bmm)
EMBER_OUT_PRODUCT(mv)
#undef EMBER_OUT_PRODUCT
inline Tensor& dot_out(Tensor& out, const Tensor& self, const Tensor& other) {
  detail::check_out_arguments("dot", {&self, &other, &out});
  if (out.defined() && self.defined() && out.dtype() != self.dtype())
    throw InvalidArgument(std::string("result dtype ") + torch_name(out.dtype()) + " does not match input dtype " +
                          torch_name(self.dtype()));
  return detail::write_out("dot", out, dot(self, other));
}
inline Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {
  detail::check_out_arguments("sub", {&self, &other, &out});
  return detail::write_out("sub", out, sub(self, other, alpha));
}
inline Tensor& pow_out(Tensor& out, const Tensor& self, const Scalar& exponent) {
  detail::check_out_arguments("pow", {&self, &out});
  return detail::write_out("pow", out, pow(self, exponent));
}
inline Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = {}) {
  detail::check_out_arguments("clamp", {&self, &out});
  return detail::write_out("clamp", out, clamp(self, min, max));
}
inline Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                         const Scalar& beta = 1, const Scalar& alpha = 1) {
  detail::check_out_arguments("addmm", {&self, &mat1, &mat2, &out});
  detail::check_out_dtype(out, self.dtype());
  return detail::write_out("addmm", out, addmm(self, mat1, mat2, beta, alpha));
}
inline Tensor& sum_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                       std::optional<ScalarType> dtype = {}) {
  detail::check_out_arguments("sum", {&self, &out});
  return detail::write_out("sum", out, sum(self, dim, keepdim, detail::reduction_out_dtype(out, self, dtype)));
}
inline Tensor& mean_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                        std::optional<ScalarType> dtype = {}) {
  detail::check_out_arguments("mean", {&self, &out});
  return detail::write_out("mean", out, mean(self, dim, keepdim, detail::reduction_out_dtype(out, self, dtype)));
}
inline Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false,
                        std::optional<ScalarType> dtype = {}) {
  detail::check_out_arguments("prod", {&self, &out});
  return detail::write_out("prod", out, prod(self, dim, keepdim, detail::reduction_out_dtype(out, self, dtype)));
}
inline Tensor& cat_out(Tensor& out, const std::vector<Tensor>& tensors, int64_t dim = 0) {
  detail::check_out_arguments("cat", {&out});
  for (const Tensor& t : tensors) detail::check_out_arguments("cat", {&t});
  return detail::write_out("cat", out, cat(tensors, dim));
}
inline Tensor& stack_out(Tensor& out, const std::vector<Tensor>& tensors, int64_t dim = 0) {
  detail::check_out_arguments("stack", {&out});
  for (const Tensor& t : tensors) detail::check_out_arguments("stack", {&t});
  return detail::write_out("stack", out, stack(tensors, dim));
}

namespace special {
#define EMBER_SPECIAL_OUT_UNARY(fn)                                          \
  inline Tensor& fn##_out(Tensor& out, const Tensor& self) {                 \
    ::ember::detail::check_out_arguments("special_" #fn, {&self, &out});     \
    return ::ember::detail::write_out("special_" #fn, out, special::fn(self)); \
  }
EMBER_SPECIAL_OUT_UNARY(entr)
EMBER_SPECIAL_OUT_UNARY(erf)
EMBER_SPECIAL_OUT_UNARY(erfc)
EMBER_SPECIAL_OUT_UNARY(erfcx)
EMBER_SPECIAL_OUT_UNARY(erfinv)
EMBER_SPECIAL_OUT_UNARY(expit)
EMBER_SPECIAL_OUT_UNARY(exp2)
EMBER_SPECIAL_OUT_UNARY(expm1)
EMBER_SPECIAL_OUT_UNARY(gammaln)
EMBER_SPECIAL_OUT_UNARY(digamma)
EMBER_SPECIAL_OUT_UNARY(psi)
EMBER_SPECIAL_OUT_UNARY(i0)
EMBER_SPECIAL_OUT_UNARY(i0e)
EMBER_SPECIAL_OUT_UNARY(i1)
EMBER_SPECIAL_OUT_UNARY(i1e)
EMBER_SPECIAL_OUT_UNARY(ndtr)
EMBER_SPECIAL_OUT_UNARY(ndtri)
EMBER_SPECIAL_OUT_UNARY(log_ndtr)
EMBER_SPECIAL_OUT_UNARY(log1p)
EMBER_SPECIAL_OUT_UNARY(sinc)
#undef EMBER_SPECIAL_OUT_UNARY
inline Tensor& logit_out(Tensor& out, const Tensor& self) {
  ::ember::detail::check_out_arguments("special_logit", {&self, &out});
  return ::ember::detail::write_out("special_logit", out, special::logit(self));
}
inline Tensor& xlogy_out(Tensor& out, const Tensor& self, const Tensor& other) {
  ::ember::detail::check_out_arguments("special_xlogy", {&self, &other, &out});
  return ::ember::detail::write_out("special_xlogy", out, special::xlogy(self, other));
}
}  // namespace special

#undef EMBER_OUT_UNARY
#undef EMBER_OUT_BINARY

}  // namespace ember
