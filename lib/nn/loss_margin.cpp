// nn::functional's margin and embedding losses (margin_ranking, hinge_embedding,
// cosine_embedding, soft_margin, multilabel_margin, multilabel_soft_margin, multi_margin,
// triplet_margin[_with_distance]) and the distances they use (cosine_similarity,
// pairwise_distance), composed from ember ops with ATen's formulas, checks and texts; and
// the matching ATen-level free functions.
#include <string>
#include <vector>

#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "ember/nn/loss.h"
#include "iter/elementwise_iter.h"
#include "loss_common.h"

namespace ember::nn::functional {

// Autocast's float32 list: these losses compute half and bfloat16 inputs in float32.
using ember::detail::autocast_fp32;

using namespace loss_detail;

namespace {

// The (N, C) view of a (C), (N, C) or 0-dim input to a multi-class margin loss.
struct Frames {
  int64_t n, c;
};
Frames margin_frames(const Tensor& input, const char* op) {
  const int64_t nd = input.dim();
  EMBER_CHECK_ARG((nd == 2 && input.size(1) != 0) || (nd == 1 && input.size(0) != 0) || nd == 0,
                  "{}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}", op,
                  shape_str(input.sizes()));
  if (nd <= 1) return {1, nd == 0 ? 1 : input.size(0)};
  return {input.size(0), input.size(1)};
}

void check_long(const Tensor& target, const char* op) {
  EMBER_CHECK_ARG(target.dtype() == kInt64, "{}: expected scalar type Long but found {}", op,
                  ember::detail::torch_name(target.dtype()));
}

bool all_in(const Tensor& t, int64_t lo, int64_t hi) {
  return t.numel() == 0 || ember::logical_and(t >= lo, t < hi).all().item<bool>();
}

}  // namespace

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input1, &input2, &target))
    return margin_ranking_loss(autocast_fp32(input1), autocast_fp32(input2), autocast_fp32(target), options);
  check_defined({&input1, &input2, &target}, "margin_ranking_loss");
  EMBER_CHECK_ARG(
      input1.dim() == input2.dim() && input1.dim() == target.dim(),
      "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: {}, "
      "input2: {}, target: {}",
      shape_str(input1.sizes()), shape_str(input2.sizes()), shape_str(target.sizes()));
  return reduce(ember::clamp_min(-target * (input1 - input2) + options.margin(), 0), options.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return hinge_embedding_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_defined({&input, &target}, "hinge_embedding_loss");
  const Tensor margin_clamp = ember::clamp_min(options.margin() - input, 0);
  return reduce(ember::where(target != 1, margin_clamp, 0.0) + ember::where(target != -1, input, 0.0),
                options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input1, &input2, &target))
    return cosine_embedding_loss(autocast_fp32(input1), autocast_fp32(input2), autocast_fp32(target),
                                 options);
  const char* op = "cosine_embedding_loss";
  check_defined({&input1, &input2, &target}, op);
  const int64_t td = target.dim();
  EMBER_CHECK_ARG(td == 1 || td == 0, "{}: 0D or 1D target tensor expected, multi-target not supported", op);
  EMBER_CHECK_ARG(input1.dim() == td + 1 && input2.dim() == td + 1,
                  "{}: {}D target tensor expects {}D input tensors, but found inputs with sizes {} and {}.",
                  op, td, td + 1, shape_str(input1.sizes()), shape_str(input2.sizes()));
  constexpr double kEps = 1e-12;  // ATen's EPSILON
  const Tensor prod_sum = (input1 * input2).sum({td});
  const Tensor mag1 = (input1 * input1).sum({td}) + kEps;
  const Tensor mag2 = (input2 * input2).sum({td}) + kEps;
  const Tensor cos = prod_sum / ember::sqrt(mag1 * mag2);
  const Tensor pos = 1 - cos;
  const Tensor neg = ember::clamp_min(cos - options.margin(), 0);
  return reduce(ember::where(target == 1, pos, 0.0) + ember::where(target == -1, neg, 0.0),
                options.reduction());
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &target))
    return soft_margin_loss(autocast_fp32(input), autocast_fp32(target), options);
  check_defined({&input, &target}, "soft_margin_loss");
  return reduce(ember::log1p(ember::exp(-input * target)), options.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input)) return multilabel_margin_loss(autocast_fp32(input), target, options);
  const char* op = "multilabel_margin_loss";
  check_defined({&input, &target}, op);
  const auto [n, c] = margin_frames(input, op);
  const bool sizes_ok = input.dim() <= 1 ? target.dim() <= 1 && target.numel() == c
                                         : target.dim() == 2 && target.size(0) == n && target.size(1) == c;
  EMBER_CHECK_ARG(sizes_ok, "{}: inconsistent size {} for argument #2 'target'", op,
                  shape_str(target.sizes()));
  check_long(target, op);
  EMBER_CHECK_ARG(all_in(target, -1, c), "{}: argument #2 'target' is out of range", op);
  const Tensor x = input.reshape({n, c});
  const Tensor t = target.reshape({n, c});
  // Listed: the positions before the first -1; is_target: the classes they name.
  const Tensor listed = (t < 0).to(kInt64).cumsum(1) == 0;
  const Tensor safe = ember::where(listed, t, int64_t(0));
  const Tensor is_target = ember::zeros({n, c}, x.options()).scatter_add(1, safe, listed.to(x.dtype())) > 0;
  // Every (listed j, non-target i) pair: max(0, 1 - (x[t[j]] - x[i])), summed, over C.
  const Tensor hinge = ember::clamp_min(1 - (x.gather(1, safe).unsqueeze(2) - x.unsqueeze(1)), 0);
  const Tensor pairs = ember::logical_and(listed.unsqueeze(2), ember::logical_not(is_target).unsqueeze(1));
  Tensor loss = ember::where(pairs, hinge, 0.0).sum({1, 2}) / double(c);
  if (input.dim() <= 1) loss = loss.reshape({});
  return reduce(loss, options.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  check_defined({&input, &target}, "multilabel_soft_margin_loss");
  EMBER_CHECK_ARG(input.dim() >= 1,
                  "multilabel_soft_margin_loss: input must have a class dim, got a 0-dim tensor");
  Tensor loss = -(target * ember::log_sigmoid(input) + (1 - target) * ember::log_sigmoid(-input));
  if (options.weight().defined()) loss = loss * options.weight();
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum({class_dim}) / double(input.size(class_dim));
  return reduce(loss, options.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&input, &options.weight()))
    return multi_margin_loss(autocast_fp32(input), target,
                             MultiMarginLossFuncOptions(options).weight(autocast_fp32(options.weight())));
  const char* op = "multi_margin_loss";
  check_defined({&input, &target}, op);
  const int64_t p = options.p();
  const Tensor& weight = options.weight();
  EMBER_CHECK_ARG(p == 1 || p == 2, "{}: only p == 1 and p == 2 supported", op);
  if (weight.defined()) EMBER_CHECK_ARG(weight.dim() == 1, "{}: weight must be one-dimensional", op);
  const auto [n, c] = margin_frames(input, op);
  EMBER_CHECK_ARG(target.dim() <= 1 && target.numel() == n, "{}: inconsistent target size, got: {}", op,
                  shape_str(target.sizes()));
  if (weight.defined())
    EMBER_CHECK_ARG(weight.numel() == c, "{}: inconsistent weight size, expected {} but got {}", op, c,
                    shape_str(weight.sizes()));
  check_long(target, op);
  EMBER_CHECK_ARG(all_in(target, 0, c), "{}: target out of range", op);
  const Tensor x = input.reshape({n, c});
  const Tensor y = target.reshape({n, 1});
  Tensor z = ember::clamp_min(options.margin() - x.gather(1, y) + x, 0);
  if (p == 2) z = z * z;
  if (weight.defined()) z = z * weight.index_select(0, y.reshape({n})).unsqueeze(1);
  z = ember::where(ember::arange(c, TensorOptions().device(x.device())).unsqueeze(0) == y, 0.0, z);
  const Tensor loss = (z.sum({1}) / double(c)).reshape(target.sizes());
  return reduce(loss, options.reduction());
}

