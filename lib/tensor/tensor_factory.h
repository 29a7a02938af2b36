#pragma once
// Making tensors inside the library: fresh contiguous storage from a device's
// caching allocator, or a view sharing another tensor's storage.

#include "ember/tensor.h"
#include "placement/device_table.h"

namespace ember::detail {

/// A contiguous tensor with uninitialised memory from the device's allocator.
Tensor empty_on(IntArrayRef sizes, ScalarType dtype, DeviceEntry& device);
Tensor empty_on(IntArrayRef sizes, ScalarType dtype, Device device);
/// A tensor like `t` (shape, dtype, device), contiguous.
Tensor empty_like_contiguous(const Tensor& t, ScalarType dtype);
/// The memory format an empty() or *_like call asks for: the argument or the options'
/// (libtorch refuses both), nullopt when neither names one.
std::optional<MemoryFormat> requested_format(const TensorOptions& options, std::optional<MemoryFormat> arg);
/// An uninitialised tensor of t's sizes in `format` (Preserve: t's strides when they are
/// dense, else its suggested format, as libtorch's empty_like), made with `options` less
/// requires_grad and memory format.
Tensor empty_like_in(const Tensor& t, const TensorOptions& options, MemoryFormat format);
/// A view of base's storage with other sizes, strides and offset.
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
/// The same elements under a new handle that is not a view (detach(), data()).
Tensor make_alias(const Tensor& base);
/// out= ops (add_out, mul_out, matmul_out) resize an output with no elements to the
/// result's shape, as libtorch's resize_output does; any other output is left for the
/// op's shape check to reject. The resize is undone if the op throws before commit().
class EmptyOutputResize {
 public:
  EmptyOutputResize(const Tensor& out, IntArrayRef shape);
  ~EmptyOutputResize();
  EmptyOutputResize(const EmptyOutputResize&) = delete;
  EmptyOutputResize& operator=(const EmptyOutputResize&) = delete;
  void commit() { impl_ = nullptr; }

 private:
  TensorImpl* impl_ = nullptr;  // set while a resize may still be undone
  Storage storage_;
  SizesVector sizes_, strides_;
  int64_t offset_ = 0;
};
/// Row-major strides for sizes.
SizesVector contiguous_strides(IntArrayRef sizes);
/// Elements a storage must hold for a view of `sizes` and non-negative `strides` at offset
/// 0: one more than its largest offset, 0 when it has no elements.
int64_t storage_extent(IntArrayRef sizes, IntArrayRef strides);
/// Wraps a possibly negative dim into [0, ndim); InvalidArgument naming the op otherwise.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
/// Shape with the numel check used by every creation op.
void check_sizes(IntArrayRef sizes, const char* op);
/// "[2, 3]" for messages.
std::string shape_str(IntArrayRef sizes);
/// int64 on t's device: the options of index and position tensors made for t.
inline TensorOptions long_on(const Tensor& t) { return TensorOptions(kLong).device(t.device()); }

}  // namespace ember::detail
