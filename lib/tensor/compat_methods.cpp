// libtorch spellings with no other home: to(other), as_strided, resize_, clone(t),
// var_mean / std_mean.
#include <tuple>

#include "autograd/grad_ops.h"
#include "autograd/meta.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy) const {
  EMBER_CHECK_ARG(defined(), "to: undefined tensor");
  EMBER_CHECK_ARG(other.defined(), "to: the other tensor is undefined");
  return to(other.device(), other.dtype(), non_blocking, copy);
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) const {
  EMBER_CHECK_ARG(defined(), "as_strided: undefined tensor");
  EMBER_CHECK_ARG(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  EMBER_CHECK_ARG(offset >= 0, "Tensor: invalid storage offset {}", offset);
  int64_t last = offset;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK_ARG(sizes[d] >= 0, "Trying to create tensor with negative dimension {}: {}", sizes[d],
                    detail::shape_str(sizes));
    EMBER_CHECK_ARG(strides[d] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: {}",
                    detail::shape_str(strides));
    empty = empty || sizes[d] == 0;
    last += (sizes[d] - 1) * strides[d];
  }
  const int64_t item = int64_t(element_size());
  const int64_t need = empty ? 0 : (last + 1) * item;
  EMBER_CHECK_ARG(need <= int64_t(storage()->nbytes_),
                  "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} requiring a storage size of {} "
                  "are out of bounds for storage of size {}",
                  detail::shape_str(sizes), detail::shape_str(strides), offset, item, need, storage()->nbytes_);
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::as_strided(*this, sizes, strides, offset);
  return detail::make_view(*this, sizes, strides, offset);
}

Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset) {
  return x.as_strided(sizes, strides, storage_offset);
}

const Tensor& Tensor::resize_(IntArrayRef sizes) const {
  EMBER_CHECK_ARG(defined(), "resize_: undefined tensor");
  int64_t n = 1;
  for (int64_t s : sizes) {
    EMBER_CHECK_ARG(s >= 0, "Trying to create tensor with negative dimension {}: {}", s, detail::shape_str(sizes));
    n *= s;
  }
  const size_t need = size_t(storage_offset() + n) * element_size();
  if (need > storage()->nbytes_) {
    // A larger storage on the same device, holding the old bytes first.
    const int64_t old_bytes = int64_t(storage()->nbytes_);
    Tensor fresh = empty({int64_t(need)}, TensorOptions(kUInt8).device(device()));
    if (old_bytes > 0) {
      Tensor old(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(storage(), kUInt8, {old_bytes})));
      fresh.slice(0, 0, old_bytes).copy_(old);
    }
    impl_->storage_ = fresh.storage();
  }
  impl_->sizes_ = SizesVector(sizes);
  impl_->strides_ = SizesVector(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) impl_->strides_[d - 1] = impl_->strides_[d] * std::max<int64_t>(sizes[d], 1);
  impl_->refresh();
  return *this;
}

Tensor clone(const Tensor& x) {
  EMBER_CHECK_ARG(x.defined(), "clone: undefined tensor");
  return x.clone();
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& x, bool unbiased) { return {var(x, unbiased), mean(x)}; }
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, int dim, bool unbiased, bool keepdim) {
  const int64_t d = dim;
  return var_mean(x, IntArrayRef(d), unbiased, keepdim);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return var_mean(x, dims, std::optional<int64_t>(unbiased ? 1 : 0), keepdim);
}
// var first: it validates x (dtype, dims) before mean runs.
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction,
                                    bool keepdim) {
  Tensor v = var(x, dims, correction, keepdim);
  return {v, mean(x, dims, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, bool unbiased) { return {ember::std(x, unbiased), mean(x)}; }
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, int dim, bool unbiased, bool keepdim) {
  const int64_t d = dim;
  return std_mean(x, IntArrayRef(d), unbiased, keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return std_mean(x, dims, std::optional<int64_t>(unbiased ? 1 : 0), keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction,
                                    bool keepdim) {
  Tensor s = ember::std(x, dims, correction, keepdim);
  return {s, mean(x, dims, keepdim)};
}

}  // namespace ember
