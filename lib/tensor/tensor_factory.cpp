#include "tensor/tensor_factory.h"

#include "autograd/meta.h"
#include "core/check.h"
#include "ember/registry.h"
#include "memory/caching_allocator.h"
#include "tensor/inference.h"

namespace ember::detail {

SizesVector contiguous_strides(IntArrayRef sizes) {
  SizesVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
  return strides;
}

void check_sizes(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes) EMBER_CHECK_ARG(s >= 0, "{}: negative dimension in size {}", op, shape_str(sizes));
}

namespace {
// numel * element size, or InvalidArgument when the product does not fit in memory's range.
size_t checked_nbytes(IntArrayRef sizes, ScalarType dtype) {
  int64_t numel = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(numel, s, &numel);
  int64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(numel, int64_t(element_size(dtype)), &nbytes);
  EMBER_CHECK_ARG(!overflow && numel >= 0, "empty: a tensor of size {} and dtype {} is too large to address",
                  shape_str(sizes), name(dtype));
  return size_t(nbytes);
}
}  // namespace

int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides) {
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    extent += (sizes[i] - 1) * strides[i];
  }
  return extent;
}

std::string shape_str(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

Tensor empty_on(IntArrayRef sizes, ScalarType dtype, DeviceEntry& device) {
  const size_t nbytes = checked_nbytes(sizes, dtype);
  if (__builtin_expect(!device.used.load(std::memory_order_relaxed), 0)) mark_used(device);
  void* context = nullptr;
  void* stream = device.backend ? device.backend->current_stream(device.physical_index) : nullptr;
  void* data = device.allocator->allocate(nbytes, stream, &context);
  Storage storage =
      Storage::adopt(new StorageImpl(data, nbytes, device.device, &CachingAllocator::free, context));
  return Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(storage), dtype, sizes)));
}

Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device) {
  DeviceEntry* e = find_device(device);
  EMBER_CHECK_ARG(e != nullptr, "empty: device {} ({}) does not exist", device.tf_str(), device.str());
  return empty_on(sizes, dtype, *e);
}

Tensor empty_like_contiguous(const Tensor& t, ScalarType dtype) {
  return empty_on(t.sizes(), dtype, t.device());
}

EmptyOutputResize::EmptyOutputResize(const Tensor& out, IntArrayRef shape) {
  if (!out.defined() || out.numel() != 0 || out.sizes() == shape) return;
  TensorImpl& impl = *out.unsafe_impl();
  storage_ = impl.storage_, sizes_ = impl.sizes_, strides_ = impl.strides_, offset_ = impl.storage_offset_;
  // The storage is kept when it already holds the result past the offset (an empty view
  // of a larger tensor then writes into it, as in libtorch); otherwise fresh memory.
  const size_t needed =
      checked_nbytes(shape, impl.dtype_) + size_t(impl.storage_offset_) * element_size(impl.dtype_);
  if (needed > impl.storage_->nbytes_) {
    Tensor fresh = empty_on(shape, impl.dtype_, out.device());
    impl.storage_ = fresh.storage();
    impl.storage_offset_ = 0;
  }
  impl.sizes_ = SizesVector(shape);
  impl.strides_ = contiguous_strides(shape);
  impl.refresh();
  impl_ = &impl;
}

EmptyOutputResize::~EmptyOutputResize() {
  if (!impl_) return;
  impl_->storage_ = std::move(storage_);
  impl_->sizes_ = sizes_;
  impl_->strides_ = strides_;
  impl_->storage_offset_ = offset_;
  impl_->refresh();
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto* impl = new TensorImpl(base.storage(), base.dtype(), sizes, strides, offset);
  // A view is what its base is, inside InferenceMode or not (Note [Inference tensors]).
  const TensorImpl* b = base.unsafe_impl();
  impl->is_inference_ = b->is_inference_;
  if (!b->is_inference_) {
    impl->view_kind_ = uint8_t(
        kIsView | (b->view_kind_ & (kInferenceModeView | kInferenceModeViewOfGrad | kNoGradModeViewOfGrad)));
    if (inference_mode()) {
      impl->view_kind_ |= kInferenceModeView | (base.requires_grad() ? kInferenceModeViewOfGrad : 0);
    } else if (b->autograd_meta_ && !GradMode::is_enabled() && autograd::detail::requires_grad(base)) {
      // As libtorch: such a view reports requires_grad, has no grad_fn, gets no gradient, and
      // refuses in-place writes with grad mode on. A recorded view op's forward runs under
      // NoGradGuard too; its mark_view takes the bit back.
      impl->view_kind_ |= kNoGradModeViewOfGrad;
    }
    if (impl->view_kind_ & (kInferenceModeViewOfGrad | kNoGradModeViewOfGrad))
      impl->view_version_ = b->storage_->version_.load(std::memory_order_relaxed);
  }
  return Tensor(IntrusivePtr<TensorImpl>::adopt(impl));
}

Tensor make_alias(const Tensor& base) {
  // Not a view: no view bits, and no autograd state of its own (detach(), data()).
  auto* impl =
      new TensorImpl(base.storage(), base.dtype(), base.sizes(), base.strides(), base.storage_offset());
  impl->is_inference_ = base.unsafe_impl()->is_inference_;
  return Tensor(IntrusivePtr<TensorImpl>::adopt(impl));
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-d tensor accepts dim 0 and -1, as in torch
  EMBER_CHECK_TYPED(dim >= -n && dim < n, InvalidArgument,
                    "{}: dimension out of range (expected to be in range of [{}, {}], but got {})", op, -n,
                    n - 1, dim);
  return dim < 0 ? dim + n : dim;
}

}  // namespace ember::detail
