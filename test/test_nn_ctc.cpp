// ctc_loss, F::ctc_loss and nn::CTCLoss: values printed by libtorch 1.13 for a fixed input,
// a brute-force sum over every alignment, each reduction, zero_infinity, padded and
// concatenated targets, unbatched input, float64 gradcheck, and libtorch's error texts.
// torch_crosscheck_ctc.cpp compares random inputs against libtorch itself.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "nn_test_util.h"

using namespace ember;
using autograd::variable_list;
using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;
namespace F = ember::nn::functional;

namespace {

// The fixed input the libtorch numbers below were printed for: (T, N, C) = (4, 2, 3).
Tensor fixed_log_probs() { return log_softmax(cos(arange(24, kDouble) * 0.7).reshape({4, 2, 3}), 2); }

void values(const Tensor& got, const std::vector<double>& want) { nn_test::expect_values(got, want, 1e-12); }

// -log of the summed probability of every length-T path that collapses (merge repeats, drop
// blanks) to target: C^T paths, fine for tiny sizes.
double brute_force(const Tensor& lp, const std::vector<int64_t>& target, int64_t blank) {
  const int64_t T = lp.size(0), C = lp.size(1);
  const std::vector<double> v = ember_test::dvalues(lp);
  double total = 0;
  std::vector<int64_t> path(size_t(T), 0);
  for (int64_t code = 0; code < int64_t(std::pow(double(C), double(T))); ++code) {
    int64_t rest = code;
    double logp = 0;
    for (int64_t t = 0; t < T; ++t) {
      path[size_t(t)] = rest % C;
      rest /= C;
      logp += v[size_t(t * C + path[size_t(t)])];
    }
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < T; ++t)
      if (path[size_t(t)] != blank && (t == 0 || path[size_t(t)] != path[size_t(t - 1)]))
        collapsed.push_back(path[size_t(t)]);
    if (collapsed == target) total += std::exp(logp);
  }
  return -std::log(total);
}

}  // namespace

TEST_CASE("nn ctc: values equal libtorch's for padded and concatenated targets, each reduction") {
  const Tensor lp = fixed_log_probs();
  const Tensor padded = tensor({{1, 2}, {1, 1}});
  values(ctc_loss(lp, padded, {4, 3}, {2, 1}, 0, kNone), {1.7682429335881733, 1.6337888822216478});
  values(ctc_loss(lp, padded, {4, 3}, {2, 1}), {1.2589551745078671});
  values(ctc_loss(lp, padded, {4, 3}, {2, 1}, 0, kSum), {3.4020318158098211});
  // Concatenated targets, blank 1; the tensor-lengths overload and F:: agree.
  values(ctc_loss(lp, tensor({2, 0, 1}), {4, 4}, {2, 1}, 1, kNone), {1.4357447167357895, 2.4655501414348731});
  values(F::ctc_loss(lp, tensor({2, 0, 1}), tensor({4, 4}, kInt), tensor({2, 1}),
                     F::CTCLossFuncOptions().blank(1).reduction(kNone)),
         {1.4357447167357895, 2.4655501414348731});
  // A repeated label needs a blank between: three steps for (1, 1).
  values(ctc_loss(lp, padded, {4, 3}, {2, 2}, 0, kNone), {1.7682429335881733, 3.2551635832070773});
  // Unbatched (T, C) gives a 0-dim loss.
  const Tensor u = ctc_loss(lp.select(1, 1), tensor({2}), {4}, {1}, 0, kNone);
  CHECK(u.dim() == 0);
  values(u, {1.8472338314427263});
  CHECK(ctc_loss(lp, padded, {4, 3}, {2, 1}, 0, kNone).dtype() == kDouble);
}

