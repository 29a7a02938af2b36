// The losses and distances against libtorch 1.13 on the same random values: forward values
// of each reduction and the gradients of every floating input (targets included where
// libtorch differentiates them), float64; and the error texts that ember copies.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::fresh_seed;
using crosscheck::same_forward_backward;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

constexpr double kTol = 1e-10;

ember::Tensor leaf(ember::IntArrayRef sizes) {
  return (ember::rand(sizes, ember::kDouble) * 2 - 1).requires_grad_();
}
ember::Tensor prob_leaf(ember::IntArrayRef sizes) {
  return (ember::rand(sizes, ember::kDouble) * 0.98 + 0.01).requires_grad_();
}
ember::Tensor signs(ember::IntArrayRef sizes) {
  return ember::where(ember::rand(sizes, ember::kDouble) < 0.5, -1.0, 1.0);
}
torch::Tensor tt(const ember::Tensor& e) { return crosscheck::as_torch(e); }

struct Red {
  ember::Reduction e;
  torch::nn::MSELossOptions::reduction_t t;
  const char* name;
};
const Red kReds[] = {{ember::kNone, torch::kNone, "none"},
                     {ember::kMean, torch::kMean, "mean"},
                     {ember::kSum, torch::kSum, "sum"}};

}  // namespace

TEST_CASE("loss crosscheck: huber, bce, kl_div, poisson_nll against libtorch") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (const Red& r : kReds) {
    const std::string n = r.name;
    same_forward_backward(
        "huber " + n, {leaf({5, 7}), leaf({5, 7})},
        [&](const EInputs& v) {
          return EF::huber_loss(v[0] * 3, v[1], EF::HuberLossFuncOptions(r.e).delta(0.7));
        },
        [&](const TInputs& v) {
          return TF::huber_loss(v[0] * 3, v[1], TF::HuberLossFuncOptions().reduction(r.t).delta(0.7));
        },
        kTol);
    same_forward_backward(
        "binary_cross_entropy " + n,
        {prob_leaf({4, 6}), prob_leaf({4, 6}), ember::rand({6}, ember::kDouble) + 0.5},
        [&](const EInputs& v) {
          return EF::binary_cross_entropy(v[0], v[1],
                                          EF::BinaryCrossEntropyFuncOptions().weight(v[2]).reduction(r.e));
        },
        [&](const TInputs& v) {
          return TF::binary_cross_entropy(v[0], v[1],
                                          TF::BinaryCrossEntropyFuncOptions().weight(v[2]).reduction(r.t));
        },
        kTol);
    for (bool log_target : {false, true}) {
      same_forward_backward(
          "kl_div " + n + (log_target ? " log_target" : ""),
          {leaf({3, 5}), log_target ? leaf({3, 5}) : prob_leaf({3, 5})},
          [&](const EInputs& v) {
            return EF::kl_div(v[0], v[1], EF::KLDivFuncOptions(r.e).log_target(log_target));
          },
          [&](const TInputs& v) {
            auto o = TF::KLDivFuncOptions().log_target(log_target);
            if (r.e == ember::kNone) o.reduction(torch::kNone);
            if (r.e == ember::kSum) o.reduction(torch::kSum);
            return TF::kl_div(v[0], v[1], o);
          },
          kTol);
    }
    for (bool log_input : {true, false})
      for (bool full : {true, false}) {
        ember::Tensor in = log_input ? leaf({4, 5}) : prob_leaf({4, 5});
        ember::Tensor target = (ember::rand({4, 5}, ember::kDouble) * 4).requires_grad_();
        same_forward_backward(
            "poisson_nll " + n + (log_input ? " log_input" : "") + (full ? " full" : ""), {in, target},
            [&](const EInputs& v) {
              return EF::poisson_nll_loss(
                  v[0], v[1],
                  EF::PoissonNLLLossFuncOptions().log_input(log_input).full(full).eps(1e-4).reduction(r.e));
            },
            [&](const TInputs& v) {
              return TF::poisson_nll_loss(
                  v[0], v[1],
                  TF::PoissonNLLLossFuncOptions().log_input(log_input).full(full).eps(1e-4).reduction(r.t));
            },
            kTol);
      }
  }
  same_forward_backward(
      "kl_div batchmean", {leaf({3, 5}), prob_leaf({3, 5})},
      [&](const EInputs& v) { return EF::kl_div(v[0], v[1], ember::kBatchMean); },
      [&](const TInputs& v) { return TF::kl_div(v[0], v[1], TF::KLDivFuncOptions(torch::kBatchMean)); },
      kTol);
}

