// Normalization: batch norm (batch statistics, running statistics with momentum and the
// cumulative average, eval mode, num_batches_tracked, batch size 0), instance norm
// (running statistics averaged over the batch, unbatched inputs), group norm, local
// response norm, CrossMapLRN2d and F::normalize; float64 gradcheck and double backward;
// modules, printing and libtorch's error texts. Expected numbers are libtorch 1.13's.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Equals;
namespace F = ember::nn::functional;

namespace {

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;

Tensor leaf(IntArrayRef sizes, double scale = 1.0) {
  return (randn(sizes, kDouble) * scale).requires_grad_();
}

// The pow(1.5) ramp of libtorch's reference runs: (4, 3, 2) float32.
Tensor ramp() { return arange(24, kFloat).reshape({4, 3, 2}).pow(1.5); }

}  // namespace

TEST_CASE("nn norm: BatchNorm1d with momentum unset keeps the cumulative average") {
  nn::BatchNorm1d bn(nn::BatchNorm1dOptions(3).momentum(std::nullopt));
  const Tensor y = bn(ramp());
  bn(ramp() * 2);
  nn_test::expect_values(y.sum(0), {-0.2754, 0.2754, -0.2867, 0.2867, -0.2904, 0.2904}, 2e-3);
  const Tensor x = ramp().to(kDouble);
  const Tensor want = (x - x.mean({0, 2}, true)) / (x.var({0, 2}, false, true) + 1e-5).sqrt();
  CHECK(y.to(kDouble).allclose(want, 1e-5, 1e-5));
  nn_test::expect_values(bn->running_mean, {52.8460, 66.3388, 81.5385}, 1e-5);
  nn_test::expect_values(bn->running_var, {2588.0034, 3217.3562, 3823.1382}, 1e-6);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 2);
  CHECK(bn->num_batches_tracked.dtype() == kLong);
}

TEST_CASE("nn norm: batch_norm normalizes per channel and updates running statistics with momentum") {
  // Channel 0 holds 1, 3 (mean 2, biased var 1, unbiased var 2); channel 1 holds 0, 4.
  const Tensor x = tensor({1.0, 0.0, 3.0, 4.0}, kDouble).view({2, 2});
  Tensor rm = zeros({2}, kDouble), rv = ones({2}, kDouble);
  const Tensor y = F::batch_norm(x, rm, rv,
                                 F::BatchNormFuncOptions()
                                     .training(true)
                                     .momentum(0.5)
                                     .eps(0)
                                     .weight(tensor({2.0, 1.0}, kDouble))
                                     .bias(tensor({0.0, 10.0}, kDouble)));
  nn_test::expect_values(y, {-2, 9, 2, 11}, 1e-12);
  nn_test::expect_values(rm, {1, 1}, 1e-12);      // 0.5 * 0 + 0.5 * mean
  nn_test::expect_values(rv, {1.5, 4.5}, 1e-12);  // 0.5 * 1 + 0.5 * unbiased var (2, 8)
  // Eval: the running statistics, (x - 1) / sqrt(1.5) for channel 0.
  const Tensor e = F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().eps(0));
  nn_test::expect_values(e, {0, -1 / std::sqrt(4.5), 2 / std::sqrt(1.5), 3 / std::sqrt(4.5)}, 1e-12);
  nn_test::expect_values(rm, {1, 1}, 1e-12);  // unchanged in eval
}

