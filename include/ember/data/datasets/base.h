#pragma once
/// The dataset interfaces (libtorch's torch::data::datasets): a BatchDataset answers a
/// batch request (indices, or a count for a StreamDataset) with a batch; a Dataset answers
/// one index with one example and batches by calling get() per index. `.map(transform)`
/// wraps any of them in a MapDataset.

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/data/example.h"
#include "ember/error.h"

namespace ember::data::datasets {

template <class SourceDataset, class AppliedTransform>
class MapDataset;
template <class DatasetType, class TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform);

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

template <class Self, class Batch = std::vector<Example<>>, class BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  /// A stateful dataset returns std::optional batches and ends its epoch with nullopt.
  static constexpr bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, when known.
  virtual std::optional<size_t> size() const = 0;

  /// This dataset with `transform` applied to every batch it returns.
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <class TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

/// A dataset of single examples; get_batch() calls get() for each index in order.
template <class Self, class SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    // A sampler built for a larger dataset would index past the end: say so by name.
    const std::optional<size_t> known_size = this->size();
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t index : indices) {
      if (known_size && index >= *known_size) {
        throw InvalidArgument("Dataset::get_batch: index " + std::to_string(index) +
                              " is out of range for a dataset of size " + std::to_string(*known_size) +
                              " (is the sampler larger than the dataset?)");
      }
      batch.push_back(get(index));
    }
    return batch;
  }
};

/// A dataset that is asked for a number of examples rather than for indices.
template <class Self, class Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

}  // namespace ember::data::datasets
