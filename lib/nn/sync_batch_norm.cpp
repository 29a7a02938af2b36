// SyncBatchNorm (ember/nn/sync_batch_norm.h): batch norm whose statistics are all-reduced
// over a process group, as PyTorch's. Forward: one all-reduce of the per-channel sums and
// the element count, then one of the squared deviations from the global mean (two passes,
// as batch_norm's, in float64). Backward, one node: the local sums of g and g * (x - mean)
// are the weight and bias gradients, and their all-reduced values give the input gradient
// by batch norm's closed form with the global count.
#include "ember/nn/sync_batch_norm.h"

#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "nn/batch_norm_running_stats.h"
#include "nn/channel_dims.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

distributed::ProcessGroup* group_or_default(distributed::ProcessGroup* group) {
  if (group) return group;
  return distributed::is_initialized() ? &distributed::default_group() : nullptr;
}

}  // namespace

Tensor sync_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                       const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
                       double eps, distributed::ProcessGroup* group) {
  distributed::ProcessGroup* pg = training ? group_or_default(group) : nullptr;
  if (!pg || pg->size() == 1)
    return batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, false);
  EMBER_CHECK_ARG(input.defined(), "sync_batch_norm: undefined input tensor");
  EMBER_CHECK_ARG(input.dim() >= 2, "sync_batch_norm: expected an input of shape (N, C, *), got {}",
                  detail::shape_str(input.sizes()));
  EMBER_CHECK_TYPED(is_floating_point(input.dtype()), NotImplemented,
                    "\"sync_batch_norm\" not implemented for '{}'", detail::torch_name(input.dtype()));
  const int64_t c = input.size(1);
  for (const Tensor* t : {&weight, &bias, &running_mean, &running_var})
    EMBER_CHECK_ARG(!t->defined() || t->numel() == c,
                    "sync_batch_norm: expected {} elements per channel tensor, got {}", c, t->numel());
  const std::vector<int64_t> dims = nn::detail::all_but_channel_dims(input.dim()),
                             shape = nn::detail::channel_shape(c, input.dim());
  Tensor mean, invstd, y;
  double count = 0;
  {
    NoGradGuard no_grad;
    // The element count rides along with the sums: ranks may hold batches of different sizes.
    Tensor sums =
        cat({sum(input, dims, false, kDouble), full({1}, double(c ? input.numel() / c : 0), kDouble)});
    pg->all_reduce(sums);
    count = sums[c].item<double>();
    EMBER_CHECK_ARG(count > 1, "Expected more than 1 value per channel when training, got {} over the group",
                    count);
    mean = sums.narrow(0, 0, c) / count;
    Tensor squares = sum((input.to(kDouble) - mean.view(shape)).square(), dims);
    pg->all_reduce(squares);
    const Tensor var = squares / count;
    invstd = rsqrt(var + eps);
    const Tensor alpha = weight.defined() ? invstd * weight.to(kDouble) : invstd;
    const Tensor beta = bias.defined() ? bias.to(kDouble) - mean * alpha : -(mean * alpha);
    y = addcmul(beta.to(input.dtype()).view(shape), input, alpha.to(input.dtype()).view(shape));
    if (running_mean.defined()) running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype()), momentum);
    if (running_var.defined())
      running_var.mul_(1 - momentum).add_((var * (count / (count - 1))).to(running_var.dtype()), momentum);
  }
  if (!(GradMode::is_enabled() && autograd::any_requires_grad({&input, &weight, &bias}))) return y;
  const ScalarType bias_dtype = bias.defined() ? bias.dtype() : input.dtype();
  auto node = autograd::record(
      "SyncBatchNormBackward", {&input, &weight, &bias}, {&y},
      [pg, mean, invstd, dims, shape, count, c, bias_dtype](
          autograd::FormulaNode& node, autograd::variable_list& grads) -> autograd::variable_list {
        autograd::variable_list out(3);
        EMBER_CHECK_TYPED(!GradMode::is_enabled(), NotImplemented,
                          "sync_batch_norm: double backward (create_graph) is not supported: its gradient "
                          "all-reduces are not differentiable");
        const Tensor x = node.saved(0), w = node.saved(1);
        // An undefined gradient is zeros: every rank must still join the all-reduce below.
        const Tensor g = grads[0].defined() ? grads[0] : zeros_like(x);
        const Tensor xc = x.to(kDouble) - mean.view(shape);
        Tensor sums = cat({sum(g, dims, false, kDouble), sum(g.to(kDouble) * xc, dims)});
        // Local sums: this rank's weight and bias gradients (DDP averages them).
        if (node.needs(1)) out[1] = (sums.narrow(0, c, c) * invstd).to(w.dtype());
        // The bias's dtype: float16 input with float32 parameters could overflow in float16.
        if (node.needs(2)) out[2] = sums.narrow(0, 0, c).to(bias_dtype).clone();  // sums is all-reduced next
        // Every rank all-reduces, whatever it needs, so that the collectives match.
        pg->all_reduce(sums);
        if (!node.needs(0)) return out;
        const Tensor k1 = w.defined() ? invstd * w.to(kDouble) : invstd;
        const Tensor k2 = -(k1 * invstd * invstd * sums.narrow(0, c, c)) / count;
        const Tensor k3 = -(k1 * sums.narrow(0, 0, c)) / count;
        out[0] =
            addcmul(addcmul(k3.view(shape), g.to(kDouble), k1.view(shape)), xc, k2.view(shape)).to(x.dtype());
        return out;
      });
  node->saved_[0] = autograd::SavedVariable(input, false);
  node->saved_[1] = autograd::SavedVariable(weight, false);
  return y;
}

namespace nn {

Tensor SyncBatchNormImpl::forward(const Tensor& input) {
  check_input_dim(input);
  // BatchNorm's running statistics; as PyTorch's, only training synchronizes (eval without
  // running statistics uses this rank's batch).
  return detail::with_running_stats(options, is_training(), num_batches_tracked,
                                    [&](bool use_batch_stats, double factor) {
                                      if (is_training())
                                        return sync_batch_norm(input, weight, bias, running_mean, running_var,
                                                               true, factor, options.eps(), group_);
                                      return batch_norm(input, weight, bias, running_mean, running_var,
                                                        use_batch_stats, factor, options.eps(), false);
                                    });
}

void SyncBatchNormImpl::check_input_dim(const Tensor& input) const {
  EMBER_CHECK_ARG(input.dim() >= 2, "expected at least 2D input (got {}D input)", input.dim());
}

}  // namespace nn
}  // namespace ember
