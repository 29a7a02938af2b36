#pragma once
/// Saving and loading tensors in the safetensors format (API.md section 14): a JSON header
/// (names, dtypes F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL, shapes, byte ranges) and the
/// little-endian, C-contiguous data, readable and writable by Python's `safetensors`; and
/// libtorch's torch::save / torch::load of tensors, modules and optimizers in that format.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/export.h"
#include "ember/scalar_type.h"
#include "ember/serialize/archive.h"
#include "ember/tensor.h"

namespace ember {

/// How load() places the tensors it reads (builder style, like TensorOptions).
class LoadOptions {
 public:
  LoadOptions() = default;
  /// Target device (default: cpu:0). Each tensor is copied once, straight from the mapping.
  LoadOptions device(Device d) const {
    LoadOptions r = *this;
    r.device_ = d;
    return r;
  }
  /// As torch.load(mmap=True): CPU tensors stay views of the mapped file (no copy), the
  /// mapping alive while any of them lives. A tensor whose bytes are not aligned to its
  /// element size is copied instead. Ignored for other devices.
  LoadOptions mmap(bool m) const {
    LoadOptions r = *this;
    r.mmap_ = m;
    return r;
  }
  bool has_device() const { return device_.has_value(); }
  Device device() const { return device_.value_or(Device(kCPU, 0)); }
  bool mmap() const { return mmap_; }

 private:
  std::optional<Device> device_;
  bool mmap_ = false;
};

/// Writes `tensors` (any device, any strides) and `metadata` (the header's `__metadata__`)
/// to `path`: through a temporary file in the same directory, fsynced and renamed, so a
/// crash never leaves a half-written file under `path`.
EMBER_API void save(const std::map<std::string, Tensor>& tensors, const std::string& path,
                    const std::map<std::string, std::string>& metadata = {});

/// Reads every tensor of a safetensors file (validated as API.md section 14 lists).
EMBER_API std::map<std::string, Tensor> load(const std::string& path, const LoadOptions& options = {});
EMBER_API std::map<std::string, Tensor> load(const std::string& path, Device device);

/// An open, validated safetensors file (as Python's `safe_open`): names, dtypes, shapes and
/// metadata without reading any tensor, then the tensors one by one. The file stays mapped
/// until the object and every mmap-backed tensor it returned are gone.
class EMBER_API SafetensorsFile {
 public:
  /// Maps and validates the file; InvalidArgument naming the file, the tensor and the problem.
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;

  const std::string& path() const;
  /// The header's `__metadata__` (empty when absent).
  const std::map<std::string, std::string>& metadata() const;
  /// Tensor names in sorted order.
  std::vector<std::string> keys() const;
  bool contains(const std::string& name) const;
  ScalarType dtype(const std::string& name) const;
  std::vector<int64_t> shape(const std::string& name) const;
  /// One tensor, placed as `options` says; InvalidArgument when the name is not in the file.
  Tensor get(const std::string& name, const LoadOptions& options = {}) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

namespace detail {
// Whether `archive << value` / `archive >> value` exist: the templates below take only such
// values, so ember::save(map, path) and ember::load(path) keep meaning the safetensors maps.
template <class V, class = void>
struct archive_writable : std::false_type {};
template <class V>
struct archive_writable<V, std::void_t<decltype(std::declval<serialize::OutputArchive&>() << std::declval<const V&>())>>
    : std::true_type {};
template <class V, class = void>
struct archive_readable : std::false_type {};
template <class V>
struct archive_readable<V, std::void_t<decltype(std::declval<serialize::InputArchive&>() >> std::declval<V&>())>>
    : std::true_type {};
}  // namespace detail

/// torch::save: a tensor, a module (holder or shared_ptr) or an optimizer to a path, a
/// std::ostream or a writer function (OutputArchive::save_to's arguments), as safetensors.
template <class Value, class... SaveToArgs>
std::enable_if_t<detail::archive_writable<Value>::value> save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// torch::save of a list: tensor i under the key "i".
template <class... SaveToArgs>
void save(const std::vector<Tensor>& tensor_vec, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensor_vec.size(); ++i) archive.write(std::to_string(i), tensor_vec[i]);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// torch::load: the inverse of save (InputArchive::load_from's arguments: a path or a
/// std::istream, then optionally a Device). The whole file is read and checked before
/// `value` changes, so a damaged file leaves it unchanged.
template <class Value, class... LoadFromArgs>
std::enable_if_t<detail::archive_readable<Value>::value> load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

/// torch::load of a list: appends the tensors "0", "1", ... (as libtorch, to what the vector holds).
template <class... LoadFromArgs>
void load(std::vector<Tensor>& tensor_vec, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  Tensor value;
  for (size_t i = 0; archive.try_read(std::to_string(i), value); ++i) {
    tensor_vec.push_back(std::move(value));
    value = Tensor();
  }
}

}  // namespace ember
