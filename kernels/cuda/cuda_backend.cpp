// The CUDA Backend (device discovery, cudaMalloc-backed raw allocators, copies,
// synchronization, current streams), the cudaEvent-based StreamEvents the caching
// allocator uses to reuse blocks across streams, and register_cuda_kernels().
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/check.h"
#include "cuda/cuda_context.h"
#include "cuda/cuda_kernels.h"
#include "ember/allocator.h"
#include "ember/registry.h"
#include "kernels_registration.h"
#include "memory/caching_allocator.h"
#include "placement/device_table.h"

namespace ember::detail {

namespace {

// What the CUDA context and the cuBLAS workspaces take out of a GPU's memory before
// ember allocates anything; the default limit leaves it free.
constexpr size_t kContextMargin = size_t(512) << 20;

class CudaRawAllocator final : public RawAllocator {
 public:
  explicit CudaRawAllocator(int device) : device_(device) {}
  void* allocate(size_t bytes) override {
    CudaDeviceGuard guard(device_);
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it so later calls do not see it
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return ptr;
  }
  void deallocate(void* ptr, size_t) override {
    CudaDeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }

 private:
  int device_;
};

// Events for the caching allocator's cross-stream reuse: recorded on the stream that
// used a block; the block is reusable once the event has completed.
class CudaStreamEvents final : public StreamEvents {
 public:
  explicit CudaStreamEvents(int device) : device_(device) {}
  void* record(void* stream) override {
    CudaDeviceGuard guard(device_);
    cudaEvent_t ev = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(ev, static_cast<cudaStream_t>(stream)));
    return ev;
  }
  bool query(void* event) override {
    CudaDeviceGuard guard(device_);
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    EMBER_CUDA_CHECK(err);
    return true;
  }
  void destroy(void* event) override {
    CudaDeviceGuard guard(device_);
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }

 private:
  int device_;
};

class CudaBackend final : public Backend {
 public:
  int device_count() override { return cuda_device_count(); }

  DeviceInfo device_info(int index) override {
    index = cuda_checked_device(index, "cuda device_info");
    cudaDeviceProp prop{};
    EMBER_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
    DeviceInfo info;
    info.device = Device(kCUDA, index);
    info.name = prop.name;
    info.memory_total = prop.totalGlobalMem;
    info.memory_limit = prop.totalGlobalMem > 2 * kContextMargin ? prop.totalGlobalMem - kContextMargin
                                                                  : prop.totalGlobalMem / 2;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    char bus_id[32] = {};
    EMBER_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, index));
    info.pci_bus_id = bus_id;
    return info;
  }

  RawAllocator* raw_allocator(int index) override {
    index = cuda_checked_device(index, "cuda raw_allocator");
    std::call_once(once_, [this] { make_per_device(); });
    return allocators_[index].get();
  }

  /// The events the caching allocator of physical device `index` uses for cross-stream reuse.
  StreamEvents* stream_events(int index) override {
    index = cuda_checked_device(index, "cuda stream_events");
    std::call_once(once_, [this] { make_per_device(); });
    return events_[index].get();
  }

  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes,
                  bool non_blocking) override {
    if (nbytes == 0) return;
    const bool dst_gpu = dst_device.is_cuda(), src_gpu = src_device.is_cuda();
    EMBER_CHECK_ARG(dst_gpu || src_gpu, "cuda copy_bytes: neither {} nor {} is a CUDA device", src_device.str(),
                    dst_device.str());
    if (dst_gpu && src_gpu && dst_device.index() != src_device.index())
      return copy_peer(dst, dst_device.index(), src, src_device.index(), nbytes, non_blocking);
    const int device = cuda_checked_device(dst_gpu ? dst_device.index() : src_device.index(), "cuda copy");
    const cudaMemcpyKind kind = dst_gpu && src_gpu ? cudaMemcpyDeviceToDevice
                                : dst_gpu          ? cudaMemcpyHostToDevice
                                                   : cudaMemcpyDeviceToHost;
    CudaDeviceGuard guard(device);
    cudaStream_t stream = cuda_current_stream(device);
    // Pageable memory is staged in the pinned pool; a pinned tensor's memory is copied from
    // directly (freeing it waits for the device, so it outlives the copy).
    if (non_blocking && kind == cudaMemcpyHostToDevice && !is_pinned_host(src))
      return copy_host_to_device_async(dst, src, nbytes, device, stream);
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, stream));
    if (!non_blocking) EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void synchronize(int index) override {
    index = cuda_checked_device(index, "cuda synchronize");
    CudaDeviceGuard guard(index);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void* allocate_pinned(size_t nbytes, DataDeleter* deleter, void** context) override {
    if (cuda_device_count() == 0) return nullptr;
    *deleter = &free_pinned_host;
    *context = nullptr;
    return allocate_pinned_host(nbytes);
  }

  bool is_pinned(const void* ptr) override { return cuda_device_count() > 0 && is_pinned_host(ptr); }

  void* current_stream(int index) override { return cuda_current_stream(index); }

  void set_current_stream(int index, void* stream) override {
    index = cuda_checked_device(index, "cuda set_current_stream");
    cuda_set_current_stream(index, static_cast<cudaStream_t>(stream));
  }

  // An event recorded on the producer, waited for by the waiter: neither blocks the host.
  void wait_stream(int index, void* waiter, void* producer) override {
    index = cuda_checked_device(index, "cuda wait_stream");
    CudaDeviceGuard guard(index);
    cudaEvent_t ready = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(ready, static_cast<cudaStream_t>(producer)));
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiter), ready, 0));
    (void)cudaEventDestroy(ready);  // released once its pending uses complete
  }

 private:
  void make_per_device() {
    const int n = cuda_device_count();
    for (int i = 0; i < n; ++i) {
      allocators_.push_back(std::make_unique<CudaRawAllocator>(i));
      events_.push_back(std::make_unique<CudaStreamEvents>(i));
    }
  }

  // GPU to GPU: ordered after the work already queued on both devices' current streams.
  void copy_peer(void* dst, int dd, const void* src, int sd, size_t nbytes, bool non_blocking) {
    dd = cuda_checked_device(dd, "cuda copy");
    sd = cuda_checked_device(sd, "cuda copy");
    cudaStream_t dst_stream = cuda_current_stream(dd), src_stream = cuda_current_stream(sd);
    cudaEvent_t dst_ready = nullptr, done = nullptr;
    {
      CudaDeviceGuard guard(dd);
      EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming));
      EMBER_CUDA_CHECK(cudaEventRecord(dst_ready, dst_stream));
    }
    CudaDeviceGuard guard(sd);
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(src_stream, dst_ready, 0));
    EMBER_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dd, src, sd, nbytes, src_stream));
    (void)cudaEventDestroy(dst_ready);  // released once its pending uses complete
    if (!non_blocking) {
      EMBER_CUDA_CHECK(cudaStreamSynchronize(src_stream));
      return;
    }
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(done, src_stream));
    {
      CudaDeviceGuard dst_guard(dd);
      EMBER_CUDA_CHECK(cudaStreamWaitEvent(dst_stream, done, 0));
    }
    (void)cudaEventDestroy(done);
  }

  std::once_flag once_;
  std::vector<std::unique_ptr<CudaRawAllocator>> allocators_;
  std::vector<std::unique_ptr<CudaStreamEvents>> events_;
};

