#pragma once
/// Resampling: F::interpolate and the Upsample module (libtorch's options, modes, output
/// sizes, source-index formulas, warnings and error texts), and the torch::upsample_*
/// functions they call. Each interpolated dim is an index_select per tap times its weights,
/// so autograd gives the gradients and every device works without kernels of its own.

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/arg.h"
#include "ember/error.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/init.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember {

/// The modes of F::interpolate (libtorch's torch::kNearest ...). libtorch's torch::kLinear
/// also names nn::init's linear Nonlinearity; that kLinear converts to this mode.
class InterpolateMode {
 public:
  enum Kind { Nearest, Linear, Bilinear, Bicubic, Trilinear, Area, NearestExact };
  constexpr InterpolateMode(Kind kind) : kind_(kind) {}   // NOLINT: implicit, as an enum
  InterpolateMode(Nonlinearity linear) : kind_(Linear) {  // NOLINT: torch::kLinear
    if (linear != Nonlinearity::Linear)
      throw InvalidArgument("interpolate: the only Nonlinearity mode is kLinear");
  }
  constexpr Kind kind() const { return kind_; }
  friend constexpr bool operator==(InterpolateMode a, InterpolateMode b) { return a.kind_ == b.kind_; }
  friend constexpr bool operator!=(InterpolateMode a, InterpolateMode b) { return a.kind_ != b.kind_; }

 private:
  Kind kind_;
};
constexpr InterpolateMode kNearest{InterpolateMode::Nearest};
constexpr InterpolateMode kBilinear{InterpolateMode::Bilinear};
constexpr InterpolateMode kBicubic{InterpolateMode::Bicubic};
constexpr InterpolateMode kTrilinear{InterpolateMode::Trilinear};
constexpr InterpolateMode kArea{InterpolateMode::Area};
constexpr InterpolateMode kNearestExact{InterpolateMode::NearestExact};
// kLinear is nn::init's (ember/nn/init.h), converted by InterpolateMode's constructor.

/// libtorch's enum names ("kBilinear"), as its messages and modules print them.
EMBER_API const char* interpolate_mode_name(InterpolateMode mode);

/// Nearest neighbour over the last 1, 2 or 3 dims of an (N, C, ...) input: output index i
/// reads input floor(i * scale), scale = 1 / scales when given (> 0), else in / out.
EMBER_API Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales = std::nullopt);
EMBER_API Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
EMBER_API Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                                    std::optional<double> scales_d = std::nullopt,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
/// Nearest with pixel centres aligned: input floor((i + 0.5) * scale) (Pillow, scipy).
EMBER_API Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales = std::nullopt);
EMBER_API Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales_h = std::nullopt,
                                           std::optional<double> scales_w = std::nullopt);
EMBER_API Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                           std::optional<double> scales_d = std::nullopt,
                                           std::optional<double> scales_h = std::nullopt,
                                           std::optional<double> scales_w = std::nullopt);
/// Linear interpolation between the two nearest inputs along each dim; align_corners maps
/// the corner pixels' centres onto each other, else source = (i + 0.5) * scale - 0.5.
EMBER_API Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                   std::optional<double> scales = std::nullopt);
EMBER_API Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                     std::optional<double> scales_h = std::nullopt,
                                     std::optional<double> scales_w = std::nullopt);
EMBER_API Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                      std::optional<double> scales_d = std::nullopt,
                                      std::optional<double> scales_h = std::nullopt,
                                      std::optional<double> scales_w = std::nullopt);
/// Cubic convolution (A = -0.75) over the four nearest inputs along H and W, the border
/// ones repeated.
EMBER_API Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);

namespace nn {

/// Upsample's options: size or scale_factor (one value per spatial dim), the mode and,
/// for the interpolating modes, align_corners.
struct UpsampleOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(InterpolateMode, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

struct InterpolateFuncOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(InterpolateMode, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  /// True: the scales come from the computed output size, not scale_factor.
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  /// Anti-aliased bilinear / bicubic downsampling: not implemented in ember (a typed error).
  EMBER_ARG(bool, antialias) = false;
};

/// Resamples an (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to `size`, or by
/// `scale_factor`, in `mode` (kLinear 3-D only, kBilinear and kBicubic 4-D, kTrilinear
/// 5-D; kArea is adaptive average pooling).
EMBER_API Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

}  // namespace functional

/// Upsamples its input as F::interpolate with the module's options.
class EMBER_API UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UpsampleOptions options;
};
EMBER_MODULE(Upsample);

}  // namespace nn
}  // namespace ember
