#pragma once
/// ember::cuda: GPU queries, streams and events. Present in every build; without a GPU
/// or driver it reports zero devices.

#include <cstdint>

#include "ember/export.h"

namespace ember::cuda {

EMBER_API bool is_available();
EMBER_API int device_count();
/// Whether GPU convolutions run through cuDNN: ember was built with it and a GPU exists.
EMBER_API bool cudnn_is_available();
/// Waits for all work on the device (-1: the current one).
EMBER_API void synchronize(int device = -1);
/// float32 matmul and cuDNN convolution on tensor cores (TF32); default false (libtorch
/// defaults cuDNN convolutions to TF32; ember keeps float32 exact unless asked).
EMBER_API void set_allow_tf32(bool allow);
EMBER_API bool allow_tf32();
/// Seeds the CUDA generator, as torch::cuda::manual_seed / manual_seed_all: ember keeps one
/// counter-based generator for all GPUs (its streams do not depend on the device), so both
/// seed that one.
EMBER_API void manual_seed(uint64_t seed);
EMBER_API void manual_seed_all(uint64_t seed);

/// A CUDA stream on one device; the default stream has handle null.
class EMBER_API Stream {
 public:
  Stream() = default;
  Stream(int device, void* handle) : device_(device), handle_(handle) {}
  int device_index() const { return device_; }
  void* handle() const { return handle_; }
  void synchronize() const;
  bool query() const;
  bool operator==(const Stream& o) const { return device_ == o.device_ && handle_ == o.handle_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  int device_ = 0;
  void* handle_ = nullptr;
};

/// The current stream of a device on this thread (-1: the current device).
EMBER_API Stream current_stream(int device = -1);
/// A new stream from the pool of that device.
EMBER_API Stream new_stream(int device = -1);

/// Makes `stream` current for its device until destruction, then restores the previous one.
class EMBER_API StreamGuard {
 public:
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

class EMBER_API Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(Stream stream);
  void synchronize();
  bool query();
  /// Milliseconds from this event to `end`; both recorded and complete.
  double elapsed_ms(const Event& end);

 private:
  void* handle_ = nullptr;
  int device_ = -1;
};

}  // namespace ember::cuda
