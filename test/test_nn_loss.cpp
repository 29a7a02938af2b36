// The losses and distances of nn (libtorch 1.13's names): values printed by libtorch 1.13 for
// fixed inputs, every reduction, float64 gradcheck of each differentiable input, modules
// (buffers, printing) and libtorch's error texts. torch_crosscheck_loss.cpp compares random
// inputs against libtorch itself.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "nn_test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Equals;
using nn_test::check;
using nn_test::printed;
namespace F = ember::nn::functional;

namespace {

constexpr double kRel = 1e-12;

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }
// In (0.1, 0.9): probabilities away from BCE's clamps.
Tensor prob_leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 0.8 + 0.1).requires_grad_(); }

void values(const Tensor& got, const std::vector<double>& want) { nn_test::expect_values(got, want, kRel); }
double scalar(const Tensor& t) { return t.item<double>(); }

// The fixed inputs the libtorch numbers below were printed for.
struct Fixed {
  Tensor x = tensor({{0.2, -1.0, 0.5}, {1.5, 0.3, -0.4}}, kDouble);
  Tensor xf = tensor({{1.5, 0.3, -0.4}, {0.2, -1.0, 0.5}}, kDouble);  // x's rows swapped
  Tensor y = tensor({{0.0, -0.5, 1.5}, {1.0, 1.0, -0.4}}, kDouble);
  Tensor pin = tensor({{0.1, 0.7, 0.4}, {0.9, 0.5, 0.2}}, kDouble);
  Tensor t01 = tensor({{0.0, 1.0, 1.0}, {1.0, 0.0, 0.5}}, kDouble);
  Tensor s = tensor({{1.0, -1.0, 1.0}, {-1.0, 1.0, 1.0}}, kDouble);
  Tensor w = tensor({1.0, 2.0, 0.5}, kDouble);
};

}  // namespace

TEST_CASE("nn loss: huber_loss values, reductions, delta and gradients") {
  Fixed f;
  const std::vector<double> want = {0.02, 0.125, 0.42, 0.125, 0.24, 0};  // libtorch 1.13, delta 0.6
  values(F::huber_loss(f.x, f.y, F::HuberLossFuncOptions(kNone).delta(0.6)), want);
  CHECK(scalar(F::huber_loss(f.x, f.y, F::HuberLossFuncOptions(kSum).delta(0.6))) == Approx(0.93));
  CHECK(scalar(F::huber_loss(f.x, f.y, F::HuberLossFuncOptions().delta(0.6))) == Approx(0.93 / 6));
  CHECK(scalar(huber_loss(f.x, f.y, kSum, 0.6)) == Approx(0.93));
  // delta 1 is smooth_l1 with beta 1
  CHECK(scalar(F::huber_loss(f.x, f.y)) == Approx(scalar(F::smooth_l1_loss(f.x, f.y))));
  CHECK(check(
      [](const variable_list& v) { return F::huber_loss(v[0], v[1], F::HuberLossFuncOptions().delta(0.3)); },
      {leaf({3, 4}), leaf({3, 4})}));
  CHECK_THROWS_WITH(F::huber_loss(f.x, f.y, F::HuberLossFuncOptions().delta(0)),
                    Equals("huber_loss does not support non-positive values for delta."));
}

