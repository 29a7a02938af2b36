#pragma once
/// GradScaler for float16 training (torch.cuda.amp.GradScaler's semantics): scales the
/// loss, unscales gradients before the step, skips the step when a gradient holds inf or
/// NaN, and adapts the scale: times backoff_factor after a skipped step, times
/// growth_factor after growth_interval steps in a row without one.

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct EMBER_API GradScalerOptions {
  EMBER_OPTIM_ARG(double, init_scale) = 65536.0;
  EMBER_OPTIM_ARG(double, growth_factor) = 2.0;
  EMBER_OPTIM_ARG(double, backoff_factor) = 0.5;
  EMBER_OPTIM_ARG(int64_t, growth_interval) = 2000;
  EMBER_OPTIM_ARG(bool, enabled) = true;
};

class EMBER_API GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  /// outputs * scale (a float32 multiplication, as torch's scale tensor is float32);
  /// outputs itself when disabled.
  Tensor scale(const Tensor& outputs) const;
  /// Divides every gradient of the optimizer by the scale and records whether any holds
  /// inf or NaN. Once per optimizer between update() calls; float16 gradients are refused.
  void unscale_(Optimizer& optimizer);
  /// unscale_ (if not done yet), then optimizer.step() unless a gradient was not finite.
  /// Returns the step's loss; undefined when the step was skipped.
  Tensor step(Optimizer& optimizer, Optimizer::LossClosure closure = nullptr);
  /// Adapts the scale from the inf checks since the last update, or sets new_scale.
  void update(std::optional<double> new_scale = std::nullopt);
  /// The current scale (1 when disabled).
  double get_scale() const;
  int64_t get_growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return options_.enabled(); }

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    bool found_inf = false;
    bool checked = false;  // at least one gradient was checked
  };
  GradScalerOptions options_;
  float scale_;
  int64_t growth_tracker_ = 0;
  std::unordered_map<const Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace ember::optim
