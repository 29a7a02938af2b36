// nn::functional's losses: mse, l1, nll, cross_entropy (indices or probabilities, label
// smoothing, class weights, ignore_index) and binary_cross_entropy_with_logits, following
// libtorch's reductions (a weighted mean divides by the summed weights of kept targets).
#include <string>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "ember/nn/functional.h"
#include "ember/ops.h"
#include "loss_common.h"
#include "tensor/tensor_factory.h"

namespace ember::nn::functional {

// Autocast's float32 list: these losses compute half and bfloat16 inputs in float32.
using ember::detail::autocast_fp32;

namespace {

using ember::detail::shape_str;

using loss_detail::reduce;

void check_pair(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_ARG(input.defined() && target.defined(), "{}: input and target must be defined", op);
}

// Class dim and count of an (N, C, d1...) or (C) input.
int64_t class_dim(const Tensor& input, const char* op) {
  EMBER_CHECK_ARG(input.dim() >= 1,
                  "{}: input must have a class dim ((C) or (N, C, ...)), got a 0-dim tensor", op);
  return input.dim() == 1 ? 0 : 1;
}

// Class-index target checks: int64, shape (N, d1...) matching input without its class dim.
void check_target_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_ARG(target.dtype() == kInt64,
                  "{}: expected scalar type Long but found {} (class-index targets)", op,
                  ember::detail::torch_name(target.dtype()));
  const int64_t cd = class_dim(input, op);
  EMBER_CHECK_ARG(target.dim() == input.dim() - 1,
                  "{}: Expected target of {} dims for input of shape {}, got target of shape {}", op,
                  input.dim() - 1, shape_str(input.sizes()), shape_str(target.sizes()));
  if (cd == 1) {
    EMBER_CHECK_ARG(target.size(0) == input.size(0),
                    "{}: Expected input batch_size ({}) to match target batch_size ({}).", op, input.size(0),
                    target.size(0));
    for (int64_t i = 2; i < input.dim(); ++i)
      EMBER_CHECK_ARG(target.size(i - 1) == input.size(i), "{}: Expected target size {}, got {}", op,
                      shape_str(input.sizes()), shape_str(target.sizes()));
  }
}

// The values check, run only once gather has refused a target (it checks without a host sync).
void check_target_values(const Tensor& logp, const Tensor& target, int64_t ignore_index, const char* op) {
  const int64_t c = logp.size(logp.dim() == 1 ? 0 : 1);
  Tensor kept = target.masked_select(target != ignore_index);
  if (kept.numel() == 0) return;
  const int64_t lo = kept.min().item<int64_t>(), hi = kept.max().item<int64_t>();
  EMBER_CHECK_ARG(lo >= 0 && hi < c, "{}: Target {} is out of bounds (expected class indices in [0, {}))", op,
                  lo < 0 ? lo : hi, c);
}

void check_weight(const Tensor& weight, int64_t classes, const char* op) {
  EMBER_CHECK_ARG(
      !weight.defined() || (weight.dim() == 1 && weight.size(0) == classes),
      "{}: weight tensor should be defined either for all {} classes or no classes but got weight tensor "
      "of shape: {}",
      op, classes, shape_str(weight.sizes()));
}

// Weight shaped to broadcast along the class dim of an input of `ndim` dims.
Tensor class_broadcast(const Tensor& weight, int64_t ndim, int64_t cd) {
  std::vector<int64_t> shape(size_t(ndim), 1);
  shape[size_t(cd)] = weight.size(0);
  return weight.reshape(shape);
}

// nll on already-checked log-probabilities.
Tensor nll(const Tensor& logp, const Tensor& target, const Tensor& weight, int64_t ignore_index, Reduction r,
           const char* op) {
  const int64_t cd = logp.dim() == 1 ? 0 : 1;
  Tensor ignored = target == ignore_index;
  Tensor safe = ember::where(ignored, int64_t(0), target);
  Tensor picked;
  try {
    picked = logp.gather(cd, safe.unsqueeze(cd)).squeeze(cd);
  } catch (const InvalidArgument&) {
    check_target_values(logp, target, ignore_index, op);
    throw;
  }
  Tensor w = weight.defined() ? weight.index_select(0, safe.reshape({-1})).reshape(target.sizes())
                              : ember::ones(target.sizes(), logp.options());
  w = ember::where(ignored, 0.0, w).to(logp.dtype());
  Tensor loss = -picked * w;
  if (r == kSum) return loss.sum();
  if (r == kNone) return loss;
  return loss.sum() / w.sum();
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return mse_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_pair(input, target, "mse_loss");
  Tensor d = input - target;
  return reduce(d * d, options.reduction());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return l1_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_pair(input, target, "l1_loss");
  return reduce(ember::abs(input - target), options.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return smooth_l1_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_pair(input, target, "smooth_l1_loss");
  const double beta = options.beta();
  EMBER_CHECK_ARG(beta >= 0, "smooth_l1_loss does not support negative values for beta, got beta={}", beta);
  const Tensor d = ember::abs(input - target);
  // beta == 0 is l1: the quadratic branch would divide by zero (and its gradient with it).
  if (beta == 0) return reduce(d, options.reduction());
  return reduce(ember::where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), options.reduction());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &options.weight()))
    return nll_loss(autocast_fp32(input), target,
                    NLLLossFuncOptions(options).weight(autocast_fp32(options.weight())));
  check_pair(input, target, "nll_loss");
  check_target_shape(input, target, "nll_loss");
  check_weight(options.weight(), input.size(class_dim(input, "nll_loss")), "nll_loss");
  return nll(input, target, options.weight(), options.ignore_index(), options.reduction(), "nll_loss");
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target, &options.weight()))
    return cross_entropy(autocast_fp32(input), autocast_fp32(target),
                         CrossEntropyFuncOptions(options).weight(autocast_fp32(options.weight())));
  const char* op = "cross_entropy";
  check_pair(input, target, op);
  const int64_t cd = class_dim(input, op);
  const int64_t c = input.size(cd);
  const double ls = options.label_smoothing();
  const Tensor& weight = options.weight();
  EMBER_CHECK_ARG(ls >= 0 && ls <= 1, "{}: label_smoothing must be between 0.0 and 1.0. Got: {}", op, ls);
  check_weight(weight, c, op);
  EMBER_CHECK_ARG(is_floating_point(input.dtype()), "{}: input must be floating point, got {}", op,
                  ember::detail::torch_name(input.dtype()));
  const Tensor logp = input.log_softmax(cd);
  const Tensor wb = weight.defined() ? class_broadcast(weight, input.dim(), cd) : Tensor();

  if (is_floating_point(target.dtype())) {
    // Class probabilities: -(sum over classes of target * logp [* weight]); mean over the batch.
    EMBER_CHECK_ARG(
        target.sizes() == input.sizes(),
        "{}: a floating-point target holds class probabilities and must have input's shape {}, got {}", op,
        shape_str(input.sizes()), shape_str(target.sizes()));
    Tensor t = ls > 0 ? target * (1 - ls) + ls / double(c) : target;
    Tensor terms = logp * t;
    if (wb.defined()) terms = terms * wb;
    Tensor loss = -terms.sum(cd);
    if (options.reduction() == kMean) return loss.sum() / double(input.numel() / c);
    return reduce(loss, options.reduction());
  }

  check_target_shape(input, target, op);
  Tensor nl = nll(logp, target, weight, options.ignore_index(), options.reduction(), op);
  if (ls == 0) return nl;
  // libtorch's smoothing term: the (weighted) sum of -logp over classes, ignored targets zeroed.
  Tensor ignored = target == options.ignore_index();
  Tensor smooth = wb.defined() ? -(logp * wb).sum(cd) : -logp.sum(cd);
  smooth = ember::where(ignored, 0.0, smooth);
  Tensor ret;
  if (options.reduction() == kMean) {
    Tensor denom =
        weight.defined()
            ? ember::where(ignored, 0.0,
                           weight.index_select(0, ember::where(ignored, int64_t(0), target).reshape({-1}))
                               .reshape(target.sizes()))
                  .sum()
            : logical_not(ignored).sum().to(input.dtype());
    ret = smooth.sum() / denom;
  } else {
    ret = reduce(smooth, options.reduction());
  }
  return nl * (1 - ls) + ret * (ls / double(c));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target, &options.weight(), &options.pos_weight()))
    return binary_cross_entropy_with_logits(autocast_fp32(input), autocast_fp32(target),
                                            BinaryCrossEntropyWithLogitsFuncOptions(options)
                                                .weight(autocast_fp32(options.weight()))
                                                .pos_weight(autocast_fp32(options.pos_weight())));
  const char* op = "binary_cross_entropy_with_logits";
  check_pair(input, target, op);
  EMBER_CHECK_ARG(target.sizes() == input.sizes(), "{}: Target size ({}) must be the same as input size ({})",
                  op, shape_str(target.sizes()), shape_str(input.sizes()));
  // log(1 + exp(-x)) without overflow; log_sigmoid's own backward keeps the gradient exact
  // at x = 0, where max(-x, 0) has a kink (libtorch's sigmoid(x) - target there too).
  Tensor log_sig_neg = -log_sigmoid(input);
  Tensor loss;
  if (options.pos_weight().defined()) {
    Tensor lw = (options.pos_weight() - 1) * target + 1;
    loss = (1 - target) * input + lw * log_sig_neg;
  } else {
    loss = (1 - target) * input + log_sig_neg;
  }
  if (options.weight().defined()) loss = loss * options.weight();
  return reduce(loss, options.reduction());
}

}  // namespace ember::nn::functional

namespace ember {
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return nn::functional::mse_loss(input, target, reduction);
}
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return nn::functional::l1_loss(input, target, reduction);
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  return nn::functional::smooth_l1_loss(input, target, nn::functional::SmoothL1LossFuncOptions(reduction).beta(beta));
}
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                int64_t ignore_index) {
  return nn::functional::nll_loss(
      input, target,
      nn::functional::NLLLossFuncOptions().weight(weight).reduction(reduction).ignore_index(ignore_index));
}
}  // namespace ember
