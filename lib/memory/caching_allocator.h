#pragma once
// PLACEHOLDER until the caching allocator lands (same interface).
#include <cstddef>
#include <string>
#include "ember/allocator.h"
#include "ember/device.h"
#include "ember/memory.h"
namespace ember::detail {
class StreamEvents {
 public:
  virtual ~StreamEvents() = default;
  virtual void* record(void* stream) = 0;
  virtual bool query(void* event) = 0;
  virtual void destroy(void* event) = 0;
};
class CachingAllocator {
 public:
  CachingAllocator(Device device, RawAllocator* raw, size_t total_bytes, size_t default_limit,
                   StreamEvents* events = nullptr);
  ~CachingAllocator();
  void* allocate(size_t bytes, void* stream, void** context);
  static void free(void* context, void* data);
  static void record_stream(void* context, void* stream);
  void set_growth(bool enabled);
  void set_limit(size_t bytes);
  void set_fraction(double fraction);
  bool used() const;
  memory::MemoryStats stats() const;
  void reset_peak_stats();
  std::string summary() const;
  Device device() const { return device_; }
 private:
  Device device_; RawAllocator* raw_; memory::MemoryStats stats_{}; bool used_ = false;
};
}
