// Moving and converting tensors: to(), cpu(), cuda(), contiguous(), clone(), copy_().
// Across devices a contiguous buffer is copied by the backend of the non-CPU side.
#include <cstring>

#include "autograd/grad_ops.h"
#include "core/check.h"
#include "dispatch/elementwise_ops.h"
#include "ember/ops.h"
#include "ember/registry.h"
#include "iter/overlap.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/memory_format.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace detail {

namespace {
DeviceEntry& existing_device(Device d, const char* op) {
  Device r = resolve_index(d);
  DeviceEntry* e = find_device(r);
  EMBER_CHECK_ARG(e != nullptr,
                  "{}: Could not satisfy explicit device specification '{}': the device does not exist; "
                  "available devices: {}",
                  op, r.tf_str(), available_devices());
  return *e;
}
}  // namespace

/// A contiguous copy of t on another device (same dtype).
Tensor move_to_device(const Tensor& t, DeviceEntry& dst, bool non_blocking) {
  Tensor src = t.contiguous();
  Tensor out = empty_on(t.sizes(), t.dtype(), dst);
  const size_t nbytes = src.nbytes();
  if (nbytes == 0) return out;
  if (src.device().is_cpu() && dst.device.is_cpu()) {
    std::memcpy(out.data_ptr(), src.data_ptr(), nbytes);
  } else {
    // Backends know physical devices: name both sides by their physical index.
    DeviceEntry* se = find_device(src.device());
    const Device sd(src.device().type(), se ? se->physical_index : src.device().index());
    const Device dd(dst.device.type(), dst.physical_index);
    Backend* b = backend_for(dd.is_cpu() ? sd.type() : dd.type());
    EMBER_CHECK_ARG(b != nullptr, "to: no backend is registered for {}", (dd.is_cpu() ? sd : dd).str());
    b->copy_bytes(out.data_ptr(), dd, src.data_ptr(), sd, nbytes, non_blocking);
  }
  return out;
}

}  // namespace detail

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy) const {
  EMBER_CHECK_ARG(defined(), "to: undefined tensor");
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::to(*this, device, dtype, non_blocking, copy);
  detail::DeviceEntry& dst = detail::existing_device(device, "to");
  if (dst.device == this->device() && dtype == this->dtype() && !copy) return *this;
  Tensor t = *this;
  if (dst.device != t.device()) {
    // Convert on the smaller side: narrowing before the transfer moves fewer bytes.
    if (ember::element_size(dtype) < ember::element_size(t.dtype())) t = t.to(dtype);
    t = detail::move_to_device(t, dst, non_blocking);
  }
  if (t.dtype() != dtype || (copy && t.is_same(*this))) {
    Tensor out = detail::empty_on(t.sizes(), dtype, dst);
    detail::copy_same_device(out, t);
    t = out;
  }
  return t;
}
Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  EMBER_CHECK_ARG(defined(), "to: undefined tensor");
  return to(device, dtype(), non_blocking, copy);
}
Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy) const {
  EMBER_CHECK_ARG(defined(), "to: undefined tensor");
  return to(device(), dtype, non_blocking, copy);
}
Tensor Tensor::to(const TensorOptions& o, bool non_blocking, bool copy) const {
  EMBER_CHECK_ARG(defined(), "to: undefined tensor");
  EMBER_CHECK_ARG(
      !o.requires_grad(),
      "Operators taking TensorOptions cannot take a TensorOptions with options.requires_grad set as "
      "true. This isn't implemented yet.");
  EMBER_CHECK_ARG(o.layout() == kStrided,
                  "to(options) doesn't support converting to a different layout, but got self.layout being "
                  "Strided and options.layout set as {}",
                  layout_name(o.layout()));
  Tensor r = to(o.has_device() ? o.device() : device(), o.has_dtype() ? o.dtype() : dtype(), non_blocking, copy);
  // A memory format in the options lays the result out so (Preserve: as it is).
  const MemoryFormat format = o.memory_format_opt().value_or(MemoryFormat::Preserve);
  if (format == MemoryFormat::Preserve || r.is_contiguous(format)) return r;
  return r.contiguous(format);
}
Tensor Tensor::cpu() const { return to(Device(kCPU, 0)); }
Tensor Tensor::cuda(int index) const { return to(Device(kCUDA, index)); }

Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  EMBER_CHECK_ARG(defined(), "contiguous: undefined tensor");
  if (memory_format == MemoryFormat::Contiguous) return is_contiguous() ? *this : clone(memory_format);
  EMBER_CHECK_ARG(memory_format != MemoryFormat::Preserve,
                  "preserve memory format is unsupported by the contiguous operator");
  return is_contiguous(memory_format) ? *this : clone(memory_format);
}

