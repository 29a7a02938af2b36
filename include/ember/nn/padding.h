#pragma once
/// Padding: F::pad (constant, reflect, replicate, circular) and constant_pad_nd, built
/// from ordinary ember ops so that autograd and every device work without backend code.

#include <cstdint>
#include <vector>

#include "ember/arg.h"
#include "ember/tensor.h"

namespace ember {

/// How a border is filled (torch::kConstant ...); convolutions' padding_mode takes kZeros,
/// kReflect, kReplicate or kCircular, F::pad kConstant, kReflect, kReplicate or kCircular.
enum class PaddingMode { Zeros, Constant, Reflect, Replicate, Circular };
constexpr PaddingMode kZeros = PaddingMode::Zeros;
constexpr PaddingMode kConstant = PaddingMode::Constant;
constexpr PaddingMode kReflect = PaddingMode::Reflect;
constexpr PaddingMode kReplicate = PaddingMode::Replicate;
constexpr PaddingMode kCircular = PaddingMode::Circular;

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
}  // namespace ember
