#pragma once
// The strides of each MemoryFormat and the checks behind Tensor::is_contiguous(format) and
// suggest_memory_format (ember/memory_format.h).

#include "ember/tensor.h"
#include "placement/device_table.h"

namespace ember::detail {

/// Dense strides of `sizes` in `format` (Contiguous, ChannelsLast for 4 dims, ChannelsLast3d
/// for 5); InvalidArgument with libtorch's text for a rank the format cannot take.
SizesVector format_strides(IntArrayRef sizes, MemoryFormat format);

/// A fresh tensor laid out in `format` (not Preserve).
Tensor empty_in_format(IntArrayRef sizes, ScalarType dtype, DeviceEntry& device, MemoryFormat format);

/// The channels-last format `t` is laid out in (ChannelsLast or ChannelsLast3d), or
/// Contiguous: what ops that keep their input's layout (elementwise, the CNN layers) follow.
/// Cheap for contiguous tensors (one flag).
inline MemoryFormat channels_last_of(const Tensor& t) {
  if (t.is_contiguous() || (t.dim() != 4 && t.dim() != 5)) return MemoryFormat::Contiguous;
  return t.suggest_memory_format(/*channels_last_strides_exact_match=*/true);
}

/// y laid out as `like` when that is channels-last (layers that compose ops whose results
/// come out row-major: the portable convolution and pooling), else y itself.
inline Tensor in_layout_of(const Tensor& like, const Tensor& y) {
  const MemoryFormat format = channels_last_of(like);
  return format == MemoryFormat::Contiguous || y.dim() != like.dim() ? y : y.contiguous(format);
}

}  // namespace ember::detail
