#pragma once
/// Layers with parameters or modes: Linear, Flatten, Unflatten, Identity, Embedding, LayerNorm,
/// Dropout (libtorch's parameter names and default initialisation).

#include "ember/nn/cloneable.h"
#include "ember/nn/embedding.h"
#include "ember/nn/functional.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

/// y = x W^T + b. weight (out, in): kaiming_uniform_(a = sqrt(5)); bias: U(-1/sqrt(in), 1/sqrt(in)).
class EMBER_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);
  /// Registers weight and bias anew and initialises them (clone() relies on it).
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Linear);

/// y = x1^T A x2 + b per output feature. weight (out, in1, in2) and bias (out):
/// U(-1/sqrt(in1), 1/sqrt(in1)), as libtorch's.
class EMBER_API BilinearImpl : public Cloneable<BilinearImpl> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void pretty_print(std::ostream& stream) const override;

  BilinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Bilinear);

/// Merges the dims start_dim .. end_dim of its input (by default all but the batch dim).
class EMBER_API FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FlattenOptions options;
};
EMBER_MODULE(Flatten);

/// Unflatten's dim and the sizes it splits into (one may be -1: inferred).
struct EMBER_API UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::vector<int64_t>, sizes);
};

/// Splits dim `dim` of its input into `sizes` (a view, as Tensor::view).
class EMBER_API UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UnflattenOptions options;
};
EMBER_MODULE(Unflatten);

/// Returns its input (a placeholder in a Sequential).
class EMBER_API IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input) { return input; }
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Identity);

/// Normalises over the trailing normalized_shape dims; weight ones, bias zeros.
class EMBER_API LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(const LayerNormOptions& options);
  LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LayerNormOptions options;
  Tensor weight;  // undefined without elementwise_affine
  Tensor bias;
};
EMBER_MODULE(LayerNorm);

/// Zeroes elements with probability p while training; the identity in eval().
class EMBER_API DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(const DropoutOptions& options = {});
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  DropoutOptions options;
};
EMBER_MODULE(Dropout);

}  // namespace ember::nn
