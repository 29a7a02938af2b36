#pragma once
// dtype -> C++ type dispatch for kernels (one switch per call), and the compute type
// each storage type uses (Half and BFloat16 compute in float, as torch's opmath_t).

#include <type_traits>

#include "core/check.h"
#include "ember/kernel_args.h"
#include "ember/scalar_type.h"

namespace ember::detail {

template <class T>
struct TypeTag {
  using type = T;
};

template <class T>
using opmath_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

/// Calls fn(TypeTag<T>{}) for the C++ type of dtype.
template <class Fn>
decltype(auto) dispatch_dtype(ScalarType dtype, Fn&& fn) {
  switch (dtype) {
    case kBool: return fn(TypeTag<bool>{});
    case kUInt8: return fn(TypeTag<uint8_t>{});
    case kInt8: return fn(TypeTag<int8_t>{});
    case kInt16: return fn(TypeTag<int16_t>{});
    case kInt32: return fn(TypeTag<int32_t>{});
    case kInt64: return fn(TypeTag<int64_t>{});
    case kHalf: return fn(TypeTag<Half>{});
    case kBFloat16: return fn(TypeTag<BFloat16>{});
    case kFloat: return fn(TypeTag<float>{});
    case kDouble: return fn(TypeTag<double>{});
  }
  EMBER_THROW(InvalidArgument, "unknown dtype {}", static_cast<int>(dtype));
}

/// Like dispatch_dtype for the floating dtypes only.
template <class Fn>
decltype(auto) dispatch_floating(ScalarType dtype, Fn&& fn) {
  switch (dtype) {
    case kHalf: return fn(TypeTag<Half>{});
    case kBFloat16: return fn(TypeTag<BFloat16>{});
    case kFloat: return fn(TypeTag<float>{});
    case kDouble: return fn(TypeTag<double>{});
    default: break;
  }
  EMBER_THROW(NotImplemented, "kernel expects a floating dtype, got {}", name(dtype));
}

/// An op parameter (alpha, a clamp bound, a fill value) in the kernel's compute type:
/// the exact integer for integer types, the double for floating ones.
template <class M>
inline M kernel_param(const KernelScalar& s) {
  if constexpr (std::is_floating_point_v<M>) return M(s.f);
  else return M(s.i);
}

/// Converts between element types the way torch's casts do (float -> int truncates,
/// anything -> bool is != 0).
template <class To, class From>
inline To cast_to(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<float>(v) != 0;
    else return v != From(0);  // in From: 1e-50 (double) is true
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) return To(static_cast<float>(v));
  else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<To>(static_cast<float>(v));
  else return static_cast<To>(v);
}

}  // namespace ember::detail
