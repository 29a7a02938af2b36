// Optimizer's parameter groups, zero_grad, and the flat checkpoint view of its state.
#include "ember/optim/optimizer.h"

#include <set>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "optim/state_form.h"
#include "tensor/tensor_factory.h"

namespace ember::optim {

// The defaults a user's classes inherit fail as libtorch's do: the class must override them.
std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  EMBER_CHECK_ARG(false, "clone() has not been implemented for ember::optim::OptimizerOptions. Subclass "
                  "ember::optim::OptimizerCloneableOptions<YourOptimizerOptions> instead of "
                  "ember::optim::OptimizerOptions to inherit the ability to clone.");
  return nullptr;
}
double OptimizerOptions::get_lr() const {
  EMBER_CHECK_ARG(false, "double get_lr() has not been overidden and implemented in subclass of "
                  "ember::optim::OptimizerOptions, you must override it in your subclass.");
  return 0;
}
void OptimizerOptions::set_lr(double lr) {
  (void)lr;
  EMBER_CHECK_ARG(false, "double set_lr() has not been overidden and implemented in subclass of "
                  "ember::optim::OptimizerOptions, you must override it in your subclass.");
}
std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  EMBER_CHECK_ARG(false, "clone() has not been implemented for ember::optim::OptimizerParamState. Subclass "
                  "ember::optim::OptimizerCloneableParamState<YourOptimizerParamState> instead of "
                  "ember::optim::OptimizerParamState to inherit the ability to clone.");
  return nullptr;
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK_ARG(options_ != nullptr, "OptimizerParamGroup::options: the group has no options");
  return *options_;
}
const OptimizerOptions& OptimizerParamGroup::options() const {
  EMBER_CHECK_ARG(options_ != nullptr, "OptimizerParamGroup::options: the group has no options");
  return *options_;
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_group_unchecked(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))}, std::move(defaults)) {}

Optimizer::~Optimizer() = default;

namespace {

// New parameters must be defined leaves, found in no group yet (nor twice among themselves).
void check_new_params(const std::vector<OptimizerParamGroup>& groups, const std::vector<Tensor>& params) {
  for (const Tensor& p : params) {
    EMBER_CHECK_ARG(p.defined(), "add_param_group: a parameter is an undefined tensor");
    EMBER_CHECK_ARG(p.is_leaf(), "can't optimize a non-leaf Tensor");
  }
  std::set<const void*> seen;
  for (const auto& g : groups)
    for (const Tensor& p : g.params()) seen.insert(p.unsafe_impl());
  for (const Tensor& p : params)
    EMBER_CHECK_ARG(seen.insert(p.unsafe_impl()).second, "some parameters appear in more than one parameter group");
}

}  // namespace

void Optimizer::add_group_unchecked(const OptimizerParamGroup& param_group) {
  check_new_params(param_groups_, param_group.params());
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  param_groups_.push_back(std::move(group));
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  if (param_group.has_options()) check_options(param_group.options());
  add_group_unchecked(param_group);
}

void Optimizer::check_all_options() const {
  check_options(*defaults_);
  for (const auto& g : param_groups_) check_options(g.options());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (auto& group : param_groups_)
    for (Tensor& p : group.params()) {
      Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        grad = Tensor();
      } else {
        grad.detach_();
        grad.zero_();
      }
    }
}

// The three accessors below are libtorch's deprecated interface; they warn as libtorch 1.13's do.
void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_WARN("Optimizer::add_parameters() will be removed in PyTorch 1.6");
  if (param_groups_.empty()) {
    add_group_unchecked(OptimizerParamGroup(parameters));
    return;
  }
  check_new_params(param_groups_, parameters);
  auto& first = param_groups_.front().params();
  first.insert(first.end(), parameters.begin(), parameters.end());
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  EMBER_WARN("Optimizer::parameters() will be removed in PyTorch 1.6");
  static const std::vector<Tensor> kNone;
  return param_groups_.empty() ? kNone : param_groups_.front().params();
}

std::vector<Tensor>& Optimizer::parameters() noexcept {
  EMBER_WARN("Optimizer::parameters() will be removed in PyTorch 1.6");
  static thread_local std::vector<Tensor> none;  // no group yet: an empty list to read
  none.clear();
  return param_groups_.empty() ? none : param_groups_.front().params();
}

size_t Optimizer::size() const noexcept {
  EMBER_WARN("Optimizer::size() will be removed in PyTorch 1.6");
  size_t n = 0;
  for (const auto& g : param_groups_) n += g.params().size();
  return n;
}

OptimizerParamState* Optimizer::find_state(const Tensor& p) const {
  auto it = state_.find(p.unsafe_impl());
  return it == state_.end() ? nullptr : it->second.get();
}

std::map<std::string, Tensor> Optimizer::state_tensors() const {
  std::map<std::string, Tensor> out = detail::group_entries(param_groups_);
  NoGradGuard no_grad;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& group = param_groups_[g];
    for (size_t i = 0; i < group.params().size(); ++i) {
      const OptimizerParamState* st = find_state(group.params()[i]);
      if (!st) continue;
      const std::string sp = "state." + std::to_string(g) + "." + std::to_string(i) + ".";
      for (const auto& [name, t] : st->tensors()) out[sp + name] = t.detach().clone();
    }
  }
  return out;
}