TEST_CASE("loss crosscheck: margin and embedding losses against libtorch") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const ember::Tensor s6 = signs({6}), s45 = signs({4, 5});
  const ember::Tensor classes = ember::randint(0, 5, {6});
  // multilabel targets: a random number of leading labels, then -1, then junk
  ember::Tensor ml = ember::randint(0, 5, {6, 5});
  ml.index_put_({ember::indexing::Slice(), 3}, -1);
  ml.index_put_({0, 0}, -1);
  for (const Red& r : kReds) {
    const std::string n = r.name;
    same_forward_backward(
        "margin_ranking " + n, {leaf({6}), leaf({6})},
        [&](const EInputs& v) {
          return EF::margin_ranking_loss(v[0], v[1], s6,
                                         EF::MarginRankingLossFuncOptions().margin(0.2).reduction(r.e));
        },
        [&](const TInputs& v) {
          return TF::margin_ranking_loss(v[0], v[1], tt(s6),
                                         TF::MarginRankingLossFuncOptions().margin(0.2).reduction(r.t));
        },
        kTol);
    same_forward_backward(
        "hinge_embedding " + n, {leaf({4, 5})},
        [&](const EInputs& v) {
          return EF::hinge_embedding_loss(v[0], s45,
                                          EF::HingeEmbeddingLossFuncOptions().margin(0.4).reduction(r.e));
        },
        [&](const TInputs& v) {
          return TF::hinge_embedding_loss(v[0], tt(s45),
                                          TF::HingeEmbeddingLossFuncOptions().margin(0.4).reduction(r.t));
        },
        kTol);
    same_forward_backward(
        "cosine_embedding " + n, {leaf({6, 4}), leaf({6, 4})},
        [&](const EInputs& v) {
          return EF::cosine_embedding_loss(v[0], v[1], s6,
                                           EF::CosineEmbeddingLossFuncOptions().margin(-0.3).reduction(r.e));
        },
        [&](const TInputs& v) {
          return TF::cosine_embedding_loss(v[0], v[1], tt(s6),
                                           TF::CosineEmbeddingLossFuncOptions().margin(-0.3).reduction(r.t));
        },
        kTol);
    same_forward_backward(
        "soft_margin " + n, {leaf({4, 5})},
        [&](const EInputs& v) { return EF::soft_margin_loss(v[0] * 3, s45, r.e); },
        [&](const TInputs& v) {
          return TF::soft_margin_loss(v[0] * 3, tt(s45), TF::SoftMarginLossFuncOptions().reduction(r.t));
        },
        kTol);
    same_forward_backward(
        "multilabel_margin " + n, {leaf({6, 5})},
        [&](const EInputs& v) { return EF::multilabel_margin_loss(v[0], ml, r.e); },
        [&](const TInputs& v) {
          return TF::multilabel_margin_loss(v[0], tt(ml),
                                            TF::MultilabelMarginLossFuncOptions().reduction(r.t));
        },
        kTol);
    same_forward_backward(
        "multilabel_soft_margin " + n, {leaf({6, 5}), prob_leaf({6, 5}), leaf({5})},
        [&](const EInputs& v) {
          return EF::multilabel_soft_margin_loss(
              v[0], v[1], EF::MultilabelSoftMarginLossFuncOptions().weight(v[2]).reduction(r.e));
        },
        [&](const TInputs& v) {
          return TF::multilabel_soft_margin_loss(
              v[0], v[1], TF::MultilabelSoftMarginLossFuncOptions().weight(v[2]).reduction(r.t));
        },
        kTol);
    for (int64_t p : {1, 2})
      same_forward_backward(
          "multi_margin p=" + std::to_string(p) + " " + n, {leaf({6, 5}), ember::rand({5}, ember::kDouble)},
          [&](const EInputs& v) {
            return EF::multi_margin_loss(
                v[0], classes, EF::MultiMarginLossFuncOptions().p(p).margin(0.8).weight(v[1]).reduction(r.e));
          },
          [&](const TInputs& v) {
            return TF::multi_margin_loss(
                v[0], tt(classes),
                TF::MultiMarginLossFuncOptions().p(p).margin(0.8).weight(v[1]).reduction(r.t));
          },
          kTol);
    for (bool swap : {false, true}) {
      same_forward_backward(
          "triplet_margin " + n + (swap ? " swap" : ""), {leaf({6, 4}), leaf({6, 4}), leaf({6, 4})},
          [&](const EInputs& v) {
            return EF::triplet_margin_loss(
                v[0], v[1], v[2],
                EF::TripletMarginLossFuncOptions().p(1.5).margin(0.6).swap(swap).reduction(r.e));
          },
          [&](const TInputs& v) {
            return TF::triplet_margin_loss(
                v[0], v[1], v[2],
                TF::TripletMarginLossFuncOptions().p(1.5).margin(0.6).swap(swap).reduction(r.t));
          },
          kTol);
      same_forward_backward(
          "triplet_margin_with_distance (cosine) " + n + (swap ? " swap" : ""),
          {leaf({6, 4}), leaf({6, 4}), leaf({6, 4})},
          [&](const EInputs& v) {
            return EF::triplet_margin_with_distance_loss(
                v[0], v[1], v[2],
                EF::TripletMarginWithDistanceLossFuncOptions()
                    .distance_function([](const ember::Tensor& a, const ember::Tensor& b) {
                      return 1 - EF::cosine_similarity(a, b);
                    })
                    .swap(swap)
                    .reduction(r.e));
          },
          [&](const TInputs& v) {
            return TF::triplet_margin_with_distance_loss(
                v[0], v[1], v[2],
                TF::TripletMarginWithDistanceLossFuncOptions()
                    .distance_function([](const torch::Tensor& a, const torch::Tensor& b) {
                      return 1 - TF::cosine_similarity(a, b);
                    })
                    .swap(swap)
                    .reduction(r.t));
          },
          kTol);
    }
  }
}

