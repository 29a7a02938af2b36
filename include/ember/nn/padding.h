#pragma once
/// Padding: F::pad (constant, reflect, replicate, circular) and constant_pad_nd, built
/// from ordinary ember ops so that autograd and every device work without backend code,
/// and the modules on F::pad (ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, ZeroPad2d,
/// ConstantPad1d/2d/3d) with libtorch's options and printing.

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember {

/// How a border is filled (torch::kConstant ...); convolutions' padding_mode takes kZeros,
/// kReflect, kReplicate or kCircular, F::pad kConstant, kReflect, kReplicate or kCircular,
/// F::grid_sample kZeros, kBorder or kReflection.
enum class PaddingMode { Zeros, Constant, Reflect, Replicate, Circular, Border, Reflection };
constexpr PaddingMode kZeros = PaddingMode::Zeros;
constexpr PaddingMode kConstant = PaddingMode::Constant;
constexpr PaddingMode kReflect = PaddingMode::Reflect;
constexpr PaddingMode kReplicate = PaddingMode::Replicate;
constexpr PaddingMode kCircular = PaddingMode::Circular;
constexpr PaddingMode kBorder = PaddingMode::Border;
constexpr PaddingMode kReflection = PaddingMode::Reflection;

/// libtorch's enum names ("kReflect"), as its modules print them.
EMBER_API const char* padding_mode_name(PaddingMode mode);

/// x with `pad` (last dim first: {left, right, top, bottom, ...}) filled with `value`;
/// negative entries crop. The gradient is constant_pad_nd of the gradient with -pad.
EMBER_API Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);

namespace nn::functional {

struct EMBER_API PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: implicit as in libtorch
  /// Sizes to add before and after each padded dim, last dim first.
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(PaddingMode, mode) = kConstant;
  /// The fill of kConstant; other modes take none (0).
  EMBER_ARG(double, value) = 0;
};

/// libtorch's F::pad: kConstant pads any of the last dims; kReflect, kReplicate and
/// kCircular pad the last 1, 2 or 3 dims of a (batched or not) tensor of 2..5 dims.
EMBER_API Tensor pad(const Tensor& input, const PadFuncOptions& options);

}  // namespace nn::functional

namespace nn {

/// ReflectionPad1dOptions / 2d / 3d(padding): {left, right[, top, bottom[, front, back]]};
/// one value pads every side by it.
template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding)
      : padding_(padding) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}  // NOLINT
  EMBER_ARG(ExpandingArray<4>, padding);
};

/// ConstantPad1dOptions / 2d / 3d(padding, value): the border filled with value.
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace detail {
/// The padding modules' forward: F::pad(input, PadFuncOptions(padding).mode(mode).value(value)).
EMBER_API Tensor pad_module_forward(const Tensor& input, IntArrayRef padding, PaddingMode mode, double value);
/// "ember::nn::<name>(padding=[1, 1, 2, 2])", then ", value=<value>" when given.
EMBER_API void print_pad(std::ostream& stream, const char* name, IntArrayRef padding,
                         std::optional<double> value = std::nullopt);
}  // namespace detail

/// Pads the last D dims by reflecting the input at its borders (libtorch's ReflectionPadImpl).
template <size_t D, class Derived>
class ReflectionPadImpl : public Cloneable<Derived> {
 public:
  ReflectionPadImpl(ExpandingArray<D * 2> padding)  // NOLINT: implicit as in libtorch
      : ReflectionPadImpl(ReflectionPadOptions<D>(padding)) {}
  explicit ReflectionPadImpl(const ReflectionPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) {
    return detail::pad_module_forward(input, options.padding(), kReflect, 0);
  }
  void pretty_print(std::ostream& stream) const override {
    detail::print_pad(stream, Derived::kName, options.padding());
  }

  ReflectionPadOptions<D> options;
};

class EMBER_API ReflectionPad1dImpl : public ReflectionPadImpl<1, ReflectionPad1dImpl> {
 public:
  static constexpr const char* kName = "ReflectionPad1d";
  using ReflectionPadImpl<1, ReflectionPad1dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad1d);