TEST_CASE("nn loss: binary_cross_entropy with weight, the -100 log clamp and the input range") {
  Fixed f;
  values(F::binary_cross_entropy(f.pin, f.t01, F::BinaryCrossEntropyFuncOptions().reduction(kNone)),
         {0.10536051565782628, 0.35667494393873245, 0.916290731874155, 0.10536051565782628,
          0.69314718055994529, 0.916290731874155});
  CHECK(scalar(F::binary_cross_entropy(f.pin, f.t01, F::BinaryCrossEntropyFuncOptions().weight(f.w))) ==
        Approx(0.53777600203119391).epsilon(kRel));
  CHECK(scalar(binary_cross_entropy(f.pin, f.t01, f.w, kSum)) ==
        Approx(0.53777600203119391 * 6).epsilon(kRel));
  // log(0) is clamped to -100: a confident wrong answer costs 100, not inf.
  CHECK(scalar(F::binary_cross_entropy(tensor({0.0, 1.0}), tensor({1.0, 0.0}))) == Approx(100));
  CHECK(check(
      [](const variable_list& v) {
        return F::binary_cross_entropy(v[0], v[1], F::BinaryCrossEntropyFuncOptions().weight(v[2]));
      },
      {prob_leaf({2, 3}), prob_leaf({2, 3}), leaf({3})}));
  // At input 0 or 1 the gradient is libtorch's g (x - t) / max(x (1 - x), 1e-12), not 0 / 0.
  const Tensor edge = tensor({0.0, 1.0, 0.5}, kDouble).requires_grad_();
  F::binary_cross_entropy(edge, tensor({0.0, 1.0, 0.3}, kDouble)).backward();
  values(edge.grad(), {0, 0, 0.2 / 0.25 / 3});
  CHECK(binary_cross_entropy(edge, tensor({0.0, 1.0, 0.3}, kDouble), {}, kNone).grad_fn()->name() ==
        "BinaryCrossEntropyBackward0");
  CHECK_THROWS_WITH(F::binary_cross_entropy(f.pin * 3, f.t01),
                    Equals("binary_cross_entropy: all elements of input should be between 0 and 1"));
  CHECK_THROWS_WITH(
      F::binary_cross_entropy(f.pin, ones({2, 2}, kDouble)),
      Equals("binary_cross_entropy: Using a target size ([2, 2]) that is different to the input "
             "size ([2, 3]) is deprecated. Please ensure they have the same size."));
  // ATen's op pairs the elements in order when only the shapes differ (libtorch 1.13's XOR tests).
  const Tensor column = tensor({{0.2}, {0.7}, {0.9}}, kDouble);
  const Tensor labels = tensor({0.0, 1.0, 1.0}, kDouble);
  CHECK(scalar(binary_cross_entropy(column, labels)) ==
        Approx(scalar(binary_cross_entropy(column, labels.view({3, 1})))).epsilon(kRel));
  values(binary_cross_entropy(column, labels, {}, kNone).flatten(),
         {-std::log(0.8), -std::log(0.7), -std::log(0.9)});
  CHECK_THROWS_AS(binary_cross_entropy(column, tensor({0.0, 1.0}, kDouble)), InvalidArgument);
  CHECK_THROWS_AS(F::binary_cross_entropy(column, labels), InvalidArgument);
}

TEST_CASE("nn loss: binary_cross_entropy_with_logits has sigmoid(x) - t as its gradient, also at x = 0") {
  const Tensor x = tensor({0.0, 0.0, 2.0, -3.0}, kDouble).requires_grad_();
  const Tensor t = tensor({0.0, 1.0, 0.25, 1.0}, kDouble);
  F::binary_cross_entropy_with_logits(x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kSum))
      .backward();
  values(x.grad(), {0.5, -0.5, 1 / (1 + std::exp(-2.0)) - 0.25, 1 / (1 + std::exp(3.0)) - 1});
  // With pos_weight p: (1 + (p - 1) t) sigmoid(x) - p t.
  const Tensor z = zeros({2}, kDouble).requires_grad_();
  F::binary_cross_entropy_with_logits(
      z, tensor({1.0, 0.0}, kDouble),
      F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(tensor({3.0, 3.0}, kDouble)).reduction(kSum))
      .backward();
  values(z.grad(), {3 * 0.5 - 3, 0.5});
  CHECK(check([](const variable_list& v) { return F::binary_cross_entropy_with_logits(v[0], v[1]); },
              {leaf({2, 3}), prob_leaf({2, 3})}));
}

TEST_CASE("nn loss: kl_div with batchmean, log_target and targets of 0") {
  Fixed f;
  const Tensor logp = f.pin.log();
  values(F::kl_div(logp, f.t01, F::KLDivFuncOptions(kNone)),
         {0, 0.35667494393873245, 0.916290731874155, 0.10536051565782628, 0, 0.4581453659370775});
  CHECK(scalar(F::kl_div(logp, f.t01, F::KLDivFuncOptions(kBatchMean))) ==
        Approx(0.91823577870389572).epsilon(kRel));
  CHECK(scalar(F::kl_div(logp, f.t01, F::KLDivFuncOptions().reduction(kSum))) ==
        Approx(0.91823577870389572 * 2).epsilon(kRel));
  CHECK(scalar(F::kl_div(logp, f.t01)) == Approx(0.91823577870389572 / 3).epsilon(kRel));
  CHECK(scalar(F::kl_div(f.x, f.y, F::KLDivFuncOptions(kSum).log_target(true))) ==
        Approx(5.1286107658861901).epsilon(kRel));
  CHECK(scalar(kl_div(f.x, f.y, kSum, true)) == Approx(5.1286107658861901).epsilon(kRel));
  // 0-dim input: batchmean is the sum
  CHECK(scalar(F::kl_div(tensor(0.5), tensor(2.0), kBatchMean)) == Approx(2 * (std::log(2.0) - 0.5)));
  CHECK(check([](const variable_list& v) { return F::kl_div(v[0], v[1].abs(), kBatchMean); },
              {leaf({3, 4}), leaf({3, 4})}));
  CHECK(check(
      [](const variable_list& v) {
        return F::kl_div(v[0], v[1], F::KLDivFuncOptions(kNone).log_target(true));
      },
      {leaf({3, 4}), leaf({3, 4})}));
  // A zero target gives a finite gradient for the input.
  Tensor in = leaf({2});
  F::kl_div(in, tensor({0.0, 0.5}, kDouble), kSum).backward();
  values(in.grad(), {0, -0.5});
}

