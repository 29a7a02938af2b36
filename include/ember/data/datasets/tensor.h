#pragma once
/// TensorDataset: the rows of one tensor as examples without targets.

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/data/datasets/base.h"
#include "ember/ops.h"

namespace ember::data::datasets {

struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /* implicit */ TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack(tensors)) {}
  explicit TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {
    if (!this->tensor.defined() || this->tensor.dim() == 0) {
      throw InvalidArgument("TensorDataset: expected a tensor with at least one dimension (its rows are the examples), got " +
                            std::string(this->tensor.defined() ? "a 0-dim tensor" : "an undefined tensor"));
    }
  }

  TensorExample get(size_t index) override { return tensor[static_cast<int64_t>(index)]; }
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  Tensor tensor;
};

}  // namespace ember::data::datasets
