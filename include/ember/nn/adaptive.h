#pragma once
/// AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation for GPUs"), as
/// libtorch 1.13's: a head over the frequent classes plus one cluster token per tail, each
/// tail a two-layer projection whose hidden size shrinks by div_value per cluster.

#include <cstdint>
#include <ostream>
#include <vector>

#include "ember/arg.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/layers.h"
#include "ember/nn/module_list.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember::nn {

struct EMBER_API AdaptiveLogSoftmaxWithLossOptions {
  /* implicit */ AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes,
                                                   std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, n_classes);
  /// Increasing class indices in [1, n_classes - 1] that split the classes into the head
  /// (below the first) and the tail clusters.
  EMBER_ARG(std::vector<int64_t>, cutoffs);
  /// Each tail cluster's hidden size is in_features / div_value^(cluster + 1), rounded down.
  EMBER_ARG(double, div_value) = 4.;
  EMBER_ARG(bool, head_bias) = false;
};

/// forward's result: each row's log-probability of its target, and the mean negative
/// log-likelihood (a double, as in libtorch 1.13; train on `output`).
struct EMBER_API ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;
  double loss;
};

class EMBER_API AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_);

  /// input (N, in_features) with target (N), or (in_features) with a 0-dim target.
  ASMoutput forward(const Tensor& input, const Tensor& target);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  /// Log-probabilities of every class (N, n_classes) from the head's output.
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  /// Log-probabilities of every class, (N, n_classes).
  Tensor log_prob(const Tensor& input);
  /// The most likely class of each row (the full distribution only for rows whose head
  /// prediction is a cluster).
  Tensor predict(const Tensor& input);

  AdaptiveLogSoftmaxWithLossOptions options;
  /// The options' cutoffs followed by n_classes.
  std::vector<int64_t> cutoffs;
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail;
};
EMBER_MODULE(AdaptiveLogSoftmaxWithLoss);

}  // namespace ember::nn
