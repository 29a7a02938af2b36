// The non-template samplers. Their archive keys and shuffles are libtorch's, so a saved
// position and a seeded epoch mean the same in both.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "ember/data/samplers/distributed.h"
#include "ember/data/samplers/random.h"
#include "ember/data/samplers/sequential.h"
#include "ember/data/samplers/stream.h"
#include "ember/distributed.h"
#include "ember/ops.h"

namespace ember::data::samplers {

namespace {

void write_count(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, tensor(static_cast<int64_t>(value), kInt64), /*is_buffer=*/true);
}

// Reads a saved position and checks it against what the sampler can hold, so a damaged
// archive is an error that leaves the sampler as it was.
size_t read_count(serialize::InputArchive& archive, const std::string& key, const char* sampler, size_t limit) {
  Tensor value;
  archive.read(key, value, /*is_buffer=*/true);
  if (!value.defined() || value.numel() != 1 || value.scalar_type() != kInt64) {
    throw InvalidArgument(std::string(sampler) + "::load: \"" + key + "\" must be a single int64, got " +
                          (value.defined() ? std::string(::ember::name(value.scalar_type())) + " of " + std::to_string(value.numel()) + " elements"
                                           : std::string("an undefined tensor")));
  }
  const int64_t count = value.item<int64_t>();
  if (count < 0 || static_cast<uint64_t>(count) > limit) {
    throw InvalidArgument(std::string(sampler) + "::load: \"" + key + "\" is " + std::to_string(count) +
                          ", expected a value in [0, " + std::to_string(limit) + "]");
  }
  return static_cast<size_t>(count);
}

size_t group_value(const distributed::ProcessGroup& group, bool want_rank) {
  return static_cast<size_t>(want_rank ? group.rank() : group.size());
}

}  // namespace

// SequentialSampler

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  const size_t remaining = size_ - index_;
  if (remaining == 0) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, remaining));
  std::iota(batch.begin(), batch.end(), index_);
  index_ += batch.size();
  return batch;
}

void SequentialSampler::save(serialize::OutputArchive& archive) const { write_count(archive, "index", index_); }

void SequentialSampler::load(serialize::InputArchive& archive) {
  index_ = read_count(archive, "index", "SequentialSampler", size_);
}

// RandomSampler

RandomSampler::RandomSampler(int64_t size, ScalarType index_dtype) {
  if (size < 0) throw InvalidArgument("RandomSampler: size must be non-negative, got " + std::to_string(size));
  indices_ = randperm(size, index_dtype);
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  const int64_t size = new_size ? static_cast<int64_t>(*new_size) : indices_.numel();
  indices_ = randperm(size, indices_.options());
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const size_t remaining = static_cast<size_t>(indices_.numel() - index_);
  if (remaining == 0) return std::nullopt;
  std::vector<size_t> batch(std::min(batch_size, remaining));
  const Tensor slice =
      indices_.slice(0, index_, index_ + static_cast<int64_t>(batch.size())).to(kInt64).contiguous();
  const int64_t* values = slice.data_ptr<int64_t>();
  std::copy(values, values + batch.size(), batch.begin());
  index_ += static_cast<int64_t>(batch.size());
  return batch;
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "index", static_cast<size_t>(index_));
  archive.write("indices", indices_, /*is_buffer=*/true);
}

void RandomSampler::load(serialize::InputArchive& archive) {
  Tensor indices;
  archive.read("indices", indices, /*is_buffer=*/true);
  if (!indices.defined() || indices.dim() != 1 || !is_integral(indices.scalar_type())) {
    throw InvalidArgument("RandomSampler::load: \"indices\" must be a 1-dim integer tensor, got " +
                          (indices.defined() ? std::string(::ember::name(indices.scalar_type())) + " with " + std::to_string(indices.dim()) + " dims"
                                             : std::string("an undefined tensor")));
  }
  const size_t index = read_count(archive, "index", "RandomSampler", static_cast<size_t>(indices.numel()));
  indices_ = indices.to(indices_.options().device(kCPU));
  index_ = static_cast<int64_t>(index);
}

