// Linear, Flatten, Unflatten, Identity, LayerNorm, Dropout (Embedding: embedding.cpp).
#include "ember/nn/layers.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn {

LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) {
  EMBER_CHECK_ARG(options.in_features() >= 0 && options.out_features() >= 0,
                  "Linear: in_features and out_features must be non-negative, got {} and {}",
                  options.in_features(), options.out_features());
  reset();
}

void LinearImpl::reset() {
  weight = register_parameter("weight", ember::empty({options.out_features(), options.in_features()}));
  bias = options.bias() ? register_parameter("bias", ember::empty({options.out_features()}))
                        : register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = options.in_features() > 0 ? 1.0 / std::sqrt(double(options.in_features())) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor functional::bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                            const Tensor& bias) {
  EMBER_CHECK_ARG(input1.defined() && input2.defined() && weight.defined(),
                  "bilinear(): input1, input2 and weight must be defined tensors");
  EMBER_CHECK_ARG(weight.dim() == 3, "bilinear(): weight must have 3 dims (out, in1, in2), got {}",
                  weight.dim());
  EMBER_CHECK_ARG(input1.dim() == input2.dim() && input1.dim() > 0,
                  "bilinear(): input dimensions do not match: got {} and {}", input1.dim(), input2.dim());
  for (int64_t i = 0; i + 1 < input1.dim(); ++i)
    EMBER_CHECK_ARG(input1.size(i) == input2.size(i),
                    "bilinear(): input batch dimensions do not match at dim {}: got {} and {}", i,
                    input1.size(i), input2.size(i));
  const int64_t in1 = input1.size(-1), in2 = input2.size(-1), out = weight.size(0);
  EMBER_CHECK_ARG(in1 == weight.size(1),
                  "bilinear(): input1 size does not match weight size: got {} but expected {}", in1,
                  weight.size(1));
  EMBER_CHECK_ARG(in2 == weight.size(2),
                  "bilinear(): input2 size does not match weight size: got {} but expected {}", in2,
                  weight.size(2));
  EMBER_CHECK_ARG(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out),
                  "bilinear(): bias size does not match weight size: got {} but expected {}",
                  bias.defined() && bias.dim() > 0 ? bias.size(0) : 0, out);
  // (B, in1) @ (in1, out * in2) -> (B, out, in2), then a dot with input2 over in2.
  const Tensor x1 = input1.reshape({-1, in1}), x2 = input2.reshape({-1, in2});
  const Tensor mixed = ember::matmul(x1, weight.permute({1, 0, 2}).reshape({in1, out * in2}));
  Tensor y = (mixed.view({-1, out, in2}) * x2.unsqueeze(1)).sum({2});
  if (bias.defined()) y = y + bias;
  std::vector<int64_t> shape(input1.sizes().begin(), input1.sizes().end());
  shape.back() = out;
  return y.reshape(shape);
}

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) {
  EMBER_CHECK_ARG(options.in1_features() >= 0 && options.in2_features() >= 0 && options.out_features() >= 0,
                  "Bilinear: the feature counts must be non-negative, got {}, {} and {}",
                  options.in1_features(), options.in2_features(), options.out_features());
  reset();
}

void BilinearImpl::reset() {
  weight = register_parameter(
      "weight", ember::empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = options.bias() ? register_parameter("bias", ember::empty({options.out_features()}))
                        : register_parameter("bias", Tensor(), false);
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = options.in1_features() > 0 ? 1.0 / std::sqrt(double(options.in1_features())) : 0.0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight, bias);
}

void BilinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "Bilinear(in1_features=" << options.in1_features()
         << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
         << ", bias=" << options.bias() << ")";
}

Tensor FlattenImpl::forward(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined(), "Flatten: undefined input tensor");
  // libtorch checks the order of the wrapped dims with this text.
  const int64_t n = std::max<int64_t>(input.dim(), 1);
  const int64_t start = options.start_dim() < 0 ? options.start_dim() + n : options.start_dim();
  const int64_t end = options.end_dim() < 0 ? options.end_dim() + n : options.end_dim();
  EMBER_CHECK_ARG(start < 0 || end < 0 || start >= n || end >= n || start <= end,
                  "flatten() has invalid args: start_dim cannot come after end_dim");
  return input.flatten(options.start_dim(), options.end_dim());
}

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined(), "Unflatten: undefined input tensor");
  const int64_t n = std::max<int64_t>(input.dim(), 1);
  int64_t dim = options.dim();
  EMBER_CHECK_ARG(dim >= -n && dim < n,
                  "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim);
  if (dim < 0) dim += n;
  const std::vector<int64_t>& sizes = options.sizes();
  EMBER_CHECK_ARG(!sizes.empty(), "unflatten: sizes must be non-empty");
  EMBER_CHECK_ARG(input.dim() > 0, "Dimension specified as {} but tensor has no dimensions", dim);
  // libtorch's infer_size, whose mismatch unflatten reports in its own words.
  std::vector<int64_t> inferred = sizes;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK_ARG(!infer, "unflatten got an unexpected error:\nonly one dimension can be inferred");
      infer = i;
    } else {
      EMBER_CHECK_ARG(sizes[i] >= 0, "invalid shape dimension {}", sizes[i]);
      known *= sizes[i];
    }
  }
  const int64_t numel = input.size(dim);
  const bool fits = numel == known || (infer && known > 0 && numel % known == 0);
  EMBER_CHECK_ARG(
      fits, "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
      ember::detail::shape_str(sizes), dim, numel);
  if (infer) {
    EMBER_CHECK_ARG(
        known != 0,
        "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 "
        "can be any value and is ambiguous",
        ember::detail::shape_str(sizes));
    inferred[*infer] = numel / known;
  }
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
  return input.view(shape);
}

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) stream << (i ? ", " : "") << options.sizes()[i];
  stream << "})";
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "Identity()"; }

LayerNormImpl::LayerNormImpl(const LayerNormOptions& options_) : options(options_) {
  EMBER_CHECK_ARG(!options.normalized_shape().empty(),
                  "LayerNorm: normalized_shape must have at least one dim");
  reset();
}

void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ember::empty(options.normalized_shape()));
    bias = register_parameter("bias", ember::empty(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!options.elementwise_affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, functional::LayerNormFuncOptions(options.normalized_shape())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "LayerNorm("
         << ember::detail::shape_str(options.normalized_shape()) << ", eps=" << options.eps()
         << ", elementwise_affine=" << options.elementwise_affine() << ")";
}

DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) {
  EMBER_CHECK_ARG(options.p() >= 0 && options.p() <= 1,
                  "Dropout: dropout probability has to be between 0 and 1, but got {}", options.p());
}

Tensor DropoutImpl::forward(Tensor input) {
  return functional::dropout(
      std::move(input),
      functional::DropoutFuncOptions(options.p()).training(is_training()).inplace(options.inplace()));
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "Dropout(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}

}  // namespace ember::nn
