#pragma once
// Shared by the pooling files (pooling.cpp, pooling_indexed.cpp): host tables as tensors,
// adaptive pooling's bins, libtorch's dtype error, and the maxima of windows given as
// lists of flat positions (adaptive and fractional max pooling).

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::detail {

/// A [rows, cols] int64 tensor on `device` from host values.
Tensor index_table(const std::vector<int64_t>& values, int64_t rows, int64_t cols, Device device);

/// Adaptive pooling's bin i of `out` over `in` elements: [bin_start, bin_end), that is
/// [floor(i in / out), ceil((i + 1) in / out)), as libtorch's start_index / end_index.
inline int64_t bin_start(int64_t i, int64_t in, int64_t out) {
  return (i / out) * in + ((i % out) * in) / out;
}
inline int64_t bin_end(int64_t i, int64_t in, int64_t out) { return 1 + ((i + 1) * in - 1) / out; }

/// libtorch's dispatch error for a non-floating input: "\"op\" not implemented for 'Long'".
void check_floating(const Tensor& x, const char* op);
/// libtorch's error for x.size(dim) with dim outside x's dims.
void check_dim_index(const Tensor& x, int64_t dim);
/// libtorch's check1d: a 1-D op's list argument `name` holds one int.
void check_one(IntArrayRef v, const char* op, const char* name);
/// libtorch's checkDimRange(op, self, 2, 4): (C, L) or (N, C, L).
void check_two_or_three_dims(const Tensor& self, const char* op);

/// libtorch's pooling_output_shape: its argument checks (stride, pad), then the size.
int64_t pooling_output_shape(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                             bool ceil_mode);

/// libtorch's fractional_max_pool generate_intervals, in the input's type T: the starts of
/// `out` windows of `pool` over `in` elements from one sample in [0, 1).
template <class T>
std::vector<int64_t> fractional_intervals(T sample, int64_t in, int64_t out, int64_t pool) {
  std::vector<int64_t> seq(static_cast<size_t>(out));
  if (out > 1) {
    const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
    for (int64_t i = 0; i < out - 1; ++i)
      seq[size_t(i)] =
          static_cast<int>((static_cast<T>(i) + sample) * alpha) - static_cast<int>(sample * alpha);
  }
  if (out > 0) seq[size_t(out - 1)] = in - pool;
  return seq;
}

/// F::max_unpool's output size (libtorch's _unpool_output_size over the input's last
/// kernel_size.size() dims).
std::vector<int64_t> unpool_output_size(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding,
                                        const std::optional<std::vector<int64_t>>& output_size);

/// (values, indices) of x (N, C, H, W) over windows of flat positions h * W + w:
/// `windows` is int64 (N or 1, C or 1, oh, ow, k), a window shorter than k repeating its last
/// position (which keeps its first maximum first). The index is each window's first
/// maximum; with x requiring grad the values are gathered there, so the gradient goes to it.
std::tuple<Tensor, Tensor> max_at_positions(const Tensor& x, const Tensor& windows);

}  // namespace ember::nn::detail
