// Dropout3d, alpha and feature-alpha dropout (values from the seeded mask, float64 gradcheck with
// a fixed mask, unbatched inputs, modules, error texts) and the rest of nn::init: dirac_, eye_,
// orthogonal_, sparse_, trunc_normal_, calculate_gain and the fans. torch_crosscheck_dropout_init.cpp
// compares masks and init values bit for bit with libtorch after the same manual_seed.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "nn_test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;
namespace F = ember::nn::functional;
namespace init = ember::nn::init;

namespace {

constexpr double kAlpha = 1.7580993408473766;

// alpha dropout of x by hand, from the mask the same seed draws (one per element or per (n, c)).
std::vector<double> alpha_expected(const Tensor& x, double p, uint64_t seed, bool feature) {
  manual_seed(seed);
  std::vector<int64_t> sizes = x.sizes().vec();
  if (feature)
    for (size_t d = 2; d < sizes.size(); ++d) sizes[d] = 1;
  const Tensor m = empty(sizes, x.dtype()).bernoulli_(1 - p).expand(x.sizes()).contiguous();
  const double a = 1 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const std::vector<double> xv = dvalues(x), mv = dvalues(m);
  std::vector<double> out;
  for (size_t i = 0; i < xv.size(); ++i)
    out.push_back(xv[i] * mv[i] * a + ((mv[i] - 1) * kAlpha * a + kAlpha * a * p));
  return out;
}

struct CaptureWarnings : WarningHandler {
  std::vector<std::string> messages;
  void process(const Warning& warning) override { messages.push_back(warning.msg()); }
};

}  // namespace

TEST_CASE("nn dropout: alpha_dropout and feature_alpha_dropout follow the seeded mask") {
  const Tensor x = arange(24, kDouble).reshape({2, 3, 4}) / 5 - 2;
  manual_seed(4);
  const Tensor d = alpha_dropout(x, 0.3, true);
  nn_test::expect_values(d, alpha_expected(x, 0.3, 4, false), 1e-14);
  manual_seed(8);
  const Tensor f = feature_alpha_dropout(x, 0.5, true);
  nn_test::expect_values(f, alpha_expected(x, 0.5, 8, true), 1e-14);
  // One draw per (n, c): dropped slices are all a (b - alpha') = -a alpha' (1 - p).
  const double a = 1 / std::sqrt((kAlpha * kAlpha * 0.5 + 1) * 0.5);
  int dropped = 0;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c) {
      const std::vector<double> v = dvalues(f[n][c]);
      if (v[0] == Approx(-a * kAlpha * 0.5)) {
        ++dropped;
        for (double e : v) CHECK(e == Approx(-a * kAlpha * 0.5));
      }
    }
  CHECK(dropped > 0);
  CHECK(dropped < 6);
  // Identity when not training or p == 0; p == 1 zeroes (libtorch multiplies by 0).
  CHECK(equal(alpha_dropout(x, 0.5, false), x));
  CHECK(equal(feature_alpha_dropout(x, 0, true), x));
  CHECK(equal(alpha_dropout(x, 1, true), zeros({2, 3, 4}, kDouble)));
  // F:: forms default to training = false, unlike F::dropout.
  CHECK(equal(F::alpha_dropout(x), x));
  CHECK(equal(F::feature_alpha_dropout(x, F::FeatureAlphaDropoutFuncOptions().p(0.9)), x));
  manual_seed(4);
  const Tensor fd = F::alpha_dropout(x, F::AlphaDropoutFuncOptions().p(0.3).training(true));
  nn_test::expect_values(fd, alpha_expected(x, 0.3, 4, false), 1e-14);
  // In place: the input holds the result.
  Tensor y = x.clone();
  manual_seed(8);
  Tensor& r = feature_alpha_dropout_(y, 0.5, true);
  CHECK(r.data_ptr() == y.data_ptr());
  nn_test::expect_values(y, alpha_expected(x, 0.5, 8, true), 1e-14);
  Tensor z = x.clone();
  manual_seed(4);
  F::alpha_dropout(z, F::AlphaDropoutFuncOptions().p(0.3).training(true).inplace(true));
  nn_test::expect_values(z, alpha_expected(x, 0.3, 4, false), 1e-14);
}

TEST_CASE("nn dropout: alpha dropout float64 gradcheck with a fixed mask") {
  const Tensor x = (rand({2, 3, 2}, kDouble) * 2 - 1).requires_grad_();
  CHECK(check(
      [](const variable_list& v) {
        manual_seed(21);
        return alpha_dropout(v[0], 0.4, true);
      },
      {x}));
  CHECK(check(
      [](const variable_list& v) {
        manual_seed(22);
        return feature_alpha_dropout(v[0], 0.6, true);
      },
      {x}));
  CHECK(check(
      [](const variable_list& v) {
        manual_seed(23);
        return F::dropout3d(v[0].reshape({3, 2, 1, 2}), F::Dropout3dFuncOptions().p(0.5));
      },
      {x}));
}