namespace {

// "state.<g>.<i>.<field>" split into its parts; false when the name is not of that form.
bool parse_state_name(const std::string& key, size_t& g, size_t& i, std::string& field) {
  const char* s = key.c_str() + 6;  // after "state."
  char* end = nullptr;
  g = std::strtoull(s, &end, 10);
  if (end == s || *end != '.') return false;
  s = end + 1;
  i = std::strtoull(s, &end, 10);
  if (end == s || *end != '.' || end[1] == '\0') return false;
  field = end + 1;
  return true;
}

}  // namespace

void Optimizer::check_state_tensor(const std::string& key, const std::string& field, const Tensor& value,
                                   const Tensor& param) const {
  const char* op = "load_state_tensors";
  if (field == "step") {
    EMBER_CHECK_ARG(value.numel() == 1, "{}: '{}' must hold one number, got shape {}", op, key,
                    ember::detail::shape_str(value.sizes()));
    return;
  }
  EMBER_CHECK_ARG(value.sizes() == param.sizes() && value.dtype() == param.dtype(),
                  "{}: '{}' has shape {} and dtype {}, but its parameter has shape {} and dtype {}", op, key,
                  ember::detail::shape_str(value.sizes()), name(value.dtype()), ember::detail::shape_str(param.sizes()),
                  name(param.dtype()));
}

void Optimizer::load_state_tensors(const std::map<std::string, Tensor>& tensors) {
  const char* op = "load_state_tensors";
  // Everything is checked and built aside first, so a bad checkpoint changes nothing.
  std::vector<std::unique_ptr<OptimizerOptions>> options(param_groups_.size());
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>> state;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::string gp = "param_groups." + std::to_string(g) + ".";
    auto size_it = tensors.find(gp + "size");
    EMBER_CHECK_ARG(size_it != tensors.end(), "{}: missing '{}size' (the checkpoint has fewer parameter groups than the "
                    "optimizer's {})", op, gp, param_groups_.size());
    const int64_t n = size_it->second.item<int64_t>();
    EMBER_CHECK_ARG(n == int64_t(param_groups_[g].params().size()),
                    "{}: parameter group {} of the checkpoint has {} parameters, but the optimizer's has {}", op, g, n,
                    param_groups_[g].params().size());
    options[g] = param_groups_[g].options().clone();
    for (const auto& [name, value] : options[g]->values()) {
      (void)value;
      auto it = tensors.find(gp + name);
      EMBER_CHECK_ARG(it != tensors.end(), "{}: missing '{}{}'", op, gp, name);
      EMBER_CHECK_ARG(it->second.defined() && it->second.numel() == 1, "{}: '{}{}' must hold one number", op, gp, name);
      options[g]->set_value(name, it->second.item<double>());
    }
    check_options(*options[g]);
  }
  for (const auto& [key, t] : tensors) {
    if (key.rfind("param_groups.", 0) == 0) {
      size_t g = 0;
      const char* s = key.c_str() + 13;
      char* end = nullptr;
      g = std::strtoull(s, &end, 10);
      EMBER_CHECK_ARG(end != s && *end == '.' && g < param_groups_.size(), "{}: unexpected key '{}' (the optimizer has {} "
                      "parameter groups)", op, key, param_groups_.size());
      const std::string name = end + 1;
      bool known = name == "size";
      for (const auto& [opt, value] : options[g]->values()) known = known || (void(value), opt == name);
      EMBER_CHECK_ARG(known, "{}: unexpected key '{}': not an option of this optimizer", op, key);
      continue;
    }
    size_t g = 0, i = 0;
    std::string field;
    EMBER_CHECK_ARG(key.rfind("state.", 0) == 0 && parse_state_name(key, g, i, field),
                    "{}: unexpected key '{}' (expected 'state.<group>.<param>.<field>' or 'param_groups.<group>.<option>')",
                    op, key);
    EMBER_CHECK_ARG(g < param_groups_.size() && i < param_groups_[g].params().size(),
                    "{}: '{}' names parameter {} of group {}, which the optimizer does not have", op, key, i, g);
    EMBER_CHECK_ARG(t.defined(), "{}: '{}' is an undefined tensor", op, key);
    const Tensor& p = param_groups_[g].params()[i];
    auto& st = state[p.unsafe_impl()];
    if (!st) st = make_state();
    EMBER_CHECK_ARG(st != nullptr, "{}: unexpected key '{}': this optimizer keeps no state a checkpoint can set", op, key);
    check_state_tensor(key, field, t, p);
    NoGradGuard no_grad;
    Tensor value = field == "step" ? t : t.to(p.device()).clone();
    EMBER_CHECK_ARG(st->set_tensor(field, value), "{}: unexpected key '{}': '{}' is not a state field of this optimizer", op,
                    key, field);
  }
  for (const auto& [impl, st] : state) {
    (void)impl;
    check_loaded_state(*st);
  }
  for (size_t g = 0; g < param_groups_.size(); ++g) param_groups_[g].set_options(std::move(options[g]));
  state_ = std::move(state);
}

}  // namespace ember::optim
