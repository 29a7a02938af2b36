#include "nn/kernel_applies.h"

#include "placement/placement.h"

namespace ember::nn::detail {

bool kernel_applies(Op op, std::initializer_list<const Tensor*> operands) {
  const Tensor& first = **operands.begin();
  const Device device = first.device();
  const ScalarType dtype = first.dtype();
  for (const Tensor* t : operands)
    if (t->defined() && (t->device() != device || t->dtype() != dtype)) return false;
  Device scoped = device;
  if (ember::detail::scope_device(&scoped) && scoped != device) return false;
  if (device.is_cpu() && placement() == Placement::PreferAccelerator) return false;
  return has_kernel(op, device.type(), dtype);
}

}  // namespace ember::nn::detail
