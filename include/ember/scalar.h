#pragma once
/// A number without a tensor: what `x + 2` or `full({2}, 3.5)` receives.

#include <cstdint>
#include <type_traits>

#include "ember/export.h"
#include "ember/scalar_type.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { v_.i = v; }
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

  /// The dtype torch gives a tensor made from this number alone (bool, int64, the default dtype).
  ScalarType natural_type() const {
    return kind_ == Kind::Bool ? kBool : kind_ == Kind::Int ? kInt64 : get_default_dtype();
  }

 private:
  union {
    int64_t i;
    double d;
  } v_;
  Kind kind_;
};

}  // namespace ember
