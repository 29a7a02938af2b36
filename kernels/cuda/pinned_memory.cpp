// Pinned (page-locked) host memory for asynchronous host-to-device copies, cached by
// the same CachingAllocator as device memory: a staging block is handed back right
// after its copy is queued, and record_stream keeps it from reuse until the copy's
// event has completed (Note [Caching allocator block lifecycle]).
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/cuda_context.h"
#include "cuda/cuda_kernels.h"
#include "ember/allocator.h"
#include "memory/caching_allocator.h"

namespace ember::detail {

namespace {

class PinnedRawAllocator final : public RawAllocator {
 public:
  void* allocate(size_t bytes) override {
    void* ptr = nullptr;
    const cudaError_t err = cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return ptr;
  }
  void deallocate(void* ptr, size_t) override { EMBER_CUDA_CHECK(cudaFreeHost(ptr)); }
};

// One pinned pool per GPU, so its events are recorded on that GPU's streams.
CachingAllocator& pinned_allocator(int device) {
  static std::mutex mutex;
  static PinnedRawAllocator raw;
  static std::vector<std::unique_ptr<CachingAllocator>>* pools = new std::vector<std::unique_ptr<CachingAllocator>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (pools->size() <= size_t(device)) pools->resize(size_t(device) + 1);
  auto& pool = (*pools)[size_t(device)];
  if (!pool) {
    // Pinned memory is a scarce, unswappable resource: cap it well below host memory.
    constexpr size_t kPinnedLimit = size_t(4) << 30;
    pool = std::make_unique<CachingAllocator>(Device(kCPU, 0), &raw, kPinnedLimit, kPinnedLimit,
                                              cuda_stream_events(device));
  }
  return *pool;
}

}  // namespace

void copy_host_to_device_async(void* dst, const void* src, size_t nbytes, int device, cudaStream_t stream) {
  CachingAllocator& pool = pinned_allocator(device);
  void* block = nullptr;
  void* staging = pool.allocate(nbytes, nullptr, &block);
  std::memcpy(staging, src, nbytes);
  const cudaError_t err = cudaMemcpyAsync(dst, staging, nbytes, cudaMemcpyHostToDevice, stream);
  if (err == cudaSuccess) CachingAllocator::record_stream(block, stream);
  CachingAllocator::free(block, staging);  // reusable once the event on `stream` completes
  EMBER_CUDA_CHECK(err);
}

// Pinned tensors come from the driver, not the staging pool: they live as long as the user
// keeps them (the pool's cap is for transient staging). Copies to and from them run
// without staging, so before their memory goes back every GPU finishes its queued work.
void* allocate_pinned_host(size_t nbytes) {
  void* ptr = nullptr;
  const cudaError_t err = cudaHostAlloc(&ptr, std::max<size_t>(nbytes, 1), cudaHostAllocPortable);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    EMBER_THROW(OutOfMemory, "pin_memory: could not page-lock {} bytes of host memory", nbytes);
  }
  EMBER_CUDA_CHECK(err);
  return ptr;
}

// A storage's deleter must not throw: errors here leave the memory to the process's end.
void free_pinned_host(void*, void* ptr) {
  int previous = 0;
  (void)cudaGetDevice(&previous);
  for (int device = 0; device < cuda_device_count(); ++device) {
    (void)cudaSetDevice(device);
    (void)cudaDeviceSynchronize();
  }
  (void)cudaSetDevice(previous);
  (void)cudaFreeHost(ptr);
  (void)cudaGetLastError();
}

bool is_pinned_host(const void* ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // memory CUDA has never seen: not pinned
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace ember::detail