TEST_CASE("nn loss: poisson_nll_loss with log_input, the Stirling term and eps") {
  Fixed f;
  const Tensor counts = f.y.abs() * 2;
  values(F::poisson_nll_loss(f.x, counts, F::PoissonNLLLossFuncOptions().full(true).reduction(kNone)),
         {1.2214027581601699, 1.3678794411714423, 1.912802814243185, 2.1334955549426002, 1.4016652921805393,
          0.99032004603563928});
  CHECK(scalar(F::poisson_nll_loss(f.pin, counts, F::PoissonNLLLossFuncOptions().log_input(false))) ==
        Approx(1.4650187784060142).epsilon(kRel));
  CHECK(scalar(poisson_nll_loss(f.pin, counts, false, false, 1e-8, kMean)) ==
        Approx(1.4650187784060142).epsilon(kRel));
  for (bool log_input : {true, false})
    for (bool full : {true, false})
      CHECK(check(
          [&](const variable_list& v) {
            return F::poisson_nll_loss(
                log_input ? v[0] : v[0].abs() + 0.1, v[1].abs() * 3,
                F::PoissonNLLLossFuncOptions().log_input(log_input).full(full).reduction(kSum));
          },
          {leaf({3, 4}), leaf({3, 4})}));
}

TEST_CASE("nn loss: gaussian_nll_loss, heteroscedastic and homoscedastic var, eps clamp, errors") {
  Tensor in = tensor({{1.0, 2.0}, {0.0, -1.0}}, kDouble), tg = tensor({{0.5, 2.0}, {1.0, 1.0}}, kDouble);
  Tensor var = tensor({{1.0, 0.5}, {2.0, 4.0}}, kDouble);
  std::vector<double> want;
  auto iv = ember_test::dvalues(in), tv = ember_test::dvalues(tg), vv = ember_test::dvalues(var);
  for (size_t i = 0; i < 4; ++i)
    want.push_back(0.5 * (std::log(vv[i]) + (iv[i] - tv[i]) * (iv[i] - tv[i]) / vv[i]));
  values(F::gaussian_nll_loss(in, tg, var, F::GaussianNLLLossFuncOptions().reduction(kNone)), want);
  const double sum = want[0] + want[1] + want[2] + want[3];
  CHECK(scalar(F::gaussian_nll_loss(in, tg, var)) == Approx(sum / 4));
  CHECK(
      scalar(F::gaussian_nll_loss(in, tg, var, F::GaussianNLLLossFuncOptions().full(true).reduction(kSum))) ==
      Approx(sum + 2 * std::log(2 * M_PI)));
  // one variance per row: (N) and (N, 1) both broadcast along the last dim
  Tensor row = tensor({1.0, 2.0}, kDouble);
  CHECK(scalar(F::gaussian_nll_loss(in, tg, row)) ==
        Approx(scalar(F::gaussian_nll_loss(in, tg, tensor({{1.0, 1.0}, {2.0, 2.0}}, kDouble)))));
  CHECK(scalar(F::gaussian_nll_loss(in, tg, row.unsqueeze(1))) ==
        Approx(scalar(F::gaussian_nll_loss(in, tg, row))));
  // var below eps is clamped (the value; its gradient stays)
  CHECK(scalar(F::gaussian_nll_loss(tensor({0.0}, kDouble), tensor({0.0}, kDouble), tensor({0.0}, kDouble),
                                    F::GaussianNLLLossFuncOptions().eps(0.25))) ==
        Approx(0.5 * std::log(0.25)));
  CHECK(check([](const variable_list& v) { return F::gaussian_nll_loss(v[0], v[1], v[2].abs() + 0.1); },
              {leaf({3, 2}), leaf({3, 2}), leaf({3, 2})}));
  CHECK_THROWS_WITH(F::gaussian_nll_loss(in, tg, ones({3}, kDouble)),
                    Equals("gaussian_nll_loss: var is of incorrect size"));
  CHECK_THROWS_WITH(F::gaussian_nll_loss(in, tg, -var),
                    Equals("gaussian_nll_loss: var has negative entry/entries"));
}

