#pragma once
/// Element types (API.md section 1) and torch's promotion table.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <iterator>

#include "ember/export.h"
#include "ember/half.h"

namespace ember {

enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Half,
  BFloat16,
  Float,
  Double,
  // libtorch's enumerator names for the same types (at::ScalarType::Long, ...)
  Byte = UInt8,
  Char = Int8,
  Short = Int16,
  Int = Int32,
  Long = Int64
};
inline constexpr int kNumScalarTypes = 10;

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::UInt8;
constexpr ScalarType kInt8 = ScalarType::Int8;
constexpr ScalarType kInt16 = ScalarType::Int16;
constexpr ScalarType kInt32 = ScalarType::Int32;
constexpr ScalarType kInt64 = ScalarType::Int64;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kFloat64 = ScalarType::Double;
// libtorch's most common spellings of the same dtypes.
constexpr ScalarType kByte = ScalarType::UInt8;
constexpr ScalarType kChar = ScalarType::Int8;
constexpr ScalarType kShort = ScalarType::Int16;
constexpr ScalarType kInt = ScalarType::Int32;
constexpr ScalarType kLong = ScalarType::Int64;

/// Bytes per element.
constexpr size_t element_size(ScalarType t) {
  constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return sizes[static_cast<int>(t)];
}
/// torch's dtype name: "float32", "int64", "bfloat16", "bool", ...
EMBER_API const char* name(ScalarType t);
/// libtorch's C++ name (c10::toString): "Float", "Long", "Byte", "Bool", ...
constexpr const char* torch_name(ScalarType t) {
  constexpr const char* names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
  return static_cast<unsigned>(t) < std::size(names) ? names[static_cast<int>(t)] : "Undefined";
}
/// The C++ element type's name as libtorch's caffe2::TypeMeta gives it: "float", "long int".
constexpr const char* cpp_type_name(ScalarType t) {
  constexpr const char* names[] = {"bool",     "unsigned char", "signed char",   "short int", "int",
                                   "long int", "c10::Half",     "c10::BFloat16", "float",     "double"};
  return static_cast<unsigned>(t) < std::size(names) ? names[static_cast<int>(t)] : "nullptr (uninitialized)";
}
/// torch.promote_types.
EMBER_API ScalarType promote_types(ScalarType a, ScalarType b);

constexpr bool is_floating_point(ScalarType t) {
  return t == kHalf || t == kBFloat16 || t == kFloat || t == kDouble;
}
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return (include_bool && t == kBool) || (t >= kUInt8 && t <= kInt64);
}

namespace detail {
EMBER_API extern std::atomic<ScalarType> g_default_dtype;
}
/// The dtype floating-point creation ops and tensor(1.5) default to (torch.get_default_dtype).
inline ScalarType get_default_dtype() { return detail::g_default_dtype.load(std::memory_order_relaxed); }
/// libtorch's other name for the same query.
inline ScalarType get_default_dtype_as_scalartype() { return get_default_dtype(); }
/// Sets the default dtype. Any dtype, as libtorch's C++ function (Python refuses integers);
/// with an integral one, floating factories such as rand refuse it.
EMBER_API void set_default_dtype(ScalarType t);

/// Maps a C++ element type to its ScalarType (compile-time).
template <class T>
struct ScalarTypeOf;
#define EMBER_SCALAR_TYPE_OF(T, st) \
  template <>                      \
  struct ScalarTypeOf<T> {         \
    static constexpr ScalarType value = st; \
  };
EMBER_SCALAR_TYPE_OF(bool, kBool)
EMBER_SCALAR_TYPE_OF(uint8_t, kUInt8)
EMBER_SCALAR_TYPE_OF(int8_t, kInt8)
EMBER_SCALAR_TYPE_OF(int16_t, kInt16)
EMBER_SCALAR_TYPE_OF(int32_t, kInt32)
EMBER_SCALAR_TYPE_OF(int64_t, kInt64)
EMBER_SCALAR_TYPE_OF(Half, kHalf)
EMBER_SCALAR_TYPE_OF(BFloat16, kBFloat16)
EMBER_SCALAR_TYPE_OF(float, kFloat)
EMBER_SCALAR_TYPE_OF(double, kDouble)
#undef EMBER_SCALAR_TYPE_OF

}  // namespace ember

namespace ember {
/// libtorch's printing of a dtype: "Float", "Long", "BFloat16".
EMBER_API std::ostream& operator<<(std::ostream& stream, ScalarType type);
}  // namespace ember
