// Adagrad (torch::optim::Adagrad of libtorch 1.13): options, state made at construction,
// and one fused step per parameter (Op::AdagradStep).
#include "ember/optim/adagrad.h"

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "optim/fused_step.h"
#include "optim/state_form.h"

namespace ember::optim {

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> AdagradOptions::values() const {
  return {{"lr", lr()},
          {"lr_decay", lr_decay()},
          {"weight_decay", weight_decay()},
          {"initial_accumulator_value", initial_accumulator_value()},
          {"eps", eps()}};
}

bool AdagradOptions::set_value(const std::string& name, double value) {
  if (name == "lr")
    lr(value);
  else if (name == "lr_decay")
    lr_decay(value);
  else if (name == "weight_decay")
    weight_decay(value);
  else if (name == "initial_accumulator_value")
    initial_accumulator_value(value);
  else if (name == "eps")
    eps(value);
  else
    return false;
  return true;
}

std::unique_ptr<OptimizerParamState> AdagradParamState::clone() const {
  auto s = std::make_unique<AdagradParamState>();
  s->step(step());
  if (sum().defined()) s->sum(sum().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdagradParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{{"step", scalar_tensor(step(), kInt64)}};
  if (sum().defined()) out.emplace_back("sum", sum());
  return out;
}

bool AdagradParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step")
    step(value.item<int64_t>());
  else if (name == "sum")
    sum(value);
  else
    return false;
  return true;
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  check_all_options();
  // libtorch fills sum with the defaults' value; the group's own is used here, so a group
  // that sets initial_accumulator_value gets it (the defaults' value otherwise).
  NoGradGuard no_grad;
  for (const auto& group : param_groups_) {
    const double init = static_cast<const AdagradOptions&>(group.options()).initial_accumulator_value();
    for (const Tensor& p : group.params()) {
      auto st = std::make_unique<AdagradParamState>();
      st->sum(full(p.sizes(), init, p.options()));
      state_[p.unsafe_impl()] = std::move(st);
    }
  }
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adagrad::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const AdagradOptions*>(&options);
  EMBER_CHECK_ARG(o != nullptr, "Adagrad: a parameter group's options must be AdagradOptions");
  EMBER_CHECK_ARG(o->lr() >= 0, "Invalid learning rate: {}", o->lr());
  EMBER_CHECK_ARG(o->lr_decay() >= 0, "Invalid lr_decay value: {}", o->lr_decay());
  EMBER_CHECK_ARG(o->weight_decay() >= 0, "Invalid weight_decay value: {}", o->weight_decay());
  EMBER_CHECK_ARG(o->initial_accumulator_value() >= 0, "Invalid initial_accumulator_value value: {}",
                  o->initial_accumulator_value());
  EMBER_CHECK_ARG(o->eps() >= 0, "Invalid epsilon value: {}", o->eps());
}

std::unique_ptr<OptimizerParamState> Adagrad::make_state() const {
  return std::make_unique<AdagradParamState>();
}

std::map<std::string, Tensor> Adagrad::legacy_state_tensors(serialize::InputArchive& archive) const {
  detail::warn_legacy_format("Adagrad");
  return detail::legacy_lists_state(param_groups_, archive, {{"sum_buffers", "sum"}, {"step_buffers", "step"}});
}

Tensor Adagrad::step(LossClosure closure) {
  NoGradGuard no_grad;
  Tensor loss;
  if (closure) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (size_t i = 0; i < group.params().size(); ++i) {
      const Tensor& p = group.params()[i];
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      detail::check_param(p, "Adagrad", gi, i);
      // A copy of the state's handles, stored back once the update ran. A parameter added
      // after construction (libtorch: "state found NULL") gets its state now.
      auto it = state_.find(p.unsafe_impl());
      AdagradParamState st;
      if (it != state_.end()) st = static_cast<const AdagradParamState&>(*it->second);
      if (!st.sum().defined()) st.sum(full(p.sizes(), o.initial_accumulator_value(), p.options()));
      st.step(st.step() + 1);
      OptimArgs a;
      a.weight_decay = o.weight_decay();
      a.eps = o.eps();
      a.step_size = o.lr() / (1 + double(st.step() - 1) * o.lr_decay());  // clr
      Tensor* bufs[3] = {&st.sum(), nullptr, nullptr};
      detail::run_fused_step(Op::AdagradStep, a, p, grad, bufs, "Adagrad", gi, i);
      if (it == state_.end())
        it = state_.emplace(p.unsafe_impl(), std::make_unique<AdagradParamState>()).first;
      static_cast<AdagradParamState&>(*it->second) = st;
    }
  }
  return loss;
}

}  // namespace ember::optim
