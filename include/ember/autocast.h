#pragma once
// Mixed precision (API.md §12), as torch.autocast: inside an AutocastScope on this thread,
// the matmul family (mm, bmm, matmul, mv, dot, addmm, linear) casts its float operands to
// the low type and runs there (float32 accumulation in cuBLAS and the CPU kernels), and
// reductions, softmax, log_softmax, cumsum, norms and nn's losses cast half and bfloat16
// inputs to float32. The casts are ordinary differentiable ops, so gradients flow back to
// the float32 parameters. Backward passes run with autocast off (each op's gradient in
// its forward's dtype).

#include <cstdint>

#include "ember/export.h"
#include "ember/scalar_type.h"

namespace ember {

/// RAII: enables (or, with enabled = false, disables) autocast to `low` (kBFloat16 or
/// kHalf) on this thread until destroyed; scopes nest.
class EMBER_API AutocastScope {
 public:
  explicit AutocastScope(ScalarType low = kBFloat16, bool enabled = true);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  int8_t prev_;
};

/// Whether an AutocastScope is active on this thread, and its low type (kFloat when off).
EMBER_API bool is_autocast_enabled();
EMBER_API ScalarType get_autocast_dtype();

}  // namespace ember
