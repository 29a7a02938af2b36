#pragma once
// The sliding windows of an (N, C, H, W) tensor (im2col) and their adjoint (col2im), each
// one differentiable op whose gradient is the other, and the output-size rules, shared by
// the convolutions, transposed convolutions and pooling layers.

#include <array>
#include <cstdint>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn::detail {

/// A 2-D window: kernel size, stride and dilation along H and W.
struct Window2d {
  int64_t kh, kw, sh, sw, dh, dw;
};

/// The dims of a windows tensor, for `order`.
enum WindowDim : int { kWinBatch, kWinChannel, kWinKernelH, kWinKernelW, kWinOutH, kWinOutW };

/// w[n][c][i][j][oh][ow] = x[n][c][oh*sh + i*dh][ow*sw + j*dw] for oh < out_h, ow < out_w
/// (every window inside x), as a contiguous tensor with its dims in `order`. Recorded as
/// Im2ColBackward0, whose gradient adds each window back where it came from.
Tensor sliding_windows(const Tensor& x, const Window2d& w, int64_t out_h, int64_t out_w,
                       const std::array<int, 6>& order);

/// The adjoint of sliding_windows (col2im): cols in canonical order (n, c, kh, kw, oh, ow),
/// each window added into a zero (N, C, H, W) tensor of `sizes` where sliding_windows would
/// have taken it from. Recorded as Col2ImBackward0, whose gradient is sliding_windows.
Tensor fold_windows(const Tensor& cols, IntArrayRef sizes, const Window2d& w);

/// A window over any number of spatial dims (the 3-D layers): kernel, stride and dilation
/// per dim.
struct WindowNd {
  std::vector<int64_t> kernel, stride, dilation;
};

/// sliding_windows for x (N, C, spatial...): w[n][c][k...][o...] = x[n][c][o * s + k * d...]
/// for o < out (one per spatial dim), contiguous in that canonical order. Recorded as
/// Im2ColBackward0, whose gradient is fold_windows_nd.
Tensor sliding_windows_nd(const Tensor& x, const WindowNd& w, IntArrayRef out);

/// The adjoint of sliding_windows_nd: cols (N, C, k..., o...) added into a zero tensor of
/// `sizes` (N, C, spatial...). Recorded as Col2ImBackward0, whose gradient is
/// sliding_windows_nd.
Tensor fold_windows_nd(const Tensor& cols, IntArrayRef sizes, const WindowNd& w);

/// libtorch's pooling output size: floor (or ceil) of (in + pads - dilated kernel) / stride
/// + 1, where in ceil mode the last window must start inside the input or its left pad.
int64_t pooling_output_size(int64_t in, int64_t kernel, int64_t pad_l, int64_t pad_r, int64_t stride,
                            int64_t dilation, bool ceil_mode);

}  // namespace ember::nn::detail
