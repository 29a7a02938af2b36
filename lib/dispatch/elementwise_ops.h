#pragma once
// The shared front-end of elementwise ops: promote, place, broadcast, allocate, run.
// Each public op (add, exp, where, ...) is a line that calls one of these.

#include <optional>

#include "ember/registry.h"
#include "ember/tensor.h"

namespace ember::detail {

enum class ComputeType : uint8_t {
  Promoted,       // the promoted input dtype (add, mul, maximum)
  Floating,       // integers become float32 (div, atan2, exp)
  BoolOut,        // compute in the promoted dtype, write bool (eq, lt, logical_and, isnan)
};

struct OpParams {
  KernelScalar param[3];
  bool has_param[3] = {};
};
KernelScalar kernel_scalar(const Scalar& s);

/// out-of-place when `out` is null; otherwise writes into *out (in-place and _out ops).
Tensor run_unary(Op op, const Tensor& x, ComputeType ct, const OpParams& p = {}, Tensor* out = nullptr);
Tensor run_binary(Op op, const Tensor& a, const Tensor& b, ComputeType ct, const OpParams& p = {},
                  Tensor* out = nullptr);
Tensor run_binary(Op op, const Tensor& a, const Scalar& b, ComputeType ct, const OpParams& p = {},
                  Tensor* out = nullptr);
Tensor run_binary(Op op, const Scalar& a, const Tensor& b, ComputeType ct, const OpParams& p = {},
                  Tensor* out = nullptr);
/// Ternary ops: where (cond, a, b) and lerp/addcmul/addcdiv (self, t1, t2). A Scalar
/// operand is passed as an undefined tensor plus its value in `scalars`.
Tensor run_ternary(Op op, const Tensor* inputs, const std::optional<Scalar>* scalars, ComputeType ct,
                   const OpParams& p = {});

/// Writes value into every element of t (fill_, zeros, ones, full).
void fill_tensor(const Tensor& t, const Scalar& value);
/// dst <- src elementwise with broadcasting and dtype conversion; same device.
void copy_same_device(const Tensor& dst, const Tensor& src);

struct DeviceEntry;
/// A contiguous copy of t (same dtype) on another device, through the backends' copies.
/// non_blocking: a host-to-device copy may return before it completes (CUDA semantics).
Tensor move_to_device(const Tensor& t, DeviceEntry& dst, bool non_blocking = false);

}  // namespace ember::detail
