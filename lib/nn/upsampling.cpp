// F::interpolate, Upsample and the torch::upsample_* functions. Each interpolated dim is
// resampled on its own, the last first (the order of libtorch's nested loops): nearest is
// one index_select, linear two and cubic four, each times its weights. Source indices and
// weights follow libtorch's UpSample.h (area_pixel_compute_scale / _source_index, nearest
// floor(i * scale)), computed in float for float, half and bfloat16 inputs and in double
// for double ones, as libtorch's opmath_t. The checks and texts are libtorch's: the
// functional's (torch/nn/functional/upsampling.h) in its order, then each op's.
#include "ember/nn/upsampling.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/expanding_array.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

const char* interpolate_mode_name(InterpolateMode mode) {
  switch (mode.kind()) {
    case InterpolateMode::Nearest:
      return "kNearest";
    case InterpolateMode::Linear:
      return "kLinear";
    case InterpolateMode::Bilinear:
      return "kBilinear";
    case InterpolateMode::Bicubic:
      return "kBicubic";
    case InterpolateMode::Trilinear:
      return "kTrilinear";
    case InterpolateMode::Area:
      return "kArea";
    case InterpolateMode::NearestExact:
      return "kNearestExact";
  }
  return "?";
}

namespace {

enum class Interp { Nearest, NearestExact, Linear, Cubic };
using Scales = std::vector<std::optional<double>>;

// One resampled dim: output i = sum over taps k of weight[k][i] * input[index[k][i]]
// (no weights: nearest, a plain gather).
struct Taps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
};

template <class T>
T compute_scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0. ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

template <class T>
T area_pixel_compute_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return compute_scales_value<T>(scale, in, out);
}

template <class T>
T area_pixel_compute_source_index(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  // libtorch evaluates this in double (dst + 0.5), then rounds to T.
  const T src = static_cast<T>(static_cast<double>(scale) * (static_cast<double>(dst) + 0.5) - 0.5);
  return !cubic && src < 0 ? T(0) : src;
}

// libtorch's floorf of a T value.
template <class T>
int64_t floor_index(T x) {
  return static_cast<int64_t>(std::floor(static_cast<float>(x)));
}

template <class T>
T cubic_convolution1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}

template <class T>
T cubic_convolution2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <class T>
Taps compute_taps(Interp kind, int64_t in, int64_t out, bool align_corners, std::optional<double> scale_opt) {
  const T scale = area_pixel_compute_scale<T>(
      in, out, kind == Interp::Linear || kind == Interp::Cubic ? align_corners : false, scale_opt);
  const size_t n = size_t(out);
  Taps taps;
  switch (kind) {
    case Interp::Nearest:
    case Interp::NearestExact: {
      taps.index.assign(1, std::vector<int64_t>(n));
      for (int64_t i = 0; i < out; ++i) {
        const int64_t src =
            kind == Interp::Nearest
                ? floor_index(area_pixel_compute_source_index<T>(scale, i, true, false))
                : static_cast<int64_t>(std::floor(static_cast<float>(
                      static_cast<double>(area_pixel_compute_source_index<T>(scale, i, false, false)) +
                      0.5)));
        taps.index[0][size_t(i)] = std::min(src, in - 1);
      }
      break;
    }
    case Interp::Linear: {
      taps.index.assign(2, std::vector<int64_t>(n));
      taps.weight.assign(2, std::vector<double>(n));
      for (int64_t i = 0; i < out; ++i) {
        const size_t j = size_t(i);
        if (in == out) {  // libtorch copies: weights 1 and 0
          taps.index[0][j] = taps.index[1][j] = i;
          taps.weight[0][j] = 1;
          taps.weight[1][j] = 0;
          continue;
        }
        const T real = area_pixel_compute_source_index<T>(scale, i, align_corners, false);
        const int64_t i0 = std::min(static_cast<int64_t>(real), in - 1);
        const T l1 = std::min(std::max(real - static_cast<T>(i0), T(0)), T(1));
        taps.index[0][j] = i0;
        taps.index[1][j] = i0 + (i0 < in - 1 ? 1 : 0);
        taps.weight[0][j] = static_cast<double>(T(1) - l1);
        taps.weight[1][j] = static_cast<double>(l1);
      }
      break;
    }
    case Interp::Cubic: {
      taps.index.assign(4, std::vector<int64_t>(n));
      taps.weight.assign(4, std::vector<double>(n));
      const T a = T(-0.75);
      for (int64_t i = 0; i < out; ++i) {
        const size_t j = size_t(i);
        const T real = area_pixel_compute_source_index<T>(scale, i, align_corners, true);
        const int64_t idx = floor_index(real);
        const T t = real - static_cast<T>(idx);
        const T x2 = static_cast<T>(1.0 - static_cast<double>(t));
        const T coeffs[4] = {cubic_convolution2<T>(static_cast<T>(static_cast<double>(t) + 1.0), a),
                             cubic_convolution1<T>(t, a), cubic_convolution1<T>(x2, a),
                             cubic_convolution2<T>(static_cast<T>(static_cast<double>(x2) + 1.0), a)};
        for (size_t k = 0; k < 4; ++k) {
          taps.index[k][j] = std::clamp<int64_t>(idx - 1 + int64_t(k), 0, in - 1);
          taps.weight[k][j] = static_cast<double>(coeffs[k]);
        }
      }
      break;
    }
  }
  return taps;
}

