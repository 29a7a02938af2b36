#include "dispatch/elementwise_ops.h"

#include <optional>

#include "autograd/hooks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/kernel_table.h"
#include "dispatch/type_promotion.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/memory_format.h"
#include "tensor/tensor_factory.h"

namespace ember::detail {

namespace {

void check_defined(const Tensor& t, Op op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op_name(op), what);
}

// torch's canCast: no float -> integer, no non-bool -> bool through an in-place op.
bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

// A fresh result of `shape`: laid out as the first input of that shape when that one is
// channels-last (libtorch's TensorIterator keeps any dense layout), else row-major. When
// every input is contiguous (almost every call) that is one flag test per input.
Tensor fresh_output(IntArrayRef shape, ScalarType dtype, DeviceEntry& dev, const Tensor* ins, int nins) {
  bool all_contiguous = true;
  for (int i = 0; i < nins; ++i)
    all_contiguous = all_contiguous && (!ins[i].defined() || ins[i].is_contiguous());
  if (__builtin_expect(!all_contiguous, 0)) {
    for (int i = 0; i < nins; ++i) {
      if (!ins[i].defined() || ins[i].sizes() != shape) continue;
      const MemoryFormat format = channels_last_of(ins[i]);
      if (format != MemoryFormat::Contiguous) return empty_in_format(shape, dtype, dev, format);
      break;
    }
  }
  return empty_on(shape, dtype, dev);
}

Tensor cast_on_device(const Tensor& t, ScalarType dtype, DeviceEntry& dev) {
  if (t.dtype() == dtype) return t;
  Tensor out = fresh_output(t.sizes(), dtype, dev, &t, 1);
  ElementwiseArgs args;
  args.dtype = t.dtype();
  args.out_dtype = dtype;
  build_elementwise(args, out, &t, 1);
  if (args.numel) lookup_kernel<ElementwiseKernel>(Op::Copy, dev.device.type(), t.dtype())(args);
  return out;
}

// The tensor the kernel writes: a fresh one, or *out when shape and dtype allow.
// Returns true in `via_temp` when the result must be copied into *out afterwards. `ins`
// are the op's inputs after placement and casting (a copy made there cannot overlap *out).
Tensor output_for(Tensor* out, IntArrayRef shape, ScalarType dtype, DeviceEntry& dev, Op op,
                  const Tensor* ins, int nins, bool& via_temp) {
  via_temp = false;
  if (!out) return fresh_output(shape, dtype, dev, ins, nins);
  EMBER_CHECK_ARG(out->defined(), "{}: the output is an undefined tensor", op_name(op));
  check_writable(*out);
  EMBER_CHECK_ARG(out->sizes() == shape,
                  "{}: output with shape {} doesn't match the broadcast shape {}", op_name(op),
                  shape_str(out->sizes()), shape_str(shape));
  EMBER_CHECK_ARG(out->device() == dev.device,
                  "{}: the output is on {} ({}) but the op runs on {} ({})", op_name(op),
                  out->device().tf_str(), out->device().str(), dev.device.tf_str(), dev.device.str());
  EMBER_CHECK_ARG(can_cast(dtype, out->dtype()),
                  "{}: result type {} can't be cast to the desired output type {}", op_name(op),
                  torch_name(dtype), torch_name(out->dtype()));
  check_no_write_overlap(*out, ins, nins, op_name(op));
  if (out->dtype() == dtype) return *out;
  via_temp = true;
  return empty_on(shape, dtype, dev);
}

void finish_output(Tensor* out, const Tensor& result, bool via_temp) {
  if (via_temp) copy_same_device(*out, result);
  // In-place and out= writes bump the version autograd checks saved tensors against.
  if (out) bump_version(*out);
}

void apply_params(ElementwiseArgs& args, const OpParams& p) {
  for (int i = 0; i < 3; ++i) {
    args.param[i] = p.param[i];
    args.has_param[i] = p.has_param[i];
  }
}

// In-place and out= ops run where the tensor they write lives, as TensorFlow colocates
// ops on a variable with it: inside a scope for another device, a nested scope for the
// output's device makes placement copy the inputs there instead of failing late.
struct Colocate {
  explicit Colocate(const Tensor* out) {
    Device scoped(kCPU, 0);
    // A scope naming a device that does not exist keeps its usual error (rule 3).
    if (out && out->defined() && scope_device(&scoped) && scoped != out->device() &&
        find_device(resolve_index(scoped)) != nullptr)
      scope.emplace(out->device());
  }
  std::optional<DeviceScope> scope;
};

ScalarType compute_type(ScalarType common, ComputeType ct) {
  return ct == ComputeType::Floating ? to_floating(common) : common;
}

}  // namespace

