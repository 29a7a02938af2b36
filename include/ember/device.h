#pragma once
/// Devices (API.md section 1): a small value type, parsed from TensorFlow- and
/// libtorch-style strings. Parsing never consults hardware.

#include <cstdint>
#include <functional>
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
  /// index -1 means "the current device of that type", resolved when used.
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
  /// TensorFlow form: "/job:localhost/replica:0/task:0/device:GPU:0".
  std::string tf_str() const;

  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  [[noreturn]] static void throw_bad_index(DeviceType type, int index);
  DeviceType type_;
  int16_t index_;
};

}  // namespace ember

template <>
struct std::hash<ember::Device> {
  size_t operator()(const ember::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 16) ^ static_cast<size_t>(d.index() + 1);
  }
};
