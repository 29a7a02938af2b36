// ember::cuda (include/ember/cuda.h): device queries, per-thread current streams, the
// stream pool, stream guards and events; plus the internal helpers of cuda_context.h.
// With no GPU or driver the queries report zero devices; what needs a device throws
// InvalidArgument, and waiting on nothing (synchronize, query) is a no-op, as in no_cuda.cpp.
#include <array>
#include <atomic>
#include <mutex>
#include <vector>

#include "core/check.h"
#include "cuda/cuda_context.h"
#include "ember/scalar_type.h"
#include "ember/cuda.h"

namespace ember::detail {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw DeviceError(fmt::format("CUDA error {} ({}): {} in {} at {}:{}", cudaGetErrorName(err), int(err),
                                cudaGetErrorString(err), call, file, line));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw DeviceError(fmt::format("cuBLAS error {} ({}): {} in {} at {}:{}", cublasGetStatusName(status),
                                int(status), cublasGetStatusString(status), call, file, line));
}

void throw_cuda_dtype(const char* kernel, ScalarType dtype) {
  EMBER_THROW(NotImplemented, "{}: no CUDA kernel for dtype {}", kernel, name(dtype));
}

int cuda_device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // "driver insufficient" or "no device": zero GPUs
      n = 0;
    }
    return n;
  }();
  return count;
}

int cuda_checked_device(int device, const char* what) {
  const int n = cuda_device_count();
  EMBER_CHECK_ARG(n > 0, "{}: no CUDA device is available (cuda::device_count() is 0)", what);
  if (device < 0) EMBER_CUDA_CHECK(cudaGetDevice(&device));
  EMBER_CHECK_ARG(device < n, "{}: CUDA device {} does not exist, available devices: cuda:0 .. cuda:{}", what,
                  device, n - 1);
  return device;
}

namespace {

constexpr int kMaxDevices = 64;
constexpr int kStreamsPerPool = 32;

// Thread-local current stream per device; null (the default stream) until set.
thread_local std::array<cudaStream_t, kMaxDevices> t_current_streams{};

struct StreamPool {
  std::once_flag once;
  cudaStream_t streams[kStreamsPerPool] = {};
  std::atomic<unsigned> next{0};
};
StreamPool g_pools[kMaxDevices];

std::atomic<bool> g_allow_tf32{false};

}  // namespace

cudaStream_t cuda_current_stream(int device) { return t_current_streams[device]; }
void cuda_set_current_stream(int device, cudaStream_t stream) { t_current_streams[device] = stream; }

CudaDeviceGuard::CudaDeviceGuard(int device) {
  if (cuda_device_count() <= 1) return;
  int current = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    EMBER_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

CudaDeviceGuard::~CudaDeviceGuard() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

int cuda_device_of(const void* ptr) {
  if (cuda_device_count() <= 1) return 0;
  cudaPointerAttributes attr{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
  return attr.device;
}

}  // namespace ember::detail

namespace ember::cuda {

using detail::cuda_checked_device;
using detail::cuda_device_count;

bool is_available() { return cuda_device_count() > 0; }
int device_count() { return cuda_device_count(); }
#ifdef EMBER_WITH_CUDNN
bool cudnn_is_available() { return cuda_device_count() > 0; }
#else
bool cudnn_is_available() { return false; }
#endif

void synchronize(int device) {
  if (cuda_device_count() == 0) return;  // nothing can be pending
  device = cuda_checked_device(device, "cuda::synchronize");
  detail::CudaDeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

void set_allow_tf32(bool allow) { detail::g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return detail::g_allow_tf32.load(std::memory_order_relaxed); }

void Stream::synchronize() const {
  if (cuda_device_count() == 0) return;
  detail::CudaDeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)));
}

bool Stream::query() const {
  if (cuda_device_count() == 0) return true;
  detail::CudaDeviceGuard guard(device_);
  const cudaError_t err = cudaStreamQuery(static_cast<cudaStream_t>(handle_));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

Stream current_stream(int device) {
  device = cuda_checked_device(device, "cuda::current_stream");
  return Stream(device, detail::cuda_current_stream(device));
}

Stream new_stream(int device) {
  device = cuda_checked_device(device, "cuda::new_stream");
  detail::StreamPool& pool = detail::g_pools[device];
  std::call_once(pool.once, [&] {
    detail::CudaDeviceGuard guard(device);
    for (cudaStream_t& s : pool.streams) EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  });
  const unsigned i = pool.next.fetch_add(1, std::memory_order_relaxed) % detail::kStreamsPerPool;
  return Stream(device, pool.streams[i]);
}

StreamGuard::StreamGuard(Stream stream) {
  const int device = cuda_checked_device(stream.device_index(), "cuda::StreamGuard");
  previous_ = Stream(device, detail::t_current_streams[device]);
  detail::t_current_streams[device] = static_cast<cudaStream_t>(stream.handle());
}

StreamGuard::~StreamGuard() {
  detail::t_current_streams[previous_.device_index()] = static_cast<cudaStream_t>(previous_.handle());
}

Event::Event() = default;

Event::~Event() {
  if (handle_) {
    detail::CudaDeviceGuard guard(device_);
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
  }
}

void Event::record(Stream stream) {
  const int device = cuda_checked_device(stream.device_index(), "cuda::Event::record");
  EMBER_CHECK_ARG(handle_ == nullptr || device == device_,
                  "cuda::Event::record: the event belongs to cuda:{}, the stream to cuda:{}", device_, device);
  detail::CudaDeviceGuard guard(device);
  if (!handle_) {  // created lazily, on the stream's device
    cudaEvent_t ev = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreate(&ev));
    handle_ = ev;
    device_ = device;
  }
  EMBER_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(handle_), static_cast<cudaStream_t>(stream.handle())));
}

void Event::synchronize() {
  if (!handle_) return;  // never recorded: nothing to wait for
  detail::CudaDeviceGuard guard(device_);
  EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)));
}

bool Event::query() {
  if (!handle_) return true;
  detail::CudaDeviceGuard guard(device_);
  const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(handle_));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return true;
}

double Event::elapsed_ms(const Event& end) {
  EMBER_CHECK_ARG(cuda_device_count() > 0, "cuda::Event::elapsed_ms: no CUDA device is available");
  EMBER_CHECK_ARG(handle_ && end.handle_, "cuda::Event::elapsed_ms: both events must be recorded first");
  detail::CudaDeviceGuard guard(device_);
  float ms = 0;
  EMBER_CUDA_CHECK(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(handle_), static_cast<cudaEvent_t>(end.handle_)));
  return ms;
}

}  // namespace ember::cuda