KernelScalar kernel_scalar(const Scalar& s) {
  KernelScalar k;
  k.f = s.to_double();
  k.i = s.to_long();
  return k;
}

Tensor run_unary(Op op, const Tensor& x, ComputeType ct, const OpParams& p, Tensor* out) {
  check_defined(x, op, "the input");
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::unary(op, x, ct, p, out);
  const ScalarType compute = compute_type(x.dtype(), ct);
  const ScalarType out_dtype = ct == ComputeType::BoolOut ? kBool : compute;
  Tensor in = x;
  Colocate colocate(out);
  DeviceEntry& dev = place_op(op, &in, 1, compute);
  auto kernel = lookup_kernel<ElementwiseKernel>(op, dev.device.type(), compute);
  in = cast_on_device(in, compute, dev);
  bool via_temp;
  Tensor result = output_for(out, in.sizes(), out_dtype, dev, op, &in, 1, via_temp);
  ElementwiseArgs args;
  args.dtype = compute;
  args.out_dtype = out_dtype;
  apply_params(args, p);
  build_elementwise(args, result, &in, 1);
  if (args.numel) kernel(args);
  finish_output(out, result, via_temp);
  return out ? *out : result;
}

namespace {

// Shared body of the three binary forms; a Scalar side is an undefined tensor in `ins`.
Tensor binary_impl(Op op, Tensor (&ins)[2], const Scalar* scalar, int scalar_pos, ScalarType common,
                   ComputeType ct, const OpParams& p, Tensor* out) {
  const ScalarType compute = compute_type(common, ct);
  const ScalarType out_dtype = ct == ComputeType::BoolOut ? kBool : compute;
  DeviceEntry* devp;
  Colocate colocate(out);
  if (scalar) {
    Tensor& t = ins[1 - scalar_pos];
    devp = &place_op(op, &t, 1, compute);
  } else {
    devp = &place_op(op, ins, 2, compute);
  }
  DeviceEntry& dev = *devp;
  auto kernel = lookup_kernel<ElementwiseKernel>(op, dev.device.type(), compute);
  // Same shapes (the common case) need no broadcasting pass.
  SizesVector shape = scalar ? SizesVector(ins[1 - scalar_pos].sizes())
                      : ins[0].sizes() == ins[1].sizes()
                          ? SizesVector(ins[0].sizes())
                          : broadcast_shapes(ins[0].sizes(), ins[1].sizes(), op_name(op));
  for (Tensor& t : ins)
    if (t.defined() && t.dtype() != compute) t = cast_on_device(t, compute, dev);
  bool via_temp;
  Tensor result = output_for(out, shape, out_dtype, dev, op, ins, 2, via_temp);
  ElementwiseArgs args;
  args.dtype = compute;
  args.out_dtype = out_dtype;
  apply_params(args, p);
  build_elementwise(args, result, ins, 2);
  if (scalar) set_scalar_operand(args, 1 + scalar_pos, *scalar, compute);
  if (args.numel) kernel(args);
  finish_output(out, result, via_temp);
  return out ? *out : result;
}

}  // namespace

Tensor run_binary(Op op, const Tensor& a, const Tensor& b, ComputeType ct, const OpParams& p, Tensor* out) {
  check_defined(a, op, "the first input");
  check_defined(b, op, "the second input");
  if (EMBER_GRAD_RECORDING2(a, b)) return autograd::detail::binary(op, &a, &b, nullptr, ct, p, out);
  Tensor ins[2] = {a, b};
  return binary_impl(op, ins, nullptr, 0, result_type(a, b), ct, p, out);
}

Tensor run_binary(Op op, const Tensor& a, const Scalar& b, ComputeType ct, const OpParams& p, Tensor* out) {
  check_defined(a, op, "the first input");
  if (EMBER_GRAD_RECORDING(a)) return autograd::detail::binary(op, &a, nullptr, &b, ct, p, out);
  Tensor ins[2] = {a, Tensor()};
  return binary_impl(op, ins, &b, 1, result_type(a, b), ct, p, out);
}

