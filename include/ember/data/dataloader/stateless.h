#pragma once
/// StatelessDataLoader: a dataset asked for batches by a sampler. Each worker loads from
/// its own copy of the dataset, so datasets need not be thread-safe.

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/data/dataloader/base.h"

namespace ember::data {

template <class Dataset, class Sampler>
class StatelessDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType> {
 public:
  using Base = DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename Base::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, const DataLoaderOptions& options)
      : Base(options), sampler_(std::move(sampler)) {
    const size_t workers = this->options().workers;
    if (workers == 0) {
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
      return;
    }
    std::vector<Dataset*> datasets;
    for (size_t i = 0; i < workers; ++i) {
      worker_datasets_.push_back(std::make_unique<Dataset>(dataset));
      datasets.push_back(worker_datasets_.back().get());
    }
    this->start_workers(datasets);
  }

  // The workers use worker_datasets_: stop them before it goes.
  ~StatelessDataLoader() override { this->join(); }

 private:
  void reset() override {
    sampler_.reset(std::nullopt);
    Base::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override {
    auto request = sampler_.next(this->options().batch_size);
    if (!request || (this->options().drop_last && request->size() < this->options().batch_size)) {
      return std::nullopt;
    }
    return request;
  }

  Sampler sampler_;
  std::vector<std::unique_ptr<Dataset>> worker_datasets_;
};

}  // namespace ember::data
