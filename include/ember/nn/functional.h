#pragma once
/// nn::functional (libtorch's torch::nn::functional): stateless layers and losses built
/// from ember ops, so their gradients come from autograd.

#include "ember/nn/embedding.h"
#include "ember/nn/options.h"
#include "ember/ops.h"

namespace ember::nn::functional {

/// input (*, in_features) @ weight (out_features, in_features)^T + bias.
EMBER_API Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
/// y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o].
EMBER_API Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                          const Tensor& bias = {});
EMBER_API Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
EMBER_API Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
EMBER_API Tensor silu(const Tensor& input);
/// Zeroes each element with probability p and scales the rest by 1 / (1 - p) (training only).
EMBER_API Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
EMBER_API Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
EMBER_API Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
/// Normalises over the trailing normalized_shape dims (biased variance), then weight and bias.
EMBER_API Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
/// 0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (d = input - target).
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                                const SmoothL1LossFuncOptions& options = {});
/// libtorch's forms with beta as an argument (it replaces options.beta()).
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                             const SmoothL1LossFuncOptions& options, double beta) {
  return smooth_l1_loss(input, target, SmoothL1LossFuncOptions(options).beta(beta));
}
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction,
                             double beta = 1.0) {
  return smooth_l1_loss(input, target, SmoothL1LossFuncOptions(reduction).beta(beta));
}
/// input: log-probabilities (N, C, d1...) or (C); target: int64 class indices (N, d1...) or ().
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
/// log_softmax over the class dim + nll_loss; target: class indices, or class probabilities
/// of input's shape; label_smoothing mixes in the uniform distribution as libtorch does.
EMBER_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                               const CrossEntropyFuncOptions& options = {});
EMBER_API Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target, const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
/// One-hot rows of num_classes (-1: max + 1) for int64 class indices, as torch::one_hot.
inline Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1) {
  return ::ember::one_hot(tensor, num_classes);
}

}  // namespace ember::nn::functional

namespace ember {
/// torch::bilinear: F::bilinear.
inline Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                       const Tensor& bias = {}) {
  return nn::functional::bilinear(input1, input2, weight, bias);
}
// libtorch's ATen-level losses (torch::mse_loss(input, target, at::Reduction::Sum)).
EMBER_API Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
EMBER_API Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
EMBER_API Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean,
                                double beta = 1.0);
/// at::nll_loss: F::nll_loss with the weight, reduction and ignore_index as arguments.
EMBER_API Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                          Reduction reduction = kMean, int64_t ignore_index = -100);
}  // namespace ember
