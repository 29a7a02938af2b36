// Dropout3d, alpha and feature-alpha dropout and the rest of nn::init against libtorch 1.13:
// after the same manual_seed the masks are bit-identical and the init values equal (orthogonal_
// within float rounding of the QR), and the error texts and printed modules match.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::printed;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;

// The same seed on both sides, then ours() and theirs() compared bit for bit.
void same(uint64_t seed, const std::string& what, const std::function<ember::Tensor()>& ours,
          const std::function<torch::Tensor()>& theirs) {
  INFO(what << ", seed " << seed);
  ember::manual_seed(seed);
  torch::manual_seed(seed);
  const ember::Tensor e = ours();
  const torch::Tensor t = theirs();
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  CHECK(torch::equal(as_torch(e), t));
}

}  // namespace

TEST_CASE("dropout crosscheck: Dropout3d, alpha and feature alpha dropout masks equal libtorch's") {
  for (uint64_t seed : {3, 11, 1234}) {
    same(
        seed, "dropout3d batched",
        [] {
          return EF::dropout3d(ember::ones({3, 5, 2, 1, 2}, ember::kDouble),
                               EF::Dropout3dFuncOptions().p(0.3));
        },
        [] {
          return TF::dropout3d(torch::ones({3, 5, 2, 1, 2}, torch::kDouble),
                               TF::Dropout3dFuncOptions().p(0.3));
        });
    same(
        seed, "dropout3d unbatched",
        [] {
          return EF::dropout3d(ember::ones({7, 2, 1, 2}, ember::kDouble), EF::Dropout3dFuncOptions().p(0.6));
        },
        [] {
          return TF::dropout3d(torch::ones({7, 2, 1, 2}, torch::kDouble), TF::Dropout3dFuncOptions().p(0.6));
        });
    same(
        seed, "alpha_dropout",
        [] {
          return ember::alpha_dropout(ember::arange(24, ember::kDouble).reshape({4, 6}) / 7, 0.4, true);
        },
        [] {
          return torch::alpha_dropout(torch::arange(24, torch::kDouble).reshape({4, 6}) / 7, 0.4, true);
        });
    same(
        seed, "alpha_dropout float",
        [] {
          return EF::alpha_dropout(ember::ones({5, 3}), EF::AlphaDropoutFuncOptions().p(0.2).training(true));
        },
        [] {
          return TF::alpha_dropout(torch::ones({5, 3}), TF::AlphaDropoutFuncOptions().p(0.2).training(true));
        });
    same(
        seed, "feature_alpha_dropout",
        [] {
          return ember::feature_alpha_dropout(ember::arange(36, ember::kDouble).reshape({3, 4, 3}), 0.5,
                                              true);
        },
        [] {
          return torch::feature_alpha_dropout(torch::arange(36, torch::kDouble).reshape({3, 4, 3}), 0.5,
                                              true);
        });
    same(
        seed, "feature_alpha_dropout in place",
        [] {
          ember::Tensor x = ember::ones({2, 5, 2}, ember::kDouble);
          EF::feature_alpha_dropout(x,
                                    EF::FeatureAlphaDropoutFuncOptions().p(0.3).training(true).inplace(true));
          return x;
        },
        [] {
          torch::Tensor x = torch::ones({2, 5, 2}, torch::kDouble);
          TF::feature_alpha_dropout(x,
                                    TF::FeatureAlphaDropoutFuncOptions().p(0.3).training(true).inplace(true));
          return x;
        });
    same(
        seed, "modules",
        [] {
          ember::nn::AlphaDropout a(0.25);
          ember::nn::FeatureAlphaDropout f(0.5);
          ember::nn::Dropout3d d(0.5);
          return ember::cat({a(ember::ones({8})), f(ember::ones({2, 4})).flatten(),
                             d(ember::ones({1, 4, 1, 1, 2})).flatten()});
        },
        [] {
          torch::nn::AlphaDropout a(0.25);
          torch::nn::FeatureAlphaDropout f(0.5);
          torch::nn::Dropout3d d(0.5);
          return torch::cat({a(torch::ones({8})), f(torch::ones({2, 4})).flatten(),
                             d(torch::ones({1, 4, 1, 1, 2})).flatten()});
        });
  }
  // The gradient is the mask's scale on both sides.
  ember::manual_seed(9);
  torch::manual_seed(9);
  ember::Tensor ex = ember::ones({3, 4}, ember::kDouble).requires_grad_();
  torch::Tensor tx = torch::ones({3, 4}, torch::kDouble).requires_grad_();
  (ember::alpha_dropout(ex, 0.5, true) * ember::arange(12, ember::kDouble).reshape({3, 4})).sum().backward();
  (torch::alpha_dropout(tx, 0.5, true) * torch::arange(12, torch::kDouble).reshape({3, 4})).sum().backward();
  CHECK(torch::equal(as_torch(ex.grad()), tx.grad()));
}

