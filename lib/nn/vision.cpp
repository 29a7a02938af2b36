// F::affine_grid and F::grid_sample as composite ops. affine_grid is libtorch's base grid
// (x, y[, z], 1) times theta^T in one bmm. grid_sample follows libtorch's CPU sampler: each
// output point's source coordinate per spatial dim (unnormalize, then border clipping or
// reflection), its taps (2 per dim bilinear, 1 nearest, 4 bicubic) with their weights, each
// tap a gather from the flattened input (0 outside it, and for non-finite coordinates).
// Autograd differentiates the weights for the grid and the gather (a scatter-add) for the
// input, so the sampler needs no backward or device code of its own.
#include "ember/nn/vision.h"

#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "conv_checks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

namespace {

enum class Interpolation { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding { Zeros = 0, Border = 1, Reflection = 2 };

// libtorch's linspace_from_neg_one: the normalised centres of `steps` pixels (their corners'
// centres when align_corners).
Tensor linspace_from_neg_one(const Tensor& theta, int64_t steps, bool align_corners) {
  if (steps <= 1) return zeros({}, theta.options());
  Tensor range = linspace(-1, 1, steps, theta.options());
  if (!align_corners) range = range * double(steps - 1) / double(steps);
  return range;
}

// One spatial dim's sampler geometry (libtorch's ComputeLocation): unnormalising
// coordinates and bringing them back inside [0, size - 1] by clipping or reflection.
struct Axis {
  int64_t size;
  bool align_corners;

  Tensor unnormalize(const Tensor& coord) const {
    if (align_corners) return (coord + 1) * (double(size - 1) / 2);
    return (coord + 1) * (double(size) / 2) - 0.5;
  }

  // Clipped to [0, size - 1]; as libtorch, the gradient is 0 on the borders themselves.
  Tensor clip(const Tensor& x) const {
    const double max_val = double(size - 1);
    Tensor inside, clipped;
    {
      NoGradGuard no_grad;
      inside = logical_and(x > 0, x < max_val);
      clipped = x.clamp(0, max_val);
    }
    return where(inside, x, clipped);
  }

  // Reflected about the borders (the corner pixels' centres when align_corners, their outer
  // edges otherwise) until it falls inside, then clipped.
  Tensor reflect(const Tensor& x) const {
    const double low = align_corners ? 0.0 : -0.5;
    const double twice_span = align_corners ? double(2 * (size - 1)) : double(2 * size);
    if (twice_span == 0) return zeros_like(x);
    Tensor distance = (x - low).abs();
    Tensor flips;
    {
      NoGradGuard no_grad;
      flips = (distance / twice_span).trunc();
    }
    Tensor extra = distance - flips * twice_span;
    return clip(minimum(extra, twice_span - extra) + low);
  }

