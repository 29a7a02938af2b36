#pragma once
// EMBER_ALLOC_CONF: allocator settings from the environment, e.g.
// "growth:false,limit_mb:2048" or "fraction:0.5".

#include <cstddef>
#include <optional>
#include <string_view>

namespace ember::detail {

class CachingAllocator;

struct AllocConf {
  std::optional<bool> growth;
  std::optional<size_t> limit_bytes;
  std::optional<double> fraction;
};

/// Parses "key:value,key:value" (keys growth, limit_mb, fraction; spaces around items
/// are ignored). Unknown keys, repeated keys and bad values throw InvalidArgument.
AllocConf parse_alloc_conf(std::string_view conf);
/// Applies the settings that are present (before the allocator's first allocation).
void apply_alloc_conf(const AllocConf& conf, CachingAllocator& allocator);

}  // namespace ember::detail