Tensor cosine_similarity(const Tensor& x1_in, const Tensor& x2_in,
                         const CosineSimilarityFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&x1_in, &x2_in))
    return cosine_similarity(autocast_fp32(x1_in), autocast_fp32(x2_in), options);
  const char* op = "cosine_similarity";
  check_defined({&x1_in, &x2_in}, op);
  const ScalarType dt = promote_types(x1_in.dtype(), x2_in.dtype());
  EMBER_CHECK_ARG(is_floating_point(dt),
                  "{}: expected common dtype to be floating point, yet common dtype is {}", op,
                  ember::detail::torch_name(dt));
  const auto shape = ember::detail::broadcast_shapes(x1_in.sizes(), x2_in.sizes(), op);
  const Tensor x1 = x1_in.to(dt).expand(shape), x2 = x2_in.to(dt).expand(shape);
  const int64_t dim = options.dim();
  // Each side over max(|x|, eps): libtorch clamps the norms under no_grad, so the gradient is the norm's.
  const Tensor n1 = clamp_min_values(ember::norm(x1, 2, {dim}, true), options.eps());
  const Tensor n2 = clamp_min_values(ember::norm(x2, 2, {dim}, true), options.eps());
  return ((x1 / n1) * (x2 / n2)).sum({dim});
}

