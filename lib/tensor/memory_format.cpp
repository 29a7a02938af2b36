// MemoryFormat (ember/memory_format.h): the channels-last stride orders, libtorch's density
// and suggestion rules, and fresh tensors laid out in a format.
#include "tensor/memory_format.h"

#include <algorithm>
#include <ostream>

#include "core/check.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

// Dims from fastest to slowest in each channels-last format: C, then the spatial dims from
// the last, then N.
constexpr int kOrder2d[] = {1, 3, 2, 0};
constexpr int kOrder3d[] = {1, 4, 3, 2, 0};

template <size_t K>
bool dense_in_order(IntArrayRef sizes, IntArrayRef strides, const int (&order)[K]) {
  int64_t expected = 1;
  for (int d : order) {
    if (sizes[size_t(d)] == 1) continue;  // a size-1 dim may have any stride
    if (strides[size_t(d)] != expected) return false;
    expected *= sizes[size_t(d)];
  }
  return true;
}

// libtorch's is_channels_last_strides_{2d,3d}: strides that grow in channels-last order,
// with ambiguous cases (a trivial C, N111 tensors) left to the default layout.
template <size_t K>
bool strides_like_channels_last(IntArrayRef sizes, IntArrayRef strides, const int (&order)[K]) {
  if (strides[1] == 0) return false;
  int64_t min = 0;
  for (int d : order) {
    const size_t i = size_t(d);
    if (sizes[i] == 0 || strides[i] < min) return false;
    if (d == 0 && min == strides[1]) return false;
    min = strides[i];
    if (sizes[i] > 1) min *= sizes[i];
  }
  return true;
}

}  // namespace

std::ostream& operator<<(std::ostream& stream, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous:
      return stream << "Contiguous";
    case MemoryFormat::Preserve:
      return stream << "Preserve";
    case MemoryFormat::ChannelsLast:
      return stream << "ChannelsLast";
    case MemoryFormat::ChannelsLast3d:
      return stream << "ChannelsLast3d";
  }
  return stream << "MemoryFormat(" << int(format) << ")";
}

bool Tensor::is_contiguous(MemoryFormat memory_format) const {
  EMBER_CHECK_ARG(defined(), "is_contiguous: undefined tensor");
  switch (memory_format) {
    case MemoryFormat::Contiguous:
      return is_contiguous();
    case MemoryFormat::ChannelsLast:
      return dim() == 4 && dense_in_order(sizes(), strides(), kOrder2d);
    case MemoryFormat::ChannelsLast3d:
      return dim() == 5 && dense_in_order(sizes(), strides(), kOrder3d);
    case MemoryFormat::Preserve:
      break;
  }
  EMBER_THROW(InvalidArgument, "is_contiguous: unsupported memory format Preserve");
}

MemoryFormat Tensor::suggest_memory_format(bool channels_last_strides_exact_match) const {
  EMBER_CHECK_ARG(defined(), "suggest_memory_format: undefined tensor");
  if (dim() == 4 && strides_like_channels_last(sizes(), strides(), kOrder2d) &&
      (!channels_last_strides_exact_match || is_contiguous(MemoryFormat::ChannelsLast)))
    return MemoryFormat::ChannelsLast;
  if (dim() == 5 && strides_like_channels_last(sizes(), strides(), kOrder3d) &&
      (!channels_last_strides_exact_match || is_contiguous(MemoryFormat::ChannelsLast3d)))
    return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

namespace detail {

SizesVector format_strides(IntArrayRef sizes, MemoryFormat format) {
  if (format == MemoryFormat::Contiguous) return contiguous_strides(sizes);
  EMBER_CHECK_ARG(format != MemoryFormat::Preserve, "memory format Preserve has no strides of its own");
  const bool is_2d = format == MemoryFormat::ChannelsLast;
  EMBER_CHECK_ARG(sizes.size() == (is_2d ? 4u : 5u), "required rank {} tensor to use {} format",
                  is_2d ? 4 : 5, is_2d ? "channels_last" : "channels_last_3d");
  SizesVector strides = contiguous_strides(sizes);
  int64_t expected = 1;
  auto assign = [&](int d) {
    strides[size_t(d)] = expected;
    expected *= std::max<int64_t>(sizes[size_t(d)], 1);
  };
  if (is_2d)
    for (int d : kOrder2d) assign(d);
  else
    for (int d : kOrder3d) assign(d);
  return strides;
}

Tensor empty_in_format(IntArrayRef sizes, ScalarType dtype, DeviceEntry& device, MemoryFormat format) {
  Tensor t = empty_on(sizes, dtype, device);
  if (format == MemoryFormat::Contiguous) return t;
  const SizesVector strides = format_strides(sizes, format);
  // The same bytes as the contiguous tensor: only the order of the elements differs.
  return Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(t.storage(), dtype, sizes, strides.ref(), 0)));
}

}  // namespace detail
}  // namespace ember
