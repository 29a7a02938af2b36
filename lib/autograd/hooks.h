#pragma once
// The recording paths the shared op runners branch to when an input carries autograd
// metadata and GradMode is on (Note [Autograd]). Each runs the forward under no-grad,
// then records the op's node.

#include <optional>

#include "autograd/meta.h"
#include "dispatch/elementwise_ops.h"

namespace ember::autograd::detail {

using ember::detail::ComputeType;
using ember::detail::OpParams;

Tensor unary(Op op, const Tensor& x, ComputeType ct, const OpParams& p, Tensor* out);
/// A Scalar operand is `s` with the tensor on the other side (`a` or `b` null).
Tensor binary(Op op, const Tensor* a, const Tensor* b, const Scalar* s, ComputeType ct, const OpParams& p,
              Tensor* out);
Tensor ternary(Op op, const Tensor* inputs, const std::optional<Scalar>* scalars, ComputeType ct, const OpParams& p);

/// "add" for Op::Add: the name libtorch's out= error uses.
std::string lower_op_name(Op op);

}  // namespace ember::autograd::detail

#define EMBER_GRAD_RECORDING2(a, b)                                                                     \
  __builtin_expect((::ember::autograd::detail::may_record(a) || ::ember::autograd::detail::may_record(b)) && \
                       ::ember::GradMode::is_enabled(),                                                 \
                   0)
