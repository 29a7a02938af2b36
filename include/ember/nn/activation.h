#pragma once
/// Activation modules (libtorch's nn/modules/activation.h) and the functional forms that
/// nn/functional.h lacks (libtorch's nn/functional/activation.h); the ATen-level functions
/// (torch::elu, hardtanh, ...) are in ember/ops.h.

#include <ostream>

#include "ember/nn/activation_options.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/functional.h"
#include "ember/nn/pimpl.h"
#include "ember/ops.h"

namespace ember::nn {

namespace functional {
EMBER_API Tensor elu(Tensor input, const ELUFuncOptions& options = {});
EMBER_API Tensor selu(Tensor input, const SELUFuncOptions& options = {});
EMBER_API Tensor celu(Tensor input, const CELUFuncOptions& options = {});
EMBER_API Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
/// Clamps to [min_val, max_val] (no check that min_val < max_val: the module checks).
EMBER_API Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
EMBER_API Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
EMBER_API Tensor logsigmoid(const Tensor& input);
/// softmax(-input, dim, dtype).
EMBER_API Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
/// softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn as libtorch draws it
/// (-log of exponential_()); with hard, the one-hot of its argmax whose gradient is the soft
/// sample's (straight-through).
EMBER_API Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
/// a * sigmoid(b), a and b the halves of input along dim (which must have an even size).
EMBER_API Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
EMBER_API Tensor mish(const Tensor& input);
/// weight: one slope, or one per channel (input's dim 1).
EMBER_API Tensor prelu(const Tensor& input, const Tensor& weight);
EMBER_API Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
/// Random slopes when options.training() (default false), else the mean slope.
EMBER_API Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
EMBER_API Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
EMBER_API Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
/// input / (|input| + 1).
EMBER_API Tensor softsign(const Tensor& input);
/// input - tanh(input).
EMBER_API Tensor tanhshrink(const Tensor& input);
EMBER_API Tensor threshold(Tensor input, const ThresholdFuncOptions& options);
}  // namespace functional

class EMBER_API ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  void reset() override {}
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  Tensor forward(Tensor input) { return functional::relu(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ReLUOptions options;
};
EMBER_MODULE(ReLU);

class EMBER_API GELUImpl : public Cloneable<GELUImpl> {
 public:
  void reset() override {}
  explicit GELUImpl(GELUOptions options = {}) : options(std::move(options)) {}
  Tensor forward(const Tensor& input) { return ember::gelu(input, options.approximate()); }
  void pretty_print(std::ostream& stream) const override;
  GELUOptions options;
};
EMBER_MODULE(GELU);

class EMBER_API TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Tanh);

class EMBER_API SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Sigmoid);

class EMBER_API SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  void reset() override {}
  explicit SoftmaxImpl(int64_t dim) : options(dim) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  Tensor forward(const Tensor& input) { return functional::softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftmaxOptions options;
};
EMBER_MODULE(Softmax);

// Modules of one option or none: forward calls the functional form with the options.
#define EMBER_ACTIVATION_MODULE(Name, Options, Input, call)                  \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> {                \
   public:                                                                   \
    explicit Name##Impl(const Options& options_ = {}) : options(options_) {} \
    void reset() override {}                                                 \
    Tensor forward(Input input) { return call; }                             \
    void pretty_print(std::ostream& stream) const override;                  \
    Options options;                                                         \
  };                                                                         \
  EMBER_MODULE(Name)

#define EMBER_PLAIN_ACTIVATION_MODULE(Name, call)             \
  class EMBER_API Name##Impl : public Cloneable<Name##Impl> { \
   public:                                                    \
    void reset() override {}                                  \
    Tensor forward(const Tensor& input) { return call; }      \
    void pretty_print(std::ostream& stream) const override;   \
  };                                                          \
  EMBER_MODULE(Name)

