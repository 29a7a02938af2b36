#pragma once
/// RandomSampler: a permutation of 0..size-1 drawn with randperm from the default
/// generator at construction and at every reset(), so manual_seed makes epochs
/// reproducible (and equal to libtorch's for the same seed).

#include <cstdint>

#include "ember/data/samplers/base.h"
#include "ember/export.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace ember::data::samplers {

class EMBER_API RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, ScalarType index_dtype = kInt64);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "index" (int64) and "indices" (the permutation), as libtorch's.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

  size_t index() const noexcept { return index_; }

 private:
  Tensor indices_;
  int64_t index_ = 0;
};

}  // namespace ember::data::samplers
