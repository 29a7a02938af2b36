// Note [Fused optimizer steps]
// libtorch updates a parameter with a chain of tensor ops (Adam: mul_, add_, mul_,
// addcmul_, sqrt, div, add_, addcdiv_: eight passes over memory and, on CUDA, eight
// launches). ember runs the whole update of one parameter tensor as one registered kernel
// (Op::SgdStep, Op::AdamStep with OptimArgs): the per-element arithmetic lives in
// kernels/optim_update.h, shared by the CPU and CUDA kernels, and repeats libtorch's ops
// in libtorch's order with each double option cast to the compute type as libtorch casts
// a Scalar, so float32 results match libtorch's to rounding (16-bit parameters compute in
// float, as torch's fused path). The host computes the step-dependent scalars (bias
// corrections) in double. Parameters that are not contiguous update a contiguous copy
// that is written back; the state buffers are always contiguous.
#include "optim/fused_step.h"

#include "core/check.h"
#include "dispatch/kernel_table.h"
#include "ember/device_api.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember::optim::detail {

void check_param(const Tensor& p, const char* optimizer, size_t group, size_t index) {
  EMBER_CHECK_ARG(is_floating_point(p.dtype()),
                  "{}: parameter {} of group {} has dtype {}; optimizers update floating-point parameters only "
                  "(float16, bfloat16, float32, float64)",
                  optimizer, index, group, name(p.dtype()));
}

void run_fused_step(Op op, OptimArgs& a, const Tensor& p, const Tensor& grad, Tensor* const bufs[3],
                    const char* optimizer, size_t group, size_t index) {
  EMBER_CHECK_ARG(grad.sizes() == p.sizes(),
                  "{}: the gradient of parameter {} of group {} has shape {}, but the parameter has shape {}", optimizer,
                  index, group, ember::detail::shape_str(grad.sizes()), ember::detail::shape_str(p.sizes()));
  EMBER_CHECK_ARG(grad.dtype() == p.dtype(),
                  "{}: the gradient of parameter {} of group {} has dtype {}, but the parameter has dtype {}", optimizer,
                  index, group, name(grad.dtype()), name(p.dtype()));
  // The update writes p and its state buffers in place (Note [Inference tensors]).
  ember::detail::check_writable(p);
  for (int k = 0; k < 3; ++k)
    if (bufs[k] && bufs[k]->defined()) ember::detail::check_writable(*bufs[k]);
  DeviceScope scope(p.device());  // in place: the update runs where the parameter lives
  Tensor ins[2] = {p, grad};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(op, ins, 2, p.dtype());
  auto kernel = ember::detail::lookup_kernel<OptimKernel>(op, dev.device.type(), p.dtype());
  a.numel = p.numel();
  if (a.numel == 0) return;
  Tensor target = ins[0].is_contiguous() ? ins[0] : ins[0].contiguous();
  Tensor g = ins[1].contiguous();
  a.dtype = p.dtype();
  a.param = static_cast<char*>(target.data_ptr());
  a.grad = static_cast<const char*>(g.data_ptr());
  char** slots[3] = {&a.buf0, &a.buf1, &a.buf2};
  for (int k = 0; k < 3; ++k) *slots[k] = bufs[k] && bufs[k]->defined() ? static_cast<char*>(bufs[k]->data_ptr()) : nullptr;
  kernel(a);
  ember::detail::bump_version(p);  // saved copies of p are now stale
  if (target.data_ptr() != p.data_ptr()) const_cast<Tensor&>(p).copy_(target);
}

void run_amp_unscale(Tensor& grad, double inv_scale, const Tensor& found_inf) {
  ember::detail::check_writable(grad);
  DeviceScope scope(grad.device());
  Tensor ins[2] = {grad, found_inf};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(Op::AmpUnscale, ins, 2, grad.dtype());
  auto kernel = ember::detail::lookup_kernel<OptimKernel>(Op::AmpUnscale, dev.device.type(), grad.dtype());
  if (grad.numel() == 0) return;
  Tensor target = ins[0].is_contiguous() ? ins[0] : ins[0].contiguous();
  OptimArgs a;
  a.dtype = grad.dtype();
  a.param = static_cast<char*>(target.data_ptr());
  a.numel = grad.numel();
  a.lr = inv_scale;
  a.buf0 = static_cast<char*>(ins[1].data_ptr());
  kernel(a);
  ember::detail::bump_version(grad);
  if (target.data_ptr() != grad.data_ptr()) grad.copy_(target);
  // A flag that place_op had to copy elsewhere is read back from the copy.
  if (ins[1].data_ptr() != found_inf.data_ptr()) const_cast<Tensor&>(found_inf).copy_(ins[1]);
}

}  // namespace ember::optim::detail
