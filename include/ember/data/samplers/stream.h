#pragma once
/// StreamSampler: asks a StreamDataset for batch_size examples at a time until epoch_size
/// examples were asked for.

#include "ember/data/samplers/base.h"
#include "ember/export.h"

namespace ember::data::samplers {

/// The request of a stream: a number of examples.
struct EMBER_API BatchSize {
  explicit BatchSize(size_t size) : size_(size) {}
  size_t size() const noexcept { return size_; }
  operator size_t() const noexcept { return size_; }
  size_t size_;
};

class EMBER_API StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<BatchSize> next(size_t batch_size) override;
  /// Writes "examples_retrieved_so_far" (int64), as libtorch's.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace ember::data::samplers