TEST_CASE("nn ctc: the loss is the brute-force sum over every alignment") {
  manual_seed(3);
  const Tensor lp = log_softmax(randn({5, 3, 3}, kDouble), 2);
  const std::vector<std::vector<int64_t>> targets = {{1, 2}, {2, 2}, {}};
  const Tensor got = ctc_loss(lp, tensor({{1, 2}, {2, 2}, {0, 0}}), {5, 5, 4}, {2, 2, 0}, 0, kNone);
  const std::vector<double> g = ember_test::dvalues(got);
  CHECK(g[0] == Approx(brute_force(lp.select(1, 0), targets[0], 0)).epsilon(1e-12));
  CHECK(g[1] == Approx(brute_force(lp.select(1, 1), targets[1], 0)).epsilon(1e-12));
  CHECK(g[2] == Approx(brute_force(lp.select(1, 2).slice(0, 0, 4), targets[2], 0)).epsilon(1e-12));
  // Blank 2 and a short input length.
  const Tensor g2 = ctc_loss(lp, tensor({1, 0, 1}), {3, 4, 5}, {1, 1, 1}, 2, kNone);
  const std::vector<double> h = ember_test::dvalues(g2);
  CHECK(h[0] == Approx(brute_force(lp.select(1, 0).slice(0, 0, 3), {1}, 2)).epsilon(1e-12));
  CHECK(h[1] == Approx(brute_force(lp.select(1, 1).slice(0, 0, 4), {0}, 2)).epsilon(1e-12));
  CHECK(h[2] == Approx(brute_force(lp.select(1, 2), {1}, 2)).epsilon(1e-12));
}

TEST_CASE("nn ctc: zero_infinity, mean over target lengths, and the module") {
  const Tensor lp = fixed_log_probs();
  // (1, 1, 1) needs five steps: no alignment in four.
  const Tensor inf = ctc_loss(lp, tensor({{1, 1, 1}, {2, 0, 0}}), {4, 4}, {3, 1}, 0, kNone);
  CHECK(std::isinf(inf[0].item<double>()));
  const Tensor z = ctc_loss(lp, tensor({{1, 1, 1}, {2, 0, 0}}), {4, 4}, {3, 1}, 0, kNone, true);
  CHECK(z[0].item<double>() == 0);
  CHECK(z[1].item<double>() == inf[1].item<double>());
  // The zeroed loss passes no gradient; the other sample's gradient is unchanged.
  Tensor x = lp.detach().requires_grad_();
  ctc_loss(x, tensor({{1, 1, 1}, {2, 0, 0}}), {4, 4}, {3, 1}, 0, kSum, true).backward();
  CHECK(equal(x.grad().select(1, 0), zeros({4, 3}, kDouble)));
  CHECK(x.grad().select(1, 1).abs().sum().item<double>() > 0);
  // kMean: each loss divided by its target length (an empty target by 1), then averaged.
  const Tensor none = ctc_loss(lp, tensor({{1, 2}, {0, 0}}), {4, 3}, {2, 0}, 0, kNone);
  values(ctc_loss(lp, tensor({{1, 2}, {0, 0}}), {4, 3}, {2, 0}),
         {(none[0].item<double>() / 2 + none[1].item<double>()) / 2});
  nn::CTCLoss m(nn::CTCLossOptions().blank(1).reduction(kSum));
  values(m(lp, tensor({2, 0, 1}), tensor({4, 4}), tensor({2, 1})), {1.4357447167357895 + 2.4655501414348731});
  CHECK(printed(m) == "ember::nn::CTCLoss()");
  CHECK(m->options.blank() == 1);
  CHECK(nn::CTCLossOptions().reduction() == kMean);
  CHECK(!nn::CTCLossOptions().zero_infinity());
}

TEST_CASE("nn ctc: float64 gradcheck of log_probs") {
  manual_seed(11);
  const Tensor logits = randn({4, 2, 3}, kDouble).requires_grad_();
  for (Reduction r : {kNone, kMean, kSum}) {
    CHECK(check(
        [&](const variable_list& v) {
          return ctc_loss(v[0], tensor({{1, 2}, {2, 2}}), {4, 3}, {2, 2}, 0, r);
        },
        {logits}));
    CHECK(check(
        [&](const variable_list& v) {
          return ctc_loss(log_softmax(v[0], 2), tensor({1, 2, 1}), {4, 4}, {2, 1}, 2, r);
        },
        {logits}));
  }
  // Unbatched, and zero_infinity with one impossible sample.
  CHECK(check(
      [&](const variable_list& v) { return ctc_loss(v[0].select(1, 0), tensor({1}), {4}, {1}, 0, kNone); },
      {logits}));
  CHECK(check(
      [&](const variable_list& v) {
        return ctc_loss(v[0], tensor({{1, 1, 1}, {2, 0, 0}}), {4, 4}, {3, 1}, 0, kMean, true);
      },
      {logits}));
}

