#pragma once
/// Gradient clipping (libtorch's torch::nn::utils::clip_grad_norm_ / clip_grad_value_).
/// Parameters without a gradient are skipped; the gradients are scaled or clamped in place.

#include <initializer_list>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

/// Scales the gradients so that their total norm_type-norm (the norm of the per-parameter
/// norms; norm_type may be infinity, or 0 to count them) is at most max_norm, multiplying by
/// min(1, max_norm / (total + 1e-6)). Returns the total norm before clipping (0 when no
/// parameter has a gradient). With error_if_nonfinite, a NaN or infinite total throws
/// InvalidArgument and leaves the gradients unchanged.
EMBER_API double clip_grad_norm_(std::vector<Tensor> parameters, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);
EMBER_API double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                                 double norm_type = 2.0, bool error_if_nonfinite = false);
EMBER_API double clip_grad_norm_(Tensor parameter, double max_norm, double norm_type = 2.0,
                                 bool error_if_nonfinite = false);

/// Clamps every gradient element into [-clip_value, clip_value].
EMBER_API void clip_grad_value_(std::vector<Tensor> parameters, double clip_value);
EMBER_API void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
EMBER_API void clip_grad_value_(Tensor parameter, double clip_value);

}  // namespace ember::nn::utils
