#pragma once
/// Spatial transformers: F::affine_grid and F::grid_sample (libtorch's options, warnings and
/// texts) and the torch::affine_grid_generator / grid_sampler ops under them. Both are built
/// from ordinary ember ops (a bmm; a gather of each tap times its weight), so autograd gives
/// the gradients of the input, the grid and theta, and every device works without kernels.

#include <cstdint>
#include <optional>

#include "ember/arg.h"
#include "ember/nn/padding.h"
#include "ember/nn/upsampling.h"
#include "ember/tensor.h"

namespace ember {

/// The sampling grid of an affine transform: for size (N, C, H, W) and theta (N, 2, 3), the
/// (N, H, W, 2) points theta @ (x, y, 1) for x, y on [-1, 1] (pixel centres unless
/// align_corners); for size (N, C, D, H, W) and theta (N, 3, 4), (N, D, H, W, 3).
EMBER_API Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);

/// Samples input (N, C, H, W) at grid (N, H_out, W_out, 2), or input (N, C, D, H, W) at grid
/// (N, D_out, H_out, W_out, 3); grid's last dim holds (x, y[, z]) normalised to [-1, 1].
/// interpolation_mode: 0 bilinear, 1 nearest, 2 bicubic (4-D only); padding_mode: 0 zeros,
/// 1 border, 2 reflection (libtorch's integer codes).
EMBER_API Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                              int64_t padding_mode, bool align_corners);
EMBER_API Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                 int64_t padding_mode, bool align_corners);
EMBER_API Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                                 int64_t padding_mode, bool align_corners);

namespace nn::functional {

struct GridSampleFuncOptions {
  /// kBilinear, kNearest or kBicubic (4-D input only).
  EMBER_ARG(InterpolateMode, mode) = kBilinear;
  /// Where the grid points outside the input: kZeros, kBorder or kReflection.
  EMBER_ARG(PaddingMode, padding_mode) = kZeros;
  /// True: -1 and 1 are the centres of the corner pixels; false: their outer edges. Unset
  /// warns, as libtorch does, and means false.
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

/// libtorch's F::affine_grid: theta (N, 2, 3) for a 4-D size, (N, 3, 4) for a 5-D one.
EMBER_API Tensor affine_grid(const Tensor& theta, const IntArrayRef& size, bool align_corners = false);

/// libtorch's F::grid_sample.
EMBER_API Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});

}  // namespace nn::functional
}  // namespace ember
