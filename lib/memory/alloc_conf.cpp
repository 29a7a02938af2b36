#include "memory/alloc_conf.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/check.h"
#include "memory/caching_allocator.h"

namespace ember::detail {
namespace {

constexpr const char* kValidKeys = "growth, limit_mb, fraction";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_value(std::string_view key, std::string_view value, const char* expected) {
  EMBER_THROW(InvalidArgument, "EMBER_ALLOC_CONF: bad value '{}' for key '{}', expected {}", value,
              key, expected);
}

bool parse_bool(std::string_view key, std::string_view value) {
  if (value == "true" || value == "True" || value == "1") return true;
  if (value == "false" || value == "False" || value == "0") return false;
  bad_value(key, value, "true or false");
}

size_t parse_megabytes(std::string_view key, std::string_view value) {
  constexpr size_t kMiB = size_t{1} << 20;
  size_t mb = 0;
  for (char c : value) {
    if (c < '0' || c > '9') bad_value(key, value, "a whole number of MiB");
    size_t digit = static_cast<size_t>(c - '0');
    if (mb > (std::numeric_limits<size_t>::max() / kMiB - digit) / 10) {
      bad_value(key, value, "a number of MiB that fits in memory sizes");
    }
    mb = mb * 10 + digit;
  }
  if (value.empty()) bad_value(key, value, "a whole number of MiB");
  return mb * kMiB;
}

double parse_fraction(std::string_view key, std::string_view value) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  double f = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(f) ||
      !(f > 0.0 && f <= 1.0)) {
    bad_value(key, value, "a number in (0, 1]");
  }
  return f;
}

}  // namespace

AllocConf parse_alloc_conf(std::string_view conf) {
  AllocConf out;
  while (!conf.empty()) {
    size_t comma = conf.find(',');
    std::string_view item = trim(conf.substr(0, comma));
    conf = comma == std::string_view::npos ? std::string_view() : conf.substr(comma + 1);
    if (item.empty()) continue;
    size_t colon = item.find(':');
    EMBER_CHECK_ARG(colon != std::string_view::npos,
                    "EMBER_ALLOC_CONF: expected key:value, got '{}'; valid keys are {}", item,
                    kValidKeys);
    std::string_view key = trim(item.substr(0, colon));
    std::string_view value = trim(item.substr(colon + 1));
    auto once = [&](bool already_set) {
      EMBER_CHECK_ARG(!already_set, "EMBER_ALLOC_CONF: key '{}' is given more than once", key);
    };
    if (key == "growth") {
      once(out.growth.has_value());
      out.growth = parse_bool(key, value);
    } else if (key == "limit_mb") {
      once(out.limit_bytes.has_value());
      out.limit_bytes = parse_megabytes(key, value);
    } else if (key == "fraction") {
      once(out.fraction.has_value());
      out.fraction = parse_fraction(key, value);
    } else {
      EMBER_THROW(InvalidArgument, "EMBER_ALLOC_CONF: unknown key '{}' in '{}'; valid keys are {}",
                  key, item, kValidKeys);
    }
  }
  return out;
}

void apply_alloc_conf(const AllocConf& conf, CachingAllocator& allocator) {
  if (conf.growth) allocator.set_growth(*conf.growth);
  if (conf.limit_bytes) allocator.set_limit(*conf.limit_bytes);
  if (conf.fraction) allocator.set_fraction(*conf.fraction);
}

}  // namespace ember::detail
