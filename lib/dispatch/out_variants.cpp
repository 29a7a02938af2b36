// The checks and the final write of libtorch's out= variants (ember/out_ops.h).
#include "autograd/meta.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/out_ops.h"
#include "ember/check.h"
#include "ember/warning.h"
#include "tensor/tensor_factory.h"

namespace ember::detail {

void check_out_arguments(const char* name, std::initializer_list<const Tensor*> arguments) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor* t : arguments)
    if (t->defined() && t->requires_grad()) autograd::detail::throw_out_requires_grad(name);
}

Tensor& write_out(const char* name, Tensor& out, const Tensor& result) {
  EMBER_CHECK_ARG(out.defined(), "{}: the output is an undefined tensor", name);
  EMBER_CHECK_ARG(can_cast(result.dtype(), out.dtype()), "result type {} can't be cast to the desired output type {}",
                  torch_name(result.dtype()), torch_name(out.dtype()));
  EMBER_CHECK_ARG(out.device() == result.device(), "Expected out tensor to have device {}, but got {} instead",
                  result.device().str(), out.device().str());
  if (out.sizes() != result.sizes()) {
    if (out.numel() != 0)
      EMBER_WARN("An output with one or more elements was resized since it had shape ", shape_str(out.sizes()),
                 ", which does not match the required output shape ", shape_str(result.sizes()),
                 ". This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless "
                 "they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                 "elements with t.resize_(0).");
    out.resize_(result.sizes());
  }
  out.copy_(result);
  return out;
}

void check_out_dtype(const Tensor& out, ScalarType dtype) {
  EMBER_CHECK_ARG(!out.defined() || out.dtype() == dtype, "Expected out tensor to have dtype {}, but got {} instead",
                  cpp_type_name(dtype), cpp_type_name(out.dtype()));
}

std::optional<ScalarType> reduction_out_dtype(const Tensor& out, const Tensor& self, std::optional<ScalarType> dtype) {
  if (!out.defined()) return dtype;
  if (dtype) {
    check_out_dtype(out, *dtype);
    return dtype;
  }
  if (self.defined() && can_cast(self.dtype(), out.dtype())) return out.dtype();
  return std::nullopt;
}

}  // namespace ember::detail
