// RMSprop (torch::optim::RMSprop of libtorch 1.13): options, state and one fused step per
// parameter (Op::RmspropStep).
#include "ember/optim/rmsprop.h"

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "optim/fused_step.h"
#include "optim/state_form.h"

namespace ember::optim {

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> RMSpropOptions::values() const {
  return {{"lr", lr()},
          {"alpha", alpha()},
          {"eps", eps()},
          {"weight_decay", weight_decay()},
          {"momentum", momentum()},
          {"centered", centered() ? 1.0 : 0.0}};
}

bool RMSpropOptions::set_value(const std::string& name, double value) {
  if (name == "lr")
    lr(value);
  else if (name == "alpha")
    alpha(value);
  else if (name == "eps")
    eps(value);
  else if (name == "weight_decay")
    weight_decay(value);
  else if (name == "momentum")
    momentum(value);
  else if (name == "centered")
    centered(value != 0);
  else
    return false;
  return true;
}

std::unique_ptr<OptimizerParamState> RMSpropParamState::clone() const {
  auto s = std::make_unique<RMSpropParamState>();
  s->step(step());
  if (square_avg().defined()) s->square_avg(square_avg().clone());
  if (momentum_buffer().defined()) s->momentum_buffer(momentum_buffer().clone());
  if (grad_avg().defined()) s->grad_avg(grad_avg().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> RMSpropParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{{"step", scalar_tensor(step(), kInt64)}};
  if (square_avg().defined()) out.emplace_back("square_avg", square_avg());
  if (momentum_buffer().defined()) out.emplace_back("momentum_buffer", momentum_buffer());
  if (grad_avg().defined()) out.emplace_back("grad_avg", grad_avg());
  return out;
}

bool RMSpropParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step")
    step(value.item<int64_t>());
  else if (name == "square_avg")
    square_avg(value);
  else if (name == "momentum_buffer")
    momentum_buffer(value);
  else if (name == "grad_avg")
    grad_avg(value);
  else
    return false;
  return true;
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  check_all_options();
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void RMSprop::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const RMSpropOptions*>(&options);
  EMBER_CHECK_ARG(o != nullptr, "RMSprop: a parameter group's options must be RMSpropOptions");
  EMBER_CHECK_ARG(o->lr() >= 0, "Invalid learning rate: {}", o->lr());
  EMBER_CHECK_ARG(o->eps() >= 0, "Invalid epsilon value: {}", o->eps());
  EMBER_CHECK_ARG(o->momentum() >= 0, "Invalid momentum value: {}", o->momentum());
  EMBER_CHECK_ARG(o->weight_decay() >= 0, "Invalid weight_decay value: {}", o->weight_decay());
  EMBER_CHECK_ARG(o->alpha() >= 0, "Invalid alpha value: {}", o->alpha());
}

std::unique_ptr<OptimizerParamState> RMSprop::make_state() const {
  return std::make_unique<RMSpropParamState>();
}

std::map<std::string, Tensor> RMSprop::legacy_state_tensors(serialize::InputArchive& archive) const {
  detail::warn_legacy_format(
      "RMSprop",
      "The step value in state will be set to 0 because the old RMSprop optimizer didn't track the step value.");
  return detail::legacy_lists_state(param_groups_, archive,
                                    {{"square_average_buffers", "square_avg"},
                                     {"momentum_buffers", "momentum_buffer"},
                                     {"grad_average_buffers", "grad_avg"}});
}

Tensor RMSprop::step(LossClosure closure) {
  NoGradGuard no_grad;
  Tensor loss;
  if (closure) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (size_t i = 0; i < group.params().size(); ++i) {
      const Tensor& p = group.params()[i];
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      detail::check_param(p, "RMSprop", gi, i);
      // Work on a copy of the state's handles: the state changes only once the update ran.
      auto it = state_.find(p.unsafe_impl());
      RMSpropParamState st;
      if (it != state_.end()) st = static_cast<const RMSpropParamState&>(*it->second);
      // libtorch makes the buffers with the state; a buffer that options changed later
      // call for (momentum turned on, centered) starts at zero here instead of failing.
      if (!st.square_avg().defined()) st.square_avg(zeros(p.sizes(), p.options()));
      if (o.momentum() > 0 && !st.momentum_buffer().defined())
        st.momentum_buffer(zeros(p.sizes(), p.options()));
      if (o.centered() && !st.grad_avg().defined()) st.grad_avg(zeros(p.sizes(), p.options()));
      st.step(st.step() + 1);
      OptimArgs a;
      a.lr = o.lr();
      a.alpha = o.alpha();
      a.eps = o.eps();
      a.weight_decay = o.weight_decay();
      a.momentum = o.momentum();
      a.centered = o.centered();
      Tensor* bufs[3] = {&st.square_avg(), o.momentum() > 0 ? &st.momentum_buffer() : nullptr,
                         o.centered() ? &st.grad_avg() : nullptr};
      detail::run_fused_step(Op::RmspropStep, a, p, grad, bufs, "RMSprop", gi, i);
      if (it == state_.end())
        it = state_.emplace(p.unsafe_impl(), std::make_unique<RMSpropParamState>()).first;
      static_cast<RMSpropParamState&>(*it->second) = st;
    }
  }
  return loss;
}

}  // namespace ember::optim