TEST_CASE("nn ctc: libtorch's error texts; inputs unchanged") {
  const Tensor lp = log_softmax(randn({5, 2, 4}), 2);
  const Tensor tg = tensor({{1, 2}, {3, 3}});
  const std::string c = " (while checking arguments for ctc_loss_cpu)";
  expect_error(
      [&] {
        ctc_loss(lp.unsqueeze(3), tg, {5, 4}, {2, 2});
      },
      "Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 'log_probs'" + c, lp);
  expect_error(
      [&] {
        ctc_loss(lp.flatten(), tg, {5, 4}, {2, 2});
      },
      "Expected 3-dimensional tensor, but got 2-dimensional tensor for argument #1 'log_probs'" + c);
  expect_error(
      [&] {
        ctc_loss(lp, tg.unsqueeze(0), {5, 4}, {2, 2});
      },
      "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'" + c);
  expect_error([&] { ctc_loss(lp, tg, {5, 4}, {2, 2}, 4); }, "blank must be in label range");
  expect_error([&] { ctc_loss(lp, tg, {5, 4}, {2, 2}, -1); }, "blank must be in label range");
  expect_error([&] { ctc_loss(lp, tg, {5}, {2, 2}); }, "input_lengths must be of size batch_size");
  expect_error([&] { ctc_loss(lp, tg, {5, 4}, {2, 2, 2}); }, "target_lengths must be of size batch_size");
  expect_error(
      [&] {
        ctc_loss(lp, tensor({1, 2, 3}), {5, 4}, {2, 2});
      },
      "Expected tensor to have size 4 at dimension 0, but got size 3 for argument #2 'targets'" + c);
  expect_error(
      [&] {
        ctc_loss(lp, ones({3, 2}, kLong), {5, 4}, {2, 2});
      },
      "Expected tensor to have size 2 at dimension 0, but got size 3 for argument #2 'targets'" + c);
  expect_error(
      [&] {
        ctc_loss(lp, tg, {5, 4}, {2, 3});
      },
      "Expected tensor to have size at least 3 at dimension 1, but got size 2 for argument #2 'targets'" + c);
  expect_error(
      [&] {
        ctc_loss(lp, tg, {6, 4}, {2, 2});
      },
      "Expected input_lengths to have value at most 5, but got value 6" + c);
  expect_error<NotImplemented>(
      [&] {
        ctc_loss(lp.to(kHalf), tg, {5, 4}, {2, 2});
      },
      "\"ctc_loss_cpu\" not implemented for 'Half'");
  expect_error(
      [&] {
        ctc_loss(lp, tg, tensor({5.0, 4.0}), tensor({2, 2}));
      },
      "input_lengths must be integral");
  expect_error(
      [&] {
        ctc_loss(lp, tg, tensor({5, 4}), tensor({true, true}));
      },
      "target_lengths must be integral");
}

TEST_CASE("nn ctc: negative lengths are rejected before any target is read") {
  const Tensor lp = log_softmax(randn({5, 2, 4}), 2);
  const std::string c = " (while checking arguments for ctc_loss_cpu)";
  // target_lengths {-1, 2} sum to targets' length: without the check sample 1 would start at -1.
  expect_error(
      [&] {
        ctc_loss(lp, tensor({1}), {5, 5}, {-1, 2});
      },
      "Expected target_lengths to have value at least 0, but got value -1" + c, lp);
  expect_error(
      [&] {
        ctc_loss(lp, tensor({{1, 2}, {3, 3}}), {5, 5}, {2, -3});
      },
      "Expected target_lengths to have value at least 0, but got value -3" + c);
  expect_error(
      [&] {
        ctc_loss(lp, tensor({{1, 2}, {3, 3}}), {5, -1}, {2, 2});
      },
      "Expected input_lengths to have value at least 0, but got value -1" + c);
}

TEST_CASE("nn ctc: samples of different input lengths stop at their own length") {
  const Tensor lp = log_softmax(randn({5, 2, 4}, kDouble), 2);
  const Tensor tg = tensor({{1, 2}, {3, 3}});
  const Tensor both = ctc_loss(lp, tg, {5, 3}, {2, 2}, 0, kNone);
  const Tensor second = ctc_loss(lp.narrow(0, 0, 3).narrow(1, 1, 1), tg.narrow(0, 1, 1), {3}, {2}, 0, kNone);
  CHECK(both[1].item<double>() == Approx(second[0].item<double>()).epsilon(1e-12));
}
