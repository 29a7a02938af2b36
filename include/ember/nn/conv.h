#pragma once
/// Convolutions (libtorch's torch::conv1d / conv2d / conv3d, F::conv1d / conv2d / conv3d and
/// the Conv1d / Conv2d / Conv3d modules, with their options, parameter names, initialisation
/// and error texts).
/// Built from ordinary ops: padding, a copy of the input's sliding windows (im2col) and
/// matmul, so autograd and every device work without convolution kernels.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/padding.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// The string paddings of libtorch's convolutions: torch::kValid (none) and torch::kSame
/// (the output keeps the input's size; stride 1 only).
enum class ConvPaddingKind { Valid, Same };
constexpr ConvPaddingKind kValid = ConvPaddingKind::Valid;
constexpr ConvPaddingKind kSame = ConvPaddingKind::Same;

/// The string padding of conv1d / conv2d: "valid" or "same" (libtorch's c10::string_view).
/// Unlike a string_view it does not take the literal 0, so conv2d(x, w, b, 1, 0) means
/// integer padding (the call libtorch finds ambiguous).
class ConvPaddingString {
 public:
  template <size_t N>
  ConvPaddingString(const char (&text)[N]) : text_(text) {}    // NOLINT: implicit, as a string
  ConvPaddingString(std::string_view text) : text_(text) {}    // NOLINT
  ConvPaddingString(const std::string& text) : text_(text) {}  // NOLINT
  std::string_view view() const { return text_; }

 private:
  std::string_view text_;
};

/// input (N, C_in, L) or unbatched (C_in, L), weight (C_out, C_in / groups, k), bias (C_out).
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
/// padding "valid" or "same".
EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        ConvPaddingString padding, IntArrayRef dilation = 1, int64_t groups = 1);
/// input (N, C_in, H, W) or unbatched (C_in, H, W), weight (C_out, C_in / groups, kH, kW).
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        ConvPaddingString padding, IntArrayRef dilation = 1, int64_t groups = 1);
/// input (N, C_in, D, H, W) or unbatched (C_in, D, H, W), weight (C_out, C_in / groups, kD, kH, kW).
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                        int64_t groups = 1);
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        ConvPaddingString padding, IntArrayRef dilation = 1, int64_t groups = 1);

namespace nn {

/// A convolution's padding: D sizes (one expands to all), or kValid / kSame
/// (libtorch's Conv2dOptions::padding_t).
template <size_t D>
class ConvPadding {
 public:
  ConvPadding(int64_t size) : sizes_(size) {}                             // NOLINT: implicit as in libtorch
  ConvPadding(std::initializer_list<int64_t> sizes) : sizes_(sizes) {}    // NOLINT
  ConvPadding(std::vector<int64_t> sizes) : sizes_(std::move(sizes)) {}   // NOLINT
  ConvPadding(IntArrayRef sizes) : sizes_(sizes) {}                       // NOLINT
  ConvPadding(ExpandingArray<D> sizes) : sizes_(std::move(sizes)) {}      // NOLINT
  ConvPadding(ConvPaddingKind kind) : sizes_(int64_t(0)), kind_(kind) {}  // NOLINT
  /// kValid or kSame when given so; empty when given as sizes.
  std::optional<ConvPaddingKind> kind() const { return kind_; }
  const ExpandingArray<D>& sizes() const { return sizes_; }

 private:
  ExpandingArray<D> sizes_;
  std::optional<ConvPaddingKind> kind_;
};

/// Conv1dOptions / Conv2dOptions(in_channels, out_channels, kernel_size).
template <size_t D>
struct ConvOptions {
  using padding_t = ConvPadding<D>;
  using padding_mode_t = PaddingMode;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  /// kZeros, kReflect, kReplicate or kCircular: how the padding is filled.
  EMBER_ARG(PaddingMode, padding_mode) = kZeros;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

namespace detail {
/// The Conv modules' `options` (libtorch's detail::ConvNdOptions): ConvOptions plus
/// `transposed`, which makes reset() register the weight as (C_in, C_out / groups, k...),
/// and `output_padding`, printed when not 0.
template <size_t D>
struct ConvNdOptions {
  using padding_t = ConvPadding<D>;
  ConvNdOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, transposed) = false;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(PaddingMode, padding_mode) = kZeros;
};
}  // namespace detail

namespace functional {
template <size_t D>
struct ConvFuncOptions {
  using padding_t = ConvPadding<D>;
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(padding_t, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

EMBER_API Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
EMBER_API Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
EMBER_API Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});
}  // namespace functional

/// Applies a 1-D convolution over (N, C_in, L) or (C_in, L). weight (C_out, C_in / groups,
/// k): kaiming_uniform_(a = sqrt(5)); bias (C_out): U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
class EMBER_API Conv1dImpl : public Cloneable<Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(Conv1dOptions options);
  /// Registers weight and bias anew and initialises them (clone() relies on it).
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<1> options;
  Tensor weight;
  Tensor bias;  // undefined with bias(false)
};
EMBER_MODULE(Conv1d);

/// Applies a 2-D convolution over (N, C_in, H, W) or (C_in, H, W); parameters as Conv1d's
/// with weight (C_out, C_in / groups, kH, kW).
class EMBER_API Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(Conv2dOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<2> options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Conv2d);

/// Applies a 3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W); parameters as
/// Conv1d's with weight (C_out, C_in / groups, kD, kH, kW).
class EMBER_API Conv3dImpl : public Cloneable<Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv3dImpl(Conv3dOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<3> options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(Conv3d);

}  // namespace nn
}  // namespace ember
