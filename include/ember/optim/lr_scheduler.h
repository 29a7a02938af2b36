#pragma once
/// Learning-rate schedulers (torch::optim::LRScheduler, StepLR) with libtorch's C++
/// semantics: step() counts calls, and StepLR multiplies every group's lr by gamma on
/// the calls after each step_size-th one (call step_size + 1, 2 * step_size + 1, ...).

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

}  // namespace ember::optim