  Tensor pad(const Tensor& x, Padding padding) const {
    switch (padding) {
      case Padding::Border:
        return clip(x);
      case Padding::Reflection:
        return reflect(x);
      case Padding::Zeros:
        break;
    }
    return x;
  }
};

// libtorch's cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from floor(x),
// for t = x - floor(x).
std::vector<Tensor> cubic_weights(const Tensor& t) {
  constexpr double A = -0.75;
  auto near_weight = [](const Tensor& x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far_weight = [](const Tensor& x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  return {far_weight(t + 1), near_weight(t), near_weight(1 - t), far_weight(2 - t)};
}

// The taps of one spatial dim: their integral positions (no gradient) and weights (none for
// nearest, whose output does not depend smoothly on the grid).
struct AxisTaps {
  std::vector<Tensor> position;
  std::vector<Tensor> weight;
  Tensor finite;  // false where the source coordinate is NaN or infinite: the point reads 0
};

// A non-finite coordinate reads nothing (libtorch's CUDA and 3-D CPU samplers move such
// points far outside); 0 stands in for it so that weights and positions stay finite.
Tensor finite_or_zero(const Tensor& x, Tensor& finite) {
  {
    NoGradGuard no_grad;
    finite = isfinite(x);
  }
  return where(finite, x, 0);
}

AxisTaps axis_taps(const Axis& axis, const Tensor& coord, Interpolation mode, Padding padding) {
  AxisTaps taps;
  if (mode == Interpolation::Bicubic) {
    // libtorch pads each tap of the bicubic stencil, not the source coordinate.
    const Tensor x = finite_or_zero(axis.unnormalize(coord), taps.finite);
    Tensor base;
    {
      NoGradGuard no_grad;
      base = x.floor();
    }
    taps.weight = cubic_weights(x - base);
    NoGradGuard no_grad;
    for (int k = -1; k <= 2; ++k) taps.position.push_back(axis.pad(base + k, padding));
    return taps;
  }
  const Tensor x = axis.pad(finite_or_zero(axis.unnormalize(coord), taps.finite), padding);
  if (mode == Interpolation::Nearest) {
    NoGradGuard no_grad;
    taps.position.push_back(x.round());  // half to even, as libtorch's nearbyint
    return taps;
  }
  Tensor low;
  {
    NoGradGuard no_grad;
    low = x.floor();
    taps.position = {low, low + 1};
  }
  const Tensor t = x - low;
  taps.weight = {1 - t, t};
  return taps;
}

// libtorch's check_grid_sampler_common, with ember's dtype checks.
void check_common(const Tensor& input, const Tensor& grid) {
  EMBER_CHECK_ARG(input.defined(), "grid_sampler(): expected input to not be undefined");
  EMBER_CHECK_ARG(grid.defined(), "grid_sampler(): expected grid to not be undefined");
  EMBER_CHECK_TYPED(input.device() == grid.device(), DeviceError,
                    "grid_sampler(): expected input and grid to be on same device, but input is on {} and grid "
                    "is on {}",
                    input.device().str(), grid.device().str());
  EMBER_CHECK_ARG(input.dim() >= 1 && grid.dim() >= 1 && input.size(0) == grid.size(0),
                  "grid_sampler(): expected grid and input to have same batch size, but got input with sizes {} "
                  "and grid with sizes {}",
                  shape_str(input.sizes()), shape_str(grid.sizes()));
  EMBER_CHECK_ARG(grid.size(-1) == input.dim() - 2,
                  "grid_sampler(): expected grid to have size {} in last dimension, but got grid with sizes {}",
                  input.dim() - 2, shape_str(grid.sizes()));
  for (int64_t i = 2; i < input.dim(); ++i)
    EMBER_CHECK_ARG(input.size(i) > 0,
                    "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {} "
                    "with dimension {} being empty",
                    shape_str(input.sizes()), i);
}

void check_dims(const Tensor& input, const Tensor& grid, int64_t dims) {
  EMBER_CHECK_ARG(input.dim() == dims && grid.dim() == dims,
                  "grid_sampler(): expected {}D input and grid with same number of dimensions, but got input "
                  "with sizes {} and grid with sizes {}",
                  dims, shape_str(input.sizes()), shape_str(grid.sizes()));
}

void check_modes_and_types(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                           int64_t padding_mode) {
  EMBER_CHECK_ARG(interpolation_mode >= 0 && interpolation_mode <= 2,
                  "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got {}",
                  interpolation_mode);
  EMBER_CHECK_ARG(padding_mode >= 0 && padding_mode <= 2,
                  "grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got {}",
                  padding_mode);
  EMBER_CHECK_ARG(is_floating_point(input.dtype()),
                  "grid_sampler(): expected a floating point input (Half, BFloat16, Float or Double), but got {}",
                  detail::torch_name(input.dtype()));
  EMBER_CHECK_ARG(grid.dtype() == input.dtype(), "grid_sampler(): expected scalar type {} but found {}",
                  detail::torch_name(input.dtype()), detail::torch_name(grid.dtype()));
}

Tensor sample(const Tensor& input, const Tensor& grid, Interpolation mode, Padding padding, bool align_corners) {
  const int64_t spatial = input.dim() - 2, n = input.size(0), c = input.size(1);
  std::vector<int64_t> out_shape{n, c};
  int64_t points = 1, source_numel = 1;
  for (int64_t d = 1; d <= spatial; ++d) {
    out_shape.push_back(grid.size(d));
    points *= grid.size(d);
  }
  for (int64_t d = 2; d < input.dim(); ++d) source_numel *= input.size(d);

  // Spatial dim d (outermost first) reads grid channel spatial - 1 - d: grid holds (x, y, z).
  std::vector<AxisTaps> axes;
  for (int64_t d = 0; d < spatial; ++d) {
    const Axis axis{input.size(d + 2), align_corners};
    axes.push_back(axis_taps(axis, grid.select(-1, spatial - 1 - d).reshape({n, points}), mode, padding));
  }

  // Every combination of one tap per dim, the last dim varying fastest (libtorch's nw, ne,
  // sw, se order), is gathered from the flattened input, zeroed outside it, weighted and
  // summed one at a time: the working set is one output's size, whatever the tap count.
  const Tensor source = input.reshape({n, c, source_numel});
  Tensor out;
  std::vector<size_t> choice(size_t(spatial), 0);
  const size_t per_axis = axes[0].position.size();
  for (bool more = true; more;) {
    Tensor index, inside;
    {
      NoGradGuard no_grad;
      for (int64_t d = 0; d < spatial; ++d) {
        const Tensor& p = axes[size_t(d)].position[choice[size_t(d)]];
        const Tensor ok =
            logical_and(logical_and(p >= 0, p <= double(input.size(d + 2) - 1)), axes[size_t(d)].finite);
        inside = inside.defined() ? logical_and(inside, ok) : ok;
        // Outside taps read position 0 and are zeroed below; int64 keeps large inputs' flat
        // indices exact.
        const Tensor position = where(ok, p, 0).to(kLong);
        index = index.defined() ? index * input.size(d + 2) + position : position;
      }
      index = index.unsqueeze(1).expand({n, c, points});
      inside = inside.unsqueeze(1);
    }
    Tensor value = where(inside, source.gather(2, index), 0);
    if (!axes[0].weight.empty()) {
      Tensor weight = axes[0].weight[choice[0]];
      for (int64_t d = 1; d < spatial; ++d) weight = weight * axes[size_t(d)].weight[choice[size_t(d)]];
      value = value * weight.unsqueeze(1);
    }
    out = out.defined() ? out + value : value;
    more = false;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      if (++choice[size_t(d)] < per_axis) {
        more = true;
        break;
      }
      choice[size_t(d)] = 0;
    }
  }
  return out.view(out_shape);
}

// Nearest sampling does not depend smoothly on the grid: as libtorch, the grid still gets a
// gradient, of zeros. Multiplying by ones recorded from the grid links the two.
Tensor link_grid_with_zero_gradient(const Tensor& out, const Tensor& grid) {
  if (!(GradMode::is_enabled() && grid.requires_grad())) return out;
  Tensor ones_from_grid;
  {
    NoGradGuard no_grad;
    ones_from_grid = ones({}, out.options());
  }
  const std::vector<int64_t> grid_shape(grid.sizes().begin(), grid.sizes().end());
  const TensorOptions grid_options = grid.options();
  autograd::record("GridSamplerNearestBackward0", {&grid}, {&ones_from_grid},
                   [grid_shape, grid_options](autograd::FormulaNode&,
                                              autograd::variable_list&) -> autograd::variable_list {
                     return {zeros(grid_shape, grid_options)};
                   });
  return out * ones_from_grid;
}

Tensor sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
               bool align_corners) {
  const auto mode = static_cast<Interpolation>(interpolation_mode);
  Tensor out = sample(input, grid, mode, static_cast<Padding>(padding_mode), align_corners);
  if (mode == Interpolation::Nearest) out = link_grid_with_zero_gradient(out, grid);
  return out;
}

}  // namespace

Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK_ARG(theta.defined(), "affine_grid_generator: undefined theta");
  EMBER_CHECK_ARG(size.size() == 4 || size.size() == 5,
                  "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
  EMBER_CHECK_ARG(is_floating_point(theta.dtype()), "Expected theta to have floating point type, but got {}",
                  nn::detail::type_meta_name(theta.dtype()));
  const int64_t spatial = int64_t(size.size()) - 2;
  EMBER_CHECK_ARG(theta.dim() == 3 && theta.size(1) == spatial && theta.size(2) == spatial + 1,
                  "affine_grid_generator: expected theta of shape [N, {}, {}] for size {}, but got {}", spatial,
                  spatial + 1, shape_str(size), shape_str(theta.sizes()));
  EMBER_CHECK_ARG(*std::min_element(size.begin(), size.end()) > 0,
                  "Expected non-zero, positive output size. Got {}", shape_str(size));
  const int64_t n = size[0];
  EMBER_CHECK_ARG(theta.size(0) == n,
                  "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].", n,
                  spatial + 1, theta.size(0), spatial + 1);
  // (N, [D,] H, W, spatial + 1) points (x, y[, z], 1): x runs along W, y along H, z along D.
  std::vector<int64_t> base_shape{n};
  int64_t points = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    base_shape.push_back(size[size_t(d + 2)]);
    points *= size[size_t(d + 2)];
  }
  base_shape.push_back(spatial + 1);
  Tensor base = empty(base_shape, theta.options());
  {
    NoGradGuard no_grad;
    for (int64_t k = 0; k < spatial; ++k) {
      // Coordinate k runs along spatial dim spatial - 1 - k, broadcast over the later dims.
      Tensor line = linspace_from_neg_one(theta, size[size_t(spatial + 1 - k)], align_corners);
      for (int64_t later = 0; later < k; ++later) line = line.unsqueeze(-1);
      base.select(-1, k).copy_(line);
    }
    base.select(-1, spatial).fill_(1);
  }
  std::vector<int64_t> grid_shape(base_shape.begin(), base_shape.end() - 1);
  grid_shape.push_back(spatial);
  return base.view({n, points, spatial + 1}).bmm(theta.transpose(1, 2)).view(grid_shape);
}

