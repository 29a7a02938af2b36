#pragma once
// Whether a layer runs as one registry kernel or composes ordinary ops (Note [Library
// kernels] in conv_library.cpp).

#include <initializer_list>

#include "ember/registry.h"
#include "ember/tensor.h"

namespace ember::nn::detail {

/// True when `op` would run where its operands live (no scope or placement policy sends it
/// elsewhere), all defined operands share that device and the first one's dtype, and the
/// device has a kernel for the dtype. Otherwise the layer composes ordinary ops, which
/// place themselves.
bool kernel_applies(Op op, std::initializer_list<const Tensor*> operands);

}  // namespace ember::nn::detail