TEST_CASE("nn loss: margin_ranking, hinge_embedding, cosine_embedding and soft_margin") {
  Fixed f;
  values(F::margin_ranking_loss(f.x[0], f.x[1], f.s[0],
                                F::MarginRankingLossFuncOptions().margin(0.1).reduction(kNone)),
         {1.4, 0, 0});
  CHECK(scalar(margin_ranking_loss(f.x[0], f.x[1], f.s[0], 0.1, kSum)) == Approx(1.4));
  values(F::hinge_embedding_loss(f.x, f.s, F::HingeEmbeddingLossFuncOptions().margin(0.5).reduction(kNone)),
         {0.2, 1.5, 0.5, 0, 0.3, -0.4});
  CHECK(scalar(hinge_embedding_loss(f.x, f.s, 0.5, kMean)) == Approx(2.1 / 6));
  values(F::cosine_embedding_loss(f.x, f.y, tensor({1.0, -1.0}, kDouble),
                                  F::CosineEmbeddingLossFuncOptions().margin(0.2).reduction(kNone)),
         {0.30394244201327836, 0.64344970650702904});
  values(F::soft_margin_loss(f.x, f.s, kNone),
         {0.59813886938159178, 0.31326168751822286, 0.47407698418010669, 1.7014132779827524,
          0.55435524446852702, 0.91301525239995263});
  CHECK(scalar(soft_margin_loss(f.x, f.s)) == Approx(4.5542577080268628 / 6));
  const Tensor sign = tensor({1.0, -1.0, -1.0, 1.0}, kDouble);
  CHECK(check(
      [&](const variable_list& v) {
        return F::margin_ranking_loss(v[0], v[1], sign, F::MarginRankingLossFuncOptions().margin(0.3));
      },
      {leaf({4}), leaf({4})}));
  CHECK(check(
      [&](const variable_list& v) {
        return F::hinge_embedding_loss(v[0], sign, F::HingeEmbeddingLossFuncOptions().reduction(kNone));
      },
      {leaf({4})}));
  CHECK(check(
      [&](const variable_list& v) {
        return F::cosine_embedding_loss(v[0], v[1], sign, F::CosineEmbeddingLossFuncOptions().margin(-0.5));
      },
      {leaf({4, 3}), leaf({4, 3})}));
  CHECK(check([](const variable_list& v) { return F::soft_margin_loss(v[0], v[1], kSum); },
              {leaf({3, 2}), leaf({3, 2})}));
  CHECK_THROWS_WITH(
      F::margin_ranking_loss(f.x, f.y, f.s[0]),
      Equals("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
             "input1: [2, 3], input2: [2, 3], target: [3]"));
  CHECK_THROWS_WITH(
      F::cosine_embedding_loss(f.x, f.y, f.s),
      Equals("cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported"));
  CHECK_THROWS_WITH(
      F::cosine_embedding_loss(f.x[0], f.y[0], tensor({1.0})),
      Equals("cosine_embedding_loss: 1D target tensor expects 2D input tensors, but found inputs "
             "with sizes [3] and [3]."));
  CHECK_THROWS_WITH(
      F::cosine_embedding_loss(f.x, f.y, tensor(1.0)),
      Equals("cosine_embedding_loss: 0D target tensor expects 1D input tensors, but found inputs "
             "with sizes [2, 3] and [2, 3]."));
}

