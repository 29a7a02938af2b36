#pragma once
/// Adam (torch::optim::Adam) and AdamW (torch::optim::AdamW, decoupled weight decay).

#include <memory>
#include <tuple>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API AdamOptions : public OptimizerOptions {
  AdamOptions(double lr = 1e-3);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 0;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

/// AdamW's options: Adam's, with weight_decay 1e-2 by default (libtorch's AdamWOptions).
struct EMBER_API AdamWOptions : public OptimizerOptions {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  EMBER_OPTIM_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  EMBER_OPTIM_ARG(double, eps) = 1e-8;
  EMBER_OPTIM_ARG(double, weight_decay) = 1e-2;
  EMBER_OPTIM_ARG(bool, amsgrad) = false;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

/// Adam's and AdamW's per-parameter state (libtorch's AdamParamState / AdamWParamState).
struct EMBER_API AdamParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, step) = 0;
  EMBER_OPTIM_ARG(Tensor, exp_avg);
  EMBER_OPTIM_ARG(Tensor, exp_avg_sq);
  EMBER_OPTIM_ARG(Tensor, max_exp_avg_sq);

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};
using AdamWParamState = AdamParamState;

class EMBER_API Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
};

class EMBER_API AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
};

}  // namespace ember::optim
