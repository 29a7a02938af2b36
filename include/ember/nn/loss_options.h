#pragma once
/// Options of the losses and distances beyond the first few in options.h (libtorch's
/// nn/options/loss.h and distance.h, same names, setters and defaults).

#include <functional>
#include <optional>
#include <variant>

#include "ember/nn/options.h"

namespace ember {

/// kl_div's extra reduction (libtorch's torch::kBatchMean): the sum divided by the batch size.
enum class BatchMean { BatchMean };
constexpr BatchMean kBatchMean = BatchMean::BatchMean;

namespace nn {

struct EMBER_API HuberLossOptions {
  HuberLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT: implicit as in libtorch
 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction);
  /// Where the loss turns from quadratic to linear; must be positive.
  EMBER_ARG(double, delta) = 1.0;
};

struct EMBER_API BCELossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API KLDivLossOptions {
  /// kNone, kBatchMean, kSum or kMean (libtorch's order).
  using reduction_t = std::variant<Reduction, BatchMean>;
  KLDivLossOptions(reduction_t reduction = kMean)
      : reduction_(reduction) {}                                    // NOLINT: implicit as in libtorch
  KLDivLossOptions(Reduction reduction) : reduction_(reduction) {}  // NOLINT
  KLDivLossOptions(BatchMean reduction) : reduction_(reduction) {}  // NOLINT
  EMBER_ARG(reduction_t, reduction);
  /// target holds log-probabilities.
  EMBER_ARG(bool, log_target) = false;
};

struct EMBER_API PoissonNLLLossOptions {
  /// input is the log of the rate (exp(input) - target * input) or the rate itself.
  EMBER_ARG(bool, log_input) = true;
  /// Adds Stirling's approximation of log(target!) where target > 1.
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

/// Not in libtorch 1.13's C++ frontend: torch.nn.GaussianNLLLoss's (Python) options.
struct EMBER_API GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0.0;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API SoftMarginLossOptions {
  SoftMarginLossOptions(Reduction reduction = kMean)
      : reduction_(reduction) {}  // NOLINT: implicit as in libtorch
 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction);
};

struct EMBER_API MultiLabelMarginLossOptions {
  MultiLabelMarginLossOptions(Reduction reduction = kMean)  // NOLINT: implicit as in libtorch
      : reduction_(reduction) {}

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction);
};

struct EMBER_API MultiLabelSoftMarginLossOptions {
  EMBER_ARG(Tensor, weight) = Tensor();

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API MultiMarginLossOptions {
  /// 1 or 2.
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight) = Tensor();

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API TripletMarginWithDistanceLossOptions {
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  /// Unset: pairwise_distance.
  EMBER_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(bool, swap) = false;

 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
};

struct EMBER_API CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

struct EMBER_API PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

struct EMBER_API CTCLossOptions {
  /// The blank label's class index.
  EMBER_ARG(int64_t, blank) = 0;
  /// kMean divides each loss by its target length (at least 1), then averages over the batch.
 public:
  using reduction_t = Reduction;
  EMBER_ARG(Reduction, reduction) = kMean;
  /// Infinite losses (targets no alignment reaches) and their gradients become zero.
  EMBER_ARG(bool, zero_infinity) = false;
};

namespace functional {
using CTCLossFuncOptions = CTCLossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace nn
}  // namespace ember