Tensor Tensor::clone(MemoryFormat memory_format) const {
  EMBER_CHECK_ARG(defined(), "clone: undefined tensor");
  // Preserve keeps a channels-last layout (libtorch keeps any dense one); else row-major.
  const MemoryFormat format =
      memory_format == MemoryFormat::Preserve ? detail::channels_last_of(*this) : memory_format;
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::clone(*this, format);
  Tensor out = format == MemoryFormat::Contiguous
                   ? detail::empty_on(sizes(), dtype(), device())
                   : detail::empty_in_format(sizes(), dtype(), *detail::find_device(device()), format);
  detail::copy_same_device(out, *this);
  return out;
}

namespace {
// The backend whose page-locked memory pin_memory and is_pinned mean: the device's, CUDA's
// by default (nullptr when this build or machine has none, or for the CPU).
Backend* pinning_backend(const std::optional<Device>& device) {
  return device && device->is_cpu() ? nullptr : detail::backend_for(device ? device->type() : kCUDA);
}
}  // namespace

bool Tensor::is_pinned(std::optional<Device> device) const {
  EMBER_CHECK_ARG(defined(), "is_pinned: undefined tensor");
  if (!is_cpu()) return false;
  Backend* backend = pinning_backend(device);
  return backend != nullptr && backend->is_pinned(storage().data());
}

Tensor Tensor::pin_memory(std::optional<Device> device) const {
  EMBER_CHECK_ARG(defined(), "pin_memory: undefined tensor");
  EMBER_CHECK_ARG(is_cpu(), "cannot pin '{}' only dense CPU tensors can be pinned", toString());
  EMBER_CHECK_ARG(!device || !device->is_cpu(), "pin_memory: memory is pinned for an accelerator, got device {}",
                  device ? device->str() : "");
  Backend* backend = pinning_backend(device);
  if (backend != nullptr && backend->is_pinned(storage().data())) return *this;
  // Dense strides are kept, as libtorch's; anything else is laid out row-major.
  const bool dense = detail::non_overlapping_and_dense(*this);
  const SizesVector strides = dense ? SizesVector(this->strides()) : detail::contiguous_strides(sizes());
  const size_t nbytes = size_t(detail::storage_extent(sizes(), strides.ref())) * element_size();
  DataDeleter deleter = nullptr;
  void* context = nullptr;
  void* data = backend ? backend->allocate_pinned(nbytes, &deleter, &context) : nullptr;
  EMBER_CHECK_TYPED(data != nullptr, DeviceError,
                    "pin_memory: page-locked memory needs a {} device, and this process has none",
                    device_type_name(device ? device->type() : kCUDA));
  Storage storage = Storage::adopt(new StorageImpl(data, nbytes, Device(kCPU, 0), deleter, context));
  Tensor pinned(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(storage), dtype(), sizes(), strides.ref(), 0)));
  pinned.copy_(*this);  // recorded when this tensor requires grad: the gradient passes through
  return pinned;
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  Tensor& self = const_cast<Tensor&>(*this);
  EMBER_CHECK_ARG(defined() && src.defined(), "copy_: undefined tensor");
  detail::check_writable(*this);
  // Views of the very same elements: nothing to do (libtorch returns early too).
  if (is_same(src) || (storage() == src.storage() && storage_offset() == src.storage_offset() &&
                       sizes() == src.sizes() && strides() == src.strides() && dtype() == src.dtype()))
    return self;
  detail::check_no_copy_overlap(*this, src);
  if (__builtin_expect((autograd::detail::may_record(*this) || autograd::detail::may_record(src)) && GradMode::is_enabled(), 0)) {
    autograd::detail::copy_(self, src, non_blocking);
    return self;
  }
  Tensor s = src;
  if (s.device() != device()) {
    detail::DeviceEntry* dst = detail::find_device(device());
    EMBER_CHECK_ARG(dst != nullptr, "copy_: device {} does not exist", device().tf_str());
    s = detail::move_to_device(s, *dst, non_blocking);
  }
  detail::copy_same_device(*this, s);
  detail::bump_version(*this);
  return self;
}

}  // namespace ember
