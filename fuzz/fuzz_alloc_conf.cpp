// libFuzzer target: the EMBER_ALLOC_CONF parser. Any input parses or throws
// InvalidArgument; a parsed fraction lies in (0, 1].
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ember/error.h"
#include "memory/alloc_conf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ember::detail::AllocConf c =
        ember::detail::parse_alloc_conf(std::string_view(reinterpret_cast<const char*>(data), size));
    if (c.fraction && !(*c.fraction > 0 && *c.fraction <= 1)) std::abort();
  } catch (const ember::InvalidArgument&) {
  }
  return 0;
}
