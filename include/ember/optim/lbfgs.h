#pragma once
/// L-BFGS (torch::optim::LBFGS): quasi-Newton steps from a limited history of gradient
/// differences over all parameters flattened into one vector, with a fixed step or a
/// strong-Wolfe line search. step() needs a closure that recomputes the loss and gradients.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API LBFGSOptions : public OptimizerOptions {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit as libtorch
  EMBER_OPTIM_ARG(double, lr) = 1;
  EMBER_OPTIM_ARG(int64_t, max_iter) = 20;
  /// Function evaluations per step; unset means max_iter * 5 / 4 (set by the constructor).
  EMBER_OPTIM_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  EMBER_OPTIM_ARG(double, tolerance_grad) = 1e-7;
  EMBER_OPTIM_ARG(double, tolerance_change) = 1e-9;
  EMBER_OPTIM_ARG(int64_t, history_size) = 100;
  /// Unset (a fixed step of lr) or "strong_wolfe".
  EMBER_OPTIM_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<LBFGSOptions>(*this); }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// max_eval is -1 when unset; line_search_fn is 0 (unset) or 1 ("strong_wolfe").
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string& name, double value) override;
};

/// LBFGS keeps one state for all parameters, under the first one (as libtorch).
struct EMBER_API LBFGSParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, func_evals) = 0;
  EMBER_OPTIM_ARG(int64_t, n_iter) = 0;
  EMBER_OPTIM_ARG(double, t) = 0;
  EMBER_OPTIM_ARG(double, prev_loss) = 0;
  EMBER_OPTIM_ARG(Tensor, d);
  EMBER_OPTIM_ARG(Tensor, H_diag);
  EMBER_OPTIM_ARG(Tensor, prev_flat_grad);
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_dirs);
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_stps);
  EMBER_OPTIM_ARG(std::deque<Tensor>, ro);
  EMBER_OPTIM_ARG(std::optional<std::vector<Tensor>>, al) = std::nullopt;

 public:
  std::unique_ptr<OptimizerParamState> clone() const override;
  /// func_evals, n_iter (int64), t, prev_loss (float64), d, H_diag, prev_flat_grad and
  /// the history as "old_dirs.<k>", "old_stps.<k>", "ro.<k>". al is left out: each
  /// iteration writes it before reading it.
  std::vector<std::pair<std::string, Tensor>> tensors() const override;
  bool set_tensor(const std::string& name, const Tensor& value) override;
};

class EMBER_API LBFGS : public Optimizer {
 public:
  /// One parameter group only (libtorch's rule).
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  /// Up to max_iter iterations, each calling `closure` (required) once or more; returns the
  /// loss of the first call. Errors found before the first call change nothing; an
  /// exception from the closure propagates after the iterations already taken.
  Tensor step(LossClosure closure) override;

 protected:
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const override;
  void check_state_tensor(const std::string& key, const std::string& field, const Tensor& value,
                          const Tensor& param) const override;
  void check_loaded_state(const OptimizerParamState& state) const override;

 private:
  int64_t numel() const;
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  void set_param(const std::vector<Tensor>& params_data);
  std::vector<Tensor> clone_param() const;
  std::tuple<double, Tensor> directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                  double t, const Tensor& d);
};

}  // namespace ember::optim