Tensor run_binary(Op op, const Scalar& a, const Tensor& b, ComputeType ct, const OpParams& p, Tensor* out) {
  check_defined(b, op, "the second input");
  if (EMBER_GRAD_RECORDING(b)) return autograd::detail::binary(op, nullptr, &b, &a, ct, p, out);
  Tensor ins[2] = {Tensor(), b};
  return binary_impl(op, ins, &a, 0, result_type(a, b), ct, p, out);
}

Tensor run_ternary(Op op, const Tensor* inputs, const std::optional<Scalar>* scalars, ComputeType ct,
                   const OpParams& p) {
  // where's condition (input 0) keeps its own dtype; every other operand is promoted.
  if (__builtin_expect((autograd::detail::may_record(inputs[0]) || autograd::detail::may_record(inputs[1]) ||
                        autograd::detail::may_record(inputs[2])) && GradMode::is_enabled(), 0))
    return autograd::detail::ternary(op, inputs, scalars, ct, p);
  const bool is_where = op == Op::Where;
  ResultType rt;
  Tensor ins[3];
  int ntensors = 0;
  Tensor placed[3];
  for (int i = 0; i < 3; ++i) {
    if (scalars[i]) {
      EMBER_CHECK_ARG(!(is_where && i == 0), "where: the condition must be a tensor");
      rt.add(*scalars[i]);
      continue;
    }
    check_defined(inputs[i], op, "an input");
    if (!(is_where && i == 0)) rt.add(inputs[i]);
    placed[ntensors++] = inputs[i];
  }
  if (is_where)
    EMBER_CHECK_ARG(inputs[0].dtype() == kBool,
                    "where: expected condition to be a boolean tensor, but got a tensor with dtype {}",
                    torch_name(inputs[0].dtype()));
  const ScalarType compute = compute_type(rt.get(), ct);
  DeviceEntry& dev = place_op(op, placed, ntensors, compute);
  auto kernel = lookup_kernel<ElementwiseKernel>(op, dev.device.type(), compute);
  SizesVector shape;
  for (int i = 0, k = 0; i < 3; ++i) {
    if (scalars[i]) continue;
    ins[i] = placed[k++];
    shape = broadcast_shapes(shape, ins[i].sizes(), op_name(op));
    if (!(is_where && i == 0)) ins[i] = cast_on_device(ins[i], compute, dev);
  }
  Tensor result = fresh_output(shape, compute, dev, ins, 3);
  ElementwiseArgs args;
  args.dtype = compute;
  args.out_dtype = compute;
  apply_params(args, p);
  build_elementwise(args, result, ins, 3);
  for (int i = 0; i < 3; ++i)
    if (scalars[i]) set_scalar_operand(args, i + 1, *scalars[i], compute);
  if (args.numel) kernel(args);
  return result;
}

void fill_tensor(const Tensor& t, const Scalar& value) {
  DeviceEntry* dev = find_device(t.device());
  EMBER_CHECK_ARG(dev != nullptr, "fill_: device {} does not exist", t.device().tf_str());
  auto kernel = lookup_kernel<ElementwiseKernel>(Op::Fill, t.device().type(), t.dtype());
  ElementwiseArgs args;
  args.dtype = args.out_dtype = t.dtype();
  args.param[0] = kernel_scalar(value);
  build_elementwise(args, t, nullptr, 0);
  if (args.numel) kernel(args);
}

void copy_same_device(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK_ARG(dst.sizes() == src.sizes() || broadcast_shapes(dst.sizes(), src.sizes(), "copy_") == dst.sizes(),
                  "copy_: source of shape {} cannot be broadcast to the destination's shape {}",
                  shape_str(src.sizes()), shape_str(dst.sizes()));
  auto kernel = lookup_kernel<ElementwiseKernel>(Op::Copy, dst.device().type(), src.dtype());
  ElementwiseArgs args;
  args.dtype = src.dtype();
  args.out_dtype = dst.dtype();
  build_elementwise(args, dst, &src, 1);
  if (args.numel) kernel(args);
}

}  // namespace ember::detail
