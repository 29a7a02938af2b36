#pragma once
/// Loss modules (libtorch's nn/modules/loss.h, with CosineSimilarity and PairwiseDistance of
/// its distance.h), the functional forms of the losses not declared in functional.h, and
/// libtorch's ATen-level loss functions (torch::huber_loss, ...).

#include <ostream>

#include "ember/nn/cloneable.h"
#include "ember/nn/functional.h"
#include "ember/nn/loss_options.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  void reset() override {}
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::mse_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  MSELossOptions options;
};
EMBER_MODULE(MSELoss);

class EMBER_API SmoothL1LossImpl : public Cloneable<SmoothL1LossImpl> {
 public:
  void reset() override {}
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::smooth_l1_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  SmoothL1LossOptions options;
};
EMBER_MODULE(SmoothL1Loss);

/// Class weights (if any) are the buffer "weight".
class EMBER_API CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  CrossEntropyLossOptions options;
  Tensor weight;
};
EMBER_MODULE(CrossEntropyLoss);

// ---- the rest of libtorch's losses and distances: nn::functional forms

namespace functional {

/// 0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere (d = input - target).
EMBER_API Tensor huber_loss(const Tensor& input, const Tensor& target,
                            const HuberLossFuncOptions& options = {});
/// -w (target log(input) + (1 - target) log(1 - input)), each log clamped to >= -100;
/// input in [0, 1], target of input's shape.
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                      const BinaryCrossEntropyFuncOptions& options = {});
/// target (log(target) - input) (target exp(target) (target - input) with log_target);
/// kBatchMean divides the sum by the batch size.
EMBER_API Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
EMBER_API Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                                  const PoissonNLLLossFuncOptions& options = {});
/// 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (torch.nn.functional's, Python).
EMBER_API Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                                   const GaussianNLLLossFuncOptions& options = {});
/// max(0, -target (input1 - input2) + margin).
EMBER_API Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                     const MarginRankingLossFuncOptions& options = {});
/// input where target == 1, max(0, margin - input) where target == -1.
EMBER_API Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                      const HingeEmbeddingLossFuncOptions& options = {});
/// 1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1.
EMBER_API Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                       const CosineEmbeddingLossFuncOptions& options = {});
/// log(1 + exp(-target input)).
EMBER_API Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                                  const SoftMarginLossFuncOptions& options = {});
/// input (C) or (N, C); target int64 of input's shape: class indices, ended by the first -1.
EMBER_API Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                        const MultilabelMarginLossFuncOptions& options = {});
/// Mean over classes of the (weighted) binary cross-entropy of sigmoid(input).
EMBER_API Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                             const MultilabelSoftMarginLossFuncOptions& options = {});
/// input (C) or (N, C); target int64 (N) or (): sum over i != y of
/// w[y] max(0, margin - x[y] + x[i])^p / C.
EMBER_API Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultiMarginLossFuncOptions& options = {});
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                     const TripletMarginLossFuncOptions& options = {});
EMBER_API Tensor
triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                  const TripletMarginWithDistanceLossFuncOptions& options = {});
/// <x1, x2> / (max(|x1|, eps) max(|x2|, eps)) along dim (x1 and x2 broadcast).
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                                   const CosineSimilarityFuncOptions& options = {});
/// The p-norm of x1 - x2 + eps along the last dim.
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                                   const PairwiseDistanceFuncOptions& options = {});
/// The p-norm distances between the rows of an (N, M) input, for each pair i < j in
/// row-major order: N (N - 1) / 2 values.
EMBER_API Tensor pdist(const Tensor& input, double p = 2);
/// Connectionist temporal classification loss: -log of the summed probability of every alignment
/// of the target to the input. log_probs (T, N, C) or unbatched (T, C); targets padded (N, S) or
/// the batch's targets concatenated (sum(target_lengths)); lengths of N integers.
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                          const Tensor& target_lengths, const CTCLossFuncOptions& options = {});

}  // namespace functional

