#pragma once
// torch's result_type: tensors with dims outrank 0-dim tensors, which outrank plain
// numbers, except that a higher category (bool < integer < floating) always wins.

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::detail {

class ResultType {
 public:
  void add(const Tensor& t) {
    if (t.dim() > 0) dims_ = promote(dims_, t.dtype());
    else zero_dim_ = promote(zero_dim_, t.dtype());
  }
  void add(const Scalar& s) { wrapped_ = promote(wrapped_, s.natural_type()); }
  ScalarType get() const { return static_cast<ScalarType>(combine(dims_, combine(zero_dim_, wrapped_))); }

 private:
  static constexpr int kNone = -1;
  static int promote(int a, ScalarType b) {
    return a == kNone ? int(b) : int(promote_types(static_cast<ScalarType>(a), b));
  }
  static int combine(int higher, int lower) {
    if (higher == kNone) return lower;
    if (lower == kNone) return higher;
    ScalarType h = static_cast<ScalarType>(higher), l = static_cast<ScalarType>(lower);
    if (is_floating_point(h)) return higher;
    if (h == kBool || is_floating_point(l)) return int(promote_types(h, l));
    return higher;
  }
  int dims_ = kNone, zero_dim_ = kNone, wrapped_ = kNone;
};

template <class... Args>
ScalarType result_type(const Args&... args) {
  ResultType r;
  (r.add(args), ...);
  return r.get();
}

/// Integer and bool dtypes become the default dtype (float32 unless set) for ops like div, exp.
inline ScalarType to_floating(ScalarType t) { return is_floating_point(t) ? t : get_default_dtype(); }

}  // namespace ember::detail
