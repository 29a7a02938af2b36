// libFuzzer target: the safetensors parser and loader on arbitrary bytes. The input is
// parsed in memory (ASan catches any read outside it); when it is accepted, every tensor
// is read through SafetensorsFile from a file holding the same bytes, plain and mmap,
// and must hold exactly the bytes of its range. The only error allowed is InvalidArgument
// (NotImplemented for a zip archive).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ember/ember.h"
#include "serialize/safetensors_format.h"

using namespace ember;

namespace {

const std::string& scratch_path() {
  static const std::string p = "/tmp/ember_fuzz_safetensors_" + std::to_string(::getpid()) + ".safetensors";
  return p;
}

void check_tensor(const Tensor& t, const detail::SafetensorsEntry& e, const unsigned char* expect) {
  if (t.scalar_type() != e.dtype || t.sizes().vec() != e.shape || t.nbytes() != e.end - e.begin ||
      (t.nbytes() && std::memcmp(t.data_ptr(), expect, t.nbytes()) != 0)) {
    std::fprintf(stderr, "loaded tensor differs from its byte range [%llu, %llu)\n", (unsigned long long)e.begin,
                 (unsigned long long)e.end);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The parser reads from a copy of exactly `size` bytes, so an overread is a heap overflow.
  unsigned char* copy = static_cast<unsigned char*>(std::malloc(size ? size : 1));
  if (size) std::memcpy(copy, data, size);
  detail::SafetensorsHeader h;
  try {
    h = detail::parse_safetensors(copy, size, "fuzz");
  } catch (const InvalidArgument&) {
    std::free(copy);
    return 0;
  } catch (const NotImplemented&) {  // only for a zip archive (libtorch's format)
    if (size < 4 || std::memcmp(copy, "PK\x03\x04", 4) != 0) std::abort();
    std::free(copy);
    return 0;
  }
  FILE* f = std::fopen(scratch_path().c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();
  try {
    SafetensorsFile file(scratch_path());
    if (file.keys().size() != h.entries.size() || file.metadata() != h.metadata) std::abort();
    for (const auto& [name, e] : h.entries) {
      const unsigned char* expect = copy + h.data_start + e.begin;
      check_tensor(file.get(name), e, expect);
      check_tensor(file.get(name, LoadOptions().mmap(true)), e, expect);
    }
  } catch (const InvalidArgument& err) {
    std::fprintf(stderr, "parsed in memory but the file load failed: %s\n", err.what());
    std::abort();
  }
  std::free(copy);
  return 0;
}
