// Device discovery and configuration: list_physical_devices, list_logical_devices,
// describe_devices, set_logical_devices, register_backend.
#include <set>

#include "core/check.h"
#include "ember/device_api.h"
#include "ember/registry.h"
#include "placement/device_table.h"

namespace ember {

namespace {
std::vector<DeviceType> types_of(std::optional<DeviceType> type) {
  if (type) return {*type};
  return {kCPU, kCUDA, kPrivateUse1};
}
std::string bytes_str(size_t b) {
  if (b >= (size_t(1) << 30)) return fmt::format("{:.2f} GiB", double(b) / double(size_t(1) << 30));
  return fmt::format("{:.2f} MiB", double(b) / double(size_t(1) << 20));
}
}  // namespace

std::vector<DeviceInfo> list_physical_devices(std::optional<DeviceType> type) {
  std::vector<DeviceInfo> out;
  for (DeviceType t : types_of(type)) {
    std::set<int> seen;
    for (detail::DeviceEntry* e : detail::devices_of(t)) {
      if (!seen.insert(e->physical_index).second) continue;
      DeviceInfo info = e->info;
      info.device = Device(t, e->physical_index);
      info.is_logical = false;
      out.push_back(info);
    }
  }
  return out;
}

std::vector<DeviceInfo> list_logical_devices(std::optional<DeviceType> type) {
  std::vector<DeviceInfo> out;
  for (DeviceType t : types_of(type))
    for (detail::DeviceEntry* e : detail::devices_of(t)) out.push_back(e->info);
  return out;
}

std::string describe_devices() {
  std::string s = fmt::format("{:<44} {:<40} {:>12} {:>12} {:>6} {:<14}\n", "device", "name", "memory",
                              "limit", "cc", "pci bus id");
  for (const DeviceInfo& d : list_logical_devices()) {
    std::string cc = d.cc_major ? fmt::format("{}.{}", d.cc_major, d.cc_minor) : "-";
    s += fmt::format("{:<44} {:<40} {:>12} {:>12} {:>6} {:<14}\n", d.device.tf_str(), d.name.substr(0, 40),
                     bytes_str(d.memory_total), bytes_str(d.memory_limit), cc,
                     d.pci_bus_id.empty() ? "-" : d.pci_bus_id);
  }
  return s;
}

void set_logical_devices(Device physical, int count, std::vector<size_t> memory_limits) {
  detail::split_logical(physical, count, memory_limits);
}

void register_backend(DeviceType type, Backend* backend, const std::string& name) {
  EMBER_CHECK_ARG(backend != nullptr, "register_backend: null backend");
  EMBER_CHECK_ARG(type != kCPU, "register_backend: the CPU backend is built in");
  if (type == kPrivateUse1 && !name.empty()) register_privateuse1_name(name);
  detail::install_backend(type, backend);
}

}  // namespace ember
