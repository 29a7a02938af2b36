#pragma once
/// Loss modules: MSELoss, SmoothL1Loss, CrossEntropyLoss (forward(input, target)).

#include "ember/nn/cloneable.h"
#include "ember/nn/functional.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  void reset() override {}
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::mse_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class EMBER_API SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  void reset() override {}
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::smooth_l1_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

/// Class weights (if any) are the buffer "weight".
class EMBER_API CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

}  // namespace ember::nn
