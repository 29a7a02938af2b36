#pragma once
/// libtorch's torch::optim::serialize helpers: a list of tensors (or of step counts) stored
/// in an archive as "<key>/size" (a 0-dim int64 tensor) and "<key>/0", "<key>/1", ..., the
/// form libtorch's optimizers used before 1.5 (Optimizer::load still reads it).

#include <cstdint>
#include <string>
#include <vector>

#include "ember/export.h"
#include "ember/ops.h"
#include "ember/serialize/archive.h"
#include "ember/tensor.h"

namespace ember::optim {

/// Writes `buffers` (a vector or deque of tensors) as "<key>/size" and "<key>/<i>".
template <class BufferContainer>
void serialize(serialize::OutputArchive& archive, const std::string& key, const BufferContainer& buffers) {
  archive.write(key + "/size", scalar_tensor(int64_t(buffers.size()), kInt64));
  for (size_t i = 0; i < buffers.size(); ++i) archive.write(key + "/" + std::to_string(i), buffers[i], true);
}

namespace detail {
/// "<key>/size" of a buffer list: InvalidArgument when it is missing or not one count >= 0.
EMBER_API int64_t read_buffer_count(serialize::InputArchive& archive, const std::string& key);
}  // namespace detail

/// Reads back what the writer above stored: `buffers` is cleared first, and a missing entry
/// is the archive's InvalidArgument naming it.
template <class BufferContainer>
void serialize(serialize::InputArchive& archive, const std::string& key, BufferContainer& buffers) {
  buffers.clear();
  const int64_t n = detail::read_buffer_count(archive, key);
  for (int64_t i = 0; i < n; ++i) {
    buffers.emplace_back();
    archive.read(key + "/" + std::to_string(i), buffers.back(), true);
  }
}

/// Step counts, each stored as a 0-dim int64 tensor.
EMBER_API void serialize(serialize::OutputArchive& archive, const std::string& key, const std::vector<int64_t>& steps);
EMBER_API void serialize(serialize::InputArchive& archive, const std::string& key, std::vector<int64_t>& steps);
/// One integer, stored as an Int value.
EMBER_API void serialize(serialize::OutputArchive& archive, const std::string& key, const int64_t& value);
EMBER_API void serialize(serialize::InputArchive& archive, const std::string& key, int64_t& value);

}  // namespace ember::optim
