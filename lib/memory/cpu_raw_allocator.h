#pragma once
// The RawAllocator behind every CPU device's caching allocator: aligned OS memory.

#include "ember/allocator.h"

namespace ember::detail {

/// 64-byte aligned memory (2 MiB aligned, with transparent huge pages advised, for
/// segments of 2 MiB and more). A process-wide instance that is never destroyed, so
/// caching allocators torn down at exit can still return their segments.
RawAllocator* cpu_raw_allocator();

}  // namespace ember::detail
