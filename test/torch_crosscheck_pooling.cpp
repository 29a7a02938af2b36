// The pooling layers added beside max / avg / adaptive avg 2-D against libtorch 1.13 on the
// same values: avg_pool1d, adaptive avg / max pooling in 1-D and 2-D (ties included: same
// indices and gradients), LP pooling, max unpooling, fractional max pooling (the same
// samples for the same seed), module printing and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::printed;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

ember::Tensor leaf(std::vector<int64_t> sizes) {
  return ember::randn(sizes, ember::kDouble).requires_grad_();
}

// Small integers: windows and bins with several equal maxima.
ember::Tensor tie_leaf(std::vector<int64_t> sizes) {
  return ember::randint(0, 3, sizes, ember::kDouble).requires_grad_();
}

// A module's printed form with libtorch's namespace spelled as ember's.
void same_indices(const ember::Tensor& e, const torch::Tensor& t, const std::string& what) {
  INFO(what << ": indices");
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  CHECK(torch::equal(as_torch(e), t));
}

}  // namespace

TEST_CASE("pooling crosscheck: avg_pool1d and adaptive_avg_pool1d values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    std::vector<int64_t> size;
    int64_t k, s, p;
    bool ceil, include;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 9}, 3, 2, 1, false, true},
                                         {{2, 3, 9}, 3, 2, 1, true, false},
                                         {{1, 2, 10}, 4, 3, 2, true, true},
                                         {{3, 7}, 2, 2, 0, false, true},
                                         {{0, 2, 8}, 2, 1, 1, false, false}}) {
    same_forward_backward(
        "avg_pool1d k=" + std::to_string(c.k), {leaf(c.size)},
        [&](const EInputs& v) { return ember::avg_pool1d(v[0], c.k, c.s, c.p, c.ceil, c.include); },
        [&](const TInputs& v) { return torch::avg_pool1d(v[0], c.k, c.s, c.p, c.ceil, c.include); }, 1e-12);
  }
  same_forward_backward(
      "F::avg_pool1d", {leaf({2, 2, 11})},
      [](const EInputs& v) { return EF::avg_pool1d(v[0], EF::AvgPool1dFuncOptions(3).padding(1)); },
      [](const TInputs& v) { return TF::avg_pool1d(v[0], TF::AvgPool1dFuncOptions(3).padding(1)); }, 1e-12);
  for (int64_t out : {1, 3, 4, 7, 11}) {
    same_forward_backward(
        "adaptive_avg_pool1d to " + std::to_string(out), {leaf({2, 3, 7})},
        [&](const EInputs& v) { return ember::adaptive_avg_pool1d(v[0], out); },
        [&](const TInputs& v) { return torch::adaptive_avg_pool1d(v[0], out); }, 1e-12);
  }
  same_forward_backward(
      "AdaptiveAvgPool1d unbatched", {leaf({4, 9})},
      [](const EInputs& v) { return ember::nn::AdaptiveAvgPool1d(4)(v[0]); },
      [](const TInputs& v) { return torch::nn::AdaptiveAvgPool1d(4)(v[0]); }, 1e-12);
}