TEST_CASE("nn loss: multilabel_margin, multilabel_soft_margin and multi_margin") {
  Fixed f;
  const Tensor labels = tensor({{2, 0, -1}, {1, -1, 0}});
  values(F::multilabel_margin_loss(f.x, labels, kNone), {0, 0.83333333333333337});
  CHECK(scalar(multilabel_margin_loss(f.x, labels)) == Approx(0.83333333333333337 / 2));
  // 1-D input: a 0-dim loss (libtorch 1.13: 0.85 for these values)
  Tensor one = F::multilabel_margin_loss(tensor({0.1, 0.2, 0.4, 0.8}, kDouble), tensor({3, 0, -1, 1}), kNone);
  CHECK(one.dim() == 0);
  CHECK(scalar(one) == Approx(0.85));
  values(F::multilabel_soft_margin_loss(
             f.x, f.t01, F::MultilabelSoftMarginLossFuncOptions().weight(f.w).reduction(kNone)),
         {1.2205669121693636, 0.75554379770659441});
  values(F::multi_margin_loss(f.x, tensor({2, 0}),
                              F::MultiMarginLossFuncOptions().p(2).margin(0.7).weight(f.w).reduction(kNone)),
         {0.026666666666666661, 0});
  CHECK(scalar(multi_margin_loss(f.x, tensor({2, 0}), 1, 1, {}, kSum)) == Approx(0.23333333333333331));
  CHECK(F::multi_margin_loss(f.x[0], tensor(int64_t(2)), F::MultiMarginLossFuncOptions().reduction(kNone))
            .dim() == 0);

  const Tensor many = tensor({{3, 0, -1, 2}, {1, 2, 3, 0}, {-1, 0, 0, 0}});
  CHECK(check([&](const variable_list& v) { return F::multilabel_margin_loss(v[0], many); }, {leaf({3, 4})}));
  CHECK(check(
      [&](const variable_list& v) {
        return F::multilabel_soft_margin_loss(v[0], v[1],
                                              F::MultilabelSoftMarginLossFuncOptions().weight(v[2]));
      },
      {leaf({3, 4}), leaf({3, 4}), leaf({4})}));
  for (int64_t p : {1, 2})
    CHECK(check(
        [&](const variable_list& v) {
          return F::multi_margin_loss(
              v[0], tensor({3, 0, 1}),
              F::MultiMarginLossFuncOptions().p(p).margin(1.5).weight(v[1]).reduction(kSum));
        },
        {leaf({3, 4}), leaf({4})}));

  CHECK_THROWS_WITH(F::multilabel_margin_loss(f.x, zeros({2, 4}, kInt64)),
                    Equals("multilabel_margin_loss: inconsistent size [2, 4] for argument #2 'target'"));
  CHECK_THROWS_WITH(F::multilabel_margin_loss(f.x, full({2, 3}, 3, kInt64)),
                    Equals("multilabel_margin_loss: argument #2 'target' is out of range"));
  CHECK_THROWS_WITH(F::multilabel_margin_loss(f.x, tensor({{0, -1, -2}, {0, 1, 2}})),
                    Equals("multilabel_margin_loss: argument #2 'target' is out of range"));
  CHECK_THROWS_WITH(F::multilabel_margin_loss(f.x, f.y),
                    Equals("multilabel_margin_loss: expected scalar type Long but found Double"));
  CHECK_THROWS_WITH(
      F::multilabel_margin_loss(zeros({2, 3, 4}), zeros({2, 3, 4}, kInt64)),
      Equals("multilabel_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch "
             "size, but got: [2, 3, 4]"));
  CHECK_THROWS_WITH(F::multi_margin_loss(f.x, tensor({3, 0})),
                    Equals("multi_margin_loss: target out of range"));
  CHECK_THROWS_WITH(F::multi_margin_loss(f.x, tensor({-1, 0})),
                    Equals("multi_margin_loss: target out of range"));
  CHECK_THROWS_WITH(F::multi_margin_loss(f.x, tensor({0, 0, 0})),
                    Equals("multi_margin_loss: inconsistent target size, got: [3]"));
  CHECK_THROWS_WITH(F::multi_margin_loss(f.x, tensor({0, 0}), F::MultiMarginLossFuncOptions().p(3)),
                    Equals("multi_margin_loss: only p == 1 and p == 2 supported"));
  CHECK_THROWS_WITH(
      F::multi_margin_loss(f.x, tensor({0, 0}), F::MultiMarginLossFuncOptions().weight(ones({1, 3}))),
      Equals("multi_margin_loss: weight must be one-dimensional"));
  CHECK_THROWS_WITH(
      F::multi_margin_loss(f.x, tensor({0, 0}), F::MultiMarginLossFuncOptions().weight(ones({4}))),
      Equals("multi_margin_loss: inconsistent weight size, expected 3 but got [4]"));
}

