// Cross-checks Embedding and EmbeddingBag against libtorch 1.13: weights after manual_seed,
// forward values and weight / per_sample_weights gradients from the same tables, every bag
// mode with padding, include_last_offset and empty bags, embedding_bag's extra outputs, the
// in-place max_norm renorm, printing and error texts.
#include <ember/ember.h>
#include <ember/nn.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::printed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using ETensors = std::vector<ember::Tensor>;
using TTensors = std::vector<torch::Tensor>;

c10::optional<int64_t> topt(std::optional<int64_t> p) {
  return p ? c10::optional<int64_t>(*p) : c10::nullopt;
}

ember::Tensor leaf(std::vector<int64_t> sizes) {
  return ember::randn(sizes, ember::kDouble).requires_grad_();
}

struct Mode {
  ember::nn::EmbeddingBagMode ember_mode;
  torch::nn::EmbeddingBagMode torch_mode;
  int64_t code;
};
const Mode kModes[] = {
    {ember::kSum, torch::kSum, 0}, {ember::kMean, torch::kMean, 1}, {ember::kMax, torch::kMax, 2}};

}  // namespace

TEST_CASE("embedding crosscheck: weights after manual_seed, printing") {
  ember::manual_seed(7);
  torch::manual_seed(7);
  ember::nn::Embedding e(ember::nn::EmbeddingOptions(5, 3).padding_idx(-2));
  torch::nn::Embedding t(torch::nn::EmbeddingOptions(5, 3).padding_idx(-2));
  check_close(e->weight, t->weight, 0, "Embedding weight");
  CHECK(printed(*e) == printed(*t));
  ember::nn::EmbeddingBag eb(ember::nn::EmbeddingBagOptions(4, 2).padding_idx(1).mode(ember::kMax));
  torch::nn::EmbeddingBag tb(torch::nn::EmbeddingBagOptions(4, 2).padding_idx(1).mode(torch::kMax));
  check_close(eb->weight, tb->weight, 0, "EmbeddingBag weight");
  CHECK(printed(*eb) == printed(*tb));
  ember::nn::Embedding e2(
      ember::nn::EmbeddingOptions(3, 2).max_norm(0.25).norm_type(1.5).scale_grad_by_freq(true).sparse(true));
  torch::nn::Embedding t2(
      torch::nn::EmbeddingOptions(3, 2).max_norm(0.25).norm_type(1.5).scale_grad_by_freq(true).sparse(true));
  CHECK(printed(*e2) == printed(*t2));
  ember::nn::EmbeddingBag eb2(ember::nn::EmbeddingBagOptions(3, 2)
                                  .max_norm(2)
                                  .scale_grad_by_freq(true)
                                  .mode(ember::kSum)
                                  .include_last_offset(true));
  torch::nn::EmbeddingBag tb2(torch::nn::EmbeddingBagOptions(3, 2)
                                  .max_norm(2)
                                  .scale_grad_by_freq(true)
                                  .mode(torch::kSum)
                                  .include_last_offset(true));
  CHECK(printed(*eb2) == printed(*tb2));
}

