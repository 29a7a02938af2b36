#include "placement/device_streams.h"

#include "ember/registry.h"
#include "ember/tensor.h"
#include "memory/caching_allocator.h"
#include "placement/device_table.h"

namespace ember::detail {

namespace {
// The entry of a device whose backend has streams, else nullptr.
DeviceEntry* streamed_entry(Device device) {
  if (device.type() == kCPU) return nullptr;
  DeviceEntry* e = find_device(device);
  return e && e->backend ? e : nullptr;
}
}  // namespace

void* current_stream_of(Device device) {
  DeviceEntry* e = streamed_entry(device);
  return e ? e->backend->current_stream(e->physical_index) : nullptr;
}

std::vector<std::pair<Device, void*>> current_streams() {
  std::vector<std::pair<Device, void*>> streams;
  for (int type = 0; type < kNumDeviceTypes; ++type) {
    if (DeviceType(type) == kCPU) continue;
    for (DeviceEntry* e : devices_of(DeviceType(type)))
      if (e->backend) streams.emplace_back(e->device, e->backend->current_stream(e->physical_index));
  }
  return streams;
}

void stream_wait(Device device, void* waiter, void* producer) {
  if (waiter == producer) return;
  if (DeviceEntry* e = streamed_entry(device)) e->backend->wait_stream(e->physical_index, waiter, producer);
}

void record_stream_use(const Tensor& t, void* stream) {
  // Memory ember does not own (from_blob) has no allocator block to keep from reuse.
  if (!t.defined() || t.storage()->deleter_ != &CachingAllocator::free) return;
  CachingAllocator::record_stream(t.storage()->context_, stream);
}

StreamScope::StreamScope(Device device, void* stream) {
  DeviceEntry* e = streamed_entry(device);
  if (!e) return;
  previous_ = e->backend->current_stream(e->physical_index);
  if (previous_ == stream) return;
  e->backend->set_current_stream(e->physical_index, stream);
  entry_ = e;
}

StreamScope::~StreamScope() {
  if (entry_) entry_->backend->set_current_stream(entry_->physical_index, previous_);
}

}  // namespace ember::detail