TEST_CASE("nn loss: cosine_similarity, pairwise_distance and the triplet losses") {
  Fixed f;
  values(F::cosine_similarity(f.x, f.y), {0.69605755798713065, 0.84344970650739304});
  values(cosine_similarity(f.x, f.y, 1, 1e-8), {0.69605755798713065, 0.84344970650739304});
  values(F::pairwise_distance(f.x, f.y, F::PairwiseDistanceFuncOptions().p(1.5)),
         {1.2769573562026624, 0.95905477769979885});
  CHECK(pairwise_distance(f.x, f.y, 2, 1e-6, true).sizes().vec() == std::vector<int64_t>{2, 1});
  values(F::triplet_margin_loss(f.x, f.y, f.xf,
                                F::TripletMarginLossFuncOptions().swap(true).margin(2).reduction(kNone)),
         {1.0888324060325307, 0.8132825146599143});
  CHECK(scalar(triplet_margin_loss(f.x, f.y, f.xf, 2, 2, 1e-6, true, kSum)) ==
        Approx(1.0888324060325307 + 0.8132825146599143));
  // the default distance is pairwise_distance: the same loss as triplet_margin_loss with p = 2
  CHECK(scalar(F::triplet_margin_with_distance_loss(
            f.x, f.y, f.xf, F::TripletMarginWithDistanceLossFuncOptions().swap(true).margin(2))) ==
        Approx((1.0888324060325307 + 0.8132825146599143) / 2));
  auto cos_dist = [](const Tensor& a, const Tensor& b) { return 1 - F::cosine_similarity(a, b); };
  auto with_cos = F::TripletMarginWithDistanceLossFuncOptions().distance_function(cos_dist).margin(0.5);
  CHECK(check(
      [](const variable_list& v) {
        return F::cosine_similarity(v[0], v[1], F::CosineSimilarityFuncOptions().dim(0));
      },
      {leaf({4, 3}), leaf({4, 1})}));
  CHECK(check(
      [](const variable_list& v) {
        return F::pairwise_distance(v[0], v[1], F::PairwiseDistanceFuncOptions().p(3).keepdim(true));
      },
      {leaf({4, 3}), leaf({3})}));
  for (bool swap : {false, true}) {
    CHECK(check(
        [&](const variable_list& v) {
          return F::triplet_margin_loss(v[0], v[1], v[2],
                                        F::TripletMarginLossFuncOptions().p(1.5).swap(swap).margin(3));
        },
        {leaf({4, 3}), leaf({4, 3}), leaf({4, 3})}));
    CHECK(check(
        [&](const variable_list& v) {
          return F::triplet_margin_with_distance_loss(v[0], v[1], v[2], with_cos.swap(swap));
        },
        {leaf({4, 3}), leaf({4, 3}), leaf({4, 3})}));
  }
  CHECK_THROWS_WITH(
      F::cosine_similarity(ones({2, 3}, kInt64), ones({2, 3}, kInt64)),
      Equals("cosine_similarity: expected common dtype to be floating point, yet common dtype is Long"));
  CHECK_THROWS_WITH(
      F::triplet_margin_loss(f.x, f.y, f.y[0]),
      Equals("triplet_margin_loss: All inputs should have same dimension but got 2D, 2D and 1D inputs."));
  CHECK_THROWS_AS(F::cosine_similarity(f.x, ones({2, 4}, kDouble)), InvalidArgument);
}