TEST_CASE("pooling crosscheck: adaptive max pooling values, indices and gradients (ties included)") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 3, 9, 6}, {3, 4}}, {{2, 2, 5, 7}, {3, 4}}, {{1, 2, 3, 4}, {5, 7}},
      {{3, 8, 8}, {1, 1}},    {{0, 2, 4, 4}, {2, 2}}, {{2, 1, 6, 5}, {6, 5}}};
  for (const auto& [size, out] : cases) {
    for (bool ties : {false, true}) {
      const ember::Tensor x = ties ? tie_leaf(size) : leaf(size);
      const std::string what = std::string("adaptive_max_pool2d") + (ties ? " with ties" : "") + " to " +
                               std::to_string(out[0]) + "x" + std::to_string(out[1]);
      same_forward_backward(
          what, {x}, [&](const EInputs& v) { return std::get<0>(ember::adaptive_max_pool2d(v[0], out)); },
          [&](const TInputs& v) { return std::get<0>(torch::adaptive_max_pool2d(v[0], out)); }, 1e-12);
      same_indices(std::get<1>(ember::adaptive_max_pool2d(x.detach(), out)),
                   std::get<1>(torch::adaptive_max_pool2d(as_torch(x.detach()), out)), what);
    }
  }
  for (int64_t out : {1, 2, 3, 5, 9}) {
    const ember::Tensor x = tie_leaf({2, 3, 7});
    const std::string what = "adaptive_max_pool1d with ties to " + std::to_string(out);
    same_forward_backward(
        what, {x}, [&](const EInputs& v) { return std::get<0>(ember::adaptive_max_pool1d(v[0], out)); },
        [&](const TInputs& v) { return std::get<0>(torch::adaptive_max_pool1d(v[0], out)); }, 1e-12);
    same_indices(std::get<1>(ember::adaptive_max_pool1d(x.detach(), out)),
                 std::get<1>(torch::adaptive_max_pool1d(as_torch(x.detach()), out)), what);
  }
  const ember::Tensor x = leaf({3, 5, 7});
  same_forward_backward(
      "F::adaptive_max_pool2d with None", {x},
      [](const EInputs& v) {
        return EF::adaptive_max_pool2d(v[0], EF::AdaptiveMaxPool2dFuncOptions({std::nullopt, 3}));
      },
      [](const TInputs& v) {
        return TF::adaptive_max_pool2d(v[0], TF::AdaptiveMaxPool2dFuncOptions({c10::nullopt, 3}));
      },
      1e-12);
  same_indices(
      std::get<1>(ember::nn::AdaptiveMaxPool2d(ember::nn::AdaptiveMaxPool2dOptions({4, std::nullopt}))
                      ->forward_with_indices(x.detach())),
      std::get<1>(torch::nn::AdaptiveMaxPool2d(torch::nn::AdaptiveMaxPool2dOptions({4, c10::nullopt}))
                      ->forward_with_indices(as_torch(x.detach()))),
      "AdaptiveMaxPool2d forward_with_indices");
}

TEST_CASE("pooling crosscheck: LP pooling values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  // Positive inputs for fractional powers; p = 2 and p = 1 on signed values too.
  const ember::Tensor pos = (ember::rand({2, 3, 7, 8}, ember::kDouble) + 0.1).requires_grad_();
  for (double p : {1.0, 1.5, 2.0, 3.0}) {
    for (bool ceil : {false, true}) {
      const std::string what = "lp_pool2d p=" + std::to_string(p) + " ceil=" + std::to_string(ceil);
      same_forward_backward(
          what, {pos.detach().requires_grad_()},
          [&](const EInputs& v) {
            return EF::lp_pool2d(v[0], EF::LPPool2dFuncOptions(p, {3, 2}).stride({2, 3}).ceil_mode(ceil));
          },
          [&](const TInputs& v) {
            return TF::lp_pool2d(v[0], TF::LPPool2dFuncOptions(p, {3, 2}).stride({2, 3}).ceil_mode(ceil));
          },
          1e-10);
      same_forward_backward(
          "lp_pool1d p=" + std::to_string(p), {leaf({2, 3, 10}).abs().detach().requires_grad_()},
          [&](const EInputs& v) {
            return EF::lp_pool1d(v[0], EF::LPPool1dFuncOptions(p, 3).stride(2).ceil_mode(ceil));
          },
          [&](const TInputs& v) {
            return TF::lp_pool1d(v[0], TF::LPPool1dFuncOptions(p, 3).stride(2).ceil_mode(ceil));
          },
          1e-10);
    }
  }
  for (double p : {1.0, 2.0}) {
    same_forward_backward(
        "LPPool2d on signed values p=" + std::to_string(p), {leaf({2, 6, 6})},
        [&](const EInputs& v) { return ember::nn::LPPool2d(p, 2)(v[0]); },
        [&](const TInputs& v) { return torch::nn::LPPool2d(p, 2)(v[0]); }, 1e-10);
  }
}

