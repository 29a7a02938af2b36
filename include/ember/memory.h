#pragma once
/// Memory settings and statistics of each device's caching allocator (API.md section 6).

#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/device.h"
#include "ember/export.h"

namespace ember::memory {

/// true (default): grow on demand; false: reserve the limit at the first allocation.
EMBER_API void set_memory_growth(Device device, bool enabled);
/// Hard cap on what the allocator reserves on that device.
EMBER_API void set_memory_limit(Device device, size_t bytes);
/// per_process_gpu_memory_fraction: limit = fraction * the device's total memory.
EMBER_API void set_memory_fraction(Device device, double fraction);

struct MemoryStats {
  size_t allocated_bytes = 0, peak_allocated_bytes = 0;  // held by live tensors
  size_t reserved_bytes = 0, peak_reserved_bytes = 0;    // obtained from the driver / OS
  size_t limit_bytes = 0, largest_free_block = 0;
  uint64_t num_allocs = 0, num_frees = 0, num_device_allocs = 0, num_cache_hits = 0, num_ooms = 0;
};
EMBER_API MemoryStats stats(Device device);
EMBER_API void reset_peak_stats(Device device);
/// A readable table, like torch.cuda.memory_summary().
EMBER_API std::string summary(Device device);

}  // namespace ember::memory
