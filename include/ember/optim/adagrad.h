#pragma once
/// Adagrad (torch::optim::Adagrad): each element's step is divided by the root of its
/// accumulated squared gradients, with an lr that decays with the step count.

#include <memory>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API AdagradOptions : public OptimizerOptions {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr) = 1e-2;
  EMBER_OPTIM_ARG(double, lr_decay) = 0;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(double, initial_accumulator_value) = 0;
  EMBER_OPTIM_ARG(double, eps) = 1e-10;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdagradOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

struct EMBER_API AdagradParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, sum);
  EMBER_OPTIM_ARG(int64_t, step) = 0;

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

/// As libtorch's, the constructor gives every parameter its state at once: step 0 and sum
/// filled with its group's initial_accumulator_value (parameters added later get theirs at
/// their first step).
class EMBER_API Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
};

}  // namespace ember::optim
