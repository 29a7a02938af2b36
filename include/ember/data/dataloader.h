#pragma once
/// make_data_loader (libtorch's): a loader over a dataset with a sampler, a sampler type
/// (built from the dataset's size) or, for a stateful dataset, none. The options may be a
/// batch size alone: make_data_loader(std::move(dataset), 64).

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/check.h"
#include "ember/data/dataloader/stateful.h"
#include "ember/data/dataloader/stateless.h"
#include "ember/data/samplers/random.h"

namespace ember::data {

template <class Dataset, class Sampler,
          class = std::enable_if_t<!Dataset::is_stateful && !std::is_constructible_v<DataLoaderOptions, Sampler>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, Sampler sampler, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler), options);
}

template <class Sampler = samplers::RandomSampler, class Dataset,
          class = std::enable_if_t<!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t>>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "Expected the dataset to be sized in order to construct the Sampler");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

template <class Dataset, class = std::enable_if_t<Dataset::is_stateful>>
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset,
                                                              DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), options);
}

}  // namespace ember::data
