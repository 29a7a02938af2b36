// PLACEHOLDER until the caching allocator lands.
#include "memory/cpu_raw_allocator.h"
#include <cstdlib>
namespace ember::detail {
namespace { struct CpuRaw : RawAllocator {
  void* allocate(size_t n) override { return std::aligned_alloc(64, (n + 63) / 64 * 64); }
  void deallocate(void* p, size_t) override { std::free(p); } }; }
RawAllocator* cpu_raw_allocator() { static CpuRaw r; return &r; }
}