class EMBER_API ReflectionPad2dImpl : public ReflectionPadImpl<2, ReflectionPad2dImpl> {
 public:
  static constexpr const char* kName = "ReflectionPad2d";
  using ReflectionPadImpl<2, ReflectionPad2dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad2d);

class EMBER_API ReflectionPad3dImpl : public ReflectionPadImpl<3, ReflectionPad3dImpl> {
 public:
  static constexpr const char* kName = "ReflectionPad3d";
  using ReflectionPadImpl<3, ReflectionPad3dImpl>::ReflectionPadImpl;
};
EMBER_MODULE(ReflectionPad3d);

/// Pads the last D dims by repeating the input's border elements.
template <size_t D, class Derived>
class ReplicationPadImpl : public Cloneable<Derived> {
 public:
  ReplicationPadImpl(ExpandingArray<D * 2> padding)  // NOLINT: implicit as in libtorch
      : ReplicationPadImpl(ReplicationPadOptions<D>(padding)) {}
  explicit ReplicationPadImpl(const ReplicationPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) {
    return detail::pad_module_forward(input, options.padding(), kReplicate, 0);
  }
  void pretty_print(std::ostream& stream) const override {
    detail::print_pad(stream, Derived::kName, options.padding());
  }

  ReplicationPadOptions<D> options;
};

class EMBER_API ReplicationPad1dImpl : public ReplicationPadImpl<1, ReplicationPad1dImpl> {
 public:
  static constexpr const char* kName = "ReplicationPad1d";
  using ReplicationPadImpl<1, ReplicationPad1dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad1d);

class EMBER_API ReplicationPad2dImpl : public ReplicationPadImpl<2, ReplicationPad2dImpl> {
 public:
  static constexpr const char* kName = "ReplicationPad2d";
  using ReplicationPadImpl<2, ReplicationPad2dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad2d);

class EMBER_API ReplicationPad3dImpl : public ReplicationPadImpl<3, ReplicationPad3dImpl> {
 public:
  static constexpr const char* kName = "ReplicationPad3d";
  using ReplicationPadImpl<3, ReplicationPad3dImpl>::ReplicationPadImpl;
};
EMBER_MODULE(ReplicationPad3d);

/// Pads the last two dims with zeros (negative entries crop).
class EMBER_API ZeroPad2dImpl : public Cloneable<ZeroPad2dImpl> {
 public:
  ZeroPad2dImpl(ExpandingArray<4> padding) : ZeroPad2dImpl(ZeroPad2dOptions(padding)) {}  // NOLINT
  explicit ZeroPad2dImpl(const ZeroPad2dOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ZeroPad2dOptions options;
};
EMBER_MODULE(ZeroPad2d);

/// Pads the last D dims with a constant value.
template <size_t D, class Derived>
class ConstantPadImpl : public Cloneable<Derived> {
 public:
  ConstantPadImpl(ExpandingArray<D * 2> padding, double value)
      : ConstantPadImpl(ConstantPadOptions<D>(padding, value)) {}
  explicit ConstantPadImpl(const ConstantPadOptions<D>& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) {
    return detail::pad_module_forward(input, options.padding(), kConstant, options.value());
  }
  void pretty_print(std::ostream& stream) const override {
    detail::print_pad(stream, Derived::kName, options.padding(), options.value());
  }

  ConstantPadOptions<D> options;
};

class EMBER_API ConstantPad1dImpl : public ConstantPadImpl<1, ConstantPad1dImpl> {
 public:
  static constexpr const char* kName = "ConstantPad1d";
  using ConstantPadImpl<1, ConstantPad1dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad1d);

class EMBER_API ConstantPad2dImpl : public ConstantPadImpl<2, ConstantPad2dImpl> {
 public:
  static constexpr const char* kName = "ConstantPad2d";
  using ConstantPadImpl<2, ConstantPad2dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad2d);

class EMBER_API ConstantPad3dImpl : public ConstantPadImpl<3, ConstantPad3dImpl> {
 public:
  static constexpr const char* kName = "ConstantPad3d";
  using ConstantPadImpl<3, ConstantPad3dImpl>::ConstantPadImpl;
};
EMBER_MODULE(ConstantPad3d);

}  // namespace nn
}  // namespace ember
