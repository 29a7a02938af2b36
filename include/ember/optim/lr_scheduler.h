#pragma once
/// Learning-rate schedulers (torch::optim::LRScheduler, StepLR, ReduceLROnPlateauScheduler)
/// with libtorch's C++ semantics: step() counts calls, and StepLR multiplies every group's
/// lr by gamma on the calls after each step_size-th one (call step_size + 1, 2 * step_size
/// + 1, ...).

#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class EMBER_API LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}
  virtual ~LRScheduler() = default;
  void step();

 protected:
  /// The learning rates to set, one per parameter group.
  virtual std::vector<double> get_lrs() = 0;
  std::vector<double> get_current_lrs() const;
  unsigned step_count_ = 0;

 private:
  Optimizer& optimizer_;
};

class EMBER_API StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;
  unsigned step_size_;
  double gamma_;
};

/// torch::optim::ReduceLROnPlateauScheduler (libtorch 2.x; not an LRScheduler there either):
/// step(metric) counts an epoch as bad unless metric beats the best so far by `threshold`
/// (relative or absolute); after more than `patience` bad epochs in a row every group's lr
/// becomes max(lr * factor, min_lr) when that lowers it by more than eps, and `cooldown`
/// epochs follow in which bad epochs are not counted. min_lr is empty (0 for every group)
/// or one value per group. Two departures from libtorch's code, both to PyTorch's
/// documented rule: max mode with abs threshold tests metric > best + threshold (libtorch
/// multiplies), and max mode starts from the lowest float (libtorch from FLT_MIN, so
/// negative metrics never improved).
class EMBER_API ReduceLROnPlateauScheduler {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  ReduceLROnPlateauScheduler(Optimizer& optimizer, SchedulerMode mode = min, float factor = 0.1,
                             int patience = 10, double threshold = 1e-4, ThresholdMode threshold_mode = rel,
                             int cooldown = 0, const std::vector<float>& min_lr = std::vector<float>(),
                             double eps = 1e-8, bool verbose = false);
  virtual ~ReduceLROnPlateauScheduler() = default;
  void step(float metric);

 private:
  bool is_better(float a) const;
  void reduce_lr(int epoch);

  Optimizer& optimizer_;
  SchedulerMode mode_;
  float factor_;
  int patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int cooldown_;
  std::vector<float> min_lrs_;
  double eps_;
  bool verbose_;
  float best_;
  int cooldown_counter_ = 0;
  int last_epoch_ = 0;
  int num_bad_epochs_ = 0;
};

}  // namespace ember::optim