CudaBackend& cuda_backend() {
  static CudaBackend* backend = new CudaBackend();  // never destroyed: tensors may outlive statics
  return *backend;
}

}  // namespace

StreamEvents* cuda_stream_events(int device) { return cuda_backend().stream_events(device); }

int cuda_sm_count(int device) {
  static std::array<std::atomic<int>, 64> counts{};  // 0: not asked yet
  if (device < 0 || device >= int(counts.size())) return 132;
  int n = counts[size_t(device)].load(std::memory_order_relaxed);
  if (n > 0) return n;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n <= 0) {
    (void)cudaGetLastError();
    n = 132;
  }
  counts[size_t(device)].store(n, std::memory_order_relaxed);
  return n;
}

// Scratch comes from the allocator of the first (logical) device on the physical GPU: all
// of them share its memory, and the block is back in that cache when the scratch dies.
CudaScratch::CudaScratch(int device, size_t bytes) {
  DeviceEntry* entry = nullptr;
  for (DeviceEntry* e : devices_of(kCUDA))
    if (e->physical_index == device) {
      entry = e;
      break;
    }
  EMBER_CHECK_ARG(entry != nullptr, "cuda scratch: CUDA device {} does not exist", device);
  if (!entry->used) mark_used(*entry);
  data_ = entry->allocator->allocate(bytes, cuda_current_stream(device), &context_);
}

CudaScratch::~CudaScratch() {
  if (data_) CachingAllocator::free(context_, data_);
}

void register_cuda_kernels() {
  install_backend(kCUDA, &cuda_backend());
  register_cuda_fill_kernels();
  register_cuda_unary_kernels();
  register_cuda_special_kernels();
  register_cuda_binary_kernels();
  register_cuda_ternary_kernels();
  register_cuda_matmul_kernels();
  register_cuda_reduce_kernels();
  register_cuda_dim_kernels();
  register_cuda_select_kernels();
  register_cuda_index_kernels();
  register_cuda_optim_kernels();
#ifdef EMBER_WITH_CUDNN
  register_cuda_cudnn_kernels();
#endif
}

}  // namespace ember::detail