TEST_CASE("embedding crosscheck: F::embedding values and gradients, padding, frequency scaling, max_norm") {
  const ember::Tensor idx = ember::tensor({{0, 2, 5}, {2, 0, 2}}, ember::kInt32);
  const torch::Tensor tidx = as_torch(idx);
  for (std::optional<int64_t> pad :
       {std::optional<int64_t>(), std::optional<int64_t>(2), std::optional<int64_t>(-6)})
    for (bool freq : {false, true}) {
      INFO("padding " << (pad ? *pad : 99) << " scale_grad_by_freq " << freq);
      same_forward_backward(
          "embedding", {leaf({6, 3})},
          [&](const ETensors& v) {
            return EF::embedding(idx, v[0],
                                 EF::EmbeddingFuncOptions().padding_idx(pad).scale_grad_by_freq(freq));
          },
          [&](const TTensors& v) {
            return TF::embedding(tidx, v[0],
                                 TF::EmbeddingFuncOptions().padding_idx(topt(pad)).scale_grad_by_freq(freq));
          },
          1e-12);
    }
  // max_norm renorms the weight in place, float and double, several norm types
  for (double p : {2.0, 1.0, 3.0}) {
    for (auto dt : {ember::kFloat, ember::kDouble}) {
      ember::Tensor w = ember::randn({6, 3}, dt) * 2;
      torch::Tensor tw = as_torch(w);
      ember::Tensor y = EF::embedding(idx, w, EF::EmbeddingFuncOptions().max_norm(1.3).norm_type(p));
      torch::Tensor ty = TF::embedding(tidx, tw, TF::EmbeddingFuncOptions().max_norm(1.3).norm_type(p));
      check_close(w, tw, 1e-6, "renormed weight");
      check_close(y, ty, 1e-6, "renormed lookup");
    }
  }
  // the module's forward and from_pretrained
  ember::Tensor pre = ember::randn({4, 2}, ember::kDouble);
  auto e = ember::nn::Embedding::from_pretrained(
      pre, ember::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  auto t = torch::nn::Embedding::from_pretrained(
      as_torch(pre), torch::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  CHECK(e->weight.requires_grad() == t->weight.requires_grad());
  ember::Tensor y = e(ember::tensor({1, 3, 1}));
  torch::Tensor ty = t(torch::tensor({1, 3, 1}));
  check_close(y, ty, 0, "from_pretrained lookup");
  ember::Tensor g = ember::randn({3, 2}, ember::kDouble);
  y.backward(g);
  ty.backward(as_torch(g));
  check_close(e->weight.grad(), t->weight.grad(), 1e-12, "from_pretrained gradient");
}

TEST_CASE(
    "embedding crosscheck: embedding_bag's four outputs for every mode, padding and include_last_offset") {
  const ember::Tensor w = ember::randn({6, 3}, ember::kDouble);
  const torch::Tensor tw = as_torch(w);
  for (auto dt : {ember::kInt64, ember::kInt32})
    for (const Mode& m : kModes)
      for (std::optional<int64_t> pad :
           {std::optional<int64_t>(), std::optional<int64_t>(4), std::optional<int64_t>(-1)})
        for (bool last : {false, true}) {
          INFO("mode " << m.code << " padding " << (pad ? *pad : 99) << " include_last_offset " << last
                       << " int32 " << (dt == ember::kInt32));
          const ember::Tensor idx = ember::tensor({1, 2, 4, 5, 4, 3, 2}, dt);
          const ember::Tensor off =
              last ? ember::tensor({0, 2, 2, 4, 7}, dt) : ember::tensor({0, 2, 2, 4}, dt);
          auto [o, o2b, size, maxi] =
              ember::embedding_bag(w, idx, off, false, m.code, false, std::nullopt, last, pad);
          auto [to, to2b, tsize, tmaxi] =
              torch::embedding_bag(tw, as_torch(idx), as_torch(off), false, m.code, false,
                                   c10::optional<torch::Tensor>(), last, topt(pad));
          check_close(o, to, 1e-12, "output");
          check_close(o2b, to2b, 0, "offset2bag");
          check_close(size, tsize, 0, "bag_size");
          check_close(maxi, tmaxi, 0, "max_indices");
        }
  // with per_sample_weights, and with a weight that needs a gradient (bag_size then has num_bags entries)
  const ember::Tensor idx = ember::tensor({1, 2, 4, 5, 4, 3, 2});
  const ember::Tensor off = ember::tensor({0, 2, 2, 4, 7});
  const ember::Tensor psw = ember::randn({7}, ember::kDouble);
  const ember::Tensor wg = w.detach().requires_grad_();
  auto [o, o2b, size, maxi] = ember::embedding_bag(wg, idx, off, false, 0, false, psw, true, 3);
  auto [to, to2b, tsize, tmaxi] = torch::embedding_bag(
      tw.detach().requires_grad_(), as_torch(idx), as_torch(off), false, 0, false, as_torch(psw), true, 3);
  check_close(o, to, 1e-12, "weighted output");
  check_close(o2b, to2b, 0, "weighted offset2bag");
  check_close(size, tsize, 0, "weighted bag_size");
  check_close(maxi, tmaxi, 0, "weighted max_indices");
}

TEST_CASE("embedding crosscheck: F::embedding_bag gradients of weight and per_sample_weights") {
  const ember::Tensor idx = ember::tensor({3, 1, 1, 0, 2, 3, 3}, ember::kInt32);
  const ember::Tensor off = ember::tensor({0, 3, 3, 5}, ember::kInt32);
  for (const Mode& m : kModes)
    for (std::optional<int64_t> pad : {std::optional<int64_t>(), std::optional<int64_t>(3)})
      for (bool freq : {false, true}) {
        if (freq && m.code == 2) continue;
        INFO("mode " << m.code << " padding " << (pad ? *pad : 99) << " scale_grad_by_freq " << freq);
        // libtorch 1.13's CPU kernel divides 1-D bags' gradients by miscounted frequencies
        // (counts of the sorted unique indices read at the wrong positions); ember uses the true counts.
        if (!freq)
          same_forward_backward(
              "embedding_bag 1-D", {leaf({4, 3})},
              [&](const ETensors& v) {
                return EF::embedding_bag(idx, v[0],
                                         EF::EmbeddingBagFuncOptions()
                                             .offsets(off)
                                             .mode(m.ember_mode)
                                             .padding_idx(pad)
                                             .scale_grad_by_freq(freq));
              },
              [&](const TTensors& v) {
                return TF::embedding_bag(as_torch(idx), v[0],
                                         TF::EmbeddingBagFuncOptions()
                                             .offsets(as_torch(off))
                                             .mode(m.torch_mode)
                                             .padding_idx(topt(pad))
                                             .scale_grad_by_freq(freq));
              },
              1e-12);
        same_forward_backward(
            "embedding_bag 2-D", {leaf({4, 3})},
            [&](const ETensors& v) {
              return EF::embedding_bag(
                  ember::tensor({{0, 3}, {3, 3}, {1, 2}}), v[0],
                  EF::EmbeddingBagFuncOptions().mode(m.ember_mode).padding_idx(pad).scale_grad_by_freq(freq));
            },
            [&](const TTensors& v) {
              return TF::embedding_bag(torch::tensor({{0, 3}, {3, 3}, {1, 2}}), v[0],
                                       TF::EmbeddingBagFuncOptions()
                                           .mode(m.torch_mode)
                                           .padding_idx(topt(pad))
                                           .scale_grad_by_freq(freq));
            },
            1e-12);
      }
  same_forward_backward(
      "per_sample_weights", {leaf({4, 3}), leaf({7})},
      [&](const ETensors& v) {
        return EF::embedding_bag(idx, v[0],
                                 EF::EmbeddingBagFuncOptions()
                                     .offsets(off)
                                     .mode(ember::kSum)
                                     .per_sample_weights(v[1])
                                     .padding_idx(1));
      },
      [&](const TTensors& v) {
        return TF::embedding_bag(as_torch(idx), v[0],
                                 TF::EmbeddingBagFuncOptions()
                                     .offsets(as_torch(off))
                                     .mode(torch::kSum)
                                     .per_sample_weights(v[1])
                                     .padding_idx(1));
      },
      1e-12);
  // the module with max_norm: output and the renormed weight
  ember::nn::EmbeddingBag eb(ember::nn::EmbeddingBagOptions(4, 3).max_norm(0.7).mode(ember::kMax));
  torch::nn::EmbeddingBag tb(torch::nn::EmbeddingBagOptions(4, 3).max_norm(0.7).mode(torch::kMax));
  {
    ember::NoGradGuard ng;
    torch::NoGradGuard tng;
    tb->weight.copy_(as_torch(eb->weight));
  }
  check_close(eb(idx, off), tb(as_torch(idx), as_torch(off)), 1e-6, "module output");
  check_close(eb->weight, tb->weight, 1e-6, "renormed weight");
}

TEST_CASE("embedding crosscheck: error texts match libtorch's") {
  const ember::Tensor w = ember::randn({6, 2}, ember::kDouble);
  const torch::Tensor tw = as_torch(w);
  auto same = [&](const std::function<void()>& ours, const std::function<void()>& theirs) {
    const std::string a = ember_error(ours), b = torch_error(theirs);
    INFO("ember: " << a << "\ntorch: " << b);
    CHECK(a == b);
  };
  same([&] { ember::embedding(w, ember::tensor({6})); }, [&] { torch::embedding(tw, torch::tensor({6})); });
  same([&] { EF::embedding(ember::tensor({-1}), w); }, [&] { TF::embedding(torch::tensor({-1}), tw); });
  same([&] { EF::embedding(ember::tensor({1}), w, EF::EmbeddingFuncOptions().padding_idx(6)); },
       [&] { TF::embedding(torch::tensor({1}), tw, TF::EmbeddingFuncOptions().padding_idx(6)); });
  same([&] { ember::nn::Embedding::from_pretrained(ember::ones({3})); },
       [&] { torch::nn::Embedding::from_pretrained(torch::ones({3})); });
  using EO = EF::EmbeddingBagFuncOptions;
  using TO = TF::EmbeddingBagFuncOptions;
  struct Case {
    ember::Tensor in;
    EO eo;
    TO to;
  };
  const std::vector<Case> cases = {
      {ember::tensor({6, 1}), EO().offsets(ember::tensor({0})), TO().offsets(torch::tensor({0}))},
      {ember::tensor({{-1, 1}}), EO(), TO()},
      {ember::tensor({1, 1}), EO().offsets(ember::tensor({1})), TO().offsets(torch::tensor({1}))},
      {ember::tensor({1, 1}), EO().offsets(ember::tensor({0, 3})), TO().offsets(torch::tensor({0, 3}))},
      {ember::tensor({1, 1}), EO().offsets(ember::tensor({{0}})), TO().offsets(torch::tensor({{0}}))},
      {ember::tensor({1, 1}), EO(), TO()},
      {ember::tensor({{1, 1}}), EO().offsets(ember::tensor({0})), TO().offsets(torch::tensor({0}))},
      {ember::ones({1, 1, 1}, ember::kInt64), EO(), TO()},
      {ember::tensor({{1, 1}}), EO().per_sample_weights(ember::ones({1, 2}, ember::kDouble)),
       TO().per_sample_weights(torch::ones({1, 2}, torch::kDouble))},
      {ember::tensor({{1, 1}}),
       EO().mode(ember::kMax).per_sample_weights(ember::ones({1, 2}, ember::kDouble)),
       TO().mode(torch::kMax).per_sample_weights(torch::ones({1, 2}, torch::kDouble))},
      {ember::tensor({{1, 1}}), EO().mode(ember::kSum).per_sample_weights(ember::ones({2}, ember::kDouble)),
       TO().mode(torch::kSum).per_sample_weights(torch::ones({2}, torch::kDouble))},
      {ember::tensor({{1, 1}}), EO().mode(ember::kMax).scale_grad_by_freq(true),
       TO().mode(torch::kMax).scale_grad_by_freq(true)},
      {ember::tensor({{1, 1}}), EO().mode(ember::kMax).sparse(true), TO().mode(torch::kMax).sparse(true)},
      {ember::tensor({{1.0, 1.0}}), EO(), TO()},
      {ember::tensor({1, 1}), EO().offsets(ember::tensor({0.0})), TO().offsets(torch::tensor({0.0}))},
      {ember::tensor({{1, 1}}), EO().mode(ember::kSum).per_sample_weights(ember::ones({1, 2})),
       TO().mode(torch::kSum).per_sample_weights(torch::ones({1, 2}))},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i);
    same([&] { EF::embedding_bag(cases[i].in, w, cases[i].eo); },
         [&] { TF::embedding_bag(as_torch(cases[i].in), tw, cases[i].to); });
  }
}
