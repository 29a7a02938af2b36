#pragma once
/// serialize::OutputArchive / InputArchive (libtorch's torch::serialize): tensors, nested
/// archives and IValues (None, Double, Int, Bool, String) stored by key, kept on disk as one
/// safetensors file that Python's `safetensors` reads (API.md section 14):
/// - a nested archive's entries are named "<key>.<entry>", so a module's tensors carry the
///   dotted names of named_parameters() ("fc1.weight"), as nn::Module::save writes them;
/// - an IValue goes to the header's "__metadata__" under its dotted key, typed by a prefix:
///   "float64:0.001", "int64:3", "bool:true", "str:text", "none:" ("archive:" marks an empty
///   nested archive). A metadata value without a known prefix (a file from Python) reads as
///   a String.
/// libtorch's own zip archives (files starting with "PK\x03\x04") are not read: loading one
/// is a NotImplemented error that says how to convert it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/export.h"
#include "ember/ivalue.h"
#include "ember/tensor.h"

namespace ember {

namespace nn {
class Module;
template <class Impl>
class ModuleHolder;
}  // namespace nn
namespace optim {
class Optimizer;
}

namespace serialize {

/// Collects what is written, then writes it all at once with save_to().
class EMBER_API OutputArchive final {
 public:
  OutputArchive() = default;
  OutputArchive(OutputArchive&&) = default;
  OutputArchive& operator=(OutputArchive&&) = default;
  OutputArchive(const OutputArchive&) = delete;
  OutputArchive& operator=(const OutputArchive&) = delete;

  /// Stores a value under `key` (a Tensor IValue as a tensor); a later write of the same key
  /// replaces it. Keys are non-empty and not "__metadata__".
  void write(const std::string& key, const IValue& ivalue);
  /// Stores the tensor (its values at save_to() time; an undefined tensor reads back
  /// undefined). is_buffer is accepted as libtorch's and, as in libtorch's reads, changes nothing.
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Stores every entry of `nested_archive` (as it is now) under "<key>.".
  void write(const std::string& key, OutputArchive& nested_archive);

  /// Writes the safetensors file atomically (through a temporary file, as ember::save).
  void save_to(const std::string& filename) const;
  /// Writes the same bytes to a stream; IOError when the stream fails.
  void save_to(std::ostream& stream) const;
  /// Hands the bytes to `func` in order; it returns how many it took (fewer is an IOError).
  void save_to(const std::function<size_t(const void*, size_t)>& func) const;

  template <class... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }

 private:
  void erase(const std::string& key);
  std::map<std::string, std::string> metadata() const;

  std::map<std::string, Tensor> tensors_;
  std::map<std::string, IValue> values_;
  std::set<std::string> empty_archives_;
};

/// A loaded archive. Nested archives read from it share its contents. Reads are by key
/// relative to this archive; reading a missing key is InvalidArgument naming the full
/// dotted key and the keys that exist at that level.
class EMBER_API InputArchive final {
 public:
  InputArchive();
  InputArchive(InputArchive&&) = default;
  InputArchive& operator=(InputArchive&&) = default;
  InputArchive(const InputArchive&) = delete;
  InputArchive& operator=(const InputArchive&) = delete;
  ~InputArchive();

  /// A stored value; a tensor reads as a Tensor IValue.
  void read(const std::string& key, IValue& ivalue) const;
  bool try_read(const std::string& key, IValue& ivalue) const;
  /// An undefined `tensor` becomes the stored tensor; a defined one takes its data, shape,
  /// dtype and device in place (set_data under NoGradGuard, as libtorch's set_), so every
  /// handle to it sees the new values. A stored None reads as an undefined tensor.
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false) const;
  /// The entries under "<key>." (or an empty nested archive that was written there).
  bool try_read(const std::string& key, InputArchive& archive) const;
  void read(const std::string& key, InputArchive& archive) const;

  /// Reads and validates a whole file (as ember::load) and places every tensor on `device`
  /// (default: cpu:0, since the file does not record devices). On failure the archive keeps
  /// what it held.
  void load_from(const std::string& filename, std::optional<Device> device = std::nullopt);
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt);
  void load_from(const char* data, size_t size, std::optional<Device> device = std::nullopt);
  /// libtorch's reader form: size_func() bytes, fetched with read_func(pos, buf, nbytes).
  void load_from(const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
                 const std::function<size_t(void)>& size_func, std::optional<Device> device = std::nullopt);

  /// The names at this level (a nested archive's name once), numbers in numeric order
  /// ("2" before "10"); libtorch lists them in the order written, which the file does not keep.
  std::vector<std::string> keys() const;
  /// Beyond libtorch: the device given to load_from (where the tensors are), if any.
  std::optional<Device> device() const;
  /// Beyond libtorch: every tensor in this archive and the archives nested in it, by its
  /// dotted name relative to this one ("state.0.1.exp_avg").
  std::map<std::string, Tensor> tensors() const;

  template <class... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }

  struct Contents;

 private:
  void load_bytes(const char* data, size_t size, const std::string& name, std::optional<Device> device);

  std::shared_ptr<const Contents> contents_;
  std::string prefix_;  // "" or "<key>.<key>." of a nested archive
};

}  // namespace serialize

/// A lone tensor is stored under "0" (libtorch's operator<< / operator>>).
EMBER_API serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Tensor& tensor);
EMBER_API serialize::InputArchive& operator>>(serialize::InputArchive& archive, Tensor& tensor);

namespace nn {
/// Module::save / Module::load through the archive.
EMBER_API serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                               const std::shared_ptr<Module>& module);
EMBER_API serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                              const std::shared_ptr<Module>& module);
template <class Impl>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const ModuleHolder<Impl>& module) {
  return archive << std::shared_ptr<Module>(module.ptr());
}
template <class Impl>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, ModuleHolder<Impl>& module) {
  return archive >> std::shared_ptr<Module>(module.ptr());
}
}  // namespace nn

namespace optim {
/// Optimizer::save / Optimizer::load through the archive.
EMBER_API serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer);
EMBER_API serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer);
}  // namespace optim

}  // namespace ember
