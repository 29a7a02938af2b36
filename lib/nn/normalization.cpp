// batch_norm, instance_norm, group_norm, layer_norm (ATen level), their F:: forms,
// local_response_norm and normalize, composed of ordinary ops so that gradients (and
// double backward) come from autograd on every device. The affine step is libtorch's
// y = x * alpha + beta with per-channel alpha = invstd * weight, beta = bias - mean * alpha,
// which gives libtorch's rounding. Training-mode batch norm is one node (Note [Batch norm
// node]).
#include "ember/nn/normalization.h"

#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "dispatch/kernel_table.h"
#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/nn/padding.h"
#include "ember/nn/pooling.h"
#include "ember/ops.h"
#include "nn/channel_dims.h"
#include "nn/kernel_applies.h"
#include "placement/placement.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

using ember::detail::shape_str;
using nn::detail::all_but_channel_dims;
using nn::detail::channel_shape;

void check_floating(const Tensor& input, const char* op) {
  EMBER_CHECK_TYPED(is_floating_point(input.dtype()), NotImplemented, "\"{}\" not implemented for '{}'", op,
                    ember::detail::torch_name(input.dtype()));
}

void check_same_dtype(const Tensor& input, const Tensor& t) {
  EMBER_CHECK_ARG(!t.defined() || t.dtype() == input.dtype(), "expected scalar type {} but found {}",
                  ember::detail::torch_name(input.dtype()), ember::detail::torch_name(t.dtype()));
}

void check_features(const char* what, int64_t expected, const Tensor& t) {
  EMBER_CHECK_ARG(t.numel() == expected, "{} should contain {} elements not {}", what, expected, t.numel());
}

// input * alpha + beta, alpha and beta of `shape` (broadcast).
Tensor affine(const Tensor& input, const Tensor& alpha, const Tensor& beta, IntArrayRef shape) {
  return addcmul(beta.reshape(shape), input, alpha.reshape(shape));
}

// alpha = invstd * weight, beta = bias - mean * alpha (weight 1 and bias 0 when undefined).
std::pair<Tensor, Tensor> scale_shift(const Tensor& mean, const Tensor& invstd, const Tensor& weight,
                                      const Tensor& bias) {
  Tensor alpha = weight.defined() ? invstd * weight : invstd;
  Tensor beta = bias.defined() ? bias - mean * alpha : -(mean * alpha);
  return {alpha, beta};
}

// One of batch norm's per-channel reductions (ChannelStatsArgs) as its registry kernel, on
// contiguous x (and g): two C-element results.
std::pair<Tensor, Tensor> channel_stats(Op op, const Tensor& x, const Tensor& g, const Tensor& mean) {
  Tensor ins[3] = {x, g, mean};
  ember::detail::DeviceEntry& dev = ember::detail::place_op(op, ins, g.defined() ? 3 : 1, x.dtype());
  auto kernel = ember::detail::lookup_kernel<NormKernel>(op, dev.device.type(), x.dtype());
  const Tensor xc = ins[0].contiguous(), gc = g.defined() ? ins[1].contiguous() : Tensor();
  const int64_t c = x.size(1);
  Tensor out0 = empty({c}, xc.options()), out1 = empty({c}, xc.options());
  ChannelStatsArgs a;
  a.dtype = x.dtype();
  a.n = x.size(0), a.c = c, a.s = c == 0 ? 0 : x.numel() / (x.size(0) * c);
  a.x = static_cast<const char*>(xc.data_ptr());
  a.g = gc.defined() ? static_cast<const char*>(gc.data_ptr()) : nullptr;
  a.mean = mean.defined() ? static_cast<const char*>(ins[2].data_ptr()) : nullptr;
  a.out0 = static_cast<char*>(out0.data_ptr());
  a.out1 = static_cast<char*>(out1.data_ptr());
  kernel(a);
  return {out0, out1};
}

