#pragma once
/// Pooling (libtorch's torch::max_pool2d ..., F::max_pool2d ..., and the MaxPool, AvgPool,
/// AdaptiveMaxPool, AdaptiveAvgPool, LPPool, MaxUnpool and FractionalMaxPool2d modules), with
/// libtorch's options, output sizes (ceil_mode included), index format and error texts.
/// Built from ordinary ops (a copy of the sliding windows reduced with max / sum; averaging
/// matrices for adaptive avg pooling; gathers at listed window positions for adaptive and
/// fractional max pooling; a scatter for unpooling), so autograd differentiates them.

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>
#include <vector>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/any_module.h"
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
/// Windows' means over (N, C, L) or (C, L): avg_pool2d over a height of 1.
EMBER_API Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true);
/// Means over output_size (L_out) bins of (N, C, L) or (C, L).
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
/// (values, indices): maxima over output_size (L_out) bins; an index is a position along L.
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
/// (values, indices): maxima over (H_out, W_out) bins (adaptive_avg_pool2d's); an index is the
/// flat position h * W + w of the bin's first maximum, which gets the gradient.
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size);
/// max_pool2d's inverse: zeros of output_size (H_out, W_out) per plane of (N, C, H, W) or
/// (C, H, W), each value written at its flat index h * W_out + w (the last write wins).
EMBER_API Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
/// (values, indices): maxima over kernel_size windows whose starts are drawn from one (w, h)
/// sample pair in [0, 1) per plane, random_samples (N, C, 2); indices as max_pool2d's.
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& self, IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples);
/// max_pool2d over (N, C, D, H, W) or (C, D, H, W); padding counts as -inf.
EMBER_API Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
/// (values, indices): each maximum's flat position (d * H + h) * W + w in its input volume.
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                             IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                             IntArrayRef dilation = 1,
                                                             bool ceil_mode = false);
/// avg_pool2d over (N, C, D, H, W) or (C, D, H, W).
EMBER_API Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                            IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                            std::optional<int64_t> divisor_override = std::nullopt);
/// Means over output_size (D_out, H_out, W_out) bins, adaptive_avg_pool2d's per dim.
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
/// (values, indices): maxima over (D_out, H_out, W_out) bins; indices as max_pool3d's.
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size);
/// max_pool3d's inverse: zeros of output_size (D_out, H_out, W_out) per volume, each value
/// written at its flat index; stride and padding are only checked, as libtorch's.
EMBER_API Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                              IntArrayRef stride, IntArrayRef padding);
/// (values, indices): fractional_max_pool2d over volumes; random_samples (N, C, 3) holds one
/// (d, h, w) sample triple per plane.
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& self, IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples);

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
using MaxPool3dOptions = MaxPoolOptions<3>;

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
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// AdaptiveAvgPool2dOptions(output_size): a None element keeps the input's size there.
template <class output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// AdaptiveMaxPool1dOptions / AdaptiveMaxPool2dOptions(output_size); in 2-D a None element
/// keeps the input's size there.
template <class output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(output_size) {}  // NOLINT
  EMBER_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

/// MaxUnpool1dOptions / MaxUnpool2dOptions(kernel_size) of the max pooling to invert; stride
/// defaults to kernel_size.
template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// LPPool1dOptions / LPPool2dOptions(norm_type, kernel_size): the windows' p-norms
/// (sum x^p)^(1/p); stride defaults to kernel_size.
template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  EMBER_ARG(double, norm_type);
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

/// FractionalMaxPool2dOptions(kernel_size) with output_size or output_ratio (one of them);
/// _random_samples (N, C, 2) fixes the windows, else each call draws them (torch::rand).
template <size_t D>
struct FractionalMaxPoolOptions {
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  using ExpandingArrayDouble = ExpandingArray<D, double>;
  EMBER_ARG(std::optional<ExpandingArrayDouble>, output_ratio) = std::nullopt;
  EMBER_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
/// FractionalMaxPool3dOptions: _random_samples (N, C, 3).
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;

/// MaxUnpool1dFuncOptions / MaxUnpool2dFuncOptions(kernel_size): MaxUnpoolOptions and the
/// output_size ((L_out) / (H_out, W_out), or with N and C in front) to unpool to.
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D>, kernel_size);
  EMBER_ARG(ExpandingArray<D>, stride);
  EMBER_ARG(ExpandingArray<D>, padding) = 0;
  EMBER_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

