#pragma once
// Convolution through a device's library kernel (Note [Library kernels] in conv_library.cpp).

#include <vector>

#include "ember/tensor.h"
#include "nn/conv_checks.h"

namespace ember::nn::detail {

/// Whether the convolution of these checked, batched operands (1, 2 or 3 spatial dims) runs
/// as Op::Convolution: the device it would run on has a library kernel for the dtype, the
/// library is switched on, and the batch is not empty.
bool library_convolution_applies(const Tensor& input, const Tensor& weight, const Tensor& bias);

/// The columns of the zero-padded input for a convolution with spatial `kernel` (2 or 3
/// dims): [N, C, k..., o...], contiguous (im2col, differentiable); `out` gets the output's
/// spatial sizes. Shared by the portable convolution (conv.cpp) and the library form's
/// create_graph weight gradient.
Tensor conv_columns(const Tensor& input, IntArrayRef kernel, const ConvParams& p, std::vector<int64_t>& out);

/// The convolution as one library kernel, recorded as ConvolutionBackward0; undefined when
/// the kernel declines the shape (it threw NotImplemented), so the caller runs the portable form.
Tensor library_convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p);

}  // namespace ember::nn::detail
