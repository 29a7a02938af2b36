// The activations' functional forms (libtorch's nn/functional/activation.h: options to
// arguments, in place where asked) and their modules' forwards, checks and printing.
#include <ostream>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/nn/activation.h"
#include "ember/ops.h"

namespace ember::nn {

namespace functional {

Tensor elu(Tensor input, const ELUFuncOptions& options) {
  return options.inplace() ? ember::elu_(input, options.alpha()) : ember::elu(input, options.alpha());
}
Tensor selu(Tensor input, const SELUFuncOptions& options) {
  return options.inplace() ? ember::selu_(input) : ember::selu(input);
}
Tensor celu(Tensor input, const CELUFuncOptions& options) {
  return options.inplace() ? ember::celu_(input, options.alpha()) : ember::celu(input, options.alpha());
}
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ember::hardshrink(input, options.lambda());
}
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  return options.inplace() ? ember::hardtanh_(input, options.min_val(), options.max_val())
                           : ember::hardtanh(input, options.min_val(), options.max_val());
}
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  return options.inplace() ? ember::leaky_relu_(input, options.negative_slope())
                           : ember::leaky_relu(input, options.negative_slope());
}
Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "softmin: input is an undefined tensor");
  return ember::softmax(-input, options.dim(), options.dtype());
}
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options) {
  EMBER_CHECK_ARG(logits.defined(), "gumbel_softmax: logits is an undefined tensor");
  Tensor gumbels;
  {
    NoGradGuard no_grad;
    gumbels = -empty_like(logits).exponential_().log();
  }
  const Tensor y_soft = ember::softmax((logits + gumbels) / options.tau(), options.dim());
  if (!options.hard()) return y_soft;
  const Tensor index = std::get<1>(y_soft.max(options.dim(), /*keepdim=*/true));
  const Tensor y_hard = zeros_like(logits).scatter_(options.dim(), index, 1.0);
  return y_hard - y_soft.detach() + y_soft;
}
Tensor glu(const Tensor& input, const GLUFuncOptions& options) {
  EMBER_CHECK_ARG(!input.defined() || input.dim() != 0,
                  "glu does not suppport scalars because halving size must be even");  // sic, libtorch's
  return ember::glu(input, options.dim());
}
Tensor mish(const Tensor& input) { return ember::mish(input); }
Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }
Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  return options.inplace() ? ember::relu6_(input) : ember::relu6(input);
}
Tensor rrelu(Tensor input, const RReLUFuncOptions& options) {
  return options.inplace() ? ember::rrelu_(input, options.lower(), options.upper(), options.training())
                           : ember::rrelu(input, options.lower(), options.upper(), options.training());
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ember::softshrink(input, options.lambda());
}
Tensor softsign(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined(), "softsign: input is an undefined tensor");
  return input / (input.abs() + 1);
}
Tensor tanhshrink(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined(), "tanhshrink: input is an undefined tensor");
  return input - input.tanh();
}
Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  return options.inplace() ? ember::threshold_(input, options.threshold(), options.value())
                           : ember::threshold(input, options.threshold(), options.value());
}

}  // namespace functional

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) { reset(); }
void HardtanhImpl::reset() {
  EMBER_CHECK_ARG(options.max_val() > options.min_val(), "max_val must be greater than min_val");
}

Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .inplace(options.inplace())
                                                 .training(is_training()));
}

Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined() && (input.dim() == 4 || input.dim() == 3),
                  "Softmax2d requires a 3D or 4D tensor as input");
  return ember::softmax(input, -3);
}

PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }
void PReLUImpl::reset() {
  weight = register_parameter("weight", full({options.num_parameters()}, options.init()));
}

// Printing, in libtorch's format.
namespace {
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=true" : ""; }
}  // namespace

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ELU(alpha=" << options.alpha() << inplace_suffix(options.inplace()) << ")";
}
void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "CELU(alpha=" << options.alpha() << inplace_suffix(options.inplace())
         << ")";
}
void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Hardshrink(" << options.lambda() << ")";
}
void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Hardtanh(min_val=" << options.min_val()
         << ", max_val=" << options.max_val() << inplace_suffix(options.inplace()) << ")";
}
void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "LeakyReLU(negative_slope=" << options.negative_slope()
         << inplace_suffix(options.inplace()) << ")";
}
void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void RReLUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "RReLU(lower=" << options.lower() << ", upper=" << options.upper()
         << inplace_suffix(options.inplace()) << ")";
}
void GLUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "GLU(dim=" << options.dim() << ")";
}
void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
         << ")";
}
void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Softshrink(" << options.lambda() << ")";
}
void ThresholdImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Threshold(threshold=" << options.threshold()
         << ", value=" << options.value() << inplace_suffix(options.inplace()) << ")";
}
void SoftminImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Softmin(dim=" << options.dim() << ")";
}
void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "LogSoftmax(dim=" << options.dim() << ")";
}
void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "PReLU(num_parameters=" << options.num_parameters() << ")";
}
void LogSigmoidImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "LogSigmoid()";
}
void SiLUImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "SiLU()"; }
void MishImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "Mish()"; }
void SoftsignImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "Softsign()"; }
void TanhshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Tanhshrink()";
}
void Softmax2dImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Softmax2d()";
}

}  // namespace ember::nn
