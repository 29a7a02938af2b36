// Note [Device table]
// Devices are discovered once, on first use: cpu:0 plus every device each registered
// backend reports. set_logical_devices replaces one physical device's entry by n
// entries (renumbering that type's indices), which is allowed until the physical
// device is first used. Lookups are a bounds check and an array read: each type keeps
// a fixed array of atomic entry pointers, so readers never lock. Replaced entries are
// kept alive (never deleted) so a pointer obtained earlier stays valid.
#include "placement/device_table.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <atomic>
#include <fstream>
#include <mutex>

#include "core/check.h"
#include "dispatch/kernel_table.h"
#include "ember/registry.h"
#include "memory/alloc_conf.h"
#include "memory/caching_allocator.h"
#include "memory/cpu_raw_allocator.h"

namespace ember::detail {

namespace {

constexpr int kMaxDevicesPerType = 64;

struct TypeTable {
  std::array<std::atomic<DeviceEntry*>, kMaxDevicesPerType> entries{};
  std::atomic<int> count{0};
};

struct Table {
  std::mutex mutex;
  TypeTable types[kNumDeviceTypes];
  std::vector<std::unique_ptr<DeviceEntry>> owned;  // every entry ever made
  Backend* backends[kNumDeviceTypes] = {};
  bool discovered[kNumDeviceTypes] = {};
  std::atomic<bool> ready[kNumDeviceTypes] = {};  // discovered, readable without the lock
};

Table& table() {
  static Table* t = new Table();  // never destroyed: tensors may outlive static teardown
  return *t;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(line.find_first_not_of(' ', pos + 1));
    }
  }
  return "CPU";
}

size_t host_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
}

DeviceInfo physical_info(DeviceType type, int physical, Backend* backend) {
  if (type == kCPU) {
    DeviceInfo info;
    info.device = Device(kCPU, physical);
    info.name = cpu_model_name();
    info.memory_total = info.memory_limit = host_memory_bytes();
    return info;
  }
  DeviceInfo info = backend->device_info(physical);
  info.device = Device(type, physical);
  return info;
}

RawAllocator* raw_allocator_of(DeviceType type, int physical, Backend* backend) {
  return type == kCPU ? cpu_raw_allocator() : backend->raw_allocator(physical);
}

// Caller holds the mutex.
DeviceEntry* make_entry(Table& t, DeviceType type, int index, int physical, const DeviceInfo& base,
                        size_t limit) {
  auto e = std::make_unique<DeviceEntry>();
  e->device = Device(type, index);
  e->physical_index = physical;
  e->info = base;
  e->info.device = e->device;
  if (limit) e->info.memory_limit = limit;
  e->backend = t.backends[static_cast<int>(type)];
  size_t total = base.memory_total;
  e->allocator = std::make_unique<CachingAllocator>(
      e->device, raw_allocator_of(type, physical, e->backend), total,
      e->info.memory_limit, e->backend ? e->backend->stream_events(physical) : nullptr);
  if (limit) e->allocator->set_limit(limit);  // a logical device's own limit is an explicit one
  // EMBER_ALLOC_CONF (e.g. "growth:false,limit_mb:2048") applies to every device's allocator.
  if (const char* conf = std::getenv("EMBER_ALLOC_CONF"); conf && *conf)
    apply_alloc_conf(parse_alloc_conf(conf), *e->allocator);
  DeviceEntry* raw = e.get();
  t.owned.push_back(std::move(e));
  return raw;
}

// Caller holds the mutex.
void discover(Table& t, DeviceType type) {
  int ti = static_cast<int>(type);
  if (t.discovered[ti]) return;
  t.discovered[ti] = true;
  Backend* backend = t.backends[ti];
  int n = type == kCPU ? 1 : backend ? backend->device_count() : 0;
  n = std::min(n, kMaxDevicesPerType);
  for (int i = 0; i < n; ++i) {
    DeviceInfo info = physical_info(type, i, backend);
    t.types[ti].entries[i].store(make_entry(t, type, i, i, info, 0), std::memory_order_release);
  }
  t.types[ti].count.store(n, std::memory_order_release);
}

void ensure_discovered(DeviceType type) {
  Table& t = table();
  int ti = static_cast<int>(type);
  if (t.ready[ti].load(std::memory_order_acquire)) return;
  ensure_builtin_kernels();  // installs the CUDA backend before CUDA discovery
  std::lock_guard<std::mutex> lock(t.mutex);
  discover(t, type);
  t.ready[ti].store(true, std::memory_order_release);
}

}  // namespace

