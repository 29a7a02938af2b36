#pragma once
/// Storage and TensorImpl: what a Tensor handle points at (DESIGN.md "Tensor = handle
/// to TensorImpl"). Views share one Storage and differ in sizes, strides and offset.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ember/device.h"
#include "ember/export.h"
#include "ember/intrusive_ptr.h"
#include "ember/scalar_type.h"
#include "ember/small_vector.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
/// Frees a tensor's autograd metadata (out of line: only tensors that touched autograd have one).
EMBER_API void destroy_autograd_meta(AutogradMeta* meta) noexcept;
}  // namespace autograd

/// Frees a storage's memory: called once with the context and the data pointer.
using DataDeleter = void (*)(void* context, void* data);

/// A block of device memory shared by a tensor and its views.
struct EMBER_API StorageImpl {
  StorageImpl(void* data, size_t nbytes, Device device, DataDeleter deleter, void* context)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter), context_(context) {}
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (deleter_) deleter_(context_, data_);
  }
  /// The device tensors report: cpu:0 as libtorch's Device(kCPU) (Note [CPU device index]);
  /// device_ keeps the concrete device the memory belongs to.
  Device reported_device() const { return device_.is_cpu() && device_.index() == 0 ? Device(kCPU) : device_; }
  /// Recycled through a small per-thread free list: every op makes one of these.
  static void* operator new(size_t bytes);
  static void operator delete(void* p);

  std::atomic<int32_t> refcount_{1};
  /// Version counter shared by every view of this storage: bumped by each in-place write
  /// so that autograd can tell a saved tensor was modified (Note [Autograd]).
  std::atomic<uint32_t> version_{0};
  void* data_;
  size_t nbytes_;
  Device device_;
  DataDeleter deleter_;
  void* context_;  // allocator block, or a user deleter for from_blob
};
/// A storage's data pointer as libtorch's at::DataPtr: get() and the device.
class DataPtr {
 public:
  DataPtr(void* p, Device device) : p_(p), device_(device) {}
  void* get() const { return p_; }
  Device device() const { return device_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  void* p_;
  Device device_;
};

/// The shared handle to a StorageImpl, with libtorch's c10::Storage accessors.
class Storage : public IntrusivePtr<StorageImpl> {
 public:
  Storage() = default;
  Storage(IntrusivePtr<StorageImpl> p) : IntrusivePtr<StorageImpl>(std::move(p)) {}
  static Storage adopt(StorageImpl* p) { return Storage(IntrusivePtr<StorageImpl>::adopt(p)); }

  DataPtr data_ptr() const { return DataPtr(data(), device()); }
  void* data() const { return get() ? get()->data_ : nullptr; }
  size_t nbytes() const { return get() ? get()->nbytes_ : 0; }
  Device device() const { return get() ? get()->reported_device() : Device(kCPU); }
};

/// TensorImpl::view_kind_ bits.
enum ViewKind : uint8_t {
  kIsView = 1,                   // a view op's result (libtorch's is_view())
  kInferenceModeView = 2,        // ... of a normal tensor, made inside InferenceMode
  kInferenceModeViewOfGrad = 4,  // ... whose base required grad then
  kNoGradModeViewOfGrad = 8      // ... of a grad-requiring tensor, made with grad mode off (or a view of one)
};

/// Sizes, strides, offset and dtype over a Storage.
struct EMBER_API TensorImpl {
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);
  /// A fresh contiguous tensor: row-major strides computed here, no checks needed.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes);
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;
  ~TensorImpl() {
    if (__builtin_expect(autograd_meta_ != nullptr, 0)) autograd::destroy_autograd_meta(autograd_meta_);
  }
  /// Recycled through a small per-thread free list: every op makes one of these.
  static void* operator new(size_t bytes);
  static void operator delete(void* p);

  /// Recomputes numel_ and is_contiguous_ after sizes or strides change.
  void refresh();
  char* data() const {
    return static_cast<char*>(storage_->data_) + storage_offset_ * int64_t(element_size(dtype_));
  }

  std::atomic<int32_t> refcount_{1};
  Storage storage_;
  SizesVector sizes_;
  SizesVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  /// Made inside InferenceMode, or a view of such a tensor (Note [Inference tensors]): no
  /// version counter, no autograd history, no in-place writes outside InferenceMode.
  bool is_inference_;
  /// Made by a view op (ViewKind bits): Tensor::is_view(), and libtorch's refusal to write
  /// with autograd into a view taken inside InferenceMode (Note [Inference tensors]).
  uint8_t view_kind_ = 0;
  /// A view that requires grad without history (kInferenceModeViewOfGrad,
  /// kNoGradModeViewOfGrad): its storage's version when it was made. Autograd refuses it
  /// once its base (or another view) has been written since, as libtorch's.
  uint32_t view_version_ = 0;
  /// Grad, grad_fn and hooks; null for a tensor that never touched autograd.
  autograd::AutogradMeta* autograd_meta_ = nullptr;
};

}  // namespace ember