TEST_CASE("pooling crosscheck: max_unpool1d / max_unpool2d values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    std::vector<int64_t> size, k, s, p;
    std::optional<std::vector<int64_t>> output_size;
  };
  for (const Case& c :
       std::vector<Case>{{{2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, std::nullopt},
                         {{2, 3, 8, 6}, {3, 2}, {3, 2}, {1, 0}, std::vector<int64_t>{8, 6}},
                         {{2, 3, 9, 7}, {2, 2}, {2, 2}, {0, 0}, std::vector<int64_t>{9, 7}},
                         {{1, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}, std::vector<int64_t>{1, 2, 5, 5}},
                         {{0, 2, 4, 4}, {2, 2}, {2, 2}, {0, 0}, std::nullopt}}) {
    const ember::Tensor x = ember::randn(c.size, ember::kDouble);
    ember::Tensor ev, ei;
    std::tie(ev, ei) = ember::max_pool2d_with_indices(x, c.k, c.s, c.p);
    const torch::Tensor ti = std::get<1>(torch::max_pool2d_with_indices(as_torch(x), c.k, c.s, c.p));
    same_indices(ei, ti, "max_pool2d for unpooling");
    auto eo = EF::MaxUnpool2dFuncOptions(ember::ExpandingArray<2>(c.k)).stride(c.s).padding(c.p);
    auto to = TF::MaxUnpool2dFuncOptions(torch::ExpandingArray<2>(c.k)).stride(c.s).padding(c.p);
    if (c.output_size) {
      eo.output_size(*c.output_size);
      // libtorch 1.13's C++ _unpool_output_size only accepts the (N, C, H, W) form.
      std::vector<int64_t> full = *c.output_size;
      if (full.size() == 2) full.insert(full.begin(), {c.size[0], c.size[1]});
      to.output_size(full);
    }
    same_forward_backward(
        "max_unpool2d", {ev.requires_grad_()},
        [&](const EInputs& v) { return EF::max_unpool2d(v[0], ei, eo); },
        [&](const TInputs& v) { return TF::max_unpool2d(v[0], ti, to); }, 1e-12);
  }
  const ember::Tensor x = ember::randn({2, 3, 13}, ember::kDouble);
  ember::Tensor ev, ei;
  std::tie(ev, ei) = ember::max_pool1d_with_indices(x, 3, 3, 1);
  const torch::Tensor ti = std::get<1>(torch::max_pool1d_with_indices(as_torch(x), 3, 3, 1));
  same_indices(ei, ti, "max_pool1d for unpooling");
  same_forward_backward(
      "MaxUnpool1d", {ev.requires_grad_()},
      [&](const EInputs& v) {
        return ember::nn::MaxUnpool1d(ember::nn::MaxUnpool1dOptions(3).padding(1))(v[0], ei);
      },
      [&](const TInputs& v) {
        return torch::nn::MaxUnpool1d(torch::nn::MaxUnpool1dOptions(3).padding(1))(v[0], ti);
      },
      1e-12);
  same_forward_backward(
      "MaxUnpool1d with output_size", {ev.detach().requires_grad_()},
      [&](const EInputs& v) {
        return ember::nn::MaxUnpool1d(ember::nn::MaxUnpool1dOptions(3).padding(1))(
            v[0], ei, std::vector<int64_t>{2, 3, 14});
      },
      [&](const TInputs& v) {
        return torch::nn::MaxUnpool1d(torch::nn::MaxUnpool1dOptions(3).padding(1))(
            v[0], ti, std::vector<int64_t>{2, 3, 14});
      },
      1e-12);
}

