#pragma once
/// Moves loader batches to DataLoaderOptions::device. Note [Loader device transfer]:
/// the copies of a batch are queued on a side stream of the target GPU (asynchronously
/// through pinned staging memory when pin_memory is set) and waited for on the thread that
/// loaded the batch (a worker, or the iterating thread ahead of use when prefetching), so
/// the training stream never waits for them. When the batch is handed to the training
/// thread its tensors are marked as used on that thread's current stream (record_stream),
/// so the allocator does not give their memory to a later copy while a step still reads it.

#include <optional>
#include <utility>

#include "ember/cuda.h"
#include "ember/data/detail/batch_tensors.h"
#include "ember/device.h"

namespace ember::data::detail {

class DeviceTransfer {
 public:
  DeviceTransfer(std::optional<Device> device, bool pin_memory) : device_(device), pin_memory_(pin_memory) {}

  bool enabled() const { return device_.has_value(); }

  /// The batch with every tensor on the device, its copies complete.
  template <class Batch>
  Batch to_device(Batch batch) const {
    if (!device_) return batch;
    const Device device = *device_;
    const bool non_blocking = pin_memory_;
    if (!device.is_cuda()) {
      return map_tensors(std::move(batch), [&](const Tensor& t) { return t.to(device, non_blocking); });
    }
    const cuda::Stream side = cuda::new_stream(device.index());
    std::optional<Batch> moved;
    {
      cuda::StreamGuard guard(side);
      moved.emplace(map_tensors(std::move(batch), [&](const Tensor& t) { return t.to(device, non_blocking); }));
    }
    side.synchronize();
    return std::move(*moved);
  }

  /// Marks the batch's device memory as in use on the calling thread's current stream.
  template <class Batch>
  void hand_over(Batch& batch) const {
    if (!device_ || !device_->is_cuda()) return;
    const cuda::Stream stream = cuda::current_stream(device_->index());
    batch = map_tensors(std::move(batch), [&](const Tensor& t) {
      if (t.device().is_cuda()) t.record_stream(stream);
      return t;
    });
  }

 private:
  std::optional<Device> device_;
  bool pin_memory_;
};

}  // namespace ember::data::detail
