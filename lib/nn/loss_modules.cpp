// The loss and distance modules added beside MSELoss / SmoothL1Loss / CrossEntropyLoss:
// buffers for the tensors in their options, forwards that read the buffers, and printing in
// libtorch's words.
#include <ostream>
#include <variant>

#include "core/check.h"
#include "ember/nn/loss.h"

namespace ember::nn {

namespace {
const char* reduction_name(Reduction r) { return r == kMean ? "kMean" : r == kSum ? "kSum" : "kNone"; }
}  // namespace

void L1LossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "L1Loss()"; }

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) { reset(); }
void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
// The buffer, not the options' copy: to(kDouble) converts the buffer.
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target,
                              functional::NLLLossFuncOptions()
                                  .weight(weight)
                                  .ignore_index(options.ignore_index())
                                  .reduction(options.reduction()));
}
void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "NLLLoss()"; }

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_) : options(options_) {
  reset();
}
void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(input, target,
                                                      functional::BinaryCrossEntropyWithLogitsFuncOptions()
                                                          .weight(weight)
                                                          .pos_weight(pos_weight)
                                                          .reduction(options.reduction()));
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "BCEWithLogitsLoss()";
}

void HuberLossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "HuberLoss"; }

BCELossImpl::BCELossImpl(const BCELossOptions& options_) : options(options_) { reset(); }
void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy(
      input, target,
      functional::BinaryCrossEntropyFuncOptions().weight(weight).reduction(options.reduction()));
}
void BCELossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "BCELoss()"; }

void KLDivLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "KLDivLoss()";
}
void PoissonNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "PoissonNLLLoss()";
}
void GaussianNLLLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "GaussianNLLLoss()";
}
void MarginRankingLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "MarginRankingLoss()";
}
void HingeEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "HingeEmbeddingLoss(margin=" << options.margin() << ")";
}
void CosineEmbeddingLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "CosineEmbeddingLoss(margin=" << options.margin() << ")";
}
void SoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "SoftMarginLoss()";
}
void MultiLabelMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "MultiLabelMarginLoss()";
}

MultiLabelSoftMarginLossImpl::MultiLabelSoftMarginLossImpl(const MultiLabelSoftMarginLossOptions& options_)
    : options(options_) {
  reset();
}
void MultiLabelSoftMarginLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::multilabel_soft_margin_loss(
      input, target,
      functional::MultilabelSoftMarginLossFuncOptions().weight(weight).reduction(options.reduction()));
}
void MultiLabelSoftMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "MultiLabelSoftMarginLoss()";
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& options_) : options(options_) {
  reset();
}
void MultiMarginLossImpl::reset() {
  EMBER_CHECK_ARG(options.p() == 1 || options.p() == 2, "MultiMarginLoss: only p == 1 and p == 2 supported");
  EMBER_CHECK_ARG(!options.weight().defined() || options.weight().dim() == 1,
                  "MultiMarginLoss: weight must be one-dimensional");
  weight = register_buffer("weight", options.weight());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::multi_margin_loss(input, target,
                                       functional::MultiMarginLossFuncOptions()
                                           .p(options.p())
                                           .margin(options.margin())
                                           .weight(weight)
                                           .reduction(options.reduction()));
}
void MultiMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "MultiMarginLoss(p=" << options.p() << ", margin=" << options.margin()
         << ", weight=" << options.weight() << ", reduction=" << reduction_name(options.reduction()) << ")";
}

void TripletMarginLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "TripletMarginLoss(margin=" << options.margin()
         << ", p=" << options.p() << ", eps=" << options.eps() << ", swap=" << options.swap() << ")";
}
void TripletMarginWithDistanceLossImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace()
         << "TripletMarginWithDistanceLoss(margin=" << options.margin() << ", swap=" << options.swap() << ")";
}
void CosineSimilarityImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps()
         << ")";
}
void PairwiseDistanceImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "PairwiseDistance(p=" << options.p()
         << ", eps=" << options.eps() << ", keepdim=" << options.keepdim() << ")";
}

}  // namespace ember::nn
