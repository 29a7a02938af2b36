#pragma once
/// Activation modules: ReLU, GELU, Tanh, Sigmoid, Softmax.

#include "ember/nn/cloneable.h"
#include "ember/nn/functional.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  void reset() override {}
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input) { return functional::relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

class EMBER_API GELUImpl : public Cloneable<GELUImpl> {
 public:
  void reset() override {}
  explicit GELUImpl(GELUOptions options = {}) : options(std::move(options)) {}
  Tensor forward(const Tensor& input) { return functional::gelu(input, options); }
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

class EMBER_API TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanh);

class EMBER_API SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Sigmoid);

class EMBER_API SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  void reset() override {}
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

}  // namespace ember::nn