Tensor pdist(const Tensor& input, double p) {
  if (EMBER_AUTOCAST_FP32_ANY(&input)) return pdist(autocast_fp32(input), p);
  EMBER_CHECK_ARG(input.defined(), "pdist: input is an undefined tensor");
  EMBER_CHECK_ARG(input.dim() == 2, "pdist only supports 2D tensors, got: {}D", input.dim());
  EMBER_CHECK_ARG(is_floating_point(input.dtype()), "pdist only supports floating-point dtypes");
  EMBER_CHECK_ARG(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = input.size(0);
  std::vector<int64_t> first, second;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) first.push_back(i), second.push_back(j);
  const TensorOptions index_options = TensorOptions(kLong).device(input.device());
  const Tensor a = input.index_select(0, tensor(first, index_options));
  const Tensor b = input.index_select(0, tensor(second, index_options));
  return (a - b).norm(p, {1});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  check_defined({&x1, &x2}, "pairwise_distance");
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  const Tensor d = x1 - x2 + options.eps();
  if (out_dim == 0) return ember::norm(d, options.p());
  return ember::norm(d, options.p(), {out_dim - 1}, options.keepdim());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  if (EMBER_AUTOCAST_FP32_ANY(&anchor, &positive, &negative))
    return triplet_margin_loss(autocast_fp32(anchor), autocast_fp32(positive), autocast_fp32(negative),
                               options);
  check_defined({&anchor, &positive, &negative}, "triplet_margin_loss");
  EMBER_CHECK_ARG(
      anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
      "triplet_margin_loss: All inputs should have same dimension but got {}D, {}D and {}D inputs.",
      anchor.dim(), positive.dim(), negative.dim());
  const auto dist = PairwiseDistanceFuncOptions().p(options.p()).eps(options.eps());
  const Tensor dist_pos = pairwise_distance(anchor, positive, dist);
  Tensor dist_neg = pairwise_distance(anchor, negative, dist);
  if (options.swap()) dist_neg = ember::minimum(dist_neg, pairwise_distance(positive, negative, dist));
  return reduce(ember::clamp_min(options.margin() + dist_pos - dist_neg, 0), options.reduction());
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  check_defined({&anchor, &positive, &negative}, "triplet_margin_with_distance_loss");
  const auto distance = [&](const Tensor& a, const Tensor& b) {
    return options.distance_function().has_value() ? (*options.distance_function())(a, b)
                                                   : pairwise_distance(a, b, PairwiseDistanceFuncOptions());
  };
  const Tensor dist_pos = distance(anchor, positive);
  Tensor dist_neg = distance(anchor, negative);
  if (options.swap()) dist_neg = ember::minimum(dist_neg, distance(positive, negative));
  return reduce(ember::clamp_min(dist_pos - dist_neg + options.margin(), 0), options.reduction());
}

}  // namespace ember::nn::functional

namespace ember {
namespace F = nn::functional;

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  return F::margin_ranking_loss(input1, input2, target,
                                F::MarginRankingLossFuncOptions().margin(margin).reduction(reduction));
}
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  return F::hinge_embedding_loss(input, target,
                                 F::HingeEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  return F::cosine_embedding_loss(input1, input2, target,
                                  F::CosineEmbeddingLossFuncOptions().margin(margin).reduction(reduction));
}
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return F::soft_margin_loss(input, target, reduction);
}
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  return F::multilabel_margin_loss(input, target, reduction);
}
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const Scalar& p, const Scalar& margin,
                         const Tensor& weight, Reduction reduction) {
  return F::multi_margin_loss(input, target,
                              F::MultiMarginLossFuncOptions()
                                  .p(p.to<int64_t>())
                                  .margin(margin.to<double>())
                                  .weight(weight)
                                  .reduction(reduction));
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           double margin, double p, double eps, bool swap, Reduction reduction) {
  return F::triplet_margin_loss(
      anchor, positive, negative,
      F::TripletMarginLossFuncOptions().margin(margin).p(p).eps(eps).swap(swap).reduction(reduction));
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return F::cosine_similarity(x1, x2, F::CosineSimilarityFuncOptions().dim(dim).eps(eps));
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return F::pairwise_distance(x1, x2, F::PairwiseDistanceFuncOptions().p(p).eps(eps).keepdim(keepdim));
}
}  // namespace ember