TEST_CASE("nn dropout: Dropout3d zeroes whole volumes, batched and unbatched") {
  manual_seed(5);
  const Tensor x = ones({3, 4, 2, 1, 2}, kDouble);
  const Tensor y = F::dropout3d(x, F::Dropout3dFuncOptions().p(0.5));
  int zeroed = 0;
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t c = 0; c < 4; ++c) {
      const std::vector<double> v = dvalues(y[n][c]);
      CHECK((v[0] == 0 || v[0] == 2));
      for (double e : v) CHECK(e == v[0]);
      zeroed += v[0] == 0;
    }
  CHECK(zeroed > 0);
  CHECK(zeroed < 12);
  // (C, D, H, W) is one unbatched sample: one draw per channel, the same as its batch of one.
  manual_seed(6);
  const Tensor u = F::dropout3d(ones({5, 1, 2, 2}), F::Dropout3dFuncOptions().p(0.3));
  manual_seed(6);
  const Tensor b = feature_dropout(ones({1, 5, 1, 2, 2}), 0.3, true);
  CHECK(u.sizes() == IntArrayRef({5, 1, 2, 2}));
  CHECK(equal(u, b.squeeze(0)));
  nn::Dropout3d drop(0.4);
  drop->eval();
  CHECK(equal(drop(x), x));
  drop->train();
  CHECK(drop(x).sizes() == x.sizes());
  // In place, unbatched: the input holds the result with its own shape.
  Tensor w = ones({2, 1, 1, 3});
  F::dropout3d(w, F::Dropout3dFuncOptions().p(0.5).inplace(true));
  CHECK(w.sizes() == IntArrayRef({2, 1, 1, 3}));
  for (double e : dvalues(w)) CHECK((e == 0 || e == 2));
}

TEST_CASE("nn dropout: modules print as libtorch's and check p") {
  CHECK(printed(nn::Dropout3d(nn::Dropout3dOptions(0.25).inplace(true))) ==
        "ember::nn::Dropout3d(p=0.25, inplace=true)");
  CHECK(printed(nn::AlphaDropout()) == "ember::nn::AlphaDropout(p=0.5, inplace=false)");
  CHECK(printed(nn::FeatureAlphaDropout(0.2)) == "ember::nn::FeatureAlphaDropout(p=0.2, inplace=false)");
  nn::AlphaDropout a(0.3);
  const Tensor x = randn({4, 3}, kDouble);
  manual_seed(2);
  const Tensor ax = a(x);
  nn_test::expect_values(ax, alpha_expected(x, 0.3, 2, false), 1e-14);
  a->eval();
  CHECK(equal(a(x), x));
  nn::FeatureAlphaDropout fa(0.3);
  manual_seed(2);
  const Tensor fx = fa(x);
  nn_test::expect_values(fx, alpha_expected(x, 0.3, 2, true), 1e-14);
  expect_error([] { nn::AlphaDropout bad(1.5); },
               "dropout probability has to be between 0 and 1, but got 1.5");
  expect_error([] { nn::Dropout3d bad(-0.5); },
               "dropout probability has to be between 0 and 1, but got -0.5");
  expect_error([] { nn::FeatureAlphaDropout bad(2); },
               "dropout probability has to be between 0 and 1, but got 2");
  const Tensor one = ones({4});
  expect_error([&] { feature_alpha_dropout(one, 0.5, true); },
               "Feature dropout requires at least 2 dimensions in the input", one);
  expect_error([] { alpha_dropout(ones({2}), -0.1, true); },
               "dropout probability has to be between 0 and 1, but got -0.1");
  expect_error([] { alpha_dropout(ones({2}, kLong), 0.5, true); },
               "result type Float can't be cast to the desired output type Long");
  expect_error([] { alpha_dropout(ones({2}, kBool), 0.5, true); },
               "result type Float can't be cast to the desired output type Long");
  expect_error([] { F::alpha_dropout(ones({2}), F::AlphaDropoutFuncOptions().p(3)); },
               "dropout probability has to be between 0 and 1, but got 3");
}