TEST_CASE("nn loss: modules forward their options, hold weights as buffers, print as libtorch") {
  Fixed f;
  nn::HuberLoss huber(nn::HuberLossOptions().delta(0.6).reduction(kSum));
  CHECK(scalar(huber(f.x, f.y)) == Approx(0.93));
  nn::BCELoss bce(nn::BCELossOptions().weight(f.w));
  CHECK(bce->named_buffers().size() == 1);
  CHECK(scalar(bce(f.pin, f.t01)) == Approx(0.53777600203119391).epsilon(kRel));
  nn::KLDivLoss kl{nn::KLDivLossOptions(kBatchMean)};
  CHECK(scalar(kl(f.pin.log(), f.t01)) == Approx(0.91823577870389572).epsilon(kRel));
  nn::MultiMarginLoss mm(nn::MultiMarginLossOptions().p(2).margin(0.7).weight(f.w.to(kFloat)));
  mm->to(kDouble);  // the buffer converts
  CHECK(scalar(mm(f.x, tensor({2, 0}))) == Approx(0.026666666666666661 / 2).epsilon(1e-6));
  nn::MultiLabelSoftMarginLoss mls(nn::MultiLabelSoftMarginLossOptions().weight(f.w));
  CHECK(scalar(mls(f.x, f.t01)) == Approx((1.2205669121693636 + 0.75554379770659441) / 2));
  nn::NLLLoss nll(nn::NLLLossOptions().weight(f.w).reduction(kSum));
  CHECK(scalar(nll(f.x, tensor({2, 0}))) == Approx(-(0.5 * 0.5 + 1.5)));
  nn::BCEWithLogitsLoss bcel(nn::BCEWithLogitsLossOptions().pos_weight(f.w));
  CHECK(bcel->named_buffers().size() == 1);
  CHECK(scalar(bcel(f.x, f.t01)) == Approx(scalar(binary_cross_entropy_with_logits(f.x, f.t01, {}, f.w))));
  nn::L1Loss l1(kSum);
  CHECK(scalar(l1(f.x, f.y)) == Approx(2.9));
  nn::CosineEmbeddingLoss ce(nn::CosineEmbeddingLossOptions().margin(0.2));
  CHECK(scalar(ce(f.x, f.y, tensor({1.0, -1.0}, kDouble))) ==
        Approx((0.30394244201327836 + 0.64344970650702904) / 2));
  nn::TripletMarginWithDistanceLoss tw;
  CHECK(scalar(tw(f.x, f.y, f.xf)) == Approx(scalar(F::triplet_margin_loss(f.x, f.y, f.xf))));
  nn::PairwiseDistance pd(nn::PairwiseDistanceOptions().p(1.5));
  values(pd(f.x, f.y), {1.2769573562026624, 0.95905477769979885});
  nn::CosineSimilarity cs;
  values(cs(f.x, f.y), {0.69605755798713065, 0.84344970650739304});
  nn::GaussianNLLLoss g;
  CHECK(scalar(g(f.x, f.y, ones({2, 3}, kDouble))) == Approx(scalar(F::mse_loss(f.x, f.y)) / 2));
  CHECK_THROWS_WITH(nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(3)),
                    Equals("MultiMarginLoss: only p == 1 and p == 2 supported"));

  // libtorch 1.13's printing, with ember's prefix
  CHECK(printed(nn::L1Loss()) == "ember::nn::L1Loss()");
  CHECK(printed(nn::NLLLoss()) == "ember::nn::NLLLoss()");
  CHECK(printed(nn::BCEWithLogitsLoss()) == "ember::nn::BCEWithLogitsLoss()");
  CHECK(printed(nn::HuberLoss()) == "ember::nn::HuberLoss");
  CHECK(printed(nn::BCELoss()) == "ember::nn::BCELoss()");
  CHECK(printed(nn::KLDivLoss()) == "ember::nn::KLDivLoss()");
  CHECK(printed(nn::PoissonNLLLoss()) == "ember::nn::PoissonNLLLoss()");
  CHECK(printed(nn::GaussianNLLLoss()) == "ember::nn::GaussianNLLLoss()");
  CHECK(printed(nn::MarginRankingLoss()) == "ember::nn::MarginRankingLoss()");
  CHECK(printed(nn::HingeEmbeddingLoss(nn::HingeEmbeddingLossOptions().margin(2))) ==
        "ember::nn::HingeEmbeddingLoss(margin=2)");
  CHECK(printed(nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(0.5))) ==
        "ember::nn::CosineEmbeddingLoss(margin=0.5)");
  CHECK(printed(nn::SoftMarginLoss()) == "ember::nn::SoftMarginLoss()");
  CHECK(printed(nn::MultiLabelMarginLoss()) == "ember::nn::MultiLabelMarginLoss()");
  CHECK(printed(nn::MultiLabelSoftMarginLoss()) == "ember::nn::MultiLabelSoftMarginLoss()");
  CHECK(printed(nn::MultiMarginLoss()) ==
        "ember::nn::MultiMarginLoss(p=1, margin=1, weight=[ Tensor (undefined) ], reduction=kMean)");
  CHECK(printed(nn::TripletMarginLoss(nn::TripletMarginLossOptions().margin(0.5).p(1).eps(1e-3).swap(
            true))) == "ember::nn::TripletMarginLoss(margin=0.5, p=1, eps=0.001, swap=true)");
  CHECK(printed(nn::TripletMarginWithDistanceLoss()) ==
        "ember::nn::TripletMarginWithDistanceLoss(margin=1, swap=false)");
  CHECK(printed(nn::CosineSimilarity()) == "ember::nn::CosineSimilarity(dim=1, eps=1e-08)");
  CHECK(printed(nn::PairwiseDistance()) == "ember::nn::PairwiseDistance(p=2, eps=1e-06, keepdim=false)");
}

