// SGD (torch::optim::SGD of libtorch 1.13): options, state and a fused step per parameter.
#include "ember/optim/sgd.h"

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "optim/fused_step.h"
#include "optim/state_form.h"

namespace ember::optim {

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> SGDOptions::values() const {
  return {{"lr", lr()}, {"momentum", momentum()}, {"dampening", dampening()}, {"weight_decay", weight_decay()},
          {"nesterov", nesterov() ? 1.0 : 0.0}};
}

bool SGDOptions::set_value(const std::string& name, double value) {
  if (name == "lr") lr(value);
  else if (name == "momentum") momentum(value);
  else if (name == "dampening") dampening(value);
  else if (name == "weight_decay") weight_decay(value);
  else if (name == "nesterov") nesterov(value != 0);
  else return false;
  return true;
}

std::unique_ptr<OptimizerParamState> SGDParamState::clone() const {
  auto s = std::make_unique<SGDParamState>();
  if (momentum_buffer().defined()) s->momentum_buffer(momentum_buffer().clone());
  return s;
}

std::vector<std::pair<std::string, Tensor>> SGDParamState::tensors() const {
  if (!momentum_buffer().defined()) return {};
  return {{"momentum_buffer", momentum_buffer()}};
}

bool SGDParamState::set_tensor(const std::string& name, const Tensor& value) {
  if (name != "momentum_buffer") return false;
  momentum_buffer(value);
  return true;
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  check_all_options();
}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void SGD::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const SGDOptions*>(&options);
  EMBER_CHECK_ARG(o != nullptr, "SGD: a parameter group's options must be SGDOptions");
  EMBER_CHECK_ARG(o->lr() >= 0, "Invalid learning rate: {}", o->lr());
  EMBER_CHECK_ARG(o->momentum() >= 0, "Invalid momentum value: {}", o->momentum());
  EMBER_CHECK_ARG(o->weight_decay() >= 0, "Invalid weight_decay value: {}", o->weight_decay());
  EMBER_CHECK_ARG(!o->nesterov() || (o->momentum() > 0 && o->dampening() == 0),
                  "Nesterov momentum requires a momentum and zero dampening");
}

std::unique_ptr<OptimizerParamState> SGD::make_state() const { return std::make_unique<SGDParamState>(); }

std::map<std::string, Tensor> SGD::legacy_state_tensors(serialize::InputArchive& archive) const {
  detail::warn_legacy_format("SGD");
  return detail::legacy_lists_state(param_groups_, archive, {{"momentum_buffers", "momentum_buffer"}});
}

Tensor SGD::step(LossClosure closure) {
  NoGradGuard no_grad;
  Tensor loss;
  if (closure) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (size_t gi = 0; gi < param_groups_.size(); ++gi) {
    auto& group = param_groups_[gi];
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (size_t i = 0; i < group.params().size(); ++i) {
      const Tensor& p = group.params()[i];
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      detail::check_param(p, "SGD", gi, i);
      OptimArgs a;
      a.lr = o.lr();
      a.weight_decay = o.weight_decay();
      a.momentum = o.momentum();
      a.dampening = o.dampening();
      a.nesterov = o.nesterov();
      // A new momentum buffer joins the state only once the update succeeded.
      auto* st = static_cast<SGDParamState*>(find_state(p));
      Tensor buf = st ? st->momentum_buffer() : Tensor();
      Tensor* bufs[3] = {nullptr, nullptr, nullptr};
      if (o.momentum() != 0) {
        a.first_step = !buf.defined();  // libtorch's first step sets buf = d_p; the kernel writes it
        if (a.first_step) buf = empty(p.sizes(), p.options());
        bufs[0] = &buf;
      }
      detail::run_fused_step(Op::SgdStep, a, p, grad, bufs, "SGD", gi, i);
      if (a.first_step) {
        auto& slot = state_[p.unsafe_impl()];
        if (!slot) slot = std::make_unique<SGDParamState>();
        static_cast<SGDParamState&>(*slot).momentum_buffer(buf);
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