TEST_CASE("nn init: dirac_, eye_ and the fans") {
  Tensor w = randn({4, 2, 3});
  init::dirac_(w, 2);
  std::vector<double> want(24, 0.0);
  for (int64_t o : {0, 1, 2, 3}) want[size_t(o * 6 + (o % 2) * 3 + 1)] = 1;
  CHECK(dvalues(w) == want);
  Tensor k = randn({3, 2, 3, 3}, kDouble);
  init::dirac_(k);
  // min(3, 2) ones at the kernel centre: (0, 0, 1, 1) and (1, 1, 1, 1).
  CHECK(k.sum().item<double>() == 2);
  CHECK(k[0][0][1][1].item<double>() == 1);
  CHECK(k[1][1][1][1].item<double>() == 1);
  Tensor v = randn({2, 2, 1, 2, 3});
  init::dirac_(v);
  CHECK(v[1][1][0][1][1].item<double>() == 1);
  CHECK(v.sum().item<double>() == 2);
  CHECK(dvalues(init::eye_(randn({2, 3}))) == std::vector<double>{1, 0, 0, 0, 1, 0});
  // Filled under no-grad: a leaf that requires grad stays a leaf.
  Tensor leaf = randn({3, 3}).requires_grad_();
  init::eye_(leaf);
  CHECK(leaf.is_leaf());
  CHECK(equal(leaf.detach(), eye(3)));
  CHECK(init::_calculate_fan_in_and_fan_out(empty({4, 3, 2, 5})) == std::tuple<int64_t, int64_t>(30, 40));
  CHECK(init::_calculate_fan_in_and_fan_out(empty({4, 3})) == std::tuple<int64_t, int64_t>(3, 4));
  expect_error([] { init::dirac_(empty({3, 3})); }, "Only tensors with 3, 4, or 5 dimensions are supported");
  expect_error([] { init::dirac_(empty({3, 3, 1}), 2); }, "dim 0 must be divisible by groups");
  expect_error([] { init::eye_(empty({3})); }, "Only tensors with 2 dimensions are supported");
  expect_error([] { init::_calculate_fan_in_and_fan_out(empty({3})); },
               "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
}

TEST_CASE("nn init: orthogonal_ gives orthonormal rows or columns, times gain") {
  manual_seed(1);
  const Tensor wide = init::orthogonal_(empty({3, 5}, kDouble), 2.0);
  CHECK(allclose(matmul(wide, wide.t()), eye(3, kDouble) * 4, 1e-5, 1e-5));
  const Tensor tall = init::orthogonal_(empty({6, 2}));
  CHECK(allclose(matmul(tall.t(), tall), eye(2), 1e-5, 1e-5));
  const Tensor conv = init::orthogonal_(empty({4, 2, 3}, kDouble)).reshape({4, 6});
  CHECK(allclose(matmul(conv, conv.t()), eye(4, kDouble), 1e-5, 1e-5));
  // A fresh draw each call; the same after the same seed.
  manual_seed(9);
  const Tensor a = init::orthogonal_(empty({3, 3}));
  manual_seed(9);
  const Tensor b = init::orthogonal_(empty({3, 3}));
  CHECK(equal(a, b));
  CHECK(!equal(a, init::orthogonal_(empty({3, 3}))));
  expect_error([] { init::orthogonal_(empty({3})); }, "Only tensors with 2 or more dimensions are supported");
}

TEST_CASE("nn init: sparse_ zeroes ceil(sparsity * rows) entries of each column") {
  manual_seed(2);
  const Tensor w = init::sparse_(empty({5, 4}, kDouble), 0.5, 2.0);
  for (int64_t c = 0; c < 4; ++c) {
    const std::vector<double> col = dvalues(w.select(1, c));
    int zeros_in_col = 0;
    for (double e : col) zeros_in_col += e == 0;
    CHECK(zeros_in_col == 3);
  }
  CHECK(init::sparse_(empty({4, 3}), 0).ne(0).all().item<bool>());
  expect_error([] { init::sparse_(empty({3}), 0.1); }, "Only tensors with 2 dimensions are supported");
}

TEST_CASE("nn init: trunc_normal_ is the inverse normal cdf of the seeded uniform draw") {
  const double mean = 0.5, std = 2.0, lo = -1.0, hi = 3.0;
  auto cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = cdf((lo - mean) / std), u = cdf((hi - mean) / std);
  manual_seed(5);
  const Tensor w = init::trunc_normal_(empty({50}, kDouble), mean, std, lo, hi);
  manual_seed(5);
  const std::vector<double> draws = dvalues(empty({50}, kDouble).uniform_(2 * l - 1, 2 * u - 1));
  const std::vector<double> got = dvalues(w);
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i] >= lo);
    CHECK(got[i] <= hi);
    CHECK(std::erf((got[i] - mean) / (std * std::sqrt(2.))) == Approx(draws[i]).epsilon(1e-12).margin(1e-14));
  }
  const Tensor f = init::trunc_normal_(empty({200}));
  CHECK(f.min().item<double>() >= -2);
  CHECK(f.max().item<double>() <= 2);
  CHECK(std::abs(f.mean().item<double>()) < 0.3);
  CaptureWarnings capture;
  WarningUtils::WarningHandlerGuard guard(&capture);
  init::trunc_normal_(empty({3}), 5.0, 1.0, -1.0, 1.0);
  CHECK(capture.messages ==
        std::vector<std::string>{
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution "
            "of values may be incorrect."});
}

TEST_CASE("nn init: calculate_gain for every nonlinearity") {
  for (Nonlinearity n :
       {kLinear, kConv1D, kConv2D, kConv3D, kConvTranspose1D, kConvTranspose2D, kConvTranspose3D, kSigmoid})
    CHECK(init::calculate_gain(n) == 1.0);
  CHECK(init::calculate_gain(kTanh) == 5.0 / 3.0);
  CHECK(init::calculate_gain(kReLU) == std::sqrt(2.0));
  CHECK(init::calculate_gain(kLeakyReLU) == std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  CHECK(init::calculate_gain(kLeakyReLU, 0.2) == std::sqrt(2.0 / 1.04));
}
