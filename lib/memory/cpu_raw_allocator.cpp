#include "memory/cpu_raw_allocator.h"

#include <sys/mman.h>

#include <cstdlib>

namespace ember::detail {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kHugePage = size_t{2} << 20;

class CpuRawAllocator final : public RawAllocator {
 public:
  void* allocate(size_t bytes) override {
    size_t alignment = bytes >= kHugePage ? kHugePage : kAlignment;
    void* ptr = nullptr;
    if (posix_memalign(&ptr, alignment, bytes == 0 ? kAlignment : bytes) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
    // Advice only: fewer TLB misses on large tensors; failure changes nothing.
    if (bytes >= kHugePage) madvise(ptr, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
    return ptr;
  }
  void deallocate(void* ptr, size_t /*bytes*/) override { std::free(ptr); }
};

}  // namespace

RawAllocator* cpu_raw_allocator() {
  static RawAllocator* instance = new CpuRawAllocator();  // intentionally never destroyed
  return instance;
}

}  // namespace ember::detail