Tensor grid_sampler_2d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool align_corners) {
  check_common(input, grid);
  check_dims(input, grid, 4);
  check_modes_and_types(input, grid, interpolation_mode, padding_mode);
  return sampler(input, grid, interpolation_mode, padding_mode, align_corners);
}

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                       bool align_corners) {
  check_common(input, grid);
  check_dims(input, grid, 5);
  EMBER_CHECK_ARG(interpolation_mode != int64_t(Interpolation::Bicubic),
                  "grid_sampler(): bicubic interpolation only supports 4D input");
  check_modes_and_types(input, grid, interpolation_mode, padding_mode);
  return sampler(input, grid, interpolation_mode, padding_mode, align_corners);
}

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  check_common(input, grid);
  if (input.dim() == 4) return grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners);
  return grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners);
}

namespace nn::functional {

Tensor affine_grid(const Tensor& theta, const IntArrayRef& size, bool align_corners) {
  EMBER_CHECK_ARG(theta.defined(), "affine_grid: undefined theta");
  EMBER_CHECK_ARG(is_floating_point(theta.dtype()), "Expected theta to have floating point type, but got {}",
                  nn::detail::type_meta_name(theta.dtype()));
  if (size.size() == 4) {
    EMBER_CHECK_ARG(theta.dim() == 3 && theta.size(-2) == 2 && theta.size(-1) == 3,
                    "Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}.", shape_str(size),
                    shape_str(theta.sizes()));
  } else if (size.size() == 5) {
    EMBER_CHECK_ARG(theta.dim() == 3 && theta.size(-2) == 3 && theta.size(-1) == 4,
                    "Expected a batch of 3D affine matrices of shape Nx3x4 for size {}. Got {}.", shape_str(size),
                    shape_str(theta.sizes()));
  } else {
    EMBER_THROW(InvalidArgument,
                "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got "
                "size {}",
                shape_str(size));
  }
  return affine_grid_generator(theta, size, align_corners);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  const InterpolateMode mode = options.mode();
  EMBER_CHECK_ARG(mode == kBilinear || mode == kNearest || mode == kBicubic,
                  "grid_sample: mode must be kBilinear, kNearest or kBicubic, got {}", interpolate_mode_name(mode));
  const PaddingMode padding = options.padding_mode();
  EMBER_CHECK_ARG(padding == kZeros || padding == kBorder || padding == kReflection,
                  "grid_sample: padding_mode must be kZeros, kBorder or kReflection, got {}",
                  padding_mode_name(padding));
  if (!options.align_corners())
    EMBER_WARN_FMT(
        "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
        "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
        "details.");
  const int64_t mode_code = mode == kBilinear ? 0 : mode == kNearest ? 1 : 2;
  const int64_t padding_code = padding == kZeros ? 0 : padding == kBorder ? 1 : 2;
  return grid_sampler(input, grid, mode_code, padding_code, options.align_corners().value_or(false));
}

}  // namespace nn::functional
}  // namespace ember
