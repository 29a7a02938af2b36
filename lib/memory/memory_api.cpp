// ember::memory: settings and statistics of each device's caching allocator.
#include <mutex>
#include <set>

#include "core/check.h"
#include "ember/memory.h"
#include "memory/caching_allocator.h"
#include "placement/device_table.h"
#include "placement/placement.h"
#include "ember/cuda.h"

namespace ember::memory {

namespace {
detail::CachingAllocator& allocator(Device d) { return detail::allocator_for(detail::resolve_index(d)); }
}  // namespace

namespace {
// CPU devices whose limit was set explicitly: growth off needs one (API.md section 6).
std::mutex g_limited_mutex;
std::set<std::pair<int, int>> g_limited;
void mark_limited(Device d) {
  std::lock_guard<std::mutex> lock(g_limited_mutex);
  g_limited.insert({int(d.type()), d.index()});
}
bool is_limited(Device d) {
  std::lock_guard<std::mutex> lock(g_limited_mutex);
  return g_limited.count({int(d.type()), d.index()}) != 0;
}
}  // namespace

void set_memory_growth(Device device, bool enabled) {
  const Device d = detail::resolve_index(device);
  EMBER_CHECK_ARG(enabled || !d.is_cpu() || is_limited(d),
                  "set_memory_growth: turning growth off on {} ({}) needs a memory limit; call "
                  "set_memory_limit or set_memory_fraction first",
                  d.tf_str(), d.str());
  allocator(d).set_growth(enabled);
}
void set_memory_limit(Device device, size_t bytes) {
  const Device d = detail::resolve_index(device);
  allocator(d).set_limit(bytes);
  mark_limited(d);
}
void set_memory_fraction(Device device, double fraction) {
  const Device d = detail::resolve_index(device);
  allocator(d).set_fraction(fraction);
  mark_limited(d);
}
MemoryStats stats(Device device) { return allocator(device).stats(); }
void reset_peak_stats(Device device) { allocator(device).reset_peak_stats(); }
std::string summary(Device device) { return allocator(device).summary(); }

}  // namespace ember::memory

namespace ember {
void Tensor::record_stream(const cuda::Stream& stream) const {
  EMBER_CHECK_ARG(defined(), "record_stream: undefined tensor");
  EMBER_CHECK_ARG(is_cuda(), "record_stream: expects a CUDA tensor, got one on {}", device().str());
  detail::CachingAllocator::record_stream(storage()->context_, stream.handle());
}
}  // namespace ember