TEST_CASE("AdaptiveLogSoftmaxWithLoss: libtorch's values for fixed parameters") {
  nn::AdaptiveLogSoftmaxWithLoss m(nn::AdaptiveLogSoftmaxWithLossOptions(4, 6, {2, 4}).div_value(2.).head_bias(true));
  CHECK(m->cutoffs == std::vector<int64_t>{2, 4, 6});
  CHECK(m->shortlist_size == 2);
  CHECK(m->n_clusters == 2);
  CHECK(m->head_size == 4);
  {
    NoGradGuard no_grad;
    int k = 0;
    for (auto& p : m->named_parameters())
      p.value().copy_((arange(p.value().numel(), kFloat) + k++).mul(0.37).sin().view(p.value().sizes()));
  }
  CHECK(printed(*m) ==
        "ember::nn::AdaptiveLogSoftmaxWithLoss(\n"
        "  (head): ember::nn::Linear(in_features=4, out_features=4, bias=true)\n"
        "  (tail): ember::nn::ModuleList(\n"
        "    (0): ember::nn::Sequential(\n"
        "      (0): ember::nn::Linear(in_features=4, out_features=2, bias=false)\n"
        "      (1): ember::nn::Linear(in_features=2, out_features=2, bias=false)\n"
        "    )\n"
        "    (1): ember::nn::Sequential(\n"
        "      (0): ember::nn::Linear(in_features=4, out_features=1, bias=false)\n"
        "      (1): ember::nn::Linear(in_features=1, out_features=2, bias=false)\n"
        "    )\n"
        "  )\n"
        ")");
  const Tensor x = (arange(12, kFloat).view({3, 4}) * 0.21).cos();
  const Tensor y = tensor({0L, 3L, 5L});
  const nn::ASMoutput out = m(x, y);
  nn_test::expect_values(out.output, {-1.890535831451416, -2.6324088573455811, -1.1167267560958862}, 1e-6);
  CHECK(out.loss == Approx(1.879890442).epsilon(1e-6));
  const Tensor log_prob = m->log_prob(x);
  nn_test::expect_values(log_prob, {-1.890535831451416, -0.18415336310863495, -4.8506693840026855, -4.9020652770996094, -6.712615966796875, -7.2210445404052734, -1.7409518957138062, -0.46519601345062256, -2.5522687435150146, -2.6324088573455811, -3.6429600715637207, -3.880035400390625, -3.5253450870513916, -3.3207380771636963, -1.7536934614181519, -1.8092789649963379, -1.3086774349212646, -1.1167267560958862}, 1e-6);
  CHECK(ember_test::dvalues(m->predict(x)) == std::vector<double>{1, 1, 5});
  // Each row's output is its target's log-probability; the loss is their mean NLL.
  CHECK(allclose(out.output, log_prob.gather(1, y.unsqueeze(1)).squeeze(1)));
  CHECK(allclose(exp(log_prob).sum(1), ones({3})));
  CHECK(out.loss == Approx(F::nll_loss(log_prob, y).item<double>()).epsilon(1e-6));
  // Unbatched: a 1-D input with a 0-dim target.
  CHECK(allclose(m(x[1], y[1]).output, out.output[1]));
  CHECK(m(x[1], y[1]).output.dim() == 0);
}

TEST_CASE("AdaptiveLogSoftmaxWithLoss: gradients, predict and errors") {
  manual_seed(3);
  nn::AdaptiveLogSoftmaxWithLoss m(18, 10, std::vector<int64_t>{4, 8});
  CHECK(m->head->options.bias() == false);
  // div_value 4: the tails' hidden sizes are 18 / 4 and 18 / 16 rounded down.
  CHECK(m->tail->ptr<nn::SequentialImpl>(0)->ptr<nn::LinearImpl>(0)->options.out_features() == 4);
  CHECK(m->tail->ptr<nn::SequentialImpl>(1)->ptr<nn::LinearImpl>(0)->options.out_features() == 1);
  m->to(kDouble);
  const Tensor x = (rand({6, 18}, kDouble) * 2 - 1).requires_grad_();
  const Tensor y = tensor({0L, 9L, 4L, 7L, 8L, 3L});
  CHECK(check([&](const variable_list& v) { return m(v[0], y).output; }, {x}));
  CHECK(check([&](const variable_list& v) { return m->log_prob(v[0]); }, {x}));
  // predict is the argmax of the full distribution, rows of every kind mixed.
  const Tensor many = randn({64, 18}, kDouble) * 3;
  CHECK(equal(m->predict(many), m->log_prob(many).argmax(1)));
  const Tensor before = x.detach().clone();
  nn_test::expect_error([&] { m(x, y + 5); },
                        "Target values should be in [0, 9], but values in range [5, 14] were found. ", x);
  nn_test::expect_error([&] { m(x, y.view({2, 3})); }, "0D or 1D target tensor expected, multi-target not supported");
  nn_test::expect_error([&] { m(x[0], y); }, "1D target tensor expects 2D input tensors, but found inputs with sizes [18].");
  nn_test::expect_error([&] { m(x, y[0]); }, "0D target tensor expects 1D input tensors, but found inputs with sizes [6, 18].");
  nn_test::expect_error([] { nn::AdaptiveLogSoftmaxWithLoss(8, 10, std::vector<int64_t>{4, 4}); },
                        "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where "
                        "each value is between 1 and n_classes-1");
  nn_test::expect_error([] { nn::AdaptiveLogSoftmaxWithLoss(8, 10, std::vector<int64_t>{4, 10}); },
                        "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where "
                        "each value is between 1 and n_classes-1");
  nn_test::expect_error([] { nn::AdaptiveLogSoftmaxWithLoss(8, 10, std::vector<int64_t>{}); },
                        "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where "
                        "each value is between 1 and n_classes-1");
  nn_test::expect_error(
      [] { nn::AdaptiveLogSoftmaxWithLoss(nn::AdaptiveLogSoftmaxWithLossOptions(8, 10, {4}).div_value(0)); },
      "div_value should not be equal to 0");
  CHECK(equal(x.detach(), before));
}
