#pragma once
// Helpers shared by the loss files: libtorch's apply_loss_reduction, the defined-inputs check,
// and a value clamp that keeps the unclamped gradient (libtorch's in-place clamp under no_grad).
#include <initializer_list>

#include "core/check.h"
#include "ember/nn/options.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn::functional::loss_detail {

using ember::detail::shape_str;

inline Tensor reduce(const Tensor& loss, Reduction r) {
  if (r == kMean) return loss.mean();
  if (r == kSum) return loss.sum();
  return loss;
}

inline void check_defined(std::initializer_list<const Tensor*> tensors, const char* op) {
  for (const Tensor* t : tensors) EMBER_CHECK_ARG(t->defined(), "{}: every input must be defined", op);
}

// x's values clamped below at lo; the gradient is x's as if unclamped.
inline Tensor clamp_min_values(const Tensor& x, double lo) {
  const Tensor d = x.detach();
  return x + (ember::clamp_min(d, lo) - d);
}

}  // namespace ember::nn::functional::loss_detail
