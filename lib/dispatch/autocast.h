#pragma once
// Autocast's per-thread state and the casts the op front-ends apply under it (see
// ember/autocast.h). The check on the hot path is one initial-exec TLS byte.

#include <initializer_list>

#include "ember/tensor.h"

namespace ember::detail {

/// The low type of this thread's innermost active AutocastScope, or -1 when off.
extern thread_local int8_t t_autocast_low __attribute__((tls_model("initial-exec")));

inline bool autocast_on() { return t_autocast_low >= 0; }

/// A float, half or bfloat16 tensor not already in the low type (double is left alone, as torch).
inline bool autocast_wants_low(const Tensor& t) {
  const ScalarType d = t.dtype();
  return (d == kFloat || d == kHalf || d == kBFloat16) && int8_t(d) != t_autocast_low;
}
/// A half or bfloat16 tensor, which the float32 list computes in float32.
inline bool autocast_wants_fp32(const Tensor& t) { return t.dtype() == kHalf || t.dtype() == kBFloat16; }

/// t in the low type when autocast_wants_low(t), else t (an undefined t stays undefined).
Tensor autocast_low(const Tensor& t);

/// Whether an op of the low list with these operands must recast them (autocast is on).
inline bool autocast_any_low(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && autocast_wants_low(*t)) return true;
  return false;
}
/// Whether an op of the float32 list with these operands must recast them (autocast is on).
inline bool autocast_any_fp32(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t->defined() && autocast_wants_fp32(*t)) return true;
  return false;
}
/// t in float32 when it is half or bfloat16, else t (integer targets, undefined tensors).
inline Tensor autocast_fp32(const Tensor& t) {
  return t.defined() && autocast_wants_fp32(t) ? t.to(kFloat) : t;
}

/// Turns autocast off for a scope (the backward engine) and restores it after.
class AutocastOff {
 public:
  // Out of line, in the TU that defines t_autocast_low: GCC's UBSan flags a store through
  // the extern thread_local's wrapper from other TUs as a null store (ASan+UBSan build).
  AutocastOff();
  ~AutocastOff();
  AutocastOff(const AutocastOff&) = delete;
  AutocastOff& operator=(const AutocastOff&) = delete;

 private:
  int8_t prev_;
};

}  // namespace ember::detail

/// True when the matmul family must recast (a, b) to the low type first.
#define EMBER_AUTOCAST_LOW2(a, b)                                                                           \
  __builtin_expect(::ember::detail::autocast_on() && (::ember::detail::autocast_wants_low(a) ||           \
                                                      ::ember::detail::autocast_wants_low(b)),            \
                   0)
/// True when a layer of the low list (the convolutions) must recast its float operands.
#define EMBER_AUTOCAST_LOW_ANY(...) \
  __builtin_expect(::ember::detail::autocast_on() && ::ember::detail::autocast_any_low({__VA_ARGS__}), 0)
/// True when a layer of the float32 list (the norms and losses) must recast its operands.
#define EMBER_AUTOCAST_FP32_ANY(...) \
  __builtin_expect(::ember::detail::autocast_on() && ::ember::detail::autocast_any_fp32({__VA_ARGS__}), 0)
/// True when an op of the float32 list must recast x (no explicit dtype) to float32 first.
#define EMBER_AUTOCAST_FP32(x, dtype) \
  __builtin_expect(::ember::detail::autocast_on() && !(dtype) && ::ember::detail::autocast_wants_fp32(x), 0)
