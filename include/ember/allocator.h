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

}  // namespace ember
