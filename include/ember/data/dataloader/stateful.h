#pragma once
/// StatefulDataLoader: a dataset that keeps its own position (ChunkDataset) and is asked
/// for batch_size examples until it returns nullopt. All workers share the one dataset,
/// which must be thread-safe; reset() on the dataset starts each epoch. With several
/// workers, enforce_ordering orders the results by request, but which request gets which
/// of the dataset's batches depends on the order the workers reach get_batch() (as in
/// libtorch): a stateful dataset's own order holds with 0 or 1 worker.

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/dataloader/base.h"

namespace ember::data {

template <class Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
 public:
  using Base =
      DataLoaderBase<Dataset, typename Dataset::BatchType::value_type, typename Dataset::BatchRequestType>;
  using typename Base::BatchRequestType;

  StatefulDataLoader(Dataset dataset, const DataLoaderOptions& options)
      : Base(options, std::make_unique<Dataset>(std::move(dataset))) {
    std::vector<Dataset*> datasets(this->options().workers, this->main_thread_dataset_.get());
    this->start_workers(datasets);
  }

  ~StatefulDataLoader() override { this->join(); }

 private:
  void reset() override {
    this->main_thread_dataset_->reset();
    Base::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override {
    return BatchRequestType(this->options().batch_size);
  }
};

}  // namespace ember::data
