// The normalization modules: BatchNorm/InstanceNorm state and forwards (libtorch's
// momentum rules, num_batches_tracked, unbatched instance-norm inputs), GroupNorm,
// LocalResponseNorm, CrossMapLRN2d, and their printing.
#include <cmath>
#include <ostream>
#include <vector>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/nn/normalization.h"
#include "ember/ops.h"
#include "nn/batch_norm_running_stats.h"
#include "tensor/tensor_factory.h"

namespace ember::nn {

namespace detail {

void register_norm_state(Module& m, int64_t num_features, bool affine, bool track_running_stats,
                         Tensor& weight, Tensor& bias, Tensor& running_mean, Tensor& running_var,
                         Tensor& num_batches_tracked) {
  if (affine) {
    weight = m.register_parameter("weight", empty({num_features}));
    bias = m.register_parameter("bias", empty({num_features}));
  } else {
    weight = m.register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = m.register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  if (track_running_stats) {
    running_mean = m.register_buffer("running_mean", zeros({num_features}));
    running_var = m.register_buffer("running_var", ones({num_features}));
    num_batches_tracked = m.register_buffer("num_batches_tracked", zeros({}, dtype(kLong)));
  } else {
    running_mean = m.register_buffer("running_mean", Tensor());
    running_var = m.register_buffer("running_var", Tensor());
    num_batches_tracked = m.register_buffer("num_batches_tracked", Tensor());
  }
  reset_norm_affine(weight, bias);
}

void reset_norm_running_stats(Tensor& running_mean, Tensor& running_var, Tensor& num_batches_tracked) {
  NoGradGuard no_grad;
  if (running_mean.defined()) running_mean.zero_();
  if (running_var.defined()) running_var.fill_(1);
  if (num_batches_tracked.defined()) num_batches_tracked.zero_();
}

void reset_norm_affine(Tensor& weight, Tensor& bias) {
  NoGradGuard no_grad;
  if (weight.defined()) weight.fill_(1);
  if (bias.defined()) bias.zero_();
}

Tensor with_running_stats(const BatchNormOptions& options, bool training, Tensor& num_batches_tracked,
                          const std::function<Tensor(bool use_batch_stats, double factor)>& normalize) {
  double factor = options.momentum().value_or(0.0);
  const bool counts = training && options.track_running_stats() && num_batches_tracked.defined();
  if (counts && !options.momentum()) factor = 1.0 / (num_batches_tracked.item<double>() + 1);
  Tensor y = normalize(training || !options.track_running_stats(), factor);
  if (counts) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  return y;
}

Tensor batch_norm_module_forward(const Tensor& input, const BatchNormOptions& options, bool training,
                                 const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                                 const Tensor& running_var, Tensor& num_batches_tracked) {
  return with_running_stats(options, training, num_batches_tracked, [&](bool use_batch_stats, double factor) {
    return functional::batch_norm(input, running_mean, running_var,
                                  functional::BatchNormFuncOptions()
                                      .weight(weight)
                                      .bias(bias)
                                      .training(use_batch_stats)
                                      .momentum(factor)
                                      .eps(options.eps()));
  });
}

Tensor instance_norm_module_forward(const Tensor& input, const InstanceNormOptions& options, bool training,
                                    size_t spatial_dims, const Tensor& weight, const Tensor& bias,
                                    const Tensor& running_mean, const Tensor& running_var) {
  auto apply = [&](const Tensor& x) {
    return functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                            .running_mean(running_mean)
                                            .running_var(running_var)
                                            .weight(weight)
                                            .bias(bias)
                                            .use_input_stats(training || !options.track_running_stats())
                                            .momentum(options.momentum())
                                            .eps(options.eps()));
  };
  // (C, *) without the batch dim is one sample.
  if (input.dim() == int64_t(spatial_dims) + 1) return apply(input.unsqueeze(0)).squeeze(0);
  return apply(input);
}

void print_norm(std::ostream& stream, const char* name, int64_t num_features, double eps,
                std::optional<double> momentum, bool affine, bool track_running_stats) {
  stream << std::boolalpha << module_namespace() << name << "(" << num_features << ", eps=" << eps
         << ", momentum=";
  if (momentum)
    stream << *momentum;
  else
    stream << "None";
  stream << ", affine=" << affine << ", track_running_stats=" << track_running_stats << ")";
}

void check_norm_input_rank(const Tensor& input, std::initializer_list<int64_t> ranks) {
  EMBER_CHECK_ARG(input.defined(), "normalization: undefined input tensor");
  for (int64_t r : ranks)
    if (input.dim() == r) return;
  if (ranks.size() == 1)
    EMBER_CHECK_ARG(false, "expected {}D input (got {}D input)", *ranks.begin(), input.dim());
  EMBER_CHECK_ARG(false, "expected {}D or {}D input (got {}D input)", *ranks.begin(), *(ranks.begin() + 1),
                  input.dim());
}

}  // namespace detail

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options_) : options(options_) { reset(); }

