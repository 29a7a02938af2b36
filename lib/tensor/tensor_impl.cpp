#include "ember/tensor_impl.h"

namespace ember {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)), sizes_(sizes), strides_(sizes.size()), dtype_(dtype) {
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides_[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
  int64_t n = 1;
  for (int64_t v : sizes) n *= v;
  numel_ = n;
  is_contiguous_ = true;
}

void TensorImpl::refresh() {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  numel_ = n;
  // Contiguous means row-major dense; dims of size 1 may carry any stride (as torch).
  bool contiguous = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous = false;
      break;
    }
    expected *= sizes_[i];
  }
  is_contiguous_ = contiguous || n == 0;
}

}  // namespace ember