// Resamples dim `dim` of x with `taps`; the weights in x's dtype, broadcast along the dim.
Tensor apply_taps(const Tensor& x, int64_t dim, const Taps& taps) {
  const Device device = x.device();
  auto index = [&](size_t k) { return tensor(taps.index[k], TensorOptions(kInt64).device(device)); };
  if (taps.weight.empty()) return x.index_select(dim, index(0));
  std::vector<int64_t> shape(size_t(x.dim()), 1);
  shape[size_t(dim)] = int64_t(taps.index[0].size());
  Tensor out;
  for (size_t k = 0; k < taps.index.size(); ++k) {
    const Tensor w = tensor(taps.weight[k], TensorOptions(kDouble).device(device)).to(x.dtype()).view(shape);
    const Tensor term = x.index_select(dim, index(k)) * w;
    out = k == 0 ? term : out + term;
  }
  return out;
}

// libtorch's upsample_{1,2,3}d_common_check and the ops' check of the non-spatial dims.
void check_upsample(const Tensor& input, IntArrayRef output_size, size_t nd) {
  EMBER_CHECK_ARG(input.defined(), "upsample: undefined input tensor");
  EMBER_CHECK_ARG(output_size.size() == nd, "It is expected output_size equals to {}, but got size {}", nd,
                  output_size.size());
  EMBER_CHECK_ARG(input.dim() == int64_t(nd) + 2, "It is expected input_size equals to {}, but got size {}",
                  nd + 2, input.dim());
  bool positive = true;
  for (size_t i = 0; i < nd; ++i) positive = positive && input.size(int64_t(i) + 2) > 0 && output_size[i] > 0;
  if (nd == 1)
    EMBER_CHECK_ARG(
        positive, "Input and output sizes should be greater than 0, but got input (W: {}) and output (W: {})",
        input.size(2), output_size[0]);
  else if (nd == 2)
    EMBER_CHECK_ARG(
        positive,
        "Input and output sizes should be greater than 0, but got input (H: {}, W: {}) output (H: {}, "
        "W: {})",
        input.size(2), input.size(3), output_size[0], output_size[1]);
  else
    EMBER_CHECK_ARG(
        positive,
        "Input and output sizes should be greater than 0, but got input (D: {}, H: {}, W: {}) output "
        "(D: {}, H: {}, W: {})",
        input.size(2), input.size(3), input.size(4), output_size[0], output_size[1], output_size[2]);
  EMBER_CHECK_ARG(input.size(1) != 0, "Non-empty {}D data tensor expected but got a tensor with sizes {}",
                  nd + 2, shape_str(input.sizes()));
}

// libtorch 1.13's CPU kernels: nearest takes float, double, bfloat16 and uint8 (nearest-exact
// not bfloat16), linear and cubic float, double and bfloat16; the index computation names the
// refusal. Other devices take every floating dtype (and uint8 for nearest).
void check_dtype(const Tensor& input, Interp kind) {
  const ScalarType t = input.dtype();
  const bool nearest = kind == Interp::Nearest || kind == Interp::NearestExact;
  bool ok = t == kFloat || t == kDouble || (nearest && t == kUInt8);
  if (input.is_cpu())
    ok = ok || (t == kBFloat16 && kind != Interp::NearestExact);
  else
    ok = ok || is_floating_point(t);
  const char* name = nearest                  ? "compute_indices_weights_nearest"
                     : kind == Interp::Linear ? "compute_indices_weights_linear"
                                              : "compute_indices_weights_cubic";
  EMBER_CHECK_TYPED(ok, NotImplemented, "\"{}\" not implemented for '{}'", name, detail::torch_name(t));
}

