#pragma once
/// Distributed samplers: each of num_replicas ranks gets its own share of an epoch. With
/// allow_duplicates every rank gets ceil(size / num_replicas) examples (the first ones
/// repeat to fill the last shares), without it floor(size / num_replicas). The random one
/// shuffles with std::mt19937 seeded by the epoch, so every rank draws the same
/// permutation; call set_epoch() before each epoch to change it. Rank and world size come
/// from arguments or from a ProcessGroup.

#include <cstddef>
#include <string>
#include <vector>

#include "ember/data/samplers/base.h"
#include "ember/error.h"
#include "ember/export.h"

namespace ember::distributed {
class ProcessGroup;
}

namespace ember::data::samplers {

template <class BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true)
      : size_(size), num_replicas_(num_replicas), rank_(rank), allow_duplicates_(allow_duplicates) {
    if (num_replicas == 0 || rank >= num_replicas) {
      throw InvalidArgument("DistributedSampler: rank " + std::to_string(rank) + " is not valid for " +
                            std::to_string(num_replicas) + " replicas (expected 0 <= rank < num_replicas)");
    }
  }

  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  size_t local_sample_count() const {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_ = 0;
  bool allow_duplicates_;
};

class EMBER_API DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  /// Rank and world size from `group`.
  DistributedRandomSampler(size_t size, const distributed::ProcessGroup& group, bool allow_duplicates = true);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "sample_index_" and "epoch_" (int64), as libtorch's.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

  size_t index() const noexcept { return sample_index_ - begin_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

class EMBER_API DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0, bool allow_duplicates = true);
  DistributedSequentialSampler(size_t size, const distributed::ProcessGroup& group, bool allow_duplicates = true);

  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;
  /// Writes "sample_index_" (int64), as libtorch's.
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

  size_t index() const noexcept { return sample_index_ - begin_index_; }

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

}  // namespace ember::data::samplers