// StreamSampler

void StreamSampler::reset(std::optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

std::optional<BatchSize> StreamSampler::next(size_t batch_size) {
  if (examples_retrieved_so_far_ >= epoch_size_) return std::nullopt;
  batch_size = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  examples_retrieved_so_far_ += batch_size;
  return BatchSize(batch_size);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}

void StreamSampler::load(serialize::InputArchive& archive) {
  examples_retrieved_so_far_ = read_count(archive, "examples_retrieved_so_far", "StreamSampler", epoch_size_);
}

// DistributedRandomSampler

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  reset(size_);
}

DistributedRandomSampler::DistributedRandomSampler(size_t size, const distributed::ProcessGroup& group, bool allow_duplicates)
    : DistributedRandomSampler(size, group_value(group, false), group_value(group, true), allow_duplicates) {}

void DistributedRandomSampler::reset(std::optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  populate_indices();
  // Seeded by the epoch alone, so that every rank shuffles the same way.
  std::mt19937 engine(static_cast<std::mt19937::result_type>(epoch_));
  std::shuffle(all_indices_.begin(), all_indices_.end(), engine);
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::populate_indices() {
  const size_t local_count = local_sample_count();
  const size_t sample_count = num_replicas_ == 1 ? size_ : local_count * num_replicas_;
  all_indices_.resize(sample_count);
  std::iota(all_indices_.begin(), all_indices_.end(), size_t(0));
  // The shares past the end repeat the first examples so every rank gets as many.
  for (size_t i = size_; i < sample_count; ++i) all_indices_[i] = i - size_;
  begin_index_ = rank_ * local_count;
  end_index_ = begin_index_ + local_count;
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return std::nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> batch(all_indices_.begin() + static_cast<std::ptrdiff_t>(sample_index_),
                            all_indices_.begin() + static_cast<std::ptrdiff_t>(end));
  sample_index_ = end;
  return batch;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index_", sample_index_);
  write_count(archive, "epoch_", epoch_);
}

void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  const size_t epoch = read_count(archive, "epoch_", "DistributedRandomSampler", SIZE_MAX >> 1);
  const size_t local_count = local_sample_count();
  const size_t sample_index = read_count(archive, "sample_index_", "DistributedRandomSampler", SIZE_MAX >> 1);
  const size_t begin = rank_ * local_count;
  if (sample_index < begin || sample_index > begin + local_count) {
    throw InvalidArgument("DistributedRandomSampler::load: \"sample_index_\" is " + std::to_string(sample_index) +
                          ", expected a value in [" + std::to_string(begin) + ", " +
                          std::to_string(begin + local_count) + "] for rank " + std::to_string(rank_));
  }
  epoch_ = epoch;
  reset(size_);
  sample_index_ = sample_index;
}

// DistributedSequentialSampler

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas, size_t rank,
                                                           bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  populate_indices();
}

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, const distributed::ProcessGroup& group,
                                                           bool allow_duplicates)
    : DistributedSequentialSampler(size, group_value(group, false), group_value(group, true), allow_duplicates) {}

void DistributedSequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size && *new_size != size_) {
    size_ = *new_size;
    populate_indices();
  } else {
    sample_index_ = begin_index_;
  }
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

std::optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return std::nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> batch(end - sample_index_);
  std::iota(batch.begin(), batch.end(), sample_index_);
  // Past the end, the shares wrap around to the first examples.
  if (end > size_) {
    for (size_t& index : batch) index %= size_;
  }
  sample_index_ = end;
  return batch;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index_", sample_index_);
}

void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  const size_t sample_index = read_count(archive, "sample_index_", "DistributedSequentialSampler", end_index_);
  if (sample_index < begin_index_) {
    throw InvalidArgument("DistributedSequentialSampler::load: \"sample_index_\" is " + std::to_string(sample_index) +
                          ", expected a value in [" + std::to_string(begin_index_) + ", " +
                          std::to_string(end_index_) + "] for rank " + std::to_string(rank_));
  }
  sample_index_ = sample_index;
}

}  // namespace ember::data::samplers
