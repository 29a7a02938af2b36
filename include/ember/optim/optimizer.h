#pragma once
/// Optimizer base (torch::optim::Optimizer): parameter groups with their own options,
/// per-parameter state, zero_grad and a step that updates each parameter tensor with one
/// fused kernel (Op::SgdStep, Op::AdamStep). API.md section 11.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/export.h"
#include "ember/tensor.h"

/// An option with a chainable setter and a getter, as libtorch's TORCH_ARG:
/// `SGDOptions(0.1).momentum(0.9)`, `opts.momentum()`.
#define EMBER_OPTIM_ARG(T, name)                           \
 public:                                                  \
  auto name(const T& new_##name)->decltype(*this) {       \
    this->name##_ = new_##name;                           \
    return *this;                                         \
  }                                                       \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }            \
                                                          \
 private:                                                 \
  T name##_

namespace ember::optim {

/// The options of one parameter group; each optimizer derives its own.
class EMBER_API OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  /// Every option as (name, value), bools as 0 / 1 and betas as "beta1", "beta2": the
  /// flat form state_tensors() saves.
  virtual std::vector<std::pair<std::string, double>> values() const = 0;
  /// Sets the option `name` (one of values()' names); false for an unknown name.
  virtual bool set_value(const std::string& name, double value) = 0;
};

/// The state an optimizer keeps for one parameter (momentum buffer, Adam moments).
class EMBER_API OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const = 0;
  /// The state as named tensors (a step count as a 0-dim int64 tensor); undefined
  /// tensors (no momentum buffer yet, no amsgrad maximum) are left out.
  virtual std::vector<std::pair<std::string, Tensor>> tensors() const = 0;
  /// Sets the field `name` (one of tensors()' names) from `value`; false for an unknown name.
  virtual bool set_tensor(const std::string& name, const Tensor& value) = 0;
};

/// A list of parameters with, optionally, its own options (else the optimizer's defaults).
class EMBER_API OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: implicit as libtorch
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class EMBER_API Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer();

  /// Adds a group (its options are cloned, else the defaults are); every parameter must be
  /// a leaf and in no other group.
  void add_param_group(const OptimizerParamGroup& param_group);
  /// One update of every parameter that has a gradient. With a closure, calls it first
  /// with gradients enabled and returns its loss (else an undefined tensor).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Resets every parameter's gradient: undefined (set_to_none) or zeros.
  void zero_grad(bool set_to_none = true);

  /// The first group's parameters (libtorch's parameters()).
  const std::vector<Tensor>& parameters() const noexcept;
  /// The number of parameters over all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state, keyed by the parameter's TensorImpl (libtorch keys by its address).
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }

  /// A flat, loss-free checkpoint view: "state.<group>.<param>.<field>" for each state
  /// tensor (e.g. "state.0.1.exp_avg", "state.0.1.step" as 0-dim int64), and
  /// "param_groups.<group>.<option>" as 0-dim float64 tensors (lr, momentum, beta1, ...)
  /// with "param_groups.<group>.size", the group's parameter count (int64).
  std::map<std::string, Tensor> state_tensors() const;
  /// The inverse of state_tensors(): checks every name, group size, shape and dtype first
  /// (InvalidArgument naming the first problem) and changes nothing when one is wrong;
  /// state tensors are copied to their parameter's device.
  void load_state_tensors(const std::map<std::string, Tensor>& tensors);
  /// state_tensors() in a safetensors file at `path` (atomically, as ember::save).
  void save(const std::string& path) const;
  /// Loads a file written by save(): load_state_tensors() of its contents, so a resumed
  /// run takes exactly the steps an uninterrupted one would.
  void load(const std::string& path);

 protected:
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  /// Throws InvalidArgument for options this optimizer rejects (negative lr, ...).
  virtual void check_options(const OptimizerOptions& options) const = 0;
  /// A fresh, empty state of this optimizer's kind (filled by load_state_tensors).
  virtual std::unique_ptr<OptimizerParamState> make_state() const = 0;
  /// Checks every group's options; derived constructors call it once they exist.
  void check_all_options() const;
  /// The state of `p`, or nullptr.
  OptimizerParamState* find_state(const Tensor& p) const;

  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;

 private:
  void add_group_unchecked(const OptimizerParamGroup& param_group);
};

}  // namespace ember::optim
