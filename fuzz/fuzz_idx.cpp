// libFuzzer target: the IDX readers behind datasets::MNIST on arbitrary bytes, as an
// image file and as a label file. An accepted file must give a tensor whose bytes are
// exactly the file's after the header; the only error allowed is InvalidArgument.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

void check_body(const Tensor& t, const uint8_t* data, size_t size, size_t header) {
  if (t.scalar_type() != kUInt8 || static_cast<size_t>(t.numel()) != size - header ||
      (t.numel() && std::memcmp(t.data_ptr(), data + header, size - header) != 0)) {
    std::fprintf(stderr, "IDX tensor differs from the file's body\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    check_body(data::datasets::read_idx_images(data, size, "fuzz-images"), data, size, 16);
  } catch (const InvalidArgument&) {
  }
  try {
    check_body(data::datasets::read_idx_labels(data, size, "fuzz-labels"), data, size, 8);
  } catch (const InvalidArgument&) {
  }
  return 0;
}
