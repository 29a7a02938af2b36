#pragma once
/// Loss modules: MSELoss, CrossEntropyLoss (forward(input, target)).

#include "ember/nn/functional.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::mse_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

/// Class weights (if any) are the buffer "weight".
class EMBER_API CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

}  // namespace ember::nn
