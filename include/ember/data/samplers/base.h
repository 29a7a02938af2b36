#pragma once
/// Samplers (libtorch's torch::data::samplers): each call to next(batch_size) gives the
/// next batch request of the epoch (indices, or a count for a stream) or nullopt at its
/// end; reset() starts a new epoch; save()/load() keep the position so that a resumed run
/// continues the same epoch.

#include <cstddef>
#include <optional>
#include <vector>

#include "ember/serialize/archive.h"

namespace ember::data::samplers {

template <class BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  /// Starts a new epoch, over `new_size` examples when given.
  virtual void reset(std::optional<size_t> new_size) = 0;
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

/// A sampler through an archive, so torch::save(sampler, path) / torch::load(sampler, path)
/// keep its position (libtorch's samplers/serialize.h).
template <class BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}
template <class BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

}  // namespace ember::data::samplers
