#pragma once
/// SGD with momentum, dampening, Nesterov momentum and weight decay (torch::optim::SGD).

#include <memory>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API SGDOptions : public OptimizerOptions {
  SGDOptions(double lr);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr);
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(double, dampening) = 0;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, nesterov) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

struct EMBER_API SGDParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class EMBER_API SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
};

}  // namespace ember::optim