TEST_CASE("dropout crosscheck: printed modules and error texts equal libtorch's") {
  CHECK(printed(ember::nn::Dropout3d(0.25)) == printed(torch::nn::Dropout3d(0.25)));
  CHECK(printed(ember::nn::AlphaDropout(ember::nn::AlphaDropoutOptions(0.1).inplace(true))) ==
        printed(torch::nn::AlphaDropout(torch::nn::AlphaDropoutOptions(0.1).inplace(true))));
  CHECK(printed(ember::nn::FeatureAlphaDropout()) == printed(torch::nn::FeatureAlphaDropout()));
  CHECK(ember_error([] { ember::nn::AlphaDropout m(1.5); }) ==
        torch_error([] { torch::nn::AlphaDropout m(1.5); }));
  CHECK(ember_error([] { ember::alpha_dropout(ember::ones({2}), -0.1, true); }) ==
        torch_error([] { torch::alpha_dropout(torch::ones({2}), -0.1, true); }));
  CHECK(ember_error([] { ember::feature_alpha_dropout(ember::ones({2}), 0.5, true); }) ==
        torch_error([] { torch::feature_alpha_dropout(torch::ones({2}), 0.5, true); }));
  CHECK(ember_error([] { ember::alpha_dropout(ember::ones({2}, ember::kLong), 0.5, true); }) ==
        torch_error([] { torch::alpha_dropout(torch::ones({2}, torch::kLong), 0.5, true); }));
  CHECK(ember_error([] { ember::alpha_dropout(ember::ones({2}, ember::kBool), 0.5, true); }) ==
        torch_error([] { torch::alpha_dropout(torch::ones({2}, torch::kBool), 0.5, true); }));
  CHECK(ember_error([] { EF::dropout3d(ember::ones({2}), EF::Dropout3dFuncOptions().p(2)); }) ==
        torch_error([] { TF::dropout3d(torch::ones({2}), TF::Dropout3dFuncOptions().p(2)); }));
}

