#pragma once
// The launch of one fused optimizer update (Note [Fused optimizer steps] in fused_step.cpp).

#include <cstddef>

#include "ember/kernel_args.h"
#include "ember/registry.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

/// Checks grad against p ("<optimizer>: ..." errors naming group and index), places the op
/// on p's device and runs `op`'s kernel with `a` (whose scalars the caller set) on p, grad
/// and the state buffers (contiguous, on p's device, p's dtype; undefined ones are null).
void run_fused_step(Op op, OptimArgs& a, const Tensor& p, const Tensor& grad, Tensor* const bufs[3],
                    const char* optimizer, size_t group, size_t index);

/// Checks that p's dtype is floating before state is made for it.
void check_param(const Tensor& p, const char* optimizer, size_t group, size_t index);

/// GradScaler's unscale of one gradient (Op::AmpUnscale): grad *= inv_scale in place, and
/// found_inf (one float32 on grad's device) set to 1 when grad held inf or NaN.
void run_amp_unscale(Tensor& grad, double inv_scale, const Tensor& found_inf);

}  // namespace ember::optim::detail
