// GradScaler with torch.cuda.amp.GradScaler's stages, errors and scale update
// (torch._amp_update_scale_). The scale is a float, as torch's float32 scale tensor.
#include "ember/optim/grad_scaler.h"

#include <cmath>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "optim/fused_step.h"

namespace ember::optim {

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(float(options.init_scale())) {
  EMBER_CHECK_ARG(options.growth_factor() > 1.0, "GradScaler: The growth factor must be > 1.0, got {}",
                  options.growth_factor());
  EMBER_CHECK_ARG(options.backoff_factor() < 1.0 && options.backoff_factor() > 0,
                  "GradScaler: The backoff factor must be < 1.0 (and positive), got {}", options.backoff_factor());
  EMBER_CHECK_ARG(options.growth_interval() > 0, "GradScaler: growth_interval must be positive, got {}",
                  options.growth_interval());
  EMBER_CHECK_ARG(options.init_scale() > 0 && std::isfinite(float(options.init_scale())),
                  "GradScaler: init_scale must be a positive finite float32, got {}", options.init_scale());
}

Tensor GradScaler::scale(const Tensor& outputs) const {
  if (!options_.enabled()) return outputs;
  EMBER_CHECK_ARG(outputs.defined(), "GradScaler::scale: outputs is an undefined tensor");
  return outputs * Scalar(double(scale_));
}

void GradScaler::unscale_(Optimizer& optimizer) {
  if (!options_.enabled()) return;
  PerOptimizer& st = per_optimizer_[&optimizer];
  EMBER_CHECK_TYPED(st.stage != Stage::Unscaled, InvalidArgument,
                    "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK_TYPED(st.stage != Stage::Stepped, InvalidArgument, "unscale_() is being called after step().");
  // torch: self._scale.double().reciprocal().float()
  const double inv_scale = double(float(1.0 / double(scale_)));
  // Every gradient is checked before any is changed, so a refused call changes nothing.
  for (const auto& group : optimizer.param_groups())
    for (const Tensor& p : group.params())
      EMBER_CHECK_ARG(!p.grad().defined() || p.grad().dtype() != kHalf,
                      "GradScaler::unscale_: Attempting to unscale FP16 gradients.");
  NoGradGuard no_grad;
  // One fused unscale-and-check kernel per gradient; one flag per device, read once.
  std::vector<std::pair<Device, Tensor>> flags;
  bool checked = false;
  for (auto& group : optimizer.param_groups())
    for (Tensor& p : group.params()) {
      Tensor& g = p.mutable_grad();
      if (!g.defined()) continue;
      checked = true;
      Tensor* flag = nullptr;
      for (auto& [dev, f] : flags)
        if (dev == g.device()) flag = &f;
      if (!flag) flag = &flags.emplace_back(g.device(), zeros({1}, TensorOptions(kFloat).device(g.device()))).second;
      detail::run_amp_unscale(g, inv_scale, *flag);
    }
  bool found = false;
  for (auto& [dev, f] : flags) found = found || f.item<float>() != 0;
  st.found_inf = found;
  st.checked = checked;
  st.stage = Stage::Unscaled;
}

Tensor GradScaler::step(Optimizer& optimizer, Optimizer::LossClosure closure) {
  if (!options_.enabled()) return optimizer.step(std::move(closure));
  EMBER_CHECK_ARG(!closure, "GradScaler::step: Closure use is not currently supported if GradScaler is enabled.");
  PerOptimizer& st = per_optimizer_[&optimizer];
  EMBER_CHECK_TYPED(st.stage != Stage::Stepped, InvalidArgument, "step() has already been called since the last update().");
  if (st.stage == Stage::Ready) unscale_(optimizer);
  PerOptimizer& after = per_optimizer_[&optimizer];
  EMBER_CHECK_TYPED(after.checked, InvalidArgument, "No inf checks were recorded for this optimizer.");
  Tensor loss;
  if (!after.found_inf) loss = optimizer.step();
  after.stage = Stage::Stepped;
  return loss;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!options_.enabled()) return;
  if (new_scale) {
    EMBER_CHECK_ARG(*new_scale > 0 && std::isfinite(float(*new_scale)),
                    "GradScaler::update: new_scale must be a positive finite float32, got {}", *new_scale);
    scale_ = float(*new_scale);
  } else {
    bool any_checked = false, found_inf = false;
    for (const auto& [opt, st] : per_optimizer_) {
      (void)opt;
      any_checked = any_checked || st.checked;
      found_inf = found_inf || st.found_inf;
    }
    EMBER_CHECK_TYPED(any_checked, InvalidArgument, "No inf checks were recorded prior to update.");
    if (found_inf) {
      scale_ = float(double(scale_) * options_.backoff_factor());
      growth_tracker_ = 0;
    } else if (growth_tracker_ + 1 == options_.growth_interval()) {
      const float grown = float(double(scale_) * options_.growth_factor());
      if (std::isfinite(grown)) scale_ = grown;
      growth_tracker_ = 0;
    } else {
      ++growth_tracker_;
    }
  }
  per_optimizer_.clear();
}

double GradScaler::get_scale() const { return options_.enabled() ? double(scale_) : 1.0; }

}  // namespace ember::optim
