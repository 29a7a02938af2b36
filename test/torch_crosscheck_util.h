#pragma once
// Shared by the libtorch cross-check files: ember's dtypes beside libtorch's, and an
// ember tensor's values as a libtorch tensor of the same dtype and shape.
#include <ember/ember.h>
#include <torch/torch.h>

namespace crosscheck {

inline const ember::ScalarType kTypes[] = {ember::kBool,  ember::kUInt8, ember::kInt8,     ember::kInt16,
                                           ember::kInt32, ember::kInt64, ember::kHalf,     ember::kBFloat16,
                                           ember::kFloat, ember::kDouble};
inline const torch::ScalarType kTorchTypes[] = {torch::kBool,  torch::kUInt8, torch::kInt8,     torch::kInt16,
                                                torch::kInt32, torch::kInt64, torch::kHalf,     torch::kBFloat16,
                                                torch::kFloat, torch::kDouble};

inline torch::ScalarType to_torch(ember::ScalarType t) { return kTorchTypes[static_cast<int>(t)]; }

/// The same values in libtorch (through float64, exact for every value the checks use).
inline torch::Tensor as_torch(const ember::Tensor& e) {
  ember::Tensor d = e.to(ember::kDouble).contiguous();
  return torch::from_blob(d.data_ptr(), d.sizes().vec(), torch::kDouble).clone().to(to_torch(e.dtype()));
}

}  // namespace crosscheck
