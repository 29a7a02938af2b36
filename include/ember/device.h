#pragma once
/// Devices (API.md section 1): a small value type, parsed from TensorFlow- and
/// libtorch-style strings. Parsing never consults hardware.
///
/// Note [CPU device index]
/// libtorch has one CPU, Device(kCPU) (index -1, printed "cpu"), and its tensors report it.
/// ember may split the CPU into logical devices cpu:0 .. cpu:n-1 (set_logical_devices), so
/// index -1 means "the CPU": the first of them, cpu:0. The rule (API.md section 16):
///  - wherever ember compares devices, Device(kCPU) == Device(kCPU, 0), and std::hash agrees;
///    libtorch 1.13 says Device(kCPU) != Device(kCPU, 0): ember differs there on purpose;
///  - tensors on cpu:0 report Device(kCPU) (index() -1, has_index() false, str() "cpu"), as
///    libtorch's do; tensors on a logical cpu:1 report cpu:1;
///  - Device(kCPU) resolves to cpu:0 wherever a concrete device is needed (creation options,
///    to(), scopes), and its TensorFlow name is ".../device:CPU:0";
///  - for CUDA and PrivateUse1, -1 still means "the current device of that type", resolved
///    when used, and equals no concrete index.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "ember/export.h"

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, PrivateUse1 = 2 };
inline constexpr int kNumDeviceTypes = 3;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

/// Lower-case name of a device type: "cpu", "cuda", or the registered PrivateUse1 name.
EMBER_API std::string device_type_name(DeviceType t);
/// Name under which device strings spell the PrivateUse1 type (e.g. "npu").
EMBER_API void register_privateuse1_name(const std::string& name);

class EMBER_API Device {
 public:
  using Type = DeviceType;
  /// index -1 means "the current device of that type", resolved when used; for the CPU it
  /// is cpu:0 (Note [CPU device index]).
  Device(DeviceType type, int index = -1) : type_(type), index_(static_cast<int16_t>(index)) {
    if (__builtin_expect(index < -1 || index > 32767, 0)) throw_bad_index(type, index);
  }
  /// Parses "cpu", "cuda:1", "gpu:1", "/gpu:0", "/device:GPU:1", "/job:localhost/replica:0/task:0/device:GPU:0".
  /// Throws InvalidArgument quoting the string.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_privateuse1() const { return type_ == DeviceType::PrivateUse1; }

  /// libtorch form: "cpu", "cpu:1", "cuda:0".
  std::string str() const;
  /// TensorFlow form: "/job:localhost/replica:0/task:0/device:GPU:0" (Device(kCPU): "...:CPU:0").
  std::string tf_str() const;

  /// Device(kCPU) and cpu:0 are one device (Note [CPU device index]); other -1s stay apart.
  bool operator==(const Device& o) const {
    return type_ == o.type_ && compared_index() == o.compared_index();
  }
  bool operator!=(const Device& o) const { return !(*this == o); }
  /// The index that equality and std::hash see: 0 for Device(kCPU), index() otherwise.
  int compared_index() const { return type_ == DeviceType::CPU && index_ < 0 ? 0 : index_; }

 private:
  [[noreturn]] static void throw_bad_index(DeviceType type, int index);
  DeviceType type_;
  int16_t index_;
};

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  size_t operator()(const ember::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 16) ^ static_cast<size_t>(d.compared_index() + 1);
  }
};

namespace ember {
/// libtorch's printing: "cpu", "cuda:1" (Device::str()); a device type in lower case.
EMBER_API std::ostream& operator<<(std::ostream& stream, const Device& device);
EMBER_API std::ostream& operator<<(std::ostream& stream, DeviceType type);
}  // namespace ember