// Note [Batch norm node]
// Composed op by op, training-mode batch norm's backward would make about ten passes over
// the input (var_mean's backward, the affine's, and the sums between them). Recorded as one
// node, its backward is libtorch's closed form in ember ops: with xc = x - mean, s = sum(g)
// and d = sum(g * xc) per channel, grad_weight = d * invstd, grad_bias = s, and
// grad_input = (g - s / n - xc * invstd^2 * d / n) * invstd * weight, evaluated as
// g * k1 + xc * k2 + k3 with per-channel k1 = invstd * weight, k2 = -k1 * invstd^2 * d / n,
// k3 = -k1 * s / n: six passes. Centring first keeps the precision when |mean| >> std. For
// double backward (create_graph) the statistics are recomputed from the saved input with
// autograd on, so the formula stays a differentiable function of x.
Tensor batch_norm_input_grad_and_params(const Tensor& g, const Tensor& x, const Tensor& weight,
                                        const Tensor& mean, const Tensor& invstd, IntArrayRef dims,
                                        IntArrayRef shape, const autograd::FormulaNode& node,
                                        autograd::variable_list& out) {
  const double n = double(x.numel() / x.size(1));
  // Outside create_graph, one pass of the channel-sums kernel where the device has it.
  const bool fused = !GradMode::is_enabled() && nn::detail::kernel_applies(Op::BatchNormBackwardReduce, {&x, &g, &mean});
  Tensor xc, sum_g, dot;
  if (fused) {
    std::tie(sum_g, dot) = channel_stats(Op::BatchNormBackwardReduce, x, g, mean);
  } else {
    xc = x - mean.view(shape);
    sum_g = g.sum(dims);
    dot = (g * xc).sum(dims);
  }
  if (node.needs(1)) out[1] = dot * invstd;
  if (node.needs(2)) out[2] = sum_g;
  if (!node.needs(0)) return Tensor();
  const Tensor k1 = weight.defined() ? invstd * weight : invstd;
  const Tensor k2 = -(k1 * invstd * invstd * dot) / n;
  const Tensor k3 = -(k1 * sum_g) / n;
  if (fused) xc = x - mean.view(shape);  // centred, for the precision when |mean| >> std
  return addcmul(addcmul(k3.view(shape), g, k1.view(shape)), xc, k2.view(shape));
}

