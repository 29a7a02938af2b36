#pragma once
/// Options classes of the layers and their functional forms (libtorch's, with the same
/// setters: `LinearOptions(4, 2).bias(false)`), and the loss reduction modes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/arg.h"
#include "ember/tensor.h"

namespace ember {

/// How a loss reduces its per-element values (libtorch's torch::kNone / kMean / kSum).
enum class Reduction { None, Mean, Sum };
constexpr Reduction kNone = Reduction::None;
constexpr Reduction kMean = Reduction::Mean;
constexpr Reduction kSum = Reduction::Sum;

namespace nn {

struct EMBER_API LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

struct EMBER_API BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
};

/// Flatten's dims: start_dim .. end_dim merge into one (negative dims count from the end).
struct EMBER_API FlattenOptions {
  EMBER_ARG(int64_t, start_dim) = 1;
  EMBER_ARG(int64_t, end_dim) = -1;
};

struct EMBER_API LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, elementwise_affine) = true;
};

struct EMBER_API DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};

struct EMBER_API ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(bool, inplace);
};

struct EMBER_API GELUOptions {
  /// "none" (the erf form) or "tanh".
  EMBER_ARG(std::string, approximate) = "none";
};

struct EMBER_API MSELossOptions {
  MSELossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction);
};
using L1LossOptions = MSELossOptions;

struct EMBER_API SmoothL1LossOptions {
  SmoothL1LossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT: implicit as in libtorch
 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction);
  /// Where the loss turns from quadratic to linear; 0 is l1_loss.
  EMBER_ARG(double, beta) = 1.0;
};

struct EMBER_API CrossEntropyLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

struct EMBER_API NLLLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
  EMBER_ARG(Tensor, pos_weight) = Tensor();
};

namespace functional {
struct EMBER_API DropoutFuncOptions {
  DropoutFuncOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, p);
  EMBER_ARG(bool, training) = true;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};
using LogSoftmaxFuncOptions = SoftmaxFuncOptions;
using ReLUFuncOptions = ReLUOptions;
using GELUFuncOptions = GELUOptions;
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = MSELossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;

struct EMBER_API LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as in libtorch
      : normalized_shape_(std::move(normalized_shape)) {}
  EMBER_ARG(std::vector<int64_t>, normalized_shape);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};
}  // namespace functional

}  // namespace nn
}  // namespace ember
