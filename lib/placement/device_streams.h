#pragma once
// A device's streams as backend-neutral code sees them: opaque handles from the backend
// (nullptr on the CPU and on backends without streams), for autograd's stream rule
// (Note [Backward streams]). Logical devices share their physical device's streams.

#include <utility>
#include <vector>

#include "ember/device.h"

namespace ember {
class Tensor;
}

namespace ember::detail {

struct DeviceEntry;

/// The calling thread's current stream of `device`; nullptr for the CPU or a streamless backend.
void* current_stream_of(Device device);

/// The calling thread's current stream of every device whose backend has streams.
std::vector<std::pair<Device, void*>> current_streams();

/// Work queued on `waiter` (a stream of `device`) from now on runs after what is queued on `producer`.
void stream_wait(Device device, void* waiter, void* producer);

/// The tensor's memory is also in use on `stream` of its device (the caching allocator
/// keeps it from reuse until that stream's work so far is done).
void record_stream_use(const Tensor& t, void* stream);

/// Makes `stream` the current stream of `device` on this thread until destruction.
class StreamScope {
 public:
  StreamScope(Device device, void* stream);
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  DeviceEntry* entry_ = nullptr;  // set while a stream is switched; entries live forever (Note [Device table])
  void* previous_ = nullptr;
};

}  // namespace ember::detail
