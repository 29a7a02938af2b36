// Stands in for the CUDA backend when ember is built without CUDA: no kernels, no
// devices, and the ember::cuda queries report none.
#include "core/check.h"
#include "ember/cuda.h"
#include "kernels_registration.h"

namespace ember::detail {
void register_cuda_kernels() {}
}  // namespace ember::detail

namespace ember::cuda {

bool is_available() { return false; }
int device_count() { return 0; }
bool cudnn_is_available() { return false; }
void synchronize(int) {}
namespace {
bool g_allow_tf32 = false;
}
void set_allow_tf32(bool allow) { g_allow_tf32 = allow; }
bool allow_tf32() { return g_allow_tf32; }

void Stream::synchronize() const {}
bool Stream::query() const { return true; }
Stream current_stream(int) { EMBER_THROW(InvalidArgument, "cuda::current_stream: no CUDA device is available (ember was built without CUDA)"); }
Stream new_stream(int) { EMBER_THROW(InvalidArgument, "cuda::new_stream: no CUDA device is available (ember was built without CUDA)"); }
StreamGuard::StreamGuard(Stream stream) : previous_(stream) {
  EMBER_THROW(InvalidArgument, "cuda::StreamGuard: no CUDA device is available (ember was built without CUDA)");
}
StreamGuard::~StreamGuard() = default;
Event::Event() = default;
Event::~Event() = default;
void Event::record(Stream) { EMBER_THROW(InvalidArgument, "cuda::Event::record: no CUDA device is available (ember was built without CUDA)"); }
void Event::synchronize() {}
bool Event::query() { return true; }
double Event::elapsed_ms(const Event&) {
  EMBER_THROW(InvalidArgument, "cuda::Event::elapsed_ms: no CUDA device is available (ember was built without CUDA)");
}

}  // namespace ember::cuda
