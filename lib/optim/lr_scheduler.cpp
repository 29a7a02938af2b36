// LRScheduler, StepLR and ReduceLROnPlateauScheduler with libtorch's C++ counting (see
// lr_scheduler.h).
#include "ember/optim/lr_scheduler.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

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

ReduceLROnPlateauScheduler::ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode, float factor,
                                                       int patience, double threshold,
                                                       ThresholdMode threshold_mode, int cooldown,
                                                       const std::vector<float>& min_lr, double eps,
                                                       bool verbose)
    : optimizer_(optimizer), mode_(mode), factor_(factor), patience_(patience), threshold_(threshold),
      threshold_mode_(threshold_mode), cooldown_(cooldown), eps_(eps), verbose_(verbose) {
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK_ARG(min_lr.empty() || min_lr.size() == groups,
                  "Number of learning rates not equal to the number of param groups\n"
                  "Number of learning rates given: {}\nNumber of param groups: {}",
                  min_lr.size(), groups);
  min_lrs_ = min_lr.empty() ? std::vector<float>(groups) : min_lr;
  EMBER_CHECK_ARG(factor < 1.0, "Factor should be < 1.0.");
  // The worst value, which any finite metric beats (libtorch: FLT_MAX, and FLT_MIN for max).
  best_ = mode == min ? std::numeric_limits<float>::max() : std::numeric_limits<float>::lowest();
}

void ReduceLROnPlateauScheduler::step(float metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {  // bad epochs in the cooldown do not count
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  if (num_bad_epochs_ > patience_) {
    reduce_lr(last_epoch_);
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
}

bool ReduceLROnPlateauScheduler::is_better(float a) const {
  if (mode_ == min && threshold_mode_ == rel) return a < best_ * (1.0 - threshold_);
  if (mode_ == min && threshold_mode_ == abs) return a < best_ - threshold_;
  if (mode_ == max && threshold_mode_ == rel) return a > best_ * (1.0 + threshold_);
  return a > best_ + threshold_;  // libtorch: best * threshold, against PyTorch's documented rule
}

void ReduceLROnPlateauScheduler::reduce_lr(int epoch) {
  auto& groups = optimizer_.param_groups();
  // A group added to the optimizer after the scheduler was made has no min_lr: 0, as the default.
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double new_lr = std::fmax(old_lr * factor_, i < min_lrs_.size() ? min_lrs_[i] : 0.0f);
    if (old_lr - new_lr > eps_) {
      groups[i].options().set_lr(new_lr);
      if (verbose_) {
        std::ostringstream line;  // libtorch sets std::cout's precision; a local stream leaves it as it was
        line << std::setprecision(4) << "Epoch " << epoch << ": reducing learning rate of group " << i
             << " to " << new_lr;
        std::cout << line.str() << std::endl;
      }
    }
  }
}

}  // namespace ember::optim