TEST_CASE("pooling crosscheck: fractional_max_pool2d draws libtorch's samples and windows") {
  for (uint64_t seed : {uint64_t(1), uint64_t(42), fresh_seed()}) {
    INFO("seed " << seed);
    for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
      const ember::Tensor x = ember::randn({2, 3, 11, 9}, dt);
      ember::manual_seed(seed);
      torch::manual_seed(seed);
      const auto [ev, ei] = EF::fractional_max_pool2d_with_indices(
          x, EF::FractionalMaxPool2dFuncOptions({3, 2}).output_size(ember::ExpandingArray<2>({5, 6})));
      const auto [tv, ti] = TF::fractional_max_pool2d_with_indices(
          as_torch(x),
          TF::FractionalMaxPool2dFuncOptions({3, 2}).output_size(torch::ExpandingArray<2>({5, 6})));
      check_close(ev, tv, 0, "fractional_max_pool2d values");
      same_indices(ei, ti, "fractional_max_pool2d");
      // output_ratio, and the module (fresh samples at each call) after the same seed.
      ember::manual_seed(seed);
      torch::manual_seed(seed);
      ember::nn::FractionalMaxPool2d em(ember::nn::FractionalMaxPool2dOptions(2).output_ratio(0.5));
      torch::nn::FractionalMaxPool2d tm(torch::nn::FractionalMaxPool2dOptions(2).output_ratio(0.5));
      for (int call = 0; call < 2; ++call)
        same_indices(std::get<1>(em->forward_with_indices(x[0])),
                     std::get<1>(tm->forward_with_indices(as_torch(x[0]))),
                     "FractionalMaxPool2d unbatched call " + std::to_string(call));
    }
  }
  // Given samples, and the gradient to each window's first maximum (ties included).
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const ember::Tensor samples = ember::rand({2, 2, 2}, ember::kDouble);
  for (bool ties : {false, true}) {
    const ember::Tensor x = ties ? tie_leaf({2, 2, 8, 7}) : leaf({2, 2, 8, 7});
    same_forward_backward(
        std::string("fractional_max_pool2d given samples") + (ties ? " with ties" : ""), {x},
        [&](const EInputs& v) {
          return std::get<0>(ember::fractional_max_pool2d(v[0], {2, 3}, {4, 3}, samples));
        },
        [&](const TInputs& v) {
          return std::get<0>(torch::fractional_max_pool2d(v[0], {2, 3}, {4, 3}, as_torch(samples)));
        },
        1e-12);
    same_indices(
        std::get<1>(ember::fractional_max_pool2d(x.detach(), {2, 3}, {4, 3}, samples)),
        std::get<1>(torch::fractional_max_pool2d(as_torch(x.detach()), {2, 3}, {4, 3}, as_torch(samples))),
        "fractional_max_pool2d given samples");
  }
}