TEST_CASE("nn norm: BatchNorm2d modules, train and eval, state and printing") {
  manual_seed(3);
  nn::BatchNorm2d bn(2);
  CHECK(bn->named_buffers().keys() ==
        std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  CHECK(bn->named_parameters().keys() == std::vector<std::string>{"weight", "bias"});
  nn_test::expect_values(bn->weight, {1, 1}, 0);
  const Tensor x = randn({4, 2, 3, 3});
  const Tensor y = bn(x);
  // Training output: zero mean and unit (biased) variance per channel.
  CHECK(y.mean({0, 2, 3}).abs().max().item<double>() < 1e-6);
  CHECK(y.var({0, 2, 3}, false).sub(1).abs().max().item<double>() < 1e-3);
  const Tensor mean = x.mean({0, 2, 3}), var = x.var({0, 2, 3});
  CHECK(bn->running_mean.allclose(mean * 0.1, 1e-5, 1e-6));
  CHECK(bn->running_var.allclose(var * 0.1 + 0.9, 1e-5, 1e-6));
  bn->eval();
  const Tensor e = bn(x);
  const Tensor want =
      (x - bn->running_mean.view({1, 2, 1, 1})) / (bn->running_var.view({1, 2, 1, 1}) + 1e-5).sqrt();
  CHECK(e.allclose(want, 1e-5, 1e-6));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
  bn->reset_running_stats();
  nn_test::expect_values(bn->running_var, {1, 1}, 0);
  CHECK(bn->num_batches_tracked.item<int64_t>() == 0);

  CHECK(printed(*nn::BatchNorm1d(3)) ==
        "ember::nn::BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  CHECK(printed(*nn::BatchNorm2d(nn::BatchNorm2dOptions(4).momentum(std::nullopt).affine(false))) ==
        "ember::nn::BatchNorm2d(4, eps=1e-05, momentum=None, affine=false, track_running_stats=true)");
  CHECK(printed(*nn::BatchNorm3d(nn::BatchNorm3dOptions(4).track_running_stats(false).eps(1e-3))) ==
        "ember::nn::BatchNorm3d(4, eps=0.001, momentum=0.1, affine=true, track_running_stats=false)");
  // Not tracking: eval normalizes with the batch's statistics too.
  nn::BatchNorm3d untracked(nn::BatchNorm3dOptions(2).track_running_stats(false));
  CHECK(!untracked->running_mean.defined());
  untracked->eval();
  const Tensor z = untracked(randn({2, 2, 2, 2, 2}));
  CHECK(z.mean({0, 2, 3, 4}).abs().max().item<double>() < 1e-6);
  // clone() copies the running statistics.
  auto copy = std::dynamic_pointer_cast<nn::BatchNorm2dImpl>(bn->clone());
  CHECK(copy->running_var.equal(bn->running_var));
  CHECK(copy->running_var.data_ptr() != bn->running_var.data_ptr());
}

TEST_CASE("nn norm: batch norm of an empty batch and libtorch's errors") {
  const Tensor out = F::batch_norm(zeros({0, 3}), zeros({3}), ones({3}),
                                   F::BatchNormFuncOptions().weight(full({3}, 2.)).bias(ones({3})));
  CHECK(out.sizes() == IntArrayRef({0, 3}));
  const Tensor x = randn({2, 3, 4});
  expect_error([] { nn::BatchNorm1d(3)(randn({2, 3, 4, 5})); }, "expected 2D or 3D input (got 4D input)");
  expect_error([] { nn::BatchNorm2d(3)(randn({2, 3, 4})); }, "expected 4D input (got 3D input)");
  expect_error([] { nn::BatchNorm3d(3)(randn({2, 3, 4})); }, "expected 5D input (got 3D input)");
  expect_error(
      [] {
        nn::BatchNorm1d(3)(randn({1, 3}));
      },
      "Expected more than 1 value per channel when training, got input size [1, 3]");
  expect_error([] { nn::BatchNorm1d(4)(randn({2, 3})); }, "running_mean should contain 3 elements not 4");
  expect_error([&] { F::batch_norm(x, Tensor(), Tensor()); },
               "running_mean must be defined in evaluation mode");
  expect_error([&] { F::batch_norm(x, zeros({3}), Tensor()); },
               "running_var must be defined in evaluation mode");
  expect_error([&] { F::batch_norm(x, zeros({2}), ones({3})); },
               "running_mean should contain 3 elements not 2");
  expect_error([&] { F::batch_norm(x, zeros({3}), ones({3}), F::BatchNormFuncOptions().weight(ones({2}))); },
               "weight should contain 3 elements not 2");
  expect_error([&] { F::batch_norm(x, zeros({3}), ones({3}), F::BatchNormFuncOptions().bias(ones({2}))); },
               "bias should contain 3 elements not 2");
  expect_error<NotImplemented>(
      [] {
        F::batch_norm(ones({2, 3}, kLong), zeros({3}), ones({3}));
      },
      "\"batch_norm\" not implemented for 'Long'");
  expect_error([&] { F::batch_norm(x, zeros({3}), ones({3}, kDouble)); },
               "expected scalar type Float but found Double");
  // A failed call leaves the running statistics as they were.
  Tensor rm = zeros({3});
  CHECK_THROWS(F::batch_norm(x, rm, ones({3}), F::BatchNormFuncOptions().training(true).weight(ones({2}))));
  CHECK(rm.abs().sum().item<double>() == 0);
  // A refused batch does not count either (the cumulative average stays right).
  nn::BatchNorm1d counted(nn::BatchNorm1dOptions(3).momentum(std::nullopt));
  CHECK_THROWS(counted(randn({1, 3})));
  CHECK(counted->num_batches_tracked.item<int64_t>() == 0);
  counted(randn({4, 3}));
  CHECK(counted->num_batches_tracked.item<int64_t>() == 1);
}

TEST_CASE("nn norm: batch norm of strided inputs, and of half / bfloat16 inputs with float32 parameters") {
  manual_seed(13);
  // A permuted (channels-last-like) input through the batch norm node.
  const Tensor base = leaf({2, 4, 3, 2});
  CHECK(check(
      [](const variable_list& v) {
        return batch_norm(v[0].permute({0, 3, 1, 2}), v[1], v[2], {}, {}, true, 0.1, 1e-5);
      },
      {base, leaf({2}), leaf({2})}));
  // Mixed precision: bfloat16 activations through a float32 BatchNorm2d.
  nn::BatchNorm2d bn(3);
  const Tensor x = randn({4, 3, 2, 2});
  const Tensor y = bn(x.to(kBFloat16));
  CHECK(y.dtype() == kBFloat16);
  nn::BatchNorm2d reference(3);
  CHECK(y.to(kFloat).allclose(reference(x.to(kBFloat16).to(kFloat)), 2e-2, 2e-2));
  CHECK(bn->running_mean.dtype() == kFloat);
  CHECK(bn->running_mean.allclose(reference->running_mean, 1e-6, 1e-6));
}

TEST_CASE("nn norm: batch norm gradients in float64 (train and eval) and double backward") {
  manual_seed(11);
  const Tensor x = leaf({3, 2, 4}), w = leaf({2}), b = leaf({2});
  CHECK(check([](const variable_list& v) { return batch_norm(v[0], v[1], v[2], {}, {}, true, 0.1, 1e-5); },
              {x, w, b}));
  const Tensor rm = randn({2}, kDouble), rv = rand({2}, kDouble) + 0.5;
  CHECK(check([&](const variable_list& v) { return batch_norm(v[0], v[1], v[2], rm, rv, false, 0.1, 1e-5); },
              {x, w, b}));
  // Double backward: gradcheck of the input gradient.
  auto first = [](const variable_list& v) {
    const Tensor y = batch_norm(v[0], v[1], Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
    return autograd::grad({(y * y * y).sum()}, {v[0]}, {}, true, true)[0];
  };
  CHECK(check(first, {x, w}));
}

TEST_CASE("nn norm: instance norm statistics, running averages and unbatched inputs") {
  nn::InstanceNorm1d inm(nn::InstanceNorm1dOptions(3).track_running_stats(true));
  inm(ramp());
  nn_test::expect_values(inm->running_mean, {3.5231, 4.4226, 5.4359}, 1e-4);
  nn_test::expect_values(inm->running_var, {1.9670, 2.1934, 2.4185}, 1e-4);
  CHECK(inm->num_batches_tracked.item<int64_t>() == 0);     // libtorch's instance norm does not count
  const Tensor y = inm(arange(6, kFloat).reshape({3, 2}));  // (C, L): one sample
  CHECK(y.sizes() == IntArrayRef({3, 2}));
  nn_test::expect_values(y, {-1, 1, -1, 1, -1, 1}, 1e-4);
  // Each (n, c) slice normalized on its own, with the affine per channel.
  const Tensor x = tensor({1.0, 3.0, 0.0, 4.0, 5.0, 5.0, 2.0, 2.0}, kDouble).view({2, 2, 2});
  const Tensor out = F::instance_norm(x, F::InstanceNormFuncOptions()
                                             .eps(0)
                                             .weight(tensor({1.0, 2.0}, kDouble))
                                             .bias(tensor({0.0, 1.0}, kDouble)));
  CHECK(std::isnan(out[1][0][0].item<double>()));  // a constant slice has zero variance, eps 0
  nn_test::expect_values(out[0], {-1, 1, -1, 3}, 1e-12);
  CHECK(printed(*nn::InstanceNorm1d(3)) ==
        "ember::nn::InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=false, track_running_stats=false)");
  CHECK(printed(*nn::InstanceNorm2d(nn::InstanceNorm2dOptions(4).affine(true).track_running_stats(true))) ==
        "ember::nn::InstanceNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)");
  expect_error([] { nn::InstanceNorm1d(3)(randn({2, 3, 4, 5})); }, "expected 2D or 3D input (got 4D input)");
  expect_error([] { nn::InstanceNorm2d(3)(randn({2, 3})); }, "expected 3D or 4D input (got 2D input)");
  expect_error([] { nn::InstanceNorm3d(3)(randn({2, 3})); }, "expected 4D or 5D input (got 2D input)");
  expect_error(
      [] {
        nn::InstanceNorm1d(nn::InstanceNorm1dOptions(4).affine(true))(randn({2, 3, 5}));
      },
      "weight should contain 6 elements not 8");
  expect_error(
      [] {
        F::instance_norm(randn({2, 3, 4}), F::InstanceNormFuncOptions().use_input_stats(false));
      },
      "Expected running_mean and running_var to be defined when use_input_stats is false");
  manual_seed(5);
  const Tensor a = leaf({2, 3, 4}), w = leaf({3}), b = leaf({3});
  CHECK(check([](const variable_list& v) { return instance_norm(v[0], v[1], v[2], {}, {}, true, 0.1, 1e-5); },
              {a, w, b}));
}

TEST_CASE("nn norm: group norm values, gradients, modules and errors") {
  // Two groups of two channels; group 0 of sample 0 holds 1, 3, 5, 7 (mean 4, var 5).
  const Tensor x = arange(1, 17, kDouble).view({2, 4, 2}) * 2 - 1;
  const Tensor y = F::group_norm(x, F::GroupNormFuncOptions(2).eps(0));
  const double s = std::sqrt(5.0);
  nn_test::expect_values(y[0][0], {-3 / s, -1 / s}, 1e-12);
  nn_test::expect_values(y[1][3], {1 / s, 3 / s}, 1e-12);
  const Tensor z = group_norm(x, 2, full({4}, 2.0, kDouble), ones({4}, kDouble), 0);
  CHECK(z.allclose(y * 2 + 1));
  CHECK(F::group_norm(zeros({0, 4, 2}), F::GroupNormFuncOptions(2)).sizes() == IntArrayRef({0, 4, 2}));
  manual_seed(7);
  const Tensor a = leaf({2, 4, 3}), w = leaf({4}), b = leaf({4});
  CHECK(check([](const variable_list& v) { return group_norm(v[0], 2, v[1], v[2]); }, {a, w, b}));
  nn::GroupNorm gn(2, 4);
  CHECK(gn->weight.sizes() == IntArrayRef({4}));
  CHECK(gn(x.to(kFloat)).allclose(y.to(kFloat), 1e-4, 1e-4));
  CHECK(printed(*gn) == "ember::nn::GroupNorm(2, 4, eps=1e-05, affine=true)");
  CHECK(printed(*nn::GroupNorm(nn::GroupNormOptions(2, 4).affine(false).eps(1e-3))) ==
        "ember::nn::GroupNorm(2, 4, eps=0.001, affine=false)");
  const Tensor in = randn({2, 3, 4});
  expect_error(
      [&] { F::group_norm(in, F::GroupNormFuncOptions(2)); },
      "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 3, "
      "4] and num_groups=2");
  expect_error(
      [&] { F::group_norm(in, F::GroupNormFuncOptions(3).weight(ones({2}))); },
      "Expected weight to be a vector of size equal to the number of channels in input, but got weight "
      "of shape [2] and input of shape [2, 3, 4]");
  expect_error([&] { F::group_norm(in, F::GroupNormFuncOptions(0)); },
               "Expected num groups to be greater than 0, got 0");
  CHECK_THROWS_AS(nn::GroupNorm(2, 3), InvalidArgument);
}

TEST_CASE("nn norm: local response norm over 3-D and 4-D inputs, CrossMapLRN2d") {
  const Tensor in = arange(12, kFloat).reshape({1, 4, 3}).pow(2);
  nn_test::expect_values(
      F::local_response_norm(in, F::LocalResponseNormFuncOptions(3)),
      {0, 0.9936, 3.9371, 8.7021, 15.0130, 22.3968, 30.1882, 37.6309, 44.0531, 68.0325, 77.1452, 84.0877},
      1e-4);
  nn::LocalResponseNorm lrn(nn::LocalResponseNormOptions(2).alpha(0.1).beta(0.5).k(2));
  nn_test::expect_values(
      lrn(in.reshape({1, 4, 3, 1})),
      {0, 0.6984, 2.3905, 3.6590, 4.1520, 4.2843, 4.2769, 4.2196, 4.1481, 4.0763, 4.0095, 3.9490}, 1e-4);
  CHECK(printed(*nn::LocalResponseNorm(3)) ==
        "ember::nn::LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1)");
  CHECK(printed(*lrn) == "ember::nn::LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2)");
  expect_error(
      [] {
        F::local_response_norm(randn({2, 3}), F::LocalResponseNormFuncOptions(2));
      },
      "Expected 3D or higher dimensionality input (got 2 dimensions)");
  expect_error(
      [] {
        F::local_response_norm(randn({2, 3, 4}), F::LocalResponseNormFuncOptions(0));
      },
      "kernel size should be greater than zero, but got kH: 0 kW: 1");
  manual_seed(2);
  const Tensor a = leaf({2, 5, 3});
  CHECK(check(
      [](const variable_list& v) { return F::local_response_norm(v[0], F::LocalResponseNormFuncOptions(3)); },
      {a}));

  // CrossMapLRN2d, size 3 (window c - 1 .. c + 1) on 1..4 squared as channels.
  const Tensor x = arange(1, 5, kDouble).view({1, 4, 1, 1});
  nn::CrossMapLRN2d cm(nn::CrossMapLRN2dOptions(3).alpha(3).beta(1).k(1));
  // scale = 1 + (3 / 3) * window sum: 1+1+4, 1+1+4+9, 1+4+9+16 (channel 0 kept), 1+9+16 + 1.
  nn_test::expect_values(cm(x), {1.0 / 6, 2.0 / 15, 3.0 / 31, 4.0 / 27}, 1e-12);
  // The exact gradient of that forward (libtorch's hand-written backward is not: it
  // disagrees with finite differences of its own forward).
  for (int64_t size : {1, 2, 3, 4, 5})
    CHECK(check([&](const variable_list& v) { return nn::CrossMapLRN2d(size)->forward(v[0]); },
                {leaf({2, 6, 2, 2})}));
  CHECK(printed(*nn::CrossMapLRN2d(3)) == "ember::nn::CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)");
  CHECK_THROWS_AS(cm(randn({4, 1, 1})), InvalidArgument);
}

TEST_CASE("nn norm: F::normalize and the ATen-level layer_norm") {
  const Tensor x = tensor({3.0, 4.0, 0.0, 0.0}, kDouble).view({2, 2});
  nn_test::expect_values(F::normalize(x, F::NormalizeFuncOptions()), {0.6, 0.8, 0, 0}, 1e-12);
  nn_test::expect_values(F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0)), {1, 1, 0, 0}, 1e-12);
  Tensor out = empty({0}, kDouble);  // resized, as libtorch's out= is
  F::normalize(x, F::NormalizeFuncOptions().out(out));
  CHECK(out.sizes() == IntArrayRef({2, 2}));
  nn_test::expect_values(out, {0.6, 0.8, 0, 0}, 1e-12);
  CHECK_THROWS(F::normalize(x, F::NormalizeFuncOptions().dim(2)));
  manual_seed(4);
  const Tensor a = leaf({3, 4});
  CHECK(check([](const variable_list& v) { return F::normalize(v[0], F::NormalizeFuncOptions()); }, {a}));
  const Tensor l = layer_norm(x, {2}, Tensor(), Tensor(), 1e-5);
  nn_test::expect_values(l, {-1, 1, 0, 0}, 1e-4);
}

TEST_CASE("nn norm: SyncBatchNorm without a process group of several ranks is BatchNorm") {
  manual_seed(9);
  nn::SyncBatchNorm sync(nn::BatchNormOptions(4).momentum(std::nullopt));
  nn::BatchNorm3d plain(nn::BatchNormOptions(4).momentum(std::nullopt));
  CHECK(nn_test::printed(sync) ==
        "ember::nn::SyncBatchNorm(4, eps=1e-05, momentum=None, affine=true, track_running_stats=true)");
  const Tensor x = randn({3, 4, 2, 3, 5});
  for (int step = 0; step < 2; ++step) {
    const Tensor a = sync->forward(x * double(step + 1)), b = plain->forward(x * double(step + 1));
    CHECK(allclose(a, b, 1e-6, 1e-6));
  }
  CHECK(allclose(sync->running_mean, plain->running_mean));
  CHECK(allclose(sync->running_var, plain->running_var));
  CHECK(sync->num_batches_tracked.item<int64_t>() == 2);
  CHECK_THROWS_AS(sync->forward(randn({4})), InvalidArgument);
  sync->eval();
  plain->eval();
  CHECK(allclose(sync->forward(x), plain->forward(x), 1e-6, 1e-6));
}
