#pragma once
// The device table: every device that exists in this process (physical devices of each
// backend, split into logical devices by set_logical_devices), each with its own
// caching allocator. Built on first use; entries are never removed, so pointers stay valid.

#include <atomic>
#include <memory>
#include <vector>

#include "ember/device.h"
#include "ember/device_api.h"

namespace ember {
class Backend;
}

namespace ember::detail {

class CachingAllocator;

struct DeviceEntry {
  Device device{kCPU, 0};      // the (logical) device users name
  int physical_index = 0;      // index the backend knows it by
  DeviceInfo info;
  Backend* backend = nullptr;  // null for CPU
  std::unique_ptr<CachingAllocator> allocator;  // made with the entry
  std::atomic<bool> used{false};  // first allocation or op has happened on the physical device
};

/// The entry of a concrete device (index >= 0, or Device(kCPU): cpu:0), or nullptr when it does not exist.
DeviceEntry* find_device(Device device);
/// All entries of one type, in index order.
std::vector<DeviceEntry*> devices_of(DeviceType type);
/// The caching allocator of an existing device; InvalidArgument naming it otherwise.
CachingAllocator& allocator_for(Device device);
/// The backend behind a device type (nullptr for CPU, or a type with no backend).
Backend* backend_for(DeviceType type);

}  // namespace ember::detail

namespace ember::detail {
/// Installs a backend's device services (from register_backend or the CUDA backend).
void install_backend(DeviceType type, Backend* backend);
/// set_logical_devices: replaces a physical device's entry with `count` logical ones.
void split_logical(Device physical, int count, const std::vector<size_t>& limits);
/// Marks every logical device of entry's physical device as used (no more splitting).
void mark_used(DeviceEntry& entry);
}  // namespace ember::detail
