#include "dispatch/autocast.h"

#include "core/check.h"
#include "ember/autocast.h"

namespace ember {
namespace detail {

thread_local int8_t t_autocast_low __attribute__((tls_model("initial-exec"))) = -1;

AutocastOff::AutocastOff() : prev_(t_autocast_low) { t_autocast_low = -1; }
AutocastOff::~AutocastOff() { t_autocast_low = prev_; }

Tensor autocast_low(const Tensor& t) {
  return t.defined() && autocast_wants_low(t) ? t.to(ScalarType(t_autocast_low)) : t;
}

}  // namespace detail

AutocastScope::AutocastScope(ScalarType low, bool enabled) : prev_(detail::t_autocast_low) {
  EMBER_CHECK_ARG(low == kBFloat16 || low == kHalf,
                  "AutocastScope: expected a low-precision dtype of bfloat16 or float16, but got {}", name(low));
  detail::t_autocast_low = enabled ? int8_t(low) : int8_t(-1);
}

AutocastScope::~AutocastScope() { detail::t_autocast_low = prev_; }

bool is_autocast_enabled() { return detail::autocast_on(); }

ScalarType get_autocast_dtype() { return detail::autocast_on() ? ScalarType(detail::t_autocast_low) : kFloat; }

}  // namespace ember
