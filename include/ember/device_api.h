#pragma once
/// Devices and placement (API.md section 5): discovery, logical devices, scopes,
/// placement policy, soft placement and placement logging, after TensorFlow's model.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/export.h"

namespace ember {

struct DeviceInfo {
  Device device{kCPU, 0};
  std::string name;            // "NVIDIA H100 80GB HBM3", the CPU's model name
  size_t memory_total = 0;     // bytes
  size_t memory_limit = 0;     // bytes, after growth / limit settings
  int cc_major = 0, cc_minor = 0, multiprocessors = 0;  // 0 for CPU
  std::string pci_bus_id;      // "" for CPU
  bool is_logical = false;     // created by set_logical_devices
};

/// tf.config.list_physical_devices
EMBER_API std::vector<DeviceInfo> list_physical_devices(std::optional<DeviceType> type = {});
/// tf.config.list_logical_devices
EMBER_API std::vector<DeviceInfo> list_logical_devices(std::optional<DeviceType> type = {});
/// A readable table, like device_lib.list_local_devices().
EMBER_API std::string describe_devices();

/// Splits a physical device into `count` logical devices <type>:0 .. <type>:count-1, each
/// with its own allocator; allowed until the physical device's first use.
EMBER_API void set_logical_devices(Device physical, int count, std::vector<size_t> memory_limits = {});

/// with tf.device(...): RAII, nestable, per thread. The device is checked when an op runs.
class EMBER_API DeviceScope {
 public:
  explicit DeviceScope(Device device);
  explicit DeviceScope(const std::string& spec) : DeviceScope(Device(spec)) {}
  explicit DeviceScope(const char* spec) : DeviceScope(Device(spec)) {}
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  DeviceScope(DeviceScope&&) = delete;
  DeviceScope& operator=(DeviceScope&&) = delete;

 private:
  int depth_;
};

/// The innermost DeviceScope's device on this thread, else the default device.
EMBER_API Device current_device();
/// Process-wide default device for creation ops outside any scope (initially cpu:0).
EMBER_API void set_default_device(Device device);

enum class Placement {
  FollowInputs,       // an op runs where its tensor inputs live (libtorch)
  PreferAccelerator,  // TF: an unscoped op whose inputs are on the CPU (and a creation op, when the
                      // default device is cpu:0) runs on gpu:0, else on device 0 of a registered
                      // PrivateUse1 backend, when it exists and has a kernel there
};
EMBER_API void set_placement(Placement policy);
EMBER_API Placement placement();
EMBER_API void set_soft_device_placement(bool enabled);
EMBER_API void set_log_device_placement(bool enabled);
/// Where placement log lines go; default: stderr. An empty function restores stderr.
EMBER_API void set_placement_log_sink(std::function<void(const std::string& line)> sink);

}  // namespace ember
