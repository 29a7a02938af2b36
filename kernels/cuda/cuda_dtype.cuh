#pragma once
// dtype dispatch, compute types, casts and math overloads for the CUDA kernels. Mirrors
// lib/core/dtype_dispatch.h (which pulls fmt into nvcc, so is not included here): the
// same storage types (ember::Half / BFloat16, whose conversions are host-device code
// bit-identical to the CPU's), the same opmath_t and the same cast rules.

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ember/half.h"
#include "ember/kernel_args.h"
#include "ember/scalar_type.h"

namespace ember::detail {

/// Throws NotImplemented for a dtype a CUDA kernel was handed but does not handle
/// (the registry's dtype sets make this unreachable through the front-ends).
[[noreturn]] void throw_cuda_dtype(const char* kernel, ScalarType dtype);

template <class T>
struct CudaTypeTag {
  using type = T;
};

template <class T>
using cuda_opmath_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<cuda_opmath_t<T>>;

template <class T0, class... Ts>
constexpr int max_size() {
  if constexpr (sizeof...(Ts) == 0) return int(sizeof(T0));
  else return int(sizeof(T0)) > max_size<Ts...>() ? int(sizeof(T0)) : max_size<Ts...>();
}

/// Bit masks of dtype sets (as DtypeSet::bits()): kernels instantiate exactly the
/// dtypes they are registered for.
constexpr uint32_t dtype_bit(ScalarType t) { return 1u << static_cast<int>(t); }
constexpr uint32_t kFloatingMask = dtype_bit(kHalf) | dtype_bit(kBFloat16) | dtype_bit(kFloat) | dtype_bit(kDouble);
constexpr uint32_t kNumericMask = kFloatingMask | dtype_bit(kUInt8) | dtype_bit(kInt8) | dtype_bit(kInt16) |
                                  dtype_bit(kInt32) | dtype_bit(kInt64);
constexpr uint32_t kAllMask = kNumericMask | dtype_bit(kBool);
constexpr uint32_t kIntMask =
    dtype_bit(kUInt8) | dtype_bit(kInt8) | dtype_bit(kInt16) | dtype_bit(kInt32) | dtype_bit(kInt64);
constexpr uint32_t kIntegralMask = kIntMask | dtype_bit(kBool);

/// Calls fn(CudaTypeTag<T>{}) for the C++ type of dtype when dtype is in Mask; throws
/// NotImplemented otherwise (unreachable through the registry's dtype checks).
template <uint32_t Mask, class Fn>
void cuda_dispatch(const char* kernel, ScalarType dtype, Fn&& fn) {
#define EMBER_CUDA_CASE(st, T)                                            \
  case st:                                                                \
    if constexpr ((Mask & dtype_bit(st)) != 0) return fn(CudaTypeTag<T>{}); \
    break;
  switch (dtype) {
    EMBER_CUDA_CASE(kBool, bool)
    EMBER_CUDA_CASE(kUInt8, uint8_t)
    EMBER_CUDA_CASE(kInt8, int8_t)
    EMBER_CUDA_CASE(kInt16, int16_t)
    EMBER_CUDA_CASE(kInt32, int32_t)
    EMBER_CUDA_CASE(kInt64, int64_t)
    EMBER_CUDA_CASE(kHalf, Half)
    EMBER_CUDA_CASE(kBFloat16, BFloat16)
    EMBER_CUDA_CASE(kFloat, float)
    EMBER_CUDA_CASE(kDouble, double)
  }
#undef EMBER_CUDA_CASE
  throw_cuda_dtype(kernel, dtype);
}

/// cast_to of dtype_dispatch.h, for host and device.
template <class To, class From>
__host__ __device__ __forceinline__ To cuda_cast(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<float>(v) != 0;
    else return v != From(0);  // in From: 1e-50 (double) is true
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(v));
  else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<To>(static_cast<float>(v));
  else return static_cast<To>(v);
}

/// A kernel parameter in the compute type M (float for 16-bit floats), as the CPU reads it.
template <class M>
M param_as(const KernelScalar& s) {
  if constexpr (std::is_floating_point_v<M>) return M(s.f);
  else return M(s.i);
}

// float / double overloads of the math functions the kernels use (float math for
// float, Half and BFloat16; double for double).
#define EMBER_CUDA_MATH1(name)                                                  \
  __device__ __forceinline__ float m_##name(float x) { return ::name##f(x); }   \
  __device__ __forceinline__ double m_##name(double x) { return ::name(x); }
EMBER_CUDA_MATH1(exp)
EMBER_CUDA_MATH1(log)
EMBER_CUDA_MATH1(log1p)
EMBER_CUDA_MATH1(expm1)
EMBER_CUDA_MATH1(sqrt)
EMBER_CUDA_MATH1(sin)
EMBER_CUDA_MATH1(cos)
EMBER_CUDA_MATH1(tan)
EMBER_CUDA_MATH1(tanh)
EMBER_CUDA_MATH1(erf)
EMBER_CUDA_MATH1(erfc)
EMBER_CUDA_MATH1(erfinv)
EMBER_CUDA_MATH1(lgamma)
EMBER_CUDA_MATH1(floor)
EMBER_CUDA_MATH1(ceil)
EMBER_CUDA_MATH1(rint)
EMBER_CUDA_MATH1(trunc)
EMBER_CUDA_MATH1(fabs)
#undef EMBER_CUDA_MATH1
__device__ __forceinline__ float m_fmod(float x, float y) { return ::fmodf(x, y); }
__device__ __forceinline__ double m_fmod(double x, double y) { return ::fmod(x, y); }
__device__ __forceinline__ float m_pow(float x, float y) { return ::powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) { return ::pow(x, y); }
__device__ __forceinline__ float m_atan2(float x, float y) { return ::atan2f(x, y); }
__device__ __forceinline__ double m_atan2(double x, double y) { return ::atan2(x, y); }
__device__ __forceinline__ bool m_isnan(float x) { return ::isnan(x); }
__device__ __forceinline__ bool m_isnan(double x) { return ::isnan(x); }
__device__ __forceinline__ bool m_isinf(float x) { return ::isinf(x); }
__device__ __forceinline__ bool m_isinf(double x) { return ::isinf(x); }

}  // namespace ember::detail
