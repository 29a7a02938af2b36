// LRScheduler and StepLR with libtorch's C++ counting (see lr_scheduler.h).
#include "ember/optim/lr_scheduler.h"

#include "core/check.h"

namespace ember::optim {

void LRScheduler::step() {
  const std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK_ARG(lrs.size() == groups.size(),
                  "LRScheduler::step: {} learning rates for an optimizer with {} parameter groups", lrs.size(),
                  groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  ++step_count_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_.param_groups()) lrs.push_back(g.options().get_lr());
  return lrs;
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK_ARG(step_size > 0, "StepLR: step_size must be positive, got {}", step_size);
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % step_size_ == 0)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

}  // namespace ember::optim
