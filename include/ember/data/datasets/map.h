#pragma once
/// MapDataset: a dataset whose batches pass through a transform (dataset.map(transform)).

#include <optional>
#include <type_traits>
#include <utility>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

namespace detail {
template <bool Optional, class T>
using optional_if_t = std::conditional_t<Optional, std::optional<T>, T>;
template <class T>
struct unwrap_optional {
  using type = T;
};
template <class T>
struct unwrap_optional<std::optional<T>> {
  using type = T;
};
}  // namespace detail

template <class SourceDataset, class AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>,
                          typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType =
      detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>;

  static_assert(std::is_convertible_v<typename detail::unwrap_optional<typename SourceDataset::BatchType>::type,
                                      typename AppliedTransform::InputBatchType>,
                "map(): the transform's InputBatchType must accept the dataset's batches (for a Dataset of "
                "Example<>, a Transform<Example<>, ...> or a Collation such as Stack<>)");

  MapDataset(SourceDataset dataset, AppliedTransform transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (SourceDataset::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }

  std::optional<size_t> size() const override { return dataset_.size(); }

  /// A stateful source starts its next epoch (the stateful loader calls this).
  void reset() {
    if constexpr (SourceDataset::is_stateful) dataset_.reset();
  }

  const SourceDataset& dataset() noexcept { return dataset_; }
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

template <class DatasetType, class TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  return MapDataset<DatasetType, TransformType>(std::move(dataset), std::move(transform));
}

}  // namespace ember::data::datasets