TEST_CASE("loss crosscheck: cosine_similarity and pairwise_distance against libtorch") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (int64_t dim : {0, 1, -1})
    same_forward_backward(
        "cosine_similarity dim=" + std::to_string(dim), {leaf({4, 5}), leaf({1, 5})},
        [&](const EInputs& v) {
          return EF::cosine_similarity(v[0], v[1], EF::CosineSimilarityFuncOptions().dim(dim));
        },
        [&](const TInputs& v) {
          return TF::cosine_similarity(v[0], v[1], TF::CosineSimilarityFuncOptions().dim(dim));
        },
        kTol);
  for (double p : {1.0, 1.5, 2.0, 3.0})
    for (bool keepdim : {false, true})
      same_forward_backward(
          "pairwise_distance p=" + std::to_string(p) + (keepdim ? " keepdim" : ""), {leaf({4, 5}), leaf({5})},
          [&](const EInputs& v) {
            return EF::pairwise_distance(v[0], v[1], EF::PairwiseDistanceFuncOptions().p(p).keepdim(keepdim));
          },
          [&](const TInputs& v) {
            return TF::pairwise_distance(v[0], v[1], TF::PairwiseDistanceFuncOptions().p(p).keepdim(keepdim));
          },
          kTol);
  same_forward_backward(
      "free functions", {leaf({4, 5}), leaf({4, 5})},
      [&](const EInputs& v) {
        return ember::cosine_similarity(v[0], v[1], 0, 1e-6) +
               ember::pairwise_distance(v[0].t(), v[1].t(), 2.5);
      },
      [&](const TInputs& v) {
        return torch::cosine_similarity(v[0], v[1], 0, 1e-6) +
               torch::pairwise_distance(v[0].t(), v[1].t(), 2.5);
      },
      kTol);
}