Tensor upsample(const Tensor& input, IntArrayRef output_size, Interp kind, bool align_corners,
                const Scales& scales) {
  const size_t nd = scales.size();
  check_upsample(input, output_size, nd);
  check_dtype(input, kind);
  const bool in_double = input.dtype() == kDouble;
  Tensor y = input;
  for (size_t i = nd; i-- > 0;) {
    const int64_t dim = int64_t(i) + 2, in = input.size(dim), out = output_size[i];
    const Taps taps = in_double ? compute_taps<double>(kind, in, out, align_corners, scales[i])
                                : compute_taps<float>(kind, in, out, align_corners, scales[i]);
    y = apply_taps(y, dim, taps);
  }
  return y;  // index_select made it a new tensor, as libtorch's
}

// libtorch's adaptive_avg_pool3d (no ember pooling op yet), separably: bin i of a dim spans
// [floor(i in / out), ceil((i + 1) in / out)), and the mean over a box is the mean of the
// means along each of its dims, one averaging matrix per dim.
Tensor adaptive_avg_pool3d(const Tensor& input, IntArrayRef size) {
  EMBER_CHECK_ARG(
      size[0] >= 0 && size[1] >= 0 && size[2] >= 0,
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
      "{{{}, {}, {}}}",
      size[0], size[1], size[2]);
  if (size[0] == 1 && size[1] == 1 && size[2] == 1) return input.mean({-1, -2, -3}, true);
  for (int64_t i = 1; i < input.dim(); ++i)
    EMBER_CHECK_ARG(
        input.size(i) > 0,
        "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but "
        "input has sizes {} with dimension {} being empty",
        shape_str(input.sizes()), i);
  EMBER_CHECK_TYPED(is_floating_point(input.dtype()), NotImplemented,
                    "\"adaptive_avg_pool3d_cpu\" not implemented for '{}'",
                    detail::torch_name(input.dtype()));
  Tensor y = input;
  for (int64_t d = 4; d >= 2; --d) {
    const int64_t in = input.size(d), out = size[size_t(d - 2)];
    std::vector<double> average(size_t(out * in), 0.0);
    for (int64_t i = 0; i < out; ++i) {
      const int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
      for (int64_t j = start; j < end; ++j) average[size_t(i * in + j)] = 1.0 / double(end - start);
    }
    const Tensor m = tensor(average, TensorOptions(kDouble).device(input.device())).to(input.dtype());
    y = y.transpose(d, -1).matmul(m.view({out, in}).t()).transpose(d, -1);
  }
  return y.contiguous();
}

}  // namespace

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return upsample(self, output_size, Interp::Nearest, false, {scales});
}

Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::Nearest, false, {scales_h, scales_w});
}

Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::Nearest, false, {scales_d, scales_h, scales_w});
}

Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales) {
  return upsample(self, output_size, Interp::NearestExact, false, {scales});
}

Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_h,
                                 std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::NearestExact, false, {scales_h, scales_w});
}

Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size, std::optional<double> scales_d,
                                 std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::NearestExact, false, {scales_d, scales_h, scales_w});
}

Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales) {
  return upsample(self, output_size, Interp::Linear, align_corners, {scales});
}

Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::Linear, align_corners, {scales_h, scales_w});
}

Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d, std::optional<double> scales_h,
                            std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::Linear, align_corners, {scales_d, scales_h, scales_w});
}

Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  return upsample(self, output_size, Interp::Cubic, align_corners, {scales_h, scales_w});
}