EMBER_API Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                             const MaxPool1dFuncOptions& options);
EMBER_API Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                             const MaxPool2dFuncOptions& options);
EMBER_API Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
EMBER_API Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
EMBER_API Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
/// libtorch's formula: avg_pool(x^p) * kernel elements, through sign(s) * relu(|s|), to the 1/p.
EMBER_API Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
EMBER_API Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
/// The output size by default (L_in - 1) * stride + kernel_size - 2 * padding, or options'
/// output_size, which must lie within a stride of it.
EMBER_API Tensor max_unpool1d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool1dFuncOptions& options);
EMBER_API Tensor max_unpool2d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool2dFuncOptions& options);
/// output_ratio gives the output size int(H * ratio_h) x int(W * ratio_w); without
/// _random_samples, rand({N, C, 2}) draws them from the default generator.
EMBER_API Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
EMBER_API Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input,
                                                             const MaxPool3dFuncOptions& options);
EMBER_API Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
/// A None element of output_size keeps the input's size there.
EMBER_API Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
EMBER_API Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(
    const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
EMBER_API Tensor max_unpool3d(const Tensor& input, const Tensor& indices,
                              const MaxUnpool3dFuncOptions& options);
/// Without _random_samples, rand({N, C, 3}) draws them from the default generator.
EMBER_API Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
EMBER_API std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
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

class EMBER_API MaxPool3dImpl : public Cloneable<MaxPool3dImpl> {
 public:
  explicit MaxPool3dImpl(ExpandingArray<3> kernel_size) : MaxPool3dImpl(MaxPool3dOptions(kernel_size)) {}
  explicit MaxPool3dImpl(const MaxPool3dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
  MaxPool3dOptions options;
};
EMBER_MODULE(MaxPool3d);

/// The AvgPool modules' shared part (libtorch's AvgPoolImpl<D, Derived>).
template <size_t D, class Derived>
class AvgPoolImpl : public Cloneable<Derived> {
 public:
  explicit AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << module_namespace() << "AvgPool" << D << "d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  AvgPoolOptions<D> options;
};

class EMBER_API AvgPool1dImpl : public AvgPoolImpl<1, AvgPool1dImpl> {
 public:
  using AvgPoolImpl<1, AvgPool1dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool1d);

class EMBER_API AvgPool2dImpl : public AvgPoolImpl<2, AvgPool2dImpl> {
 public:
  using AvgPoolImpl<2, AvgPool2dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool2d);

class EMBER_API AvgPool3dImpl : public AvgPoolImpl<3, AvgPool3dImpl> {
 public:
  using AvgPoolImpl<3, AvgPool3dImpl>::AvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AvgPool3d);

/// The AdaptiveAvgPool modules' shared part (libtorch's AdaptiveAvgPoolImpl).
template <size_t D, class output_size_t, class Derived>
class AdaptiveAvgPoolImpl : public Cloneable<Derived> {
 public:
  explicit AdaptiveAvgPoolImpl(output_size_t output_size)
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << module_namespace() << "AdaptiveAvgPool" << D << "d(output_size=" << options.output_size()
           << ")";
  }
  AdaptiveAvgPoolOptions<output_size_t> options;
};

class EMBER_API AdaptiveAvgPool1dImpl
    : public AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl> {
 public:
  using AdaptiveAvgPoolImpl<1, ExpandingArray<1>, AdaptiveAvgPool1dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool1d);

class EMBER_API AdaptiveAvgPool2dImpl
    : public AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl> {
 public:
  using AdaptiveAvgPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool2d);

class EMBER_API AdaptiveAvgPool3dImpl
    : public AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl> {
 public:
  using AdaptiveAvgPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl>::AdaptiveAvgPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(AdaptiveAvgPool3d);

/// The AdaptiveMaxPool modules' shared part (libtorch's AdaptiveMaxPoolImpl).
template <size_t D, class output_size_t, class Derived>
class AdaptiveMaxPoolImpl : public Cloneable<Derived> {
 public:
  explicit AdaptiveMaxPoolImpl(output_size_t output_size)
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << module_namespace() << "AdaptiveMaxPool" << D << "d(output_size=" << options.output_size()
           << ")";
  }
  AdaptiveMaxPoolOptions<output_size_t> options;
};

class EMBER_API AdaptiveMaxPool1dImpl
    : public AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl> {
 public:
  using AdaptiveMaxPoolImpl<1, ExpandingArray<1>, AdaptiveMaxPool1dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// (values, indices), as F::adaptive_max_pool1d_with_indices.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool1d);

class EMBER_API AdaptiveMaxPool2dImpl
    : public AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl> {
 public:
  using AdaptiveMaxPoolImpl<2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  /// (values, indices), as F::adaptive_max_pool2d_with_indices.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool2d);

class EMBER_API AdaptiveMaxPool3dImpl
    : public AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveMaxPool3dImpl> {
 public:
  using AdaptiveMaxPoolImpl<3, ExpandingArrayWithOptionalElem<3>, AdaptiveMaxPool3dImpl>::AdaptiveMaxPoolImpl;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
};
EMBER_MODULE(AdaptiveMaxPool3d);

/// The MaxUnpool modules' shared part (libtorch's MaxUnpoolImpl).
template <size_t D, class Derived>
class MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  explicit MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << module_namespace() << "MaxUnpool" << D << "d(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  MaxUnpoolOptions<D> options;
};

class EMBER_API MaxUnpool1dImpl : public MaxUnpoolImpl<1, MaxUnpool1dImpl> {
 public:
  using MaxUnpoolImpl<1, MaxUnpool1dImpl>::MaxUnpoolImpl;
  /// output_size: (L_out) or (N, C, L_out); by default the size the max pooling started from.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(std::optional<std::vector<int64_t>>())})
};
EMBER_MODULE(MaxUnpool1d);

class EMBER_API MaxUnpool2dImpl : public MaxUnpoolImpl<2, MaxUnpool2dImpl> {
 public:
  using MaxUnpoolImpl<2, MaxUnpool2dImpl>::MaxUnpoolImpl;
  /// output_size: (H_out, W_out) or (N, C, H_out, W_out); by default the pooled input's size.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(std::optional<std::vector<int64_t>>())})
};
EMBER_MODULE(MaxUnpool2d);

class EMBER_API MaxUnpool3dImpl : public MaxUnpoolImpl<3, MaxUnpool3dImpl> {
 public:
  using MaxUnpoolImpl<3, MaxUnpool3dImpl>::MaxUnpoolImpl;
  /// output_size: (D_out, H_out, W_out) or (N, C, D_out, H_out, W_out); by default the pooled
  /// input's size.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(std::optional<std::vector<int64_t>>())})
};
EMBER_MODULE(MaxUnpool3d);

/// The LPPool modules' shared part (libtorch's LPPoolImpl).
template <size_t D, class Derived>
class LPPoolImpl : public Cloneable<Derived> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size)
      : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override {
    stream << std::boolalpha << module_namespace() << "LPPool" << D << "d(norm_type=" << options.norm_type()
           << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  LPPoolOptions<D> options;
};

class EMBER_API LPPool1dImpl : public LPPoolImpl<1, LPPool1dImpl> {
 public:
  using LPPoolImpl<1, LPPool1dImpl>::LPPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LPPool1d);

class EMBER_API LPPool2dImpl : public LPPoolImpl<2, LPPool2dImpl> {
 public:
  using LPPoolImpl<2, LPPool2dImpl>::LPPoolImpl;
  Tensor forward(const Tensor& input);
};
EMBER_MODULE(LPPool2d);

/// FractionalMaxPool2d: checks its options on construction; options' _random_samples
/// becomes the buffer `_random_samples` (undefined: fresh samples at every forward).
class EMBER_API FractionalMaxPool2dImpl : public Cloneable<FractionalMaxPool2dImpl> {
 public:
  explicit FractionalMaxPool2dImpl(ExpandingArray<2> kernel_size)
      : FractionalMaxPool2dImpl(FractionalMaxPool2dOptions(kernel_size)) {}
  explicit FractionalMaxPool2dImpl(FractionalMaxPool2dOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPool2dOptions options;
  Tensor _random_samples;
};
EMBER_MODULE(FractionalMaxPool2d);

/// FractionalMaxPool2d's 3-D form: `_random_samples` (N, C, 3).
class EMBER_API FractionalMaxPool3dImpl : public Cloneable<FractionalMaxPool3dImpl> {
 public:
  explicit FractionalMaxPool3dImpl(ExpandingArray<3> kernel_size)
      : FractionalMaxPool3dImpl(FractionalMaxPool3dOptions(kernel_size)) {}
  explicit FractionalMaxPool3dImpl(FractionalMaxPool3dOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPool3dOptions options;
  Tensor _random_samples;
};
EMBER_MODULE(FractionalMaxPool3d);

}  // namespace nn
}  // namespace ember