TEST_CASE("loss crosscheck: error texts follow libtorch's") {
  using crosscheck::ember_error;
  using crosscheck::torch_error;
  auto same = [](const std::string& ours, const std::string& theirs) {
    INFO("ember: " << ours << "\nlibtorch: " << theirs);
    CHECK(ours.find(theirs) != std::string::npos);
  };
  const ember::Tensor e = ember::rand({3, 4}, ember::kDouble);
  const torch::Tensor t = tt(e);
  same(ember_error([&] { EF::huber_loss(e, e, EF::HuberLossFuncOptions().delta(-1)); }),
       torch_error([&] { TF::huber_loss(t, t, TF::HuberLossFuncOptions().delta(-1)); }));
  same(ember_error([&] { EF::binary_cross_entropy(e * 3, e); }),
       torch_error([&] { TF::binary_cross_entropy(t * 3, t); }));
  same(ember_error([&] { EF::binary_cross_entropy(e, e[0]); }),
       torch_error([&] { TF::binary_cross_entropy(t, t[0]); }));
  same(ember_error([&] { EF::margin_ranking_loss(e, e, e[0]); }),
       torch_error([&] { TF::margin_ranking_loss(t, t, t[0]); }));
  same(ember_error([&] { EF::cosine_embedding_loss(e, e, e); }),
       torch_error([&] { TF::cosine_embedding_loss(t, t, t); }));
  same(ember_error([&] { EF::cosine_embedding_loss(e, e, ember::ones({}, ember::kDouble)); }),
       torch_error([&] { TF::cosine_embedding_loss(t, t, torch::ones({}, torch::kDouble)); }));
  same(ember_error([&] {
         EF::multilabel_margin_loss(e, ember::zeros({3, 5}, ember::kInt64));
       }),
       torch_error([&] {
         TF::multilabel_margin_loss(t, torch::zeros({3, 5}, torch::kLong));
       }));
  same(ember_error([&] {
         EF::multilabel_margin_loss(e, ember::full({3, 4}, 4, ember::kInt64));
       }),
       torch_error([&] {
         TF::multilabel_margin_loss(t, torch::full({3, 4}, 4, torch::kLong));
       }));
  same(ember_error([&] {
         EF::multilabel_margin_loss(e.unsqueeze(0), ember::zeros({1, 3, 4}, ember::kInt64));
       }),
       torch_error([&] {
         TF::multilabel_margin_loss(t.unsqueeze(0), torch::zeros({1, 3, 4}, torch::kLong));
       }));
  same(ember_error([&] { EF::multi_margin_loss(e, ember::full({3}, 4, ember::kInt64)); }),
       torch_error([&] { TF::multi_margin_loss(t, torch::full({3}, 4, torch::kLong)); }));
  same(ember_error([&] { EF::multi_margin_loss(e, ember::zeros({4}, ember::kInt64)); }),
       torch_error([&] { TF::multi_margin_loss(t, torch::zeros({4}, torch::kLong)); }));
  same(ember_error([&] {
         EF::multi_margin_loss(e, ember::zeros({3}, ember::kInt64), EF::MultiMarginLossFuncOptions().p(3));
       }),
       torch_error([&] {
         TF::multi_margin_loss(t, torch::zeros({3}, torch::kLong), TF::MultiMarginLossFuncOptions().p(3));
       }));
  same(ember_error([&] { EF::triplet_margin_loss(e, e, e[0]); }),
       torch_error([&] { TF::triplet_margin_loss(t, t, t[0]); }));
  same(ember_error([&] { EF::cosine_similarity(e.to(ember::kInt64), e.to(ember::kInt64)); }),
       torch_error([&] { TF::cosine_similarity(t.to(torch::kLong), t.to(torch::kLong)); }));
}
