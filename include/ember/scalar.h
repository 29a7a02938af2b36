#pragma once
/// A number without a tensor: what `x + 2` or `full({2}, 3.5)` receives.

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <type_traits>

#include "ember/error.h"
#include "ember/export.h"
#include "ember/scalar_type.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t(0)) {}
  // A template, as c10's: a pointer ("nuc") must not become a Scalar through bool.
  template <class T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Bool) {
    v_.i = v;
  }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) {
    v_.i = static_cast<int64_t>(v);
  }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double) {
    v_.d = static_cast<double>(v);
  }
  Scalar(Half v) : Scalar(float(v)) {}
  Scalar(BFloat16 v) : Scalar(float(v)) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral(bool include_bool = false) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  bool is_floating_point() const { return kind_ == Kind::Double; }

  double to_double() const { return kind_ == Kind::Double ? v_.d : double(v_.i); }
  /// Integer value; doubles truncate toward zero, saturating (NaN gives 0) so that a
  /// Scalar like -inf (a mask value) never hits an undefined conversion.
  int64_t to_long() const {
    if (kind_ != Kind::Double) return v_.i;
    const double d = v_.d;
    if (!(d == d)) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return int64_t(d);
  }
  bool to_bool() const { return kind_ == Kind::Double ? v_.d != 0 : v_.i != 0; }
  /// Converts to an element type the way a tensor of that dtype would store it.
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_long());
    else return static_cast<T>(kind_ == Kind::Double ? v_.d : double(v_.i));
  }

  // libtorch's accessors. Unlike to<T>() (which converts as a tensor of that dtype stores
  // the value), they are checked: a value that does not fit is InvalidArgument, as c10's.
  double toDouble() const { return checked<double>("double"); }
  float toFloat() const { return checked<float>("float"); }
  int64_t toLong() const { return checked<int64_t>("int64_t"); }
  int toInt() const { return checked<int>("int"); }
  int16_t toShort() const { return checked<int16_t>("int16_t"); }
  int8_t toChar() const { return checked<int8_t>("int8_t"); }
  uint8_t toByte() const { return checked<uint8_t>("uint8_t"); }
  bool toBool() const { return to_bool(); }
  Half toHalf() const { return Half(float(checked_float(65504.0, "at::Half"))); }
  BFloat16 toBFloat16() const {
    return BFloat16(float(checked_float(3.3895313892515355e38, "at::BFloat16")));
  }
  bool isFloatingPoint() const { return is_floating_point(); }
  bool isIntegral(bool includeBool) const { return is_integral(includeBool); }
  bool isBoolean() const { return is_bool(); }
  /// kDouble, kLong or kBool: the kind of value held, as c10::Scalar::type().
  ScalarType type() const { return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : kDouble; }

  /// The dtype torch gives a tensor made from this number alone (bool, int64, the default dtype).
  ScalarType natural_type() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : get_default_dtype();
  }

 private:
  [[noreturn]] static void overflow(const char* type_name) {
    throw InvalidArgument(std::string("value cannot be converted to type ") + type_name +
                          " without overflow");
  }
  // Doubles: infinities and NaN pass (they exist in every floating type); finite values
  // beyond the type's largest overflow. Integers beyond it overflow too (Half, BFloat16).
  double checked_float(double max, const char* type_name) const {
    const double d = to_double();
    if (kind_ != Kind::Bool && (d > max || d < -max) && d - d == 0) overflow(type_name);
    return d;
  }
  template <class T>
  T checked(const char* type_name) const {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(checked_float(double(std::numeric_limits<T>::max()), type_name));
    } else {
      using L = std::numeric_limits<T>;
      if (kind_ == Kind::Double) {
        // NaN and the infinities fit no integer type; the comparison is false for NaN.
        if (!(v_.d >= double(L::lowest()) && v_.d < double(L::max()) + 1.0)) overflow(type_name);
        return static_cast<T>(v_.d);
      }
      const int64_t i = v_.i;
      // As c10: an unsigned type also takes negatives down to -max (they wrap).
      const bool fits = std::is_signed_v<T> ? (i >= int64_t(L::lowest()) && i <= int64_t(L::max()))
                                            : (i <= int64_t(L::max()) && i >= -int64_t(L::max()));
      if (kind_ == Kind::Int && !fits) overflow(type_name);
      return static_cast<T>(i);
    }
  }

  union {
    int64_t i;
    double d;
  } v_;
  Kind kind_;
};

}  // namespace ember

namespace ember {
/// libtorch's printing of a Scalar: "true", "3", "1.5".
EMBER_API std::ostream& operator<<(std::ostream& stream, const Scalar& scalar);
}  // namespace ember
