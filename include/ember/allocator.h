#pragma once
/// RawAllocator: where a device's caching allocator gets its memory (cudaMalloc,
/// aligned OS memory, a user backend's memory, or a counting fake in tests).

#include <cstddef>

#include "ember/export.h"

namespace ember {

class EMBER_API RawAllocator {
 public:
  virtual ~RawAllocator() = default;
  /// Returns nullptr when the memory is not available (never throws for that).
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr, size_t bytes) = 0;
};

/// Events on a backend's streams, so its caching allocator can tell when a block freed
/// while in use on other streams (Tensor::record_stream) may be reused.
class EMBER_API StreamEvents {
 public:
  virtual ~StreamEvents() = default;
  virtual void* record(void* stream) = 0;  // records an event on stream, returns it
  virtual bool query(void* event) = 0;     // true when the event has completed
  virtual void destroy(void* event) = 0;
};

}  // namespace ember
