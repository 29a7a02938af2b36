// CachingAllocator::summary(): a readable table in the spirit of torch.cuda.memory_summary().

#include <fmt/format.h>

#include "memory/byte_size.h"
#include "memory/caching_allocator.h"

namespace ember::detail {

std::string CachingAllocator::summary() const {
  memory::MemoryStats s = stats();
  size_t small_segments = 0, large_segments = 0, small_free = 0, large_free = 0;
  size_t pending = 0;
  bool growth = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Segment& seg : segments_) (seg.small ? small_segments : large_segments)++;
    small_free = small_free_.size();
    large_free = large_free_.size();
    pending = pending_.size();
    growth = growth_;
  }
  constexpr const char* kRule =
      "|=====================================================================|\n";
  constexpr const char* kThin =
      "|---------------------------------------------------------------------|\n";
  std::string out = kRule;
  out += fmt::format("| {:<67} |\n", "ember caching allocator summary");
  out +=
      fmt::format("| {:<67} |\n", fmt::format("device: {} ({})", device_.str(), device_.tf_str()));
  out += fmt::format("| {:<67} |\n", fmt::format("growth: {}, limit: {}", growth ? "on" : "off",
                                                 format_bytes(s.limit_bytes)));
  out += kThin;
  auto row = [&out](const std::string& metric, const std::string& current,
                    const std::string& peak) {
    out += fmt::format("| {:<31} | {:>16} | {:>14} |\n", metric, current, peak);
  };
  row("Metric", "Current", "Peak");
  out += kThin;
  row("Allocated memory", format_bytes(s.allocated_bytes), format_bytes(s.peak_allocated_bytes));
  row("Reserved memory", format_bytes(s.reserved_bytes), format_bytes(s.peak_reserved_bytes));
  row("Free (cached) memory", format_bytes(s.reserved_bytes - s.allocated_bytes), "");
  row("Largest free block", format_bytes(s.largest_free_block), "");
  out += kThin;
  row("Segments (small / large)", fmt::format("{} / {}", small_segments, large_segments), "");
  row("Free blocks (small / large)", fmt::format("{} / {}", small_free, large_free), "");
  row("Blocks waiting on stream events", fmt::format("{}", pending), "");
  out += kThin;
  row("Allocations / frees", fmt::format("{} / {}", s.num_allocs, s.num_frees), "");
  row("Device allocations", fmt::format("{}", s.num_device_allocs), "");
  row("Cache hits", fmt::format("{}", s.num_cache_hits), "");
  row("Out-of-memory errors", fmt::format("{}", s.num_ooms), "");
  out += kRule;
  return out;
}

}  // namespace ember::detail
