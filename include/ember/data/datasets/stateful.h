#pragma once
/// StatefulDataset (libtorch's): a dataset that keeps its own position, returns
/// std::optional batches (nullopt ends the epoch), starts a new epoch on reset() and can
/// save and load its position.

#include <cstddef>
#include <optional>

#include "ember/data/datasets/base.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::data::datasets {

template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  virtual void reset() = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

}  // namespace ember::data::datasets
