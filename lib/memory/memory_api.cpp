// ember::memory: settings and statistics of each device's caching allocator.
#include "core/check.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"
#include "placement/device_table.h"
#include "placement/placement.h"
#include "ember/cuda.h"
#include "placement/device_streams.h"

namespace ember::memory {

namespace {
detail::CachingAllocator& allocator(Device d) { return detail::allocator_for(detail::resolve_index(d)); }
}  // namespace

void set_memory_growth(Device device, bool enabled) {
  const Device d = detail::resolve_index(device);
  detail::CachingAllocator& a = allocator(d);
  EMBER_CHECK_ARG(enabled || !d.is_cpu() || a.has_limit(),
                  "set_memory_growth: turning growth off on {} ({}) needs a memory limit; call "
                  "set_memory_limit or set_memory_fraction first",
                  d.tf_str(), d.str());
  a.set_growth(enabled);
}
void set_memory_limit(Device device, size_t bytes) { allocator(device).set_limit(bytes); }
void set_memory_fraction(Device device, double fraction) { allocator(device).set_fraction(fraction); }
MemoryStats stats(Device device) { return allocator(device).stats(); }
void reset_peak_stats(Device device) { allocator(device).reset_peak_stats(); }
std::string summary(Device device) { return allocator(device).summary(); }

}  // namespace ember::memory

namespace ember {
void Tensor::record_stream(const cuda::Stream& stream) const {
  EMBER_CHECK_ARG(defined(), "record_stream: undefined tensor");
  EMBER_CHECK_ARG(is_cuda(), "record_stream: expects a CUDA tensor, got one on {}", device().str());
  detail::record_stream_use(*this, stream.handle());
}
}  // namespace ember