TEST_CASE("pooling crosscheck: the added modules print as libtorch's") {
  namespace en = ember::nn;
  namespace tn = torch::nn;
  CHECK(printed(en::AvgPool1d(en::AvgPool1dOptions(3).stride(2).padding(1))) ==
        printed(tn::AvgPool1d(tn::AvgPool1dOptions(3).stride(2).padding(1))));
  CHECK(printed(en::AvgPool2d(en::AvgPool2dOptions({2, 3}))) ==
        printed(tn::AvgPool2d(tn::AvgPool2dOptions({2, 3}))));
  CHECK(printed(en::AdaptiveAvgPool1d(5)) == printed(tn::AdaptiveAvgPool1d(5)));
  CHECK(printed(en::AdaptiveMaxPool1d(5)) == printed(tn::AdaptiveMaxPool1d(5)));
  CHECK(printed(en::AdaptiveMaxPool2d(en::AdaptiveMaxPool2dOptions({std::nullopt, 7}))) ==
        printed(tn::AdaptiveMaxPool2d(tn::AdaptiveMaxPool2dOptions({c10::nullopt, 7}))));
  CHECK(printed(en::AdaptiveMaxPool2d(3)) == printed(tn::AdaptiveMaxPool2d(3)));
  CHECK(printed(en::MaxUnpool1d(en::MaxUnpool1dOptions(3).stride(2).padding(1))) ==
        printed(tn::MaxUnpool1d(tn::MaxUnpool1dOptions(3).stride(2).padding(1))));
  CHECK(printed(en::MaxUnpool2d(en::MaxUnpool2dOptions({2, 3}))) ==
        printed(tn::MaxUnpool2d(tn::MaxUnpool2dOptions({2, 3}))));
  CHECK(printed(en::LPPool1d(en::LPPool1dOptions(1.5, 3).stride(2).ceil_mode(true))) ==
        printed(tn::LPPool1d(tn::LPPool1dOptions(1.5, 3).stride(2).ceil_mode(true))));
  CHECK(printed(en::LPPool2d(2, std::vector<int64_t>{3, 4})) ==
        printed(tn::LPPool2d(2, std::vector<int64_t>{3, 4})));
  CHECK(printed(en::FractionalMaxPool2d(en::FractionalMaxPool2dOptions(2).output_size(3))) ==
        printed(tn::FractionalMaxPool2d(tn::FractionalMaxPool2dOptions(2).output_size(3))));
}

