// Adam and AdamW (torch::optim::Adam / AdamW of libtorch 1.13): options, state and one
// fused step per parameter; the two differ only in how weight decay enters.
#include "ember/optim/adam.h"

#include <cmath>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "optim/fused_step.h"
#include "optim/state_form.h"

namespace ember::optim {

namespace {

template <class O>
std::vector<std::pair<std::string, double>> adam_values(const O& o) {
  return {{"lr", o.lr()},
          {"beta1", std::get<0>(o.betas())},
          {"beta2", std::get<1>(o.betas())},
          {"eps", o.eps()},
          {"weight_decay", o.weight_decay()},
          {"amsgrad", o.amsgrad() ? 1.0 : 0.0}};
}

template <class O>
bool adam_set_value(O& o, const std::string& name, double value) {
  if (name == "lr") o.lr(value);
  else if (name == "beta1") std::get<0>(o.betas()) = value;
  else if (name == "beta2") std::get<1>(o.betas()) = value;
  else if (name == "eps") o.eps(value);
  else if (name == "weight_decay") o.weight_decay(value);
  else if (name == "amsgrad") o.amsgrad(value != 0);
  else return false;
  return true;
}

template <class O>
void adam_check(const OptimizerOptions& options, const char* optimizer) {
  const auto* o = dynamic_cast<const O*>(&options);
  EMBER_CHECK_ARG(o != nullptr, "{}: a parameter group's options must be {}Options", optimizer, optimizer);
  const auto [b1, b2] = o->betas();
  EMBER_CHECK_ARG(o->lr() >= 0, "Invalid learning rate: {}", o->lr());
  EMBER_CHECK_ARG(o->eps() >= 0, "Invalid epsilon value: {}", o->eps());
  EMBER_CHECK_ARG(0 <= b1 && b1 < 1.0, "Invalid beta parameter at index 0: {}", b1);
  EMBER_CHECK_ARG(0 <= b2 && b2 < 1.0, "Invalid beta parameter at index 1: {}", b2);
  EMBER_CHECK_ARG(o->weight_decay() >= 0, "Invalid weight_decay value: {}", o->weight_decay());
}

// One step of Adam (decoupled = false) or AdamW over every group.
template <class O>
Tensor adam_step(std::vector<OptimizerParamGroup>& groups,
                 std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>>& state,
                 const Optimizer::LossClosure& closure, bool decoupled, const char* optimizer) {
  NoGradGuard no_grad;
  Tensor loss;
  if (closure) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    auto& group = groups[gi];
    const auto& o = static_cast<const O&>(group.options());
    for (size_t i = 0; i < group.params().size(); ++i) {
      const Tensor& p = group.params()[i];
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      detail::check_param(p, optimizer, gi, i);
      // Work on a copy of the state's handles: the state changes only once the update ran.
      auto it = state.find(p.unsafe_impl());
      AdamParamState st;
      if (it != state.end()) st = static_cast<const AdamParamState&>(*it->second);
      if (!st.exp_avg().defined()) {
        st.exp_avg(zeros(p.sizes(), p.options()));
        st.exp_avg_sq(zeros(p.sizes(), p.options()));
      }
      if (o.amsgrad() && !st.max_exp_avg_sq().defined()) st.max_exp_avg_sq(zeros(p.sizes(), p.options()));
      st.step(st.step() + 1);
      const auto [beta1, beta2] = o.betas();
      OptimArgs a;
      a.lr = o.lr();
      a.weight_decay = o.weight_decay();
      a.beta1 = beta1;
      a.beta2 = beta2;
      a.eps = o.eps();
      a.step_size = o.lr() / (1 - std::pow(beta1, double(st.step())));
      a.bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, double(st.step())));
      a.amsgrad = o.amsgrad();
      a.decoupled_weight_decay = decoupled;
      Tensor* bufs[3] = {&st.exp_avg(), &st.exp_avg_sq(), o.amsgrad() ? &st.max_exp_avg_sq() : nullptr};
      detail::run_fused_step(Op::AdamStep, a, p, grad, bufs, optimizer, gi, i);
      if (it == state.end()) it = state.emplace(p.unsafe_impl(), std::make_unique<AdamParamState>()).first;
      static_cast<AdamParamState&>(*it->second) = st;
    }
  }
  return loss;
}

}  // namespace

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
std::vector<std::pair<std::string, double>> AdamOptions::values() const { return adam_values(*this); }
bool AdamOptions::set_value(const std::string& name, double value) { return adam_set_value(*this, name, value); }

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}
std::vector<std::pair<std::string, double>> AdamWOptions::values() const { return adam_values(*this); }
bool AdamWOptions::set_value(const std::string& name, double value) { return adam_set_value(*this, name, value); }

