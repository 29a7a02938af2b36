#pragma once
/// Memory formats (libtorch's c10::MemoryFormat): the order in which a dense tensor keeps
/// its elements. Contiguous is row-major; ChannelsLast keeps a 4-D (N, C, H, W) tensor as
/// N, H, W, C (strides H*W*C, 1, W*C, C) and ChannelsLast3d a 5-D one as N, D, H, W, C, the
/// layout GPU tensor cores and oneDNN prefer; Preserve (clone, empty_like) keeps the
/// input's. Sizes stay (N, C, H, W) whatever the format: only the strides differ.

#include <cstdint>
#include <ostream>

#include "ember/export.h"

namespace ember {

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

/// "Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d" (libtorch's spelling).
EMBER_API std::ostream& operator<<(std::ostream& stream, MemoryFormat format);

}  // namespace ember
