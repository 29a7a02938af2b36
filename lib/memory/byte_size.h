#pragma once
// format_bytes: "512 B", "4.00 KiB", "2.00 MiB" for allocator messages and summaries.

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace ember::detail {

inline std::string format_bytes(size_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", value, kUnits[unit]);
}

}  // namespace ember::detail