DeviceEntry* find_device(Device device) {
  ensure_discovered(device.type());
  const TypeTable& tt = table().types[static_cast<int>(device.type())];
  const int index = device.compared_index();  // Device(kCPU) is cpu:0 (Note [CPU device index])
  if (index < 0 || index >= tt.count.load(std::memory_order_acquire)) return nullptr;
  return tt.entries[index].load(std::memory_order_acquire);
}

std::vector<DeviceEntry*> devices_of(DeviceType type) {
  ensure_discovered(type);
  const TypeTable& tt = table().types[static_cast<int>(type)];
  std::vector<DeviceEntry*> out;
  int n = tt.count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) out.push_back(tt.entries[i].load(std::memory_order_acquire));
  return out;
}

CachingAllocator& allocator_for(Device device) {
  DeviceEntry* e = find_device(device);
  EMBER_CHECK_ARG(e != nullptr, "memory: device {} ({}) does not exist", device.tf_str(), device.str());
  return *e->allocator;
}

Backend* backend_for(DeviceType type) {
  ensure_builtin_kernels();
  return table().backends[static_cast<int>(type)];
}

void install_backend(DeviceType type, Backend* backend) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  int ti = static_cast<int>(type);
  EMBER_CHECK_ARG(t.types[ti].count.load() == 0 || t.backends[ti] == backend,
                  "register_backend: device type {} already has devices in use", device_type_name(type));
  t.backends[ti] = backend;
  t.discovered[ti] = false;  // rediscover with the new backend on next use
  t.ready[ti].store(false, std::memory_order_release);
}

void split_logical(Device physical, int count, const std::vector<size_t>& limits) {
  EMBER_CHECK_ARG(physical.has_index(), "set_logical_devices: physical device {} needs an index",
                  physical.str());
  EMBER_CHECK_ARG(count >= 1 && count <= 32, "set_logical_devices: count must be in 1..32, got {}", count);
  EMBER_CHECK_ARG(limits.empty() || limits.size() == size_t(count),
                  "set_logical_devices: {} memory limits given for {} logical devices", limits.size(),
                  count);
  ensure_discovered(physical.type());
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  TypeTable& tt = t.types[static_cast<int>(physical.type())];
  int n = tt.count.load();
  // Collect the current entries grouped by physical device.
  std::vector<DeviceEntry*> current;
  for (int i = 0; i < n; ++i) current.push_back(tt.entries[i].load());
  bool found = false;
  for (DeviceEntry* e : current) found = found || e->physical_index == physical.index();
  EMBER_CHECK_ARG(found, "set_logical_devices: physical device {} ({}) does not exist; {} device(s) of that type",
                  physical.tf_str(), physical.str(), n);
  for (DeviceEntry* e : current) {
    // Renumbering would rename devices tensors already live on, so every device of the
    // type must be unused (TensorFlow: devices cannot be modified after initialization).
    EMBER_CHECK_ARG(!e->used && !e->allocator->used(),
                    "set_logical_devices: device {} ({}) is already in use; logical devices must be "
                    "configured before the first allocation or op on a device of that type",
                    e->device.tf_str(), e->device.str());
  }
  std::vector<DeviceEntry*> next;
  int index = 0;
  bool done = false;
  for (DeviceEntry* e : current) {
    if (e->physical_index != physical.index()) {
      DeviceEntry* moved = e;
      if (moved->device.index() != index) {  // renumber: a fresh entry keeps names consistent
        DeviceInfo base = moved->info;
        moved = make_entry(t, physical.type(), index, e->physical_index, base, 0);
        moved->info.is_logical = e->info.is_logical;
      }
      next.push_back(moved);
      ++index;
      continue;
    }
    if (done) continue;
    done = true;
    DeviceInfo base = physical_info(physical.type(), physical.index(), t.backends[static_cast<int>(physical.type())]);
    for (int k = 0; k < count; ++k) {
      DeviceEntry* le = make_entry(t, physical.type(), index++, physical.index(), base,
                                   limits.empty() ? 0 : limits[k]);
      le->info.is_logical = count > 1 || !limits.empty();
      next.push_back(le);
    }
  }
  EMBER_CHECK_ARG(next.size() <= size_t(kMaxDevicesPerType), "set_logical_devices: at most {} devices per type",
                  kMaxDevicesPerType);
  for (size_t i = 0; i < next.size(); ++i) tt.entries[i].store(next[i], std::memory_order_release);
  tt.count.store(int(next.size()), std::memory_order_release);
}

void mark_used(DeviceEntry& entry) {
  if (entry.used) return;
  for (DeviceEntry* e : devices_of(entry.device.type()))
    if (e->physical_index == entry.physical_index) e->used = true;
}

}  // namespace ember::detail
