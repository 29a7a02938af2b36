#pragma once
/// TensorOptions: dtype and device for creation ops, as torch::TensorOptions.

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>

#include "ember/device.h"
#include "ember/error.h"
#include "ember/memory_format.h"
#include "ember/scalar_type.h"

namespace ember {

/// libtorch's memory layouts. ember tensors are strided; the others are named so that
/// options spelling them build and print, and creating a tensor with one is a
/// NotImplemented error.
enum class Layout : int8_t { Strided, Sparse, SparseCsr, SparseCsc, SparseBsr, SparseBsc, Mkldnn };
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;
constexpr Layout kSparseCsr = Layout::SparseCsr;
constexpr Layout kSparseCsc = Layout::SparseCsc;
constexpr Layout kSparseBsr = Layout::SparseBsr;
constexpr Layout kSparseBsc = Layout::SparseBsc;
constexpr Layout kMkldnn = Layout::Mkldnn;

inline const char* layout_name(Layout l) {
  constexpr const char* names[] = {"Strided", "Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc", "Mkldnn"};
  return names[static_cast<int>(l)];
}

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(Device device) : device_(device) {}
  TensorOptions(DeviceType type) : device_(Device(type)) {}  // at::empty({2}, at::kCPU)
  /// A dtype given as libtorch's caffe2::TypeMeta (anything with toScalarType()).
  template <class TypeMeta, class = decltype(std::declval<const TypeMeta&>().toScalarType())>
  TensorOptions(const TypeMeta& type) : dtype_(type.toScalarType()) {}  // NOLINT(google-explicit-constructor)

  TensorOptions dtype(ScalarType t) const {
    TensorOptions r = *this;
    r.dtype_ = t;
    return r;
  }
  template <class TypeMeta, class = decltype(std::declval<const TypeMeta&>().toScalarType())>
  TensorOptions dtype(const TypeMeta& type) const {
    return dtype(type.toScalarType());
  }
  TensorOptions device(Device d) const {
    TensorOptions r = *this;
    r.device_ = d;
    return r;
  }
  TensorOptions device(DeviceType t, int index) const { return device(Device(t, index)); }
  /// The created tensor is a leaf that requires grad.
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }

  /// Kept as given; creating a tensor with a layout other than kStrided is NotImplemented.
  TensorOptions layout(Layout l) const {
    TensorOptions r = *this;
    r.layout_ = l;
    return r;
  }
  /// libtorch's shorthand for device(kCUDA, index).
  TensorOptions device_index(int index) const { return device(Device(kCUDA, index)); }
  /// The layout of empty() and *_like results (MemoryFormat::Preserve only for *_like);
  /// the other factories ignore it, as libtorch's. nullopt clears it.
  TensorOptions memory_format(std::optional<MemoryFormat> format) const {
    TensorOptions r = *this;
    r.memory_format_ = format;
    return r;
  }
  Layout layout() const { return layout_.value_or(kStrided); }

  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_layout() const { return layout_.has_value(); }
  bool has_memory_format() const { return memory_format_.has_value(); }
  /// The dtype given, else the default dtype (get_default_dtype()).
  ScalarType dtype() const { return dtype_ ? *dtype_ : get_default_dtype(); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  /// The device given, else the CPU (index -1, as libtorch's).
  Device device() const { return device_.value_or(Device(kCPU)); }
  int device_index() const { return device().index(); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<MemoryFormat> memory_format_;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions device_index(int index) { return TensorOptions().device_index(index); }
inline TensorOptions memory_format(MemoryFormat format) { return TensorOptions().memory_format(format); }
/// Options whose tensors are leaves that require grad (torch::requires_grad()).
inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}

}  // namespace ember

namespace ember {
/// libtorch's printing of a layout: "Strided".
EMBER_API std::ostream& operator<<(std::ostream& stream, Layout layout);
/// libtorch's printing: "TensorOptions(dtype=float (default), device=cpu (default), ...)".
EMBER_API std::ostream& operator<<(std::ostream& stream, const TensorOptions& options);
}  // namespace ember
