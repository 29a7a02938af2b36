// libFuzzer target: the device-string parser. Any input either parses into a Device
// whose str() parses back to itself, or throws InvalidArgument; nothing else.
#include <ember/device.h>
#include <ember/error.h>

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  try {
    ember::Device d(spec);
    if (ember::Device(d.str()) != d) std::abort();
    if (d.has_index() && ember::Device(d.tf_str()) != d) std::abort();
  } catch (const ember::InvalidArgument&) {
  }
  return 0;
}