Tensor batch_norm_training(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const Tensor& running_mean, const Tensor& running_var, double momentum,
                           double eps) {
  const int64_t c = input.size(1);
  std::vector<int64_t> dims = all_but_channel_dims(input.dim()), shape = channel_shape(c, input.dim());
  Tensor mean, var, invstd, y;
  {
    NoGradGuard no_grad;
    if (nn::detail::kernel_applies(Op::BatchNormStats, {&input}))
      std::tie(mean, var) = channel_stats(Op::BatchNormStats, input, {}, {});
    else
      std::tie(var, mean) = var_mean(input, dims, /*unbiased=*/false);
    invstd = rsqrt(var + eps);
    auto [alpha, beta] = scale_shift(mean, invstd, weight, bias);
    y = affine(input, alpha, beta, shape);
    const double n = double(input.numel() / c);
    if (running_mean.defined()) running_mean.mul_(1 - momentum).add_(mean, momentum);
    if (running_var.defined()) running_var.mul_(1 - momentum).add_(var * (n / (n - 1)), momentum);
  }
  if (!(GradMode::is_enabled() && autograd::any_requires_grad({&input, &weight, &bias}))) return y;
  auto node = autograd::record(
      "NativeBatchNormBackward0", {&input, &weight, &bias}, {&y},
      [mean, invstd, dims, shape, eps](autograd::FormulaNode& node,
                                       autograd::variable_list& grads) -> autograd::variable_list {
        autograd::variable_list out(3);
        if (!grads[0].defined()) return out;
        const Tensor x = node.saved(0), w = node.saved(1);
        Tensor m = mean, is = invstd;
        if (GradMode::is_enabled()) {  // create_graph: statistics as functions of x
          auto [v, batch_mean] = var_mean(x, dims, /*unbiased=*/false);
          m = batch_mean;
          is = rsqrt(v + eps);
        }
        out[0] = batch_norm_input_grad_and_params(grads[0], x, w, m, is, dims, shape, node, out);
        return out;
      });
  node->saved_[0] = autograd::SavedVariable(input, false);
  node->saved_[1] = autograd::SavedVariable(weight, false);
  return y;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps,
                  bool /*cudnn_enabled*/) {
  EMBER_CHECK_ARG(input.defined(), "batch_norm: undefined input tensor");
  EMBER_CHECK_ARG(input.dim() >= 2, "batch_norm: expected an input of shape (N, C, *), got {}",
                  shape_str(input.sizes()));
  check_floating(input, "batch_norm");
  const int64_t c = input.size(1);
  if (running_mean.defined())
    check_features("running_mean", c, running_mean);
  else
    EMBER_CHECK_ARG(training, "running_mean must be defined in evaluation mode");
  if (running_var.defined())
    check_features("running_var", c, running_var);
  else
    EMBER_CHECK_ARG(training, "running_var must be defined in evaluation mode");
  if (weight.defined()) check_features("weight", c, weight);
  if (bias.defined()) check_features("bias", c, bias);
  // libtorch's mixed form: half / bfloat16 input with float32 parameters and statistics
  // (autocast's convolutions feeding float32 BatchNorm modules) computes in float32.
  const bool mixed = (input.dtype() == kHalf || input.dtype() == kBFloat16) &&
                     ((weight.defined() && weight.dtype() == kFloat) ||
                      (running_mean.defined() && running_mean.dtype() == kFloat));
  if (mixed)
    return batch_norm(input.to(kFloat), weight, bias, running_mean, running_var, training, momentum, eps)
        .to(input.dtype());
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var}) check_same_dtype(input, *t);

  if (input.numel() == 0) {
    // libtorch's result: a copy (not a view) that keeps the graph to weight and bias.
    Tensor out = input.clone();
    if (weight.defined()) out = out * weight[0];
    if (bias.defined()) out = out + bias[0];
    return out;
  }
  if (training) return batch_norm_training(input, weight, bias, running_mean, running_var, momentum, eps);
  auto [alpha, beta] = scale_shift(running_mean, rsqrt(running_var + eps), weight, bias);
  return affine(input, alpha, beta, channel_shape(c, input.dim()));
}

Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled) {
  EMBER_CHECK_ARG(input.defined(), "instance_norm: undefined input tensor");
  EMBER_CHECK_ARG(use_input_stats || (running_mean.defined() && running_var.defined()),
                  "Expected running_mean and running_var to be defined when use_input_stats is false");
  EMBER_CHECK_ARG(input.dim() >= 2, "instance_norm: expected an input of shape (N, C, *), got {}",
                  shape_str(input.sizes()));
  // batch_norm of the (1, N * C, *) input with every per-channel tensor repeated N times.
  const int64_t b = input.size(0), c = input.size(1);
  std::vector<int64_t> shape = input.sizes().vec();
  shape[0] = 1;
  shape[1] = b * c;
  auto repeated = [b](const Tensor& t) { return t.defined() ? t.repeat({b}) : Tensor(); };
  const Tensor mean_b = repeated(running_mean), var_b = repeated(running_var);
  const Tensor out = batch_norm(input.reshape(shape), repeated(weight), repeated(bias), mean_b, var_b,
                                use_input_stats, momentum, eps, cudnn_enabled);
  {
    NoGradGuard no_grad;
    if (running_mean.defined()) running_mean.copy_(mean_b.view({b, c}).mean(0));
    if (running_var.defined()) running_var.copy_(var_b.view({b, c}).mean(0));
  }
  return out.view(input.sizes());
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps, bool /*cudnn_enabled*/) {
  // Autocast's float32 list (as layer_norm).
  if (EMBER_AUTOCAST_FP32_ANY(&input, &weight, &bias))
    return group_norm(ember::detail::autocast_fp32(input), num_groups, ember::detail::autocast_fp32(weight),
                      ember::detail::autocast_fp32(bias), eps);
  EMBER_CHECK_ARG(input.defined(), "group_norm: undefined input tensor");
  const int64_t n = input.size(0), c = input.size(1);  // size(1) refuses a 1-D input
  EMBER_CHECK_ARG(num_groups > 0, "Expected num groups to be greater than 0, got {}", num_groups);
  EMBER_CHECK_ARG(
      c % num_groups == 0,
      "Expected number of channels in input to be divisible by num_groups, but got input of shape {} "
      "and num_groups={}",
      shape_str(input.sizes()), num_groups);
  for (auto [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    EMBER_CHECK_ARG(
        !t->defined() || (t->dim() == 1 && t->numel() == c),
        "Expected {} to be a vector of size equal to the number of channels in input, but got {} of "
        "shape {} and input of shape {}",
        what, what, shape_str(t->sizes()), shape_str(input.sizes()));
  check_floating(input, "group_norm");
  check_same_dtype(input, weight);
  check_same_dtype(input, bias);
  int64_t spatial = 1;
  for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
  // (N, G, C / G, spatial): statistics over the last two dims, weight and bias per (g, c / g).
  const int64_t g = num_groups;
  const Tensor x = input.reshape({n, g, c / g, spatial});
  auto [var, mean] = var_mean(x, {2, 3}, /*unbiased=*/false, /*keepdim=*/true);
  const Tensor invstd = rsqrt(var + eps);
  const Tensor w = weight.defined() ? weight.view({1, g, c / g, 1}) : Tensor();
  const Tensor bi = bias.defined() ? bias.view({1, g, c / g, 1}) : Tensor();
  auto [alpha, beta] = scale_shift(mean, invstd, w, bi);
  return addcmul(beta, x, alpha).view(input.sizes());
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps, bool /*cudnn_enable*/) {
  return nn::functional::layer_norm(
      input, nn::functional::LayerNormFuncOptions(normalized_shape.vec()).weight(weight).bias(bias).eps(eps));
}

namespace nn::functional {

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "batch_norm: undefined input tensor");
  if (options.training()) {
    // One value per channel has no variance: libtorch refuses it while training.
    int64_t per_channel = input.dim() > 0 ? input.size(0) : 1;
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    EMBER_CHECK_ARG(per_channel != 1,
                    "Expected more than 1 value per channel when training, got input size {}",
                    shape_str(input.sizes()));
  }
  EMBER_CHECK_ARG(
      options.momentum().has_value(),
      "batch_norm: momentum must be set (a module with momentum unset computes its factor itself)");
  return ember::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                           options.training(), *options.momentum(), options.eps());
}

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  return ember::instance_norm(input, options.weight(), options.bias(), options.running_mean(),
                              options.running_var(), options.use_input_stats(), options.momentum(),
                              options.eps());
}

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return ember::group_norm(input, options.num_groups(), options.weight(), options.bias(), options.eps());
}

Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "local_response_norm: undefined input tensor");
  const int64_t dim = input.dim();
  EMBER_CHECK_ARG(dim >= 3, "Expected 3D or higher dimensionality input (got {} dimensions)", dim);
  const int64_t size = options.size();
  if (dim == 3)
    EMBER_CHECK_ARG(size > 0, "kernel size should be greater than zero, but got kH: {} kW: 1", size);
  else
    EMBER_CHECK_ARG(size > 0, "kernel size should be greater than zero, but got kT: {} kH: 1 kW: 1", size);
  // The mean of squares over `size` channels (zero-padded, size / 2 before and
  // (size - 1) / 2 after), as libtorch's average pooling over the channel dim.
  const int64_t n = input.size(0), c = input.size(1);
  Tensor squares = input.mul(input).reshape({n, 1, c, input.numel() / std::max<int64_t>(n * c, 1)});
  squares = ember::constant_pad_nd(squares, {0, 0, size / 2, (size - 1) / 2});
  Tensor div = ember::avg_pool2d(squares, {size, 1}, {1, 1}).view(input.sizes());
  div = div.mul(options.alpha()).add(options.k()).pow(options.beta());
  return input / div;
}

Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  EMBER_CHECK_ARG(input.defined(), "normalize: undefined input tensor");
  const Tensor denom = input.norm(options.p(), {options.dim()}, /*keepdim=*/true).clamp_min(options.eps());
  if (!options.out()) return input / denom.expand_as(input);
  // div's out=: resized to the result's shape first, as libtorch resizes it.
  Tensor out = *options.out();
  const Tensor result = input / denom.expand_as(input);
  out.resize_(result.sizes());
  return out.copy_(result);
}

}  // namespace nn::functional
}  // namespace ember
