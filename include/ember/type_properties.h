#pragma once
/// libtorch's deprecated description of a tensor's type, a backend and a dtype
/// (at::DeprecatedTypeProperties, Tensor::type()): older programs still write
/// `x.type().scalarType()`, `x.type().is_cuda()` and `AT_DISPATCH_...(x.type(), ...)`.

#include <string>

#include "ember/device.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"
#include "ember/tensor_options.h"

namespace ember {

/// libtorch's backends (c10::Backend; ember::Backend is a kernel backend) that ember can
/// name: the dense ones it has and their sparse counterparts (options with a sparse
/// backend carry kSparse, which creation refuses).
enum class TypeBackend : int8_t { CPU, CUDA, PrivateUse1, SparseCPU, SparseCUDA, Undefined };

/// "CPU", "CUDA", "PrivateUse1", "SparseCPU", "SparseCUDA", "UNKNOWN_BACKEND" (c10::toString).
constexpr const char* backend_name(TypeBackend b) {
  constexpr const char* names[] = {"CPU", "CUDA", "PrivateUse1", "SparseCPU", "SparseCUDA"};
  return static_cast<unsigned>(b) < std::size(names) ? names[static_cast<int>(b)] : "UNKNOWN_BACKEND";
}

class DeprecatedTypeProperties {
 public:
  constexpr DeprecatedTypeProperties(TypeBackend backend, ScalarType scalar_type)
      : backend_(backend), scalar_type_(scalar_type) {}

  TypeBackend backend() const { return backend_; }
  ScalarType scalarType() const { return scalar_type_; }
  ScalarType typeMeta() const { return scalar_type_; }
  bool is_sparse() const { return backend_ == TypeBackend::SparseCPU || backend_ == TypeBackend::SparseCUDA; }
  bool is_cuda() const { return backend_ == TypeBackend::CUDA || backend_ == TypeBackend::SparseCUDA; }
  Layout layout() const { return is_sparse() ? kSparse : kStrided; }
  DeviceType device_type() const {
    return is_cuda() ? kCUDA : backend_ == TypeBackend::PrivateUse1 ? kPrivateUse1 : kCPU;
  }
  /// "CPUFloatType", "SparseCUDALongType".
  std::string toString() const { return std::string(backend_name(backend_)) + torch_name(scalar_type_) + "Type"; }

  /// Options of this dtype, layout and device type (index -1: the current device).
  TensorOptions options(int device_index = -1) const {
    return TensorOptions(scalar_type_).device(Device(device_type(), device_index)).layout(layout());
  }
  operator TensorOptions() const { return options(); }  // NOLINT(google-explicit-constructor)

  DeprecatedTypeProperties toBackend(TypeBackend b) const { return {b, scalar_type_}; }
  DeprecatedTypeProperties toScalarType(ScalarType t) const { return {backend_, t}; }
  DeprecatedTypeProperties cpu() const { return toBackend(is_sparse() ? TypeBackend::SparseCPU : TypeBackend::CPU); }
  DeprecatedTypeProperties cuda() const { return toBackend(is_sparse() ? TypeBackend::SparseCUDA : TypeBackend::CUDA); }

  bool operator==(const DeprecatedTypeProperties& o) const {
    return backend_ == o.backend_ && scalar_type_ == o.scalar_type_;
  }
  bool operator!=(const DeprecatedTypeProperties& o) const { return !(*this == o); }

 private:
  TypeBackend backend_;
  ScalarType scalar_type_;
};

inline DeprecatedTypeProperties getDeprecatedTypeProperties(TypeBackend backend, ScalarType scalar_type) {
  return {backend, scalar_type};
}

inline DeprecatedTypeProperties Tensor::type() const {
  const DeviceType d = device().type();
  return {d == kCUDA ? TypeBackend::CUDA : d == kPrivateUse1 ? TypeBackend::PrivateUse1 : TypeBackend::CPU, dtype()};
}

}  // namespace ember