TEST_CASE("pooling crosscheck: error texts of the added layers equal libtorch's") {
  struct Case {
    const char* name;
    std::function<void()> ours, theirs;
  };
  const std::vector<Case> cases = {
      {"avg_pool1d dims", [] { ember::avg_pool1d(ember::ones({8}), 2); },
       [] { torch::avg_pool1d(torch::ones({8}), 2); }},
      {"avg_pool1d kernel list",
       [] {
         ember::avg_pool1d(ember::ones({1, 8}), {2, 2});
       },
       [] {
         torch::avg_pool1d(torch::ones({1, 8}), {2, 2});
       }},
      {"avg_pool1d small",
       [] {
         ember::avg_pool1d(ember::ones({1, 1, 2}), 3);
       },
       [] {
         torch::avg_pool1d(torch::ones({1, 1, 2}), 3);
       }},
      {"avg_pool1d pad",
       [] {
         ember::avg_pool1d(ember::ones({1, 1, 8}), 2, 2, 2);
       },
       [] {
         torch::avg_pool1d(torch::ones({1, 1, 8}), 2, 2, 2);
       }},
      {"adaptive_avg_pool1d dims",
       [] {
         ember::adaptive_avg_pool1d(ember::ones({1, 1, 1, 8}), 2);
       },
       [] {
         torch::adaptive_avg_pool1d(torch::ones({1, 1, 1, 8}), 2);
       }},
      {"adaptive_avg_pool1d empty",
       [] {
         ember::adaptive_avg_pool1d(ember::ones({1, 2, 0}), 2);
       },
       [] {
         torch::adaptive_avg_pool1d(torch::ones({1, 2, 0}), 2);
       }},
      {"adaptive_max_pool1d list",
       [] {
         ember::adaptive_max_pool1d(ember::ones({1, 8}), {2, 2});
       },
       [] {
         torch::adaptive_max_pool1d(torch::ones({1, 8}), {2, 2});
       }},
      {"adaptive_max_pool1d empty",
       [] {
         ember::adaptive_max_pool1d(ember::ones({1, 2, 0}), 2);
       },
       [] {
         torch::adaptive_max_pool1d(torch::ones({1, 2, 0}), 2);
       }},
      {"adaptive_max_pool2d dims",
       [] {
         ember::adaptive_max_pool2d(ember::ones({4, 4}), {2, 2});
       },
       [] {
         torch::adaptive_max_pool2d(torch::ones({4, 4}), {2, 2});
       }},
      {"adaptive_max_pool2d empty",
       [] {
         ember::adaptive_max_pool2d(ember::ones({1, 0, 4, 4}), {2, 2});
       },
       [] {
         torch::adaptive_max_pool2d(torch::ones({1, 0, 4, 4}), {2, 2});
       }},
      {"adaptive_max_pool2d negative",
       [] {
         ember::adaptive_max_pool2d(ember::ones({1, 2, 4, 4}), {2, -1});
       },
       [] {
         torch::adaptive_max_pool2d(torch::ones({1, 2, 4, 4}), {2, -1});
       }},
      {"adaptive_max_pool2d long",
       [] {
         ember::adaptive_max_pool2d(ember::ones({1, 4, 4}, ember::kLong), {2, 2});
       },
       [] {
         torch::adaptive_max_pool2d(torch::ones({1, 4, 4}, torch::kLong), {2, 2});
       }},
      {"max_unpool2d long",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}, ember::kLong),
                             ember::zeros({1, 1, 2, 2}, ember::kLong), {2, 2});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 1, 2, 2}, torch::kLong),
                             torch::zeros({1, 1, 2, 2}, torch::kLong), {2, 2});
       }},
      {"max_unpool2d negative size",
       [] {
         ember::max_unpool2d(ember::ones({1, 2, 2, 2}), ember::zeros({1, 2, 2, 2}, ember::kLong), {2, -3});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 2, 2, 2}), torch::zeros({1, 2, 2, 2}, torch::kLong), {2, -3});
       }},
      {"max_unpool2d two bad indices",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::tensor({-5L, 0L, 9L, 1L}).view({1, 1, 2, 2}),
                             {2, 2});
       },
       [] {
         // libtorch's threads race to report a bad index; on one thread it reports the first.
         const int threads = torch::get_num_threads();
         torch::set_num_threads(1);
         try {
           torch::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::tensor({-5L, 0L, 9L, 1L}).view({1, 1, 2, 2}),
                               {2, 2});
         } catch (...) {
           torch::set_num_threads(threads);
           throw;
         }
         torch::set_num_threads(threads);
       }},
      {"adaptive_max_pool2d half",
       [] {
         ember::adaptive_max_pool2d(ember::ones({1, 4, 4}, ember::kHalf), {2, 2});
       },
       [] {
         torch::adaptive_max_pool2d(torch::ones({1, 4, 4}, torch::kHalf), {2, 2});
       }},
      {"fractional_max_pool2d samples dtype",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), {2, 2}, {3, 3},
                                      ember::rand({1, 1, 2}, ember::kDouble));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), {2, 2}, {3, 3},
                                      torch::rand({1, 1, 2}, torch::kDouble));
       }},
      {"fractional_max_pool2d samples undefined",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), {2, 2}, {3, 3}, ember::Tensor());
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), {2, 2}, {3, 3}, torch::Tensor());
       }},
      {"fractional_max_pool2d long",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}, ember::kLong), {2, 2}, {3, 3},
                                      ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}, torch::kLong), {2, 2}, {3, 3},
                                      torch::rand({1, 1, 2}));
       }},
      {"adaptive_max_pool1d 1-D", [] { ember::adaptive_max_pool1d(ember::ones({5}), 2); },
       [] { torch::adaptive_max_pool1d(torch::ones({5}), 2); }},
      {"F::adaptive_max_pool2d 2-D",
       [] {
         EF::adaptive_max_pool2d(ember::ones({4, 4}), EF::AdaptiveMaxPool2dFuncOptions(2));
       },
       [] {
         TF::adaptive_max_pool2d(torch::ones({4, 4}), TF::AdaptiveMaxPool2dFuncOptions(2));
       }},
      {"F::fractional_max_pool2d 2-D",
       [] {
         EF::fractional_max_pool2d(ember::ones({5, 5}), EF::FractionalMaxPool2dFuncOptions(2).output_size(2));
       },
       [] {
         TF::fractional_max_pool2d(torch::ones({5, 5}), TF::FractionalMaxPool2dFuncOptions(2).output_size(2));
       }},
      {"max_unpool2d index dtype",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::zeros({1, 1, 2, 2}), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::zeros({1, 1, 2, 2}), {4, 4});
       }},
      {"max_unpool2d output_size",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::zeros({1, 1, 2, 2}, ember::kLong), {4, 4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::zeros({1, 1, 2, 2}, torch::kLong), {4, 4, 4});
       }},
      {"max_unpool2d dims",
       [] {
         ember::max_unpool2d(ember::ones({2, 2}), ember::zeros({2, 2}, ember::kLong), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({2, 2}), torch::zeros({2, 2}, torch::kLong), {4, 4});
       }},
      {"max_unpool2d shapes",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::zeros({1, 2, 2}, ember::kLong), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::zeros({1, 2, 2}, torch::kLong), {4, 4});
       }},
      {"max_unpool2d empty plane",
       [] {
         ember::max_unpool2d(ember::ones({1, 0, 2, 2}), ember::zeros({1, 0, 2, 2}, ember::kLong), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 0, 2, 2}), torch::zeros({1, 0, 2, 2}, torch::kLong), {4, 4});
       }},
      {"max_unpool2d index",
       [] {
         ember::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::full({1, 1, 2, 2}, 16, ember::kLong), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::full({1, 1, 2, 2}, 16, torch::kLong), {4, 4});
       }},
      {"max_unpool2d negative index",
       [] {
         ember::max_unpool2d(ember::ones({1, 2, 2}), ember::full({1, 2, 2}, -1, ember::kLong), {4, 4});
       },
       [] {
         torch::max_unpool2d(torch::ones({1, 2, 2}), torch::full({1, 2, 2}, -1, torch::kLong), {4, 4});
       }},
      {"F::max_unpool2d output_size range",
       [] {
         EF::max_unpool2d(ember::ones({1, 1, 2, 2}), ember::zeros({1, 1, 2, 2}, ember::kLong),
                          EF::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{1, 1, 7, 4}));
       },
       [] {
         TF::max_unpool2d(torch::ones({1, 1, 2, 2}), torch::zeros({1, 1, 2, 2}, torch::kLong),
                          TF::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{1, 1, 7, 4}));
       }},
      {"fractional_max_pool2d dims",
       [] {
         ember::fractional_max_pool2d(ember::ones({5, 5}), {2, 2}, {3, 3}, ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({5, 5}), {2, 2}, {3, 3}, torch::rand({1, 1, 2}));
       }},
      {"fractional_max_pool2d empty",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 0, 5, 5}), {2, 2}, {3, 3}, ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 0, 5, 5}), {2, 2}, {3, 3}, torch::rand({1, 1, 2}));
       }},
      {"fractional_max_pool2d height",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), {2, 2}, {5, 5}, ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), {2, 2}, {5, 5}, torch::rand({1, 1, 2}));
       }},
      {"fractional_max_pool2d width",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), {1, 3}, {5, 4}, ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), {1, 3}, {5, 4}, torch::rand({1, 1, 2}));
       }},
      {"fractional_max_pool2d kernel list",
       [] {
         ember::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), {2, 2, 2}, {3, 3}, ember::rand({1, 1, 2}));
       },
       [] {
         torch::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), {2, 2, 2}, {3, 3}, torch::rand({1, 1, 2}));
       }},
      {"F::fractional_max_pool2d no size",
       [] {
         EF::fractional_max_pool2d(ember::ones({1, 1, 5, 5}), EF::FractionalMaxPool2dFuncOptions(2));
       },
       [] {
         TF::fractional_max_pool2d(torch::ones({1, 1, 5, 5}), TF::FractionalMaxPool2dFuncOptions(2));
       }},
      {"FractionalMaxPool2d no size",
       [] { ember::nn::FractionalMaxPool2d(ember::nn::FractionalMaxPool2dOptions(2)); },
       [] { torch::nn::FractionalMaxPool2d(torch::nn::FractionalMaxPool2dOptions(2)); }},
      {"FractionalMaxPool2d both",
       [] {
         ember::nn::FractionalMaxPool2d(
             ember::nn::FractionalMaxPool2dOptions(2).output_size(3).output_ratio(0.5));
       },
       [] {
         torch::nn::FractionalMaxPool2d(
             torch::nn::FractionalMaxPool2dOptions(2).output_size(3).output_ratio(0.5));
       }},
      {"FractionalMaxPool2d ratio",
       [] { ember::nn::FractionalMaxPool2d(ember::nn::FractionalMaxPool2dOptions(2).output_ratio(1.5)); },
       [] { torch::nn::FractionalMaxPool2d(torch::nn::FractionalMaxPool2dOptions(2).output_ratio(1.5)); }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string want = torch_error(c.theirs);
    CHECK(want != "<no error>");
    CHECK(ember_error(c.ours) == want);
  }
}

