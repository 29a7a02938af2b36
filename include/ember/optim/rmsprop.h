#pragma once
/// RMSprop (torch::optim::RMSprop): a running average of squared gradients divides each
/// step, optionally centered (the gradient's running mean subtracted) and with momentum.

#include <memory>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API RMSpropOptions : public OptimizerOptions {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  EMBER_OPTIM_ARG(double, alpha) = 0.99;
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, momentum) = 0;
  EMBER_OPTIM_ARG(bool, centered) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<RMSpropOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

/// libtorch's RMSpropParamState: momentum_buffer exists with momentum > 0, grad_avg when centered.
struct EMBER_API RMSpropParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, square_avg);
  EMBER_OPTIM_ARG(Tensor, momentum_buffer);
  EMBER_OPTIM_ARG(Tensor, grad_avg);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class EMBER_API RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
};

}  // namespace ember::optim