namespace nn::functional {

namespace {

// libtorch's _interp_output_size: the given size, or floor(input size * scale_factor).
std::vector<int64_t> interp_output_size(const Tensor& input, size_t nd,
                                        const InterpolateFuncOptions& options) {
  const auto& size = options.size();
  const auto& scale_factor = options.scale_factor();
  EMBER_CHECK_ARG(size || scale_factor, "either size or scale_factor should be defined");
  EMBER_CHECK_ARG(!(size && scale_factor), "only one of size or scale_factor should be defined");
  if (scale_factor && scale_factor->size() != nd) {
    std::ostringstream s;
    s << ArrayRef<double>(*scale_factor);
    EMBER_THROW(InvalidArgument,
                "scale_factor shape must match input shape. Input is {}D, scale_factor size is {}", nd,
                s.str());
  }
  if (size) return *size;
  if (!options.recompute_scale_factor()) {
    // The result for integer scales is the same either way: warn only for fractional ones.
    const bool fractional =
        std::any_of(scale_factor->begin(), scale_factor->end(), [](double s) { return std::floor(s) != s; });
    if (fractional)
      EMBER_WARN_FMT(
          "The default behavior for interpolate/upsample with float scale_factor changed in 1.6.0 to "
          "align with other frameworks/libraries, and uses scale_factor directly, instead of relying on "
          "the computed output size. If you wish to keep the old behavior, please set "
          "recompute_scale_factor=True. See the documentation of nn.Upsample for details. ");
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < nd; ++i)
    out.push_back(static_cast<int64_t>(
        std::floor(static_cast<double>(input.size(int64_t(i) + 2)) * (*scale_factor)[i])));
  return out;
}

}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "interpolate: undefined input tensor");
  const InterpolateMode mode = options.mode();
  std::optional<bool> align_corners = options.align_corners();
  if (mode == kNearest || mode == kArea) {
    EMBER_CHECK_ARG(!align_corners,
                    "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                    "bicubic | trilinear");
  } else if (!align_corners) {
    EMBER_WARN_FMT(
        "Default upsampling behavior when mode={} is changed to align_corners=False since 0.4.0. "
        "Please specify align_corners=True if the old behavior is desired. See the documentation of "
        "nn.Upsample for details.",
        interpolate_mode_name(mode));
    align_corners = false;
  }
  const int64_t dim = input.dim();
  const bool align = *align_corners;
  EMBER_CHECK_ARG(!options.antialias() || (dim == 4 && (mode == kBilinear || mode == kBicubic)),
                  "Anti-alias option is only supported for bilinear and bicubic modes");
  EMBER_CHECK_TYPED(!options.antialias(), NotImplemented,
                    "interpolate: antialias=true (_upsample_{}2d_aa) is not implemented in ember",
                    mode == kBilinear ? "bilinear" : "bicubic");
  // The scales the ops get: scale_factor unless the output size is to set them.
  const size_t nd = dim >= 3 ? size_t(dim - 2) : 0;
  Scales scales(nd);
  const bool pass_scales = options.scale_factor() && !options.recompute_scale_factor().value_or(false);
  for (size_t i = 0; i < nd && pass_scales; ++i)
    if (i < options.scale_factor()->size()) scales[i] = (*options.scale_factor())[i];
  auto sizes = [&] { return interp_output_size(input, nd, options); };
  const bool spatial = dim >= 3 && dim <= 5;
  switch (mode.kind()) {
    case InterpolateMode::Nearest:
    case InterpolateMode::NearestExact: {
      if (!spatial) break;
      const std::vector<int64_t> size = sizes();
      return upsample(input, size, mode == kNearest ? Interp::Nearest : Interp::NearestExact, false, scales);
    }
    case InterpolateMode::Area: {
      if (!spatial) break;
      if (dim == 3) {
        // adaptive_avg_pool1d: a 2-D pool over (N, C, 1, L).
        const ExpandingArray<1> size(sizes());
        return ember::adaptive_avg_pool2d(input.unsqueeze(-2), {1, (*size)[0]}).squeeze(-2);
      }
      if (dim == 4)
        return ember::adaptive_avg_pool2d(input, static_cast<IntArrayRef>(ExpandingArray<2>(sizes())));
      return adaptive_avg_pool3d(input, static_cast<IntArrayRef>(ExpandingArray<3>(sizes())));
    }
    case InterpolateMode::Linear:
      if (dim == 3) return upsample(input, sizes(), Interp::Linear, align, scales);
      EMBER_CHECK_ARG(!spatial, "Got {}D input, but linear mode needs 3D input", dim);
      break;
    case InterpolateMode::Bilinear:
      if (dim == 4) return upsample(input, sizes(), Interp::Linear, align, scales);
      EMBER_CHECK_ARG(!spatial, "Got {}D input, but bilinear mode needs 4D input", dim);
      break;
    case InterpolateMode::Trilinear:
      if (dim == 5) return upsample(input, sizes(), Interp::Linear, align, scales);
      EMBER_CHECK_ARG(!spatial, "Got {}D input, but trilinear mode needs 5D input", dim);
      break;
    case InterpolateMode::Bicubic:
      if (dim == 4) return upsample(input, sizes(), Interp::Cubic, align, scales);
      break;
  }
  EMBER_THROW(
      InvalidArgument,
      "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | "
      "bilinear | bicubic | trilinear (got {})",
      dim, interpolate_mode_name(mode));
}

}  // namespace nn::functional

namespace nn {

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, functional::InterpolateFuncOptions()
                                            .size(options.size())
                                            .scale_factor(options.scale_factor())
                                            .mode(options.mode())
                                            .align_corners(options.align_corners()));
}

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Upsample(";
  if (options.scale_factor())
    stream << "scale_factor=" << ArrayRef<double>(*options.scale_factor());
  else if (options.size())
    stream << "size=" << ArrayRef<int64_t>(*options.size());
  else
    stream << "size=None";
  stream << ", mode=" << interpolate_mode_name(options.mode()) << ")";
}

}  // namespace nn
}  // namespace ember
