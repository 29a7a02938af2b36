// The activation and loss modules: printing, and forwards not inline in their headers.
#include "ember/nn/activation.h"
#include "ember/nn/loss.h"
#include "ember/ops.h"

namespace ember::nn {

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void GELUImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "GELU()"; }

Tensor TanhImpl::forward(const Tensor& input) { return ember::tanh(input); }
void TanhImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "Tanh()"; }

Tensor SigmoidImpl::forward(const Tensor& input) { return ember::sigmoid(input); }
void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "Sigmoid()"; }

void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Softmax(dim=" << options.dim() << ")";
}

void MSELossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "MSELoss()"; }
void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "SmoothL1Loss";
}

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_) : options(options_) {
  reset();
}

void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }

// The buffer, not the options' copy: to(kDouble) converts the buffer.
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target,
                                   functional::CrossEntropyFuncOptions()
                                       .weight(weight)
                                       .ignore_index(options.ignore_index())
                                       .reduction(options.reduction())
                                       .label_smoothing(options.label_smoothing()));
}

void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "CrossEntropyLoss()";
}

}  // namespace ember::nn
