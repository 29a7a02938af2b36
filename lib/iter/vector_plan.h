#pragma once
// How a one-dimensional elementwise launch reads each operand: the host-side choice a
// vectorising backend (CUDA) makes before launching, kept here as plain C++ so that the
// CPU-only test suite checks it.

#include <cstdint>

#include "ember/kernel_args.h"

namespace ember::detail {

enum class OperandAccess : uint8_t {
  Contiguous,  // element i at data + i: read a whole vector per step
  Broadcast,   // one element of a tensor (stride 0): read it once, repeat it
  Scalar,      // a Scalar passed by value (ElementwiseArgs::scalar_value)
  Strided,     // a multi-dim launch: offsets come from the OffsetCalculator
};

struct VectorPlan {
  bool vectorised = false;  // output and every Contiguous input unit-stride and aligned
  OperandAccess access[ElementwiseArgs::kMaxOperands] = {};  // index 0 is the output
};

/// Plans a launch whose vector loads and stores need `align` bytes of alignment.
/// A launch that is not vectorised still gets each input's access, which the scalar
/// (tail or strided) code follows.
inline VectorPlan plan_vector_access(const ElementwiseArgs& a, uintptr_t align) {
  const auto aligned = [align](const void* p) { return reinterpret_cast<uintptr_t>(p) % align == 0; };
  VectorPlan plan;
  // A contiguous launch always has one dim (ElementwiseArgs::contiguous).
  plan.access[0] = a.contiguous ? OperandAccess::Contiguous : OperandAccess::Strided;
  plan.vectorised = a.contiguous && a.strides[0][0] == 1 && aligned(a.data[0]);
  for (int k = 1; k <= a.ninputs; ++k) {
    if (a.is_scalar[k]) {
      plan.access[k] = OperandAccess::Scalar;
    } else if (!a.contiguous) {
      plan.access[k] = OperandAccess::Strided;
    } else if (a.strides[k][0] == 0) {
      plan.access[k] = OperandAccess::Broadcast;
    } else {
      plan.access[k] = OperandAccess::Contiguous;
      plan.vectorised = plan.vectorised && a.strides[k][0] == 1 && aligned(a.data[k]);
    }
  }
  return plan;
}

}  // namespace ember::detail
