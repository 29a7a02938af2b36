#pragma once
// The safetensors header: parsed and validated from bytes in memory (API.md section 14),
// so the loader and the fuzz target share one parser that never reads past `size`.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace ember::detail {

struct SafetensorsEntry {
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte range within the data section (after 8 + header length)
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::map<std::string, std::string> metadata;
  std::map<std::string, SafetensorsEntry> entries;
  uint64_t data_start = 0;  // 8 + header length
};

/// The largest header the format's reference implementation accepts.
constexpr uint64_t kMaxSafetensorsHeader = 100000000;

/// Validates a whole file's bytes; InvalidArgument "load: '<path>': ..." on any problem.
SafetensorsHeader parse_safetensors(const unsigned char* data, size_t size, const std::string& path);

/// "F32", "BF16", ... (the format's dtype names).
const char* safetensors_dtype_name(ScalarType t);

/// The bytes of a safetensors file holding `tensors` and `metadata`, handed to `sink` in
/// order (header, then each tensor's C-contiguous data); InvalidArgument for a bad name.
void write_safetensors(const std::map<std::string, Tensor>& tensors, const std::map<std::string, std::string>& metadata,
                       const std::function<void(const char*, size_t)>& sink);

}  // namespace ember::detail