/// alpha * (exp(x) - 1) below 0.
EMBER_ACTIVATION_MODULE(ELU, ELUOptions, Tensor, functional::elu(std::move(input), options));
/// elu with fixed alpha and scale.
EMBER_ACTIVATION_MODULE(SELU, SELUOptions, Tensor, functional::selu(std::move(input), options));
EMBER_ACTIVATION_MODULE(CELU, CELUOptions, Tensor, functional::celu(std::move(input), options));
EMBER_ACTIVATION_MODULE(Hardshrink, HardshrinkOptions, const Tensor&, functional::hardshrink(input, options));
EMBER_ACTIVATION_MODULE(LeakyReLU, LeakyReLUOptions, Tensor,
                        functional::leaky_relu(std::move(input), options));
EMBER_ACTIVATION_MODULE(ReLU6, ReLU6Options, Tensor, functional::relu6(std::move(input), options));
EMBER_ACTIVATION_MODULE(GLU, GLUOptions, const Tensor&, functional::glu(input, options));
/// log(1 + exp(beta x)) / beta, linear above threshold.
EMBER_ACTIVATION_MODULE(Softplus, SoftplusOptions, const Tensor&, functional::softplus(input, options));
EMBER_ACTIVATION_MODULE(Softshrink, SoftshrinkOptions, const Tensor&, functional::softshrink(input, options));
EMBER_PLAIN_ACTIVATION_MODULE(LogSigmoid, functional::logsigmoid(input));
EMBER_PLAIN_ACTIVATION_MODULE(SiLU, ember::silu(input));
EMBER_PLAIN_ACTIVATION_MODULE(Mish, functional::mish(input));
EMBER_PLAIN_ACTIVATION_MODULE(Softsign, functional::softsign(input));
EMBER_PLAIN_ACTIVATION_MODULE(Tanhshrink, functional::tanhshrink(input));

#undef EMBER_ACTIVATION_MODULE
#undef EMBER_PLAIN_ACTIVATION_MODULE

/// Clamps to [min_val, max_val]; the constructor requires max_val > min_val.
class EMBER_API HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options_ = {});
  void reset() override;
  Tensor forward(Tensor input) { return functional::hardtanh(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  HardtanhOptions options;
};
EMBER_MODULE(Hardtanh);

/// Random slopes for x <= 0 while training (from the default generator), their mean in eval().
class EMBER_API RReLUImpl : public Cloneable<RReLUImpl> {
 public:
  explicit RReLUImpl(const RReLUOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;
  RReLUOptions options;
};
EMBER_MODULE(RReLU);

/// value where x <= threshold.
class EMBER_API ThresholdImpl : public Cloneable<ThresholdImpl> {
 public:
  ThresholdImpl(double threshold, double value) : ThresholdImpl(ThresholdOptions(threshold, value)) {}
  explicit ThresholdImpl(const ThresholdOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(Tensor input) { return functional::threshold(std::move(input), options); }
  void pretty_print(std::ostream& stream) const override;
  ThresholdOptions options;
};
EMBER_MODULE(Threshold);

class EMBER_API SoftminImpl : public Cloneable<SoftminImpl> {
 public:
  explicit SoftminImpl(int64_t dim) : options(dim) {}
  explicit SoftminImpl(const SoftminOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::softmin(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  SoftminOptions options;
};
EMBER_MODULE(Softmin);

class EMBER_API LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : options(dim) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) { return functional::log_softmax(input, options.dim()); }
  void pretty_print(std::ostream& stream) const override;
  LogSoftmaxOptions options;
};
EMBER_MODULE(LogSoftmax);

/// Softmax over the channels (dim -3) of a (C, H, W) or (N, C, H, W) input.
class EMBER_API Softmax2dImpl : public Cloneable<Softmax2dImpl> {
 public:
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;
};
EMBER_MODULE(Softmax2d);

/// Learnable slopes below 0: weight (num_parameters), filled with init.
class EMBER_API PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options_ = {});
  /// Registers weight anew (clone() relies on it).
  void reset() override;
  Tensor forward(const Tensor& input) { return functional::prelu(input, weight); }
  void pretty_print(std::ostream& stream) const override;
  PReLUOptions options;
  Tensor weight;
};
EMBER_MODULE(PReLU);

}  // namespace ember::nn
