#pragma once
/// Optimizer base (torch::optim::Optimizer): parameter groups with their own options,
/// per-parameter state, zero_grad and a step that updates each parameter tensor with one
/// fused kernel (Op::SgdStep, Op::AdamStep, Op::RmspropStep, Op::AdagradStep; LBFGS works
/// on the flattened parameters with ordinary ops, as libtorch's). API.md section 11.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
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

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::optim {

/// The options of one parameter group; each optimizer derives its own. As in libtorch, a
/// user's options class derives OptimizerCloneableOptions<Self> and overrides get_lr /
/// set_lr; the defaults throw libtorch's errors.
class EMBER_API OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual double get_lr() const;
  virtual void set_lr(double lr);
  /// Every option as (name, value), bools as 0 / 1 and betas as "beta1", "beta2": the
  /// flat form state_tensors() saves (none by default: a user's options are not saved).
  virtual std::vector<std::pair<std::string, double>> values() const { return {}; }
  /// Sets the option `name` (one of values()' names); false for an unknown name.
  virtual bool set_value(const std::string& name, double value) { return (void)name, (void)value, false; }
};

/// libtorch's helper base: clone() copies the derived options.
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// The state an optimizer keeps for one parameter (momentum buffer, Adam moments).
class EMBER_API OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  /// The state as named tensors (a step count as a 0-dim int64 tensor); undefined
  /// tensors (no momentum buffer yet, no amsgrad maximum) are left out.
  virtual std::vector<std::pair<std::string, Tensor>> tensors() const { return {}; }
  /// Sets the field `name` (one of tensors()' names) from `value`; false for an unknown name.
  virtual bool set_tensor(const std::string& name, const Tensor& value) { return (void)name, (void)value, false; }
};

/// libtorch's helper base: clone() copies the derived state (its tensors are shared, as
/// libtorch's copy constructor shares them).
template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// libtorch's equality of two options of one kind (SGDOptions == SGDOptions): every value.
template <class O, std::enable_if_t<std::is_base_of_v<OptimizerOptions, O>, int> = 0>
bool operator==(const O& a, const O& b) {
  return a.values() == b.values();
}
template <class O, std::enable_if_t<std::is_base_of_v<OptimizerOptions, O>, int> = 0>
bool operator!=(const O& a, const O& b) {
  return !(a == b);
}

/// ... and of two param states of one kind: the same named tensors, equal in dtype, shape and values.
template <class S, std::enable_if_t<std::is_base_of_v<OptimizerParamState, S>, int> = 0>
bool operator==(const S& a, const S& b) {
  const auto ta = a.tensors(), tb = b.tensors();
  if (ta.size() != tb.size()) return false;
  for (size_t i = 0; i < ta.size(); ++i)
    if (ta[i].first != tb[i].first || ta[i].second.dtype() != tb[i].second.dtype() ||
        !ta[i].second.equal(tb[i].second))
      return false;
  return true;
}
template <class S, std::enable_if_t<std::is_base_of_v<OptimizerParamState, S>, int> = 0>
bool operator!=(const S& a, const S& b) {
  return !(a == b);
}

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
  /// Zeroes every parameter's gradient (libtorch 1.13's default), or makes it undefined when set_to_none.
  void zero_grad(bool set_to_none = false);
  /// Appends parameters to the first group (libtorch's older add_parameters); each must be
  /// a leaf and in no group yet.
  void add_parameters(const std::vector<Tensor>& parameters);

  /// The first group's parameters (libtorch's parameters()).
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  /// The number of parameters over all groups.
  size_t size() const noexcept;
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state, keyed by the parameter's TensorImpl (libtorch keys by its address).
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }
  const std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>>& state() const noexcept { return state_; }

  /// A flat, loss-free checkpoint view: "state.<group>.<param>.<field>" for each state
  /// tensor (e.g. "state.0.1.exp_avg", "state.0.1.step" as 0-dim int64), and
  /// "param_groups.<group>.<option>" as 0-dim float64 tensors (lr, momentum, beta1, ...)
  /// with "param_groups.<group>.size", the group's parameter count (int64).
  std::map<std::string, Tensor> state_tensors() const;
  /// The inverse of state_tensors(): checks every name, group size, shape and dtype first
  /// (InvalidArgument naming the first problem) and changes nothing when one is wrong;
  /// state tensors are copied to their parameter's device, one-number fields ("step") stay.
  void load_state_tensors(const std::map<std::string, Tensor>& tensors);
  /// state_tensors() in a safetensors file at `path` (atomically, as ember::save).
  void save(const std::string& path) const;
  /// Loads a file written by save(): load_state_tensors() of its contents, so a resumed
  /// run takes exactly the steps an uninterrupted one would.
  void load(const std::string& path);
  /// libtorch's archive form (what torch::save(optimizer, ...) calls): state_tensors()
  /// under their dotted names.
  virtual void save(serialize::OutputArchive& archive) const;
  /// load_state_tensors() of every tensor in the archive: all checked before anything changes.
  /// An archive without "param_groups." entries is libtorch's pre-1.5 form, read (with
  /// libtorch's warning) through legacy_state_tensors().
  virtual void load(serialize::InputArchive& archive);

 protected:
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  /// Throws InvalidArgument for options this optimizer rejects (negative lr, ...); a user's
  /// optimizer accepts everything unless it overrides this.
  virtual void check_options(const OptimizerOptions& options) const { (void)options; }
  /// A fresh, empty state of this optimizer's kind (filled by load_state_tensors); nullptr
  /// (the default) when the optimizer cannot load state.
  virtual std::unique_ptr<OptimizerParamState> make_state() const { return nullptr; }
  /// Checks one state tensor of a checkpoint, `value` for field `field` of parameter `param`
  /// (`key` names it in errors). By default a "step" holds one number and every other field
  /// has its parameter's shape and dtype.
  virtual void check_state_tensor(const std::string& key, const std::string& field, const Tensor& value,
                                  const Tensor& param) const;
  /// Checks a state assembled from a checkpoint as a whole (LBFGS: no gaps in its history).
  virtual void check_loaded_state(const OptimizerParamState& state) const { (void)state; }
  /// The state_tensors() form of an archive libtorch's optimizers wrote before 1.5: their
  /// per-parameter buffer lists ("momentum_buffers/size", "momentum_buffers/0", ...), which
  /// belong to the first group's parameters in order, with every group's current options.
  /// InvalidArgument by default: a user's optimizer has no such format.
  virtual std::map<std::string, Tensor> legacy_state_tensors(serialize::InputArchive& archive) const;
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
