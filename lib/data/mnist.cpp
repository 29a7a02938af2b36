// MNIST's IDX files: every header field is checked against the file before anything is
// allocated, so a damaged or hostile file is an error, never an oversized allocation.
#include "ember/data/datasets/mnist.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "ember/ops.h"

namespace ember::data::datasets {

namespace {

constexpr uint32_t kImageMagic = 2051;  // 0x00000803: unsigned bytes, 3 dimensions
constexpr uint32_t kLabelMagic = 2049;  // 0x00000801: unsigned bytes, 1 dimension

uint32_t big_endian_u32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

std::string hex(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", value);
  return buf;
}

// Checks the header's size and magic number; returns the header's fields after the magic.
std::vector<uint32_t> read_header(const unsigned char* data, size_t size, const std::string& name, uint32_t magic,
                                  size_t fields, const char* what) {
  const size_t header_bytes = 4 * (1 + fields);
  if (size < header_bytes) {
    throw InvalidArgument(name + ": the file is " + std::to_string(size) + " bytes, shorter than the " +
                          std::to_string(header_bytes) + "-byte header of an IDX " + what + " file");
  }
  const uint32_t found = big_endian_u32(data);
  if (found != magic) {
    throw InvalidArgument(name + ": magic number is " + hex(found) + ", expected " + hex(magic) + " (" +
                          std::to_string(magic) + ", an IDX " + what + " file of unsigned bytes)");
  }
  std::vector<uint32_t> values(fields);
  for (size_t i = 0; i < fields; ++i) values[i] = big_endian_u32(data + 4 * (i + 1));
  return values;
}

Tensor bytes_tensor(const unsigned char* data, std::vector<int64_t> shape) {
  Tensor out = empty(shape, kUInt8);
  if (out.numel() > 0) std::memcpy(out.data_ptr(), data, static_cast<size_t>(out.numel()));
  return out;
}

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("MNIST: cannot open " + path + ": " + std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IOError("MNIST: cannot read " + path + ": " + std::strerror(errno));
  return bytes;
}

std::string join_path(const std::string& root, const char* file) {
  if (root.empty() || root.back() == '/') return root + file;
  return root + "/" + file;
}

}  // namespace

Tensor read_idx_images(const unsigned char* data, size_t size, const std::string& name) {
  const std::vector<uint32_t> header = read_header(data, size, name, kImageMagic, 3, "image");
  const uint64_t count = header[0], rows = header[1], cols = header[2];
  // One image's pixels must fit int64 too: they are a stride, even when there are no images.
  uint64_t image = 0, pixels = 0;
  const bool overflow = __builtin_mul_overflow(rows, cols, &image) || image > uint64_t(INT64_MAX) ||
                        __builtin_mul_overflow(count, image, &pixels) || pixels > uint64_t(INT64_MAX);
  const size_t body = size - 16;
  if (overflow || pixels != body) {
    throw InvalidArgument(name + ": the header says " + std::to_string(count) + " images of " + std::to_string(rows) +
                          "x" + std::to_string(cols) + " pixels (" +
                          (overflow ? std::string("more than 2^63") : std::to_string(pixels)) +
                          " bytes), but the file holds " + std::to_string(body) + " bytes after its 16-byte header");
  }
  return bytes_tensor(data + 16, {int64_t(count), 1, int64_t(rows), int64_t(cols)});
}

Tensor read_idx_labels(const unsigned char* data, size_t size, const std::string& name) {
  const uint64_t count = read_header(data, size, name, kLabelMagic, 1, "label")[0];
  const size_t body = size - 8;
  if (count != body) {
    throw InvalidArgument(name + ": the header says " + std::to_string(count) + " labels, but the file holds " +
                          std::to_string(body) + " bytes after its 8-byte header");
  }
  return bytes_tensor(data + 8, {int64_t(count)});
}

MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  const std::string image_path = join_path(root, train_ ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte");
  const std::string label_path = join_path(root, train_ ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte");
  const std::vector<unsigned char> image_bytes = read_file(image_path);
  const std::vector<unsigned char> label_bytes = read_file(label_path);
  const Tensor images = read_idx_images(image_bytes.data(), image_bytes.size(), image_path);
  const Tensor labels = read_idx_labels(label_bytes.data(), label_bytes.size(), label_path);
  if (images.size(0) != labels.size(0)) {
    throw InvalidArgument("MNIST: " + image_path + " holds " + std::to_string(images.size(0)) + " images but " +
                          label_path + " holds " + std::to_string(labels.size(0)) + " labels");
  }
  // As libtorch: pixels scaled to [0, 1] by a float32 division, labels as int64.
  images_ = images.to(kFloat32).div_(255);
  targets_ = labels.to(kInt64);
}

Example<> MNIST::get(size_t index) {
  if (index >= static_cast<size_t>(images_.size(0))) {
    throw InvalidArgument("MNIST::get: index " + std::to_string(index) + " is out of range for " +
                          std::to_string(images_.size(0)) + " examples");
  }
  return {images_[static_cast<int64_t>(index)], targets_[static_cast<int64_t>(index)]};
}

std::optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

}  // namespace ember::data::datasets
