#pragma once
/// TensorOptions: dtype and device for creation ops, as torch::TensorOptions.

#include <optional>

#include "ember/device.h"
#include "ember/scalar_type.h"

namespace ember {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  TensorOptions(Device device) : device_(device) {}

  TensorOptions dtype(ScalarType t) const {
    TensorOptions r = *this;
    r.dtype_ = t;
    return r;
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

  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  ScalarType dtype() const { return dtype_.value_or(kFloat); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  Device device() const { return device_.value_or(Device(kCPU, 0)); }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }

}  // namespace ember
