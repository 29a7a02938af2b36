#pragma once
/// Pooling (libtorch's torch::max_pool2d ..., F::max_pool2d ..., the MaxPool1d / MaxPool2d /
/// AvgPool2d / AdaptiveAvgPool2d modules), with libtorch's options, output sizes (ceil_mode
/// included), index format and error texts. Built from ordinary ops (a copy of the sliding
/// windows reduced with max / sum; averaging matrices for adaptive pooling).

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// Windows' maxima over (N, C, L) or (C, L); stride defaults to kernel_size.
EMBER_API Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
/// (values, indices): each maximum's position along L (the first maximum of its window).
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                             IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                             IntArrayRef dilation = 1,
                                                             bool ceil_mode = false);
/// Windows' maxima over (N, C, H, W) or (C, H, W); padding counts as -inf.
EMBER_API Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
/// (values, indices): each maximum's flat position h * W + w in its input plane; the
/// gradient goes to that position (the window's first maximum), as libtorch's.
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                             IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                             IntArrayRef dilation = 1,
                                                             bool ceil_mode = false);
/// Windows' means; count_include_pad counts the zero padding in the divisor, and
/// divisor_override replaces the divisor.
EMBER_API Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);
/// Means over output_size (H_out, W_out) bins: bin i spans [floor(i H / H_out), ceil((i + 1) H / H_out)).
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);

namespace nn {

/// MaxPool1dOptions / MaxPool2dOptions(kernel_size); stride defaults to kernel_size.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(ExpandingArray<D>, dilation) = 1;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

/// AvgPool2dOptions(kernel_size); stride defaults to kernel_size.
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool2dOptions = AvgPoolOptions<2>;

/// AdaptiveAvgPool2dOptions(output_size): a None element keeps the input's size there.
template <class output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;

EMBER_API Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                             const MaxPool1dFuncOptions& options);
EMBER_API Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                             const MaxPool2dFuncOptions& options);
EMBER_API Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
}  // namespace functional

class EMBER_API MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  explicit MaxPool1dImpl(ExpandingArray<1> kernel_size) : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  /// (values, indices), as F::max_pool1d_with_indices.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool1dOptions options;
};
EMBER_MODULE(MaxPool1d);

class EMBER_API MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  explicit MaxPool2dImpl(ExpandingArray<2> kernel_size) : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool2dOptions options;
};
EMBER_MODULE(MaxPool2d);

class EMBER_API AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size) : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AvgPool2dOptions options;
};
EMBER_MODULE(AvgPool2d);

class EMBER_API AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  explicit AdaptiveAvgPool2dImpl(ExpandingArrayWithOptionalElem<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  AdaptiveAvgPool2dOptions options;
};
EMBER_MODULE(AdaptiveAvgPool2d);

}  // namespace nn
}  // namespace ember