// ---- modules (forward(input, target) unless said)

class EMBER_API L1LossImpl : public Cloneable<L1LossImpl> {
 public:
  explicit L1LossImpl(const L1LossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::l1_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  L1LossOptions options;
};
EMBER_MODULE(L1Loss);

/// Class weights (if any) are the buffer "weight".
class EMBER_API NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  NLLLossOptions options;
  Tensor weight;
};
EMBER_MODULE(NLLLoss);

/// weight and pos_weight (if any) are buffers.
class EMBER_API BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCEWithLogitsLossOptions options;
  Tensor weight;
  Tensor pos_weight;
};
EMBER_MODULE(BCEWithLogitsLoss);

class EMBER_API HuberLossImpl : public Cloneable<HuberLossImpl> {
 public:
  explicit HuberLossImpl(const HuberLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::huber_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  HuberLossOptions options;
};
EMBER_MODULE(HuberLoss);

/// The weight (if any) is the buffer "weight".
class EMBER_API BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  BCELossOptions options;
  Tensor weight;
};
EMBER_MODULE(BCELoss);

class EMBER_API KLDivLossImpl : public Cloneable<KLDivLossImpl> {
 public:
  explicit KLDivLossImpl(const KLDivLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::kl_div(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  KLDivLossOptions options;
};
EMBER_MODULE(KLDivLoss);

class EMBER_API PoissonNLLLossImpl : public Cloneable<PoissonNLLLossImpl> {
 public:
  explicit PoissonNLLLossImpl(const PoissonNLLLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& log_input, const Tensor& target) {
    return functional::poisson_nll_loss(log_input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  PoissonNLLLossOptions options;
};
EMBER_MODULE(PoissonNLLLoss);

/// forward(input, target, var).
class EMBER_API GaussianNLLLossImpl : public Cloneable<GaussianNLLLossImpl> {
 public:
  explicit GaussianNLLLossImpl(const GaussianNLLLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var) {
    return functional::gaussian_nll_loss(input, target, var, options);
  }
  void pretty_print(std::ostream& stream) const override;
  GaussianNLLLossOptions options;
};
EMBER_MODULE(GaussianNLLLoss);

/// forward(input1, input2, target).
class EMBER_API MarginRankingLossImpl : public Cloneable<MarginRankingLossImpl> {
 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  MarginRankingLossOptions options;
};
EMBER_MODULE(MarginRankingLoss);

class EMBER_API HingeEmbeddingLossImpl : public Cloneable<HingeEmbeddingLossImpl> {
 public:
  explicit HingeEmbeddingLossImpl(const HingeEmbeddingLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::hinge_embedding_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  HingeEmbeddingLossOptions options;
};
EMBER_MODULE(HingeEmbeddingLoss);

/// forward(input1, input2, target).
class EMBER_API CosineEmbeddingLossImpl : public Cloneable<CosineEmbeddingLossImpl> {
 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  CosineEmbeddingLossOptions options;
};
EMBER_MODULE(CosineEmbeddingLoss);

class EMBER_API SoftMarginLossImpl : public Cloneable<SoftMarginLossImpl> {
 public:
  explicit SoftMarginLossImpl(const SoftMarginLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::soft_margin_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  SoftMarginLossOptions options;
};
EMBER_MODULE(SoftMarginLoss);

class EMBER_API MultiLabelMarginLossImpl : public Cloneable<MultiLabelMarginLossImpl> {
 public:
  explicit MultiLabelMarginLossImpl(const MultiLabelMarginLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return functional::multilabel_margin_loss(input, target, options);
  }
  void pretty_print(std::ostream& stream) const override;
  MultiLabelMarginLossOptions options;
};
EMBER_MODULE(MultiLabelMarginLoss);

/// The weight (if any) is the buffer "weight".
class EMBER_API MultiLabelSoftMarginLossImpl : public Cloneable<MultiLabelSoftMarginLossImpl> {
 public:
  explicit MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiLabelSoftMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiLabelSoftMarginLoss);

/// The weight (if any) is the buffer "weight"; p is 1 or 2 and weight 1-D, checked at reset.
class EMBER_API MultiMarginLossImpl : public Cloneable<MultiMarginLossImpl> {
 public:
  explicit MultiMarginLossImpl(const MultiMarginLossOptions& options = {});
  void reset() override;
  Tensor forward(const Tensor& input, const Tensor& target);
  void pretty_print(std::ostream& stream) const override;
  MultiMarginLossOptions options;
  Tensor weight;
};
EMBER_MODULE(MultiMarginLoss);

/// forward(anchor, positive, negative).
class EMBER_API TripletMarginLossImpl : public Cloneable<TripletMarginLossImpl> {
 public:
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
  void pretty_print(std::ostream& stream) const override;
  TripletMarginLossOptions options;
};
EMBER_MODULE(TripletMarginLoss);

/// forward(anchor, positive, negative).
class EMBER_API TripletMarginWithDistanceLossImpl : public Cloneable<TripletMarginWithDistanceLossImpl> {
 public:
  explicit TripletMarginWithDistanceLossImpl(const TripletMarginWithDistanceLossOptions& options = {})
      : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
  }
  void pretty_print(std::ostream& stream) const override;
  TripletMarginWithDistanceLossOptions options;
};
EMBER_MODULE(TripletMarginWithDistanceLoss);

/// forward(x1, x2): cosine_similarity along options.dim().
class EMBER_API CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::cosine_similarity(x1, x2, options);
  }
  void pretty_print(std::ostream& stream) const override;
  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

/// forward(x1, x2): pairwise_distance along the last dim.
class EMBER_API PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& x1, const Tensor& x2) {
    return functional::pairwise_distance(x1, x2, options);
  }
  void pretty_print(std::ostream& stream) const override;
  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

/// functional::ctc_loss with the options' blank, reduction and zero_infinity.
class EMBER_API CTCLossImpl : public Cloneable<CTCLossImpl> {
 public:
  explicit CTCLossImpl(const CTCLossOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  void pretty_print(std::ostream& stream) const override;
  CTCLossOptions options;
};
EMBER_MODULE(CTCLoss);

}  // namespace ember::nn

namespace ember {
// libtorch's ATen-level losses and distances, arguments in at::'s order.
EMBER_API Tensor cross_entropy_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                    Reduction reduction = kMean, int64_t ignore_index = -100,
                                    double label_smoothing = 0.0);
EMBER_API Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                                  const Tensor& weight = {}, const Tensor& pos_weight = {},
                                                  Reduction reduction = kMean);
EMBER_API Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean,
                            double delta = 1.0);
EMBER_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                      Reduction reduction = kMean);
EMBER_API Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = kMean,
                        bool log_target = false);
EMBER_API Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full,
                                  double eps, Reduction reduction);
EMBER_API Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                     double margin = 0.0, Reduction reduction = kMean);
EMBER_API Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                                      Reduction reduction = kMean);
EMBER_API Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                       double margin = 0.0, Reduction reduction = kMean);
EMBER_API Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
EMBER_API Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                        Reduction reduction = kMean);
EMBER_API Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const Scalar& p = 1,
                                   const Scalar& margin = 1, const Tensor& weight = {},
                                   Reduction reduction = kMean);
EMBER_API Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                     double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                                     Reduction reduction = kMean);
EMBER_API Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
EMBER_API Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2, double eps = 1e-6,
                                   bool keepdim = false);
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                          IntArrayRef target_lengths, int64_t blank = 0, Reduction reduction = kMean,
                          bool zero_infinity = false);
/// The lengths as integer tensors (any device), as libtorch's convenience overload.
EMBER_API Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                          const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = kMean,
                          bool zero_infinity = false);
}  // namespace ember
