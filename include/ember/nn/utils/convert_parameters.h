#pragma once
/// Parameters to and from one flat vector (libtorch's torch::nn::utils::parameters_to_vector
/// and vector_to_parameters), for methods that treat a model's weights as one vector.

#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

/// The parameters flattened and concatenated, in order (a copy; it records autograd).
/// InvalidArgument when they are on different devices.
EMBER_API Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

/// Makes each parameter's data the next numel() elements of vec, viewed in its shape (the
/// parameters then share vec's memory; they stay the same leaves). InvalidArgument, with
/// nothing changed, when vec is not 1-D, is too short, or the devices differ.
EMBER_API void vector_to_parameters(const Tensor& vec, std::vector<Tensor> parameters);

}  // namespace ember::nn::utils
