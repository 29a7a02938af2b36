#pragma once
// The dims of an (N, C, *) tensor that per-channel layers (batch norm, a convolution's bias)
// reduce over, and the shape that broadcasts a per-channel vector over it.

#include <cstdint>
#include <vector>

namespace ember::nn::detail {

/// {0, 2, 3, ..., dim - 1}: every dim but the channels'.
inline std::vector<int64_t> all_but_channel_dims(int64_t dim) {
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < dim; ++d) dims.push_back(d);
  return dims;
}

/// [1, C, 1, ..., 1] with `dim` entries.
inline std::vector<int64_t> channel_shape(int64_t channels, int64_t dim) {
  std::vector<int64_t> shape(size_t(dim), 1);
  shape[1] = channels;
  return shape;
}

}  // namespace ember::nn::detail