TEST_CASE("pooling crosscheck: max_pool2d's kernel gives libtorch's values, indices and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    std::vector<int64_t> size, kernel, stride, padding, dilation;
    bool ceil;
  };
  const std::vector<Case> cases = {
      {{2, 3, 24, 24}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},   // MNIST's
      {{2, 4, 15, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},   // ResNet's stem, odd sizes
      {{1, 2, 11, 17}, {3, 2}, {2, 3}, {1, 1}, {2, 1}, true},    // dilated, ceil_mode
      {{3, 1, 9, 40}, {2, 5}, {1, 1}, {1, 2}, {1, 1}, false},    // stride 1: overlapping windows
      {{2, 2, 7, 7}, {7, 7}, {1, 1}, {0, 0}, {1, 1}, false},     // one window per plane
      {{2, 3, 10, 9}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, true},
  };
  for (const Case& c : cases) {
    for (int kind = 0; kind < 3; ++kind) {
      // 0: random, 1: ties (small integers), 2: with NaN and -inf
      ember::Tensor x = kind == 1 ? ember::randint(0, 3, c.size, ember::kDouble) : ember::randn(c.size, ember::kDouble);
      if (kind == 2) {
        x.view({-1}).index_put_({ember::randint(0, x.numel(), {x.numel() / 7})}, std::nan(""));
        x.view({-1}).index_put_({ember::randint(0, x.numel(), {x.numel() / 5})}, -INFINITY);
      }
      for (auto dt : {ember::kFloat, ember::kDouble}) {
        const ember::Tensor xe = x.to(dt).requires_grad_();
        const torch::Tensor xt = as_torch(x).to(dt == ember::kFloat ? torch::kFloat : torch::kDouble).requires_grad_();
        const std::string what = "max_pool2d " + std::to_string(c.size[2]) + "x" + std::to_string(c.size[3]) +
                                 " kind " + std::to_string(kind) + (dt == ember::kFloat ? " float" : " double");
        INFO(what);
        auto [ve, ie] = ember::max_pool2d_with_indices(xe, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
        auto [vt, it] = torch::max_pool2d_with_indices(xt, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
        CHECK(ve.grad_fn()->name() == "MaxPool2DWithIndicesBackward0");
        CHECK(torch::equal(as_torch(ve.detach()).nan_to_num(7, 8, -8), vt.detach().nan_to_num(7, 8, -8)));
        same_indices(ie, it, what);
        const ember::Tensor ge = ember::randn(ve.sizes(), dt);
        ve.backward(ge);
        vt.backward(as_torch(ge));
        // Overlapping windows add several gradients into one input: the sums may round
        // differently from libtorch's, so within float rounding rather than bit for bit.
        check_close(xe.grad(), xt.grad(), dt == ember::kFloat ? 1e-6 : 1e-12, what + " gradient");
      }
    }
  }
}
