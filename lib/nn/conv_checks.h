#pragma once
// What conv and conv_transpose share: the batched form of an input, per-dim parameters,
// and libtorch 1.13's check_shape_forward with its texts (transposed or not).

#include <cstdint>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::detail {

struct ConvParams {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  std::vector<int64_t> output_padding;  // transposed only; empty otherwise
};

/// caffe2's TypeMeta names, which libtorch's bias-type message prints.
const char* type_meta_name(ScalarType t);

/// (N, C, spatial...) or unbatched (C, spatial...): the batched form and whether it was.
std::pair<Tensor, bool> batchify(const Tensor& input, int64_t spatial, const char* op);

/// One value for every dim, or `dim` values.
std::vector<int64_t> expand_param(IntArrayRef list, const char* name, int64_t dim);

/// libtorch's "Input type (float) and bias type (double) should be the same".
void check_bias_type(const Tensor& input, const Tensor& bias);

/// libtorch's check_shape_forward, then its backend's dtype checks. Transposed weights
/// are (C_in, C_out / groups, k...), others (C_out, C_in / groups, k...).
void check_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvParams& p,
                bool transposed);

}  // namespace ember::nn::detail
