#pragma once
/// Transposed convolutions as libtorch has them: torch::conv_transpose1d / 2d / 3d,
/// F::conv_transpose1d / 2d / 3d and nn::ConvTranspose1d / ConvTranspose2d / ConvTranspose3d
/// (output_padding, groups, dilation, and an output_size at forward).

#include <cstdint>
#include <optional>
#include <ostream>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/any_module.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/conv.h"
#include "ember/nn/padding.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// The gradient of conv1d with respect to its input, as an op: input (N, C_in, L) or
/// (C_in, L), weight (C_in, C_out / groups, k), bias (C_out); the output has length
/// (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1. Note libtorch's
/// order: groups before dilation.
EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                                  IntArrayRef stride = 1, IntArrayRef padding = 0,
                                  IntArrayRef output_padding = 0, int64_t groups = 1,
                                  IntArrayRef dilation = 1);
/// conv_transpose1d's 2-D form: input (N, C_in, H, W) or (C_in, H, W), weight
/// (C_in, C_out / groups, kH, kW).
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                                  IntArrayRef stride = 1, IntArrayRef padding = 0,
                                  IntArrayRef output_padding = 0, int64_t groups = 1,
                                  IntArrayRef dilation = 1);
/// conv_transpose1d's 3-D form: input (N, C_in, D, H, W) or (C_in, D, H, W), weight
/// (C_in, C_out / groups, kD, kH, kW).
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                                  IntArrayRef stride = 1, IntArrayRef padding = 0,
                                  IntArrayRef output_padding = 0, int64_t groups = 1,
                                  IntArrayRef dilation = 1);

namespace nn {

/// ConvTranspose1dOptions / ConvTranspose2dOptions(in_channels, out_channels, kernel_size).
template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  /// Only kZeros is supported (forward refuses the others, as libtorch does).
  EMBER_ARG(PaddingMode, padding_mode) = kZeros;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace functional {
template <size_t D>
struct ConvTransposeFuncOptions {
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(ExpandingArray<D>, stride) = 1;
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

EMBER_API Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose1dFuncOptions& options = {});
EMBER_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose2dFuncOptions& options = {});
EMBER_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                                  const ConvTranspose3dFuncOptions& options = {});
}  // namespace functional

/// Applies a 1-D transposed convolution over (N, C_in, L) or (C_in, L). weight (C_in,
/// C_out / groups, k): kaiming_uniform_(a = sqrt(5)) with fan_in C_out / groups * k, as
/// libtorch computes it; bias (C_out): U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
class EMBER_API ConvTranspose1dImpl : public Cloneable<ConvTranspose1dImpl> {
 public:
  ConvTranspose1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose1dImpl(ConvTranspose1dOptions options);
  void reset() override;
  void reset_parameters();
  /// output_size (L_out, or (N, C, L_out)) picks the output_padding that gives it.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<1> options;  // transposed(true), as libtorch's
  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<IntArrayRef>())})
};
EMBER_MODULE(ConvTranspose1d);

/// The 2-D form of ConvTranspose1d: weight (C_in, C_out / groups, kH, kW).
class EMBER_API ConvTranspose2dImpl : public Cloneable<ConvTranspose2dImpl> {
 public:
  ConvTranspose2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(ConvTranspose2dOptions options);
  void reset() override;
  void reset_parameters();
  /// output_size ((H_out, W_out), or with N and C in front) picks the output_padding.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<2> options;  // transposed(true), as libtorch's
  Tensor weight;
  Tensor bias;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<IntArrayRef>())})
};
EMBER_MODULE(ConvTranspose2d);

/// The 3-D form of ConvTranspose1d: weight (C_in, C_out / groups, kD, kH, kW).
class EMBER_API ConvTranspose3dImpl : public Cloneable<ConvTranspose3dImpl> {
 public:
  ConvTranspose3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : ConvTranspose3dImpl(ConvTranspose3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit ConvTranspose3dImpl(ConvTranspose3dOptions options);
  void reset() override;
  void reset_parameters();
  /// output_size ((D_out, H_out, W_out), or with N and C in front) picks the output_padding.
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt);
  void pretty_print(std::ostream& stream) const override;

  detail::ConvNdOptions<3> options;  // transposed(true), as libtorch's
  Tensor weight;
  Tensor bias;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<IntArrayRef>())})
};
EMBER_MODULE(ConvTranspose3d);

}  // namespace nn
}  // namespace ember
