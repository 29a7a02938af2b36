#pragma once
// AccumulateGrad: the node every leaf's gradient flows into (libtorch's name); it runs
// the leaf's hooks and adds the gradient into .grad(), locked: two threads' backward
// passes may share a leaf.

#include <mutex>

#include "autograd/meta.h"

namespace ember::autograd {

struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
  std::mutex mutex_;
};

}  // namespace ember::autograd