void GroupNormImpl::reset() {
  EMBER_CHECK_ARG(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
                  "num_channels must be divisible by num_groups (got num_channels={}, num_groups={})",
                  options.num_channels(), options.num_groups());
  if (options.affine()) {
    weight = register_parameter("weight", empty({options.num_channels()}));
    bias = register_parameter("bias", empty({options.num_channels()}));
  } else {
    weight = register_parameter("weight", Tensor(), /*requires_grad=*/false);
    bias = register_parameter("bias", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

void GroupNormImpl::reset_parameters() { detail::reset_norm_affine(weight, bias); }

Tensor GroupNormImpl::forward(const Tensor& input) {
  return functional::group_norm(
      input,
      functional::GroupNormFuncOptions(options.num_groups()).weight(weight).bias(bias).eps(options.eps()));
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
}

Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return functional::local_response_norm(input, options);
}

void LocalResponseNormImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined(), "CrossMapLRN2d: undefined input tensor");
  EMBER_CHECK_ARG(input.dim() == 4,
                  "Expected input.dim() == 4 to be true, but got false. (CrossMapLRN2d takes "
                  "(N, C, H, W), got {}D input)",
                  input.dim());
  EMBER_CHECK_ARG(options.size() > 0, "CrossMapLRN2d: size must be positive, got {}", options.size());
  // libtorch's running window: channel c sums the squares of [c - pre + 1, c + pre - 1]
  // (clipped), where pre = (size - 1) / 2 + 1, except that channel 0's square is never
  // subtracted once in (Lua Torch's loop only removes channels from 1 on): kept for its values.
  const int64_t c = input.size(1), pre = (options.size() - 1) / 2 + 1;
  const Tensor squares = input.mul(input);
  // Prefix sums along C with a zero in front: window [lo, hi] = prefix[hi + 1] - prefix[lo].
  const Tensor prefix = ember::cat({zeros_like(squares.narrow(1, 0, 1)), squares.cumsum(1)}, 1);
  std::vector<int64_t> hi, lo, keep_first;
  for (int64_t ch = 0; ch < c; ++ch) {
    hi.push_back(std::min(ch + pre - 1, c - 1) + 1);
    lo.push_back(ch > pre ? ch - pre + 1 : 0);
    keep_first.push_back(ch > pre ? 1 : 0);
  }
  auto index = [&](const std::vector<int64_t>& v) {
    return tensor(v, TensorOptions().dtype(kLong).device(input.device()));
  };
  Tensor window = prefix.index_select(1, index(hi)) - prefix.index_select(1, index(lo));
  window = window + squares.narrow(1, 0, 1) * index(keep_first).to(input.dtype()).view({1, c, 1, 1});
  const Tensor scale = window.mul(options.alpha() / double(options.size())).add(double(options.k()));
  return input * scale.pow(-options.beta());
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

}  // namespace ember::nn