std::unique_ptr<OptimizerParamState> AdamParamState::clone() const {
  auto s = std::make_unique<AdamParamState>();
  s->step(step());
  if (exp_avg().defined()) s->exp_avg(exp_avg().clone());
  if (exp_avg_sq().defined()) s->exp_avg_sq(exp_avg_sq().clone());
  if (max_exp_avg_sq().defined()) s->max_exp_avg_sq(max_exp_avg_sq().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> AdamParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{{"step", scalar_tensor(step(), kInt64)}};
  if (exp_avg().defined()) out.emplace_back("exp_avg", exp_avg());
  if (exp_avg_sq().defined()) out.emplace_back("exp_avg_sq", exp_avg_sq());
  if (max_exp_avg_sq().defined()) out.emplace_back("max_exp_avg_sq", max_exp_avg_sq());
  return out;
}

bool AdamParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name == "step") step(value.item<int64_t>());
  else if (name == "exp_avg") exp_avg(value);
  else if (name == "exp_avg_sq") exp_avg_sq(value);
  else if (name == "max_exp_avg_sq") max_exp_avg_sq(value);
  else return false;
  return true;
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  check_all_options();
}
Adam::Adam(std::vector<Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
void Adam::check_options(const OptimizerOptions& options) const { adam_check<AdamOptions>(options, "Adam"); }
std::unique_ptr<OptimizerParamState> Adam::make_state() const { return std::make_unique<AdamParamState>(); }

namespace {
// libtorch's pre-1.5 Adam and AdamW archives: one list per state field.
std::map<std::string, Tensor> adam_legacy_state(const char* optimizer, const std::vector<OptimizerParamGroup>& groups,
                                                serialize::InputArchive& archive) {
  detail::warn_legacy_format(optimizer);
  return detail::legacy_lists_state(groups, archive,
                                    {{"step_buffers", "step"},
                                     {"exp_average_buffers", "exp_avg"},
                                     {"exp_average_sq_buffers", "exp_avg_sq"},
                                     {"max_exp_average_sq_buffers", "max_exp_avg_sq"}});
}
}  // namespace

std::map<std::string, Tensor> Adam::legacy_state_tensors(serialize::InputArchive& archive) const {
  return adam_legacy_state("Adam", param_groups_, archive);
}
Tensor Adam::step(LossClosure closure) {
  return adam_step<AdamOptions>(param_groups_, state_, closure, false, "Adam");
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  check_all_options();
}
AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
void AdamW::check_options(const OptimizerOptions& options) const { adam_check<AdamWOptions>(options, "AdamW"); }
std::unique_ptr<OptimizerParamState> AdamW::make_state() const { return std::make_unique<AdamParamState>(); }

std::map<std::string, Tensor> AdamW::legacy_state_tensors(serialize::InputArchive& archive) const {
  return adam_legacy_state("AdamW", param_groups_, archive);
}
Tensor AdamW::step(LossClosure closure) {
  return adam_step<AdamWOptions>(param_groups_, state_, closure, true, "AdamW");
}

}  // namespace ember::optim
