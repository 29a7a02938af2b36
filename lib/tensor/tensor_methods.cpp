// Tensor methods that forward to the free functions of ops.h, plus data_ptr<T> and item<T>.
#include <cstdlib>
#include <limits>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "core/dtype_dispatch.h"
#include "ember/ops.h"

namespace ember {

template <class T>
T* Tensor::data_ptr() const {
  EMBER_CHECK_ARG(defined(), "data_ptr() called on an undefined Tensor");
  constexpr ScalarType want = ScalarTypeOf<std::remove_cv_t<T>>::value;
  EMBER_CHECK_ARG(dtype() == want, "data_ptr: expected scalar type {} but found {}", detail::torch_name(want),
                  detail::torch_name(dtype()));
  return reinterpret_cast<T*>(impl_->data());
}

void Tensor::check_accessor(size_t dims, bool index32) const {
  EMBER_CHECK_ARG(defined(), "accessor() called on an undefined Tensor");
  EMBER_CHECK_ARG(dim() == int64_t(dims), "TensorAccessor expected {} dims but tensor has {}", dims, dim());
  if (!index32) return;
  EMBER_CHECK_ARG(numel() <= int64_t(std::numeric_limits<int32_t>::max()),
                  "numel needs to be smaller than int32_t max; otherwise, please use packed_accessor64");
  // Beyond libtorch's check: a strided view of a bigger storage can reach past int32 too.
  int64_t last = 0;
  for (int64_t d = 0; d < dim(); ++d) last += (size(d) - 1) * std::abs(stride(d));
  EMBER_CHECK_ARG(numel() == 0 || last <= int64_t(std::numeric_limits<int32_t>::max()),
                  "packed_accessor32: the tensor's strides reach offset {}, past int32_t max; please use "
                  "packed_accessor64",
                  last);
}

Scalar Tensor::item() const {
  EMBER_CHECK_ARG(defined(), "item() called on an undefined Tensor");
  EMBER_CHECK_ARG(numel() == 1, "item: a Tensor with {} elements cannot be converted to Scalar", numel());
  Tensor c = is_cpu() ? *this : cpu();
  return detail::dispatch_dtype(dtype(), [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    return Scalar(*reinterpret_cast<const T*>(c.unsafe_impl()->data()));
  });
}

template <class T>
T Tensor::item() const {
  Scalar s = item();
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(float(s.to_double()));
  else return s.to<T>();
}

#define EMBER_INSTANTIATE(T)                  \
  template EMBER_API T* Tensor::data_ptr<T>() const; \
  template EMBER_API T Tensor::item<T>() const;
EMBER_INSTANTIATE(bool)
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(int8_t)
EMBER_INSTANTIATE(int16_t)
EMBER_INSTANTIATE(int32_t)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(Half)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
#undef EMBER_INSTANTIATE
template EMBER_API const float* Tensor::data_ptr<const float>() const;
template EMBER_API const double* Tensor::data_ptr<const double>() const;
template EMBER_API const int64_t* Tensor::data_ptr<const int64_t>() const;
template EMBER_API const int32_t* Tensor::data_ptr<const int32_t>() const;

Tensor Tensor::toType(ScalarType dtype) const {
  EMBER_CHECK_ARG(defined(), "toType: undefined tensor");
  return to(dtype);
}

// ---- elementwise methods
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return ember::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::div(const Scalar& o) const { return ember::div(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return ember::remainder(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(const Scalar& e) const { return ember::pow(*this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }
Tensor Tensor::atan2(const Tensor& o) const { return ember::atan2(*this, o); }
#define EMBER_CMP_METHOD(fn)                                                   \
  Tensor Tensor::fn(const Tensor& o) const { return ember::fn(*this, o); }     \
  Tensor Tensor::fn(const Scalar& o) const { return ember::fn(*this, o); }
EMBER_CMP_METHOD(eq)
EMBER_CMP_METHOD(ne)
EMBER_CMP_METHOD(lt)
EMBER_CMP_METHOD(le)
EMBER_CMP_METHOD(gt)
EMBER_CMP_METHOD(ge)
#undef EMBER_CMP_METHOD
Tensor Tensor::logical_and(const Tensor& o) const { return ember::logical_and(*this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return ember::logical_or(*this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }

#define EMBER_UNARY_METHOD(fn) \
  Tensor Tensor::fn() const { return ember::fn(*this); }
EMBER_UNARY_METHOD(neg)
EMBER_UNARY_METHOD(abs)
EMBER_UNARY_METHOD(sign)
EMBER_UNARY_METHOD(exp)
EMBER_UNARY_METHOD(log)
EMBER_UNARY_METHOD(log1p)
EMBER_UNARY_METHOD(expm1)
EMBER_UNARY_METHOD(sqrt)
EMBER_UNARY_METHOD(rsqrt)
EMBER_UNARY_METHOD(square)
EMBER_UNARY_METHOD(sin)
EMBER_UNARY_METHOD(cos)
EMBER_UNARY_METHOD(tan)
EMBER_UNARY_METHOD(tanh)
EMBER_UNARY_METHOD(sigmoid)
EMBER_UNARY_METHOD(relu)
EMBER_UNARY_METHOD(gelu)
EMBER_UNARY_METHOD(floor)
EMBER_UNARY_METHOD(ceil)
EMBER_UNARY_METHOD(round)
EMBER_UNARY_METHOD(trunc)
EMBER_UNARY_METHOD(reciprocal)
EMBER_UNARY_METHOD(erf)
EMBER_UNARY_METHOD(erfc)
EMBER_UNARY_METHOD(erfinv)
EMBER_UNARY_METHOD(lgamma)
EMBER_UNARY_METHOD(digamma)
EMBER_UNARY_METHOD(isnan)
EMBER_UNARY_METHOD(isinf)
#undef EMBER_UNARY_METHOD
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return ember::clamp(*this, lo, hi); }
Tensor Tensor::clamp_min(const Scalar& lo) const { return ember::clamp_min(*this, lo); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return ember::clamp_max(*this, hi); }
Tensor Tensor::lerp(const Tensor& end, const Scalar& w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::lerp(const Tensor& end, const Tensor& w) const { return ember::lerp(*this, end, w); }
Tensor Tensor::addcmul(const Tensor& a, const Tensor& b, const Scalar& v) const { return ember::addcmul(*this, a, b, v); }
Tensor Tensor::addcdiv(const Tensor& a, const Tensor& b, const Scalar& v) const { return ember::addcdiv(*this, a, b, v); }

// ---- linear algebra
Tensor Tensor::matmul(const Tensor& o) const { return ember::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return ember::mm(*this, o); }
Tensor Tensor::bmm(const Tensor& o) const { return ember::bmm(*this, o); }
Tensor Tensor::mv(const Tensor& v) const { return ember::mv(*this, v); }
Tensor Tensor::dot(const Tensor& o) const { return ember::dot(*this, o); }
Tensor Tensor::outer(const Tensor& o) const { return ember::outer(*this, o); }
Tensor Tensor::addmm(const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) const {
  return ember::addmm(*this, a, b, beta, alpha);
}

Tensor Tensor::isclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, o, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::allclose(*this, o, rtol, atol, equal_nan);
}
bool Tensor::equal(const Tensor& o) const { return ember::equal(*this, o); }

}  // namespace ember