TEST_CASE("init crosscheck: orthogonal_, sparse_, dirac_, eye_ and trunc_normal_ equal libtorch's") {
  namespace EI = ember::nn::init;
  namespace TI = torch::nn::init;
  for (uint64_t seed : {1, 77}) {
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{3, 5}, {6, 2}, {4, 2, 3}, {4, 4}}) {
      INFO("orthogonal_ " << shape.size() << " dims, first " << shape[0] << ", seed " << seed);
      ember::manual_seed(seed);
      torch::manual_seed(seed);
      ember::Tensor e = ember::empty(shape, ember::kDouble);
      torch::Tensor t = torch::empty(shape, torch::kDouble);
      EI::orthogonal_(e, 1.5);
      TI::orthogonal_(t, 1.5);
      check_close(e, t, 2e-6, "orthogonal_");
      // The stream after the draw is libtorch's too.
      CHECK(ember::randn({1}).item<float>() == torch::randn({1}).item<float>());
    }
    same(
        seed, "sparse_",
        [] {
          return EI::sparse_(ember::empty({5, 3}), 0.4, 0.5);
        },
        [] {
          return TI::sparse_(torch::empty({5, 3}), 0.4, 0.5);
        });
    same(
        seed, "sparse_ double",
        [] {
          return EI::sparse_(ember::empty({4, 6}, ember::kDouble), 0.3);
        },
        [] {
          return TI::sparse_(torch::empty({4, 6}, torch::kDouble), 0.3);
        });
  }
  for (std::vector<int64_t> shape :
       std::vector<std::vector<int64_t>>{{3, 2, 3}, {2, 4, 3, 2}, {4, 3, 1, 2, 3}})
    same(
        0, "dirac_", [&] { return EI::dirac_(ember::randn(shape)); },
        [&] { return TI::dirac_(torch::randn(shape)); });
  same(
      0, "eye_",
      [] {
        return EI::eye_(ember::empty({3, 5}));
      },
      [] {
        return TI::eye_(torch::empty({3, 5}));
      });
  same(
      0, "eye_ tall",
      [] {
        return EI::eye_(ember::empty({4, 2}, ember::kDouble));
      },
      [] {
        return TI::eye_(torch::empty({4, 2}, torch::kDouble));
      });
  // trunc_normal_ is Python's; libtorch's ops in its order give its values (float erfinv within
  // rounding: libtorch's kernel is built with FMA contractions).
  for (auto dt : {ember::kFloat, ember::kDouble}) {
    INFO("trunc_normal_ " << int(dt));
    ember::manual_seed(5);
    torch::manual_seed(5);
    ember::Tensor e = EI::trunc_normal_(ember::empty({40}, dt), 0.5, 2.0, -1.0, 3.0);
    auto cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
    const double l = cdf((-1.0 - 0.5) / 2.0), u = cdf((3.0 - 0.5) / 2.0);
    torch::Tensor t = torch::empty({40}, crosscheck::to_torch(dt));
    t.uniform_(2 * l - 1, 2 * u - 1).erfinv_().mul_(2.0 * std::sqrt(2.)).add_(0.5).clamp_(-1.0, 3.0);
    check_close(e, t, dt == ember::kDouble ? 0 : 1e-6, "trunc_normal_");
  }
  CHECK(ember_error([] { EI::orthogonal_(ember::empty({3})); }) ==
        torch_error([] { TI::orthogonal_(torch::empty({3})); }));
  CHECK(ember_error([] { EI::sparse_(ember::empty({3}), 0.1); }) ==
        torch_error([] { TI::sparse_(torch::empty({3}), 0.1); }));
  CHECK(ember_error([] {
          EI::dirac_(ember::empty({3, 3}));
        }) == torch_error([] {
          TI::dirac_(torch::empty({3, 3}));
        }));
  CHECK(ember_error([] {
          EI::eye_(ember::empty({3, 3, 1}));
        }) == torch_error([] {
          TI::eye_(torch::empty({3, 3, 1}));
        }));
  CHECK(ember_error([] { EI::_calculate_fan_in_and_fan_out(ember::empty({3})); }) ==
        torch_error([] { TI::_calculate_fan_in_and_fan_out(torch::empty({3})); }));
  CHECK(EI::_calculate_fan_in_and_fan_out(ember::empty({4, 3, 2, 5})) ==
        TI::_calculate_fan_in_and_fan_out(torch::empty({4, 3, 2, 5})));
  CHECK(EI::calculate_gain(ember::kLeakyReLU, 0.2) == TI::calculate_gain(torch::kLeakyReLU, 0.2));
  CHECK(EI::calculate_gain(ember::kTanh) == TI::calculate_gain(torch::kTanh));
  CHECK(EI::calculate_gain(ember::kReLU) == TI::calculate_gain(torch::kReLU));
  CHECK(EI::calculate_gain(ember::kConvTranspose3D) == TI::calculate_gain(torch::kConvTranspose3D));
}
