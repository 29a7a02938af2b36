// Convolutions, padding, feature dropout and Flatten: values on hand-checkable inputs (the
// numbers libtorch 1.13 gives for the same calls), gradcheck in float64 of input, weight
// and bias, batch sizes 1 and 0, modules (parameters, init, padding modes, printing) and
// errors by type and libtorch's message, inputs unchanged after an error.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "fake_accelerator.h"
#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Equals;
using ember_test::dvalues;
namespace F = ember::nn::functional;

namespace {

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-6);
}

// Runs f, which must throw E with exactly `text`, and checks that `input` kept its values.
}  // namespace

TEST_CASE("nn conv: conv2d values with stride, padding, dilation, groups and bias") {
  Tensor x = arange(9, kFloat).view({1, 1, 3, 3});
  Tensor w = ones({1, 1, 2, 2});
  expect_values(conv2d(x, w), {8, 12, 20, 24});
  expect_values(conv2d(x, w, tensor({1.5f})), {9.5, 13.5, 21.5, 25.5});
  // Padding 1, stride 2: the windows at (-1, -1), (-1, 1), (1, -1), (1, 1).
  expect_values(conv2d(x, w, {}, 2, 1), {0, 3, 9, 24});
  expect_values(conv2d(x, w, {}, 1, 0, 2), {16});  // corners 0 + 2 + 6 + 8
  expect_values(conv2d(x, w, {}, {1, 2}, {0, 1}), {3, 12, 9, 24});
  // Unbatched (C, H, W) in, (C_out, H_out, W_out) out.
  CHECK(conv2d(x[0], w).sizes() == IntArrayRef({1, 2, 2}));
  // Depthwise: each channel by its own filter.
  Tensor two = cat({ones({1, 1, 2, 2}), full({1, 1, 2, 2}, 2.0f)}, 1);
  expect_values(conv2d(two, tensor({3.0f, 5.0f}).view({2, 1, 1, 1}), {}, 1, 0, 1, 2),
                {3, 3, 3, 3, 10, 10, 10, 10});
  // Two groups of two channels: output channel o sees input channels 2 (o / 2) and 2 (o / 2) + 1.
  Tensor four = arange(4, kFloat).view({1, 4, 1, 1});
  expect_values(conv2d(four, ones({4, 2, 1, 1}), {}, 1, 0, 1, 2), {1, 1, 5, 5});
  expect_values(F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1)), {0, 3, 9, 24});
  expect_values(F::conv2d(x, w, F::Conv2dFuncOptions().padding(kValid)), {8, 12, 20, 24});
  CHECK(F::conv2d(x, w, F::Conv2dFuncOptions().padding(kSame)).sizes() == IntArrayRef({1, 1, 3, 3}));
  // Integer inputs convolve too (libtorch's slow path takes them).
  CHECK(dvalues(conv2d(arange(9).view({1, 1, 3, 3}), ones({1, 1, 2, 2}, kLong))) ==
        std::vector<double>{8, 12, 20, 24});
}

TEST_CASE("nn conv: conv1d values, unbatched input and padding 'same' and 'valid'") {
  Tensor x = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}).view({1, 1, 5});
  expect_values(conv1d(x, tensor({1.0f, 0.0f, -1.0f}).view({1, 1, 3})), {-2, -2, -2});
  expect_values(conv1d(x[0], tensor({1.0f, 0.0f, -1.0f}).view({1, 1, 3}), tensor({0.5f}), 2, 1),
                {-1.5, -1.5, 4.5});
  // Even kernel: 'same' pads 1 on the left and 2 on the right.
  expect_values(conv1d(x, ones({1, 1, 4}), {}, 1, "same"), {6, 10, 14, 12, 9});
  expect_values(conv1d(x, ones({1, 1, 4}), {}, 1, "valid"), {10, 14});
  // Dilation 2, 'same': total padding 2 (one each side).
  expect_values(conv1d(x, ones({1, 1, 2}), {}, 1, "same", 2), {2, 4, 6, 8, 4});
  expect_values(F::conv1d(x, ones({1, 1, 2}), F::Conv1dFuncOptions().padding(kSame).dilation(2)),
                {2, 4, 6, 8, 4});
}

TEST_CASE("nn conv: batch sizes 1 and 0, strided inputs") {
  Tensor w = leaf({3, 2, 3, 3}), b = leaf({3});
  Tensor x1 = rand({1, 2, 5, 6}, kDouble);
  Tensor y1 = conv2d(x1, w, b, 1, 1);
  CHECK(y1.sizes() == IntArrayRef({1, 3, 5, 6}));
  Tensor x0 = zeros({0, 2, 5, 6}, kDouble);
  Tensor y0 = conv2d(x0, w, b, 1, 1);
  CHECK(y0.sizes() == IntArrayRef({0, 3, 5, 6}));
  y0.sum().backward();
  CHECK(dvalues(w.grad()) == std::vector<double>(54, 0.0));
  // A permuted (non-contiguous) input gives the contiguous input's result.
  Tensor t = rand({1, 6, 2, 5}, kDouble).permute({0, 2, 3, 1});
  CHECK(!t.is_contiguous());
  CHECK(allclose(conv2d(t, w, b, 2, 1), conv2d(t.contiguous(), w, b, 2, 1)));
}

TEST_CASE("nn conv: gradcheck of input, weight and bias in float64") {
  CHECK(check([](const variable_list& v) { return conv2d(v[0], v[1], v[2]); },
              {leaf({2, 3, 5, 4}), leaf({2, 3, 2, 3}), leaf({2})}));
  CHECK(check(
      [](const variable_list& v) {
        return conv2d(v[0], v[1], v[2], {2, 1}, {1, 2}, {1, 2});
      },
      {leaf({1, 2, 6, 7}), leaf({3, 2, 3, 2}), leaf({3})}));
  CHECK(check([](const variable_list& v) { return conv2d(v[0], v[1], v[2], 1, 1, 1, 2); },
              {leaf({2, 4, 4, 4}), leaf({6, 2, 3, 3}), leaf({6})}));
  CHECK(check([](const variable_list& v) { return conv2d(v[0], v[1], {}, 2, 0, 1, 3); },
              {leaf({1, 3, 5, 5}), leaf({3, 1, 2, 2})}));
  CHECK(check([](const variable_list& v) { return conv2d(v[0], v[1], {}, 1, "same", 2); },
              {leaf({3, 4, 5}), leaf({2, 3, 2, 2})}));
  CHECK(check([](const variable_list& v) { return conv1d(v[0], v[1], v[2], 2, 1, 2); },
              {leaf({2, 3, 9}), leaf({4, 3, 3}), leaf({4})}));
  CHECK(check([](const variable_list& v) { return conv1d(v[0], v[1], v[2], 1, 0, 1, 2); },
              {leaf({4, 7}), leaf({2, 2, 4}), leaf({2})}));
  CHECK(check([](const variable_list& v) { return conv1d(v[0], v[1], {}, 1, "same"); },
              {leaf({1, 2, 6}), leaf({1, 2, 4})}));
}

TEST_CASE("nn conv: second derivatives through conv2d, padding and pooling (create_graph)") {
  // The gradient of sum(f(x)^2) with respect to x, itself checked by gradcheck.
  auto grad_of = [](std::function<Tensor(const variable_list&)> f) {
    return [f](const variable_list& v) {
      Tensor y = f(v);
      return autograd::grad({(y * y).sum()}, {v[0]}, {}, true, true)[0];
    };
  };
  CHECK(check(grad_of([](const variable_list& v) {
                return conv2d(v[0], v[1], {}, 2, 1, {1, 2});
              }),
              {leaf({2, 3, 6, 7}), leaf({4, 3, 3, 2})}));
  CHECK(check(grad_of([](const variable_list& v) { return conv1d(v[0], v[1], {}, 1, "same"); }),
              {leaf({2, 5}), leaf({3, 2, 4})}));
  CHECK(check(grad_of([](const variable_list& v) {
                return avg_pool2d(v[0], 3, 2, 1, true) * max_pool2d(v[0], 3, 2, 1, 1, true);
              }),
              {leaf({1, 2, 6, 5})}));
  CHECK(check(grad_of([](const variable_list& v) {
                return F::pad(v[0], F::PadFuncOptions({1, -1, 2, 1}).mode(kReflect));
              }),
              {leaf({1, 2, 4, 5})}));
}

TEST_CASE("nn conv: F::pad in every mode, with values and gradients") {
  Tensor x = arange(6.0).view({1, 2, 3});
  expect_values(F::pad(x, F::PadFuncOptions({1, 2}).value(-1)), {-1, 0, 1, 2, -1, -1, -1, 3, 4, 5, -1, -1});
  expect_values(F::pad(x, F::PadFuncOptions({-1, 0, 1, 0})), {0, 0, 1, 2, 4, 5});
  expect_values(constant_pad_nd(x, {1, 1}, 3), {3, 0, 1, 2, 3, 3, 3, 4, 5, 3});
  expect_values(F::pad(x, F::PadFuncOptions({2, 1}).mode(kReflect)), {2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4});
  expect_values(F::pad(x, F::PadFuncOptions({1, 1, 1, 0}).mode(kReflect)),
                {4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4});
  expect_values(F::pad(x, F::PadFuncOptions({-1, 1}).mode(kReflect)), {1, 2, 1, 4, 5, 4});
  expect_values(F::pad(x, F::PadFuncOptions({2, 4}).mode(kReplicate)),
                {0, 0, 0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 5, 5, 5, 5, 5});
  expect_values(F::pad(x, F::PadFuncOptions({1, 0, 0, 2}).mode(kReplicate)),
                {0, 0, 1, 2, 3, 3, 4, 5, 3, 3, 4, 5, 3, 3, 4, 5});
  expect_values(F::pad(x, F::PadFuncOptions({2, 3}).mode(kCircular)),
                {1, 2, 0, 1, 2, 0, 1, 2, 4, 5, 3, 4, 5, 3, 4, 5});
  // Negative circular padding wraps around the cropped input, as libtorch's copies do.
  expect_values(F::pad(x, F::PadFuncOptions({-1, 1}).mode(kCircular)), {1, 2, 1, 4, 5, 4});
  CHECK(F::pad(rand({1, 2, 2, 2}), F::PadFuncOptions({1, 1, 1, 1, 1, 1}).mode(kReflect)).sizes() ==
        IntArrayRef({1, 4, 4, 4}));
  CHECK(F::pad(zeros({0, 2, 3}), F::PadFuncOptions({1, 1}).mode(kCircular)).sizes() ==
        IntArrayRef({0, 2, 5}));
  for (PaddingMode mode : {kConstant, kReflect, kReplicate, kCircular}) {
    INFO(padding_mode_name(mode));
    CHECK(check(
        [mode](const variable_list& v) {
          return F::pad(v[0], F::PadFuncOptions({2, 1, 1, 2}).mode(mode));
        },
        {leaf({1, 2, 3, 4})}));
    CHECK(check(
        [mode](const variable_list& v) {
          return F::pad(v[0], F::PadFuncOptions({-1, 2}).mode(mode));
        },
        {leaf({2, 1, 5})}));
  }
  // Replicated border elements collect the gradient of every copy.
  Tensor r = arange(3.0).view({1, 1, 3}).requires_grad_();
  F::pad(r, F::PadFuncOptions({2, 1}).mode(kReplicate)).sum().backward();
  expect_values(r.grad(), {3, 1, 2});
}

TEST_CASE("nn conv: Conv1d and Conv2d modules: parameters, initialisation, padding modes, printing") {
  manual_seed(0);
  nn::Conv2d conv(nn::Conv2dOptions(4, 6, {3, 2}).groups(2).stride(2));
  CHECK(conv->weight.sizes() == IntArrayRef({6, 2, 3, 2}));
  CHECK(conv->bias.sizes() == IntArrayRef({6}));
  const auto named = conv->named_parameters();
  CHECK(named.keys() == std::vector<std::string>{"weight", "bias"});
  // kaiming_uniform_(a = sqrt(5)) and the bias both bound by 1 / sqrt(fan_in), fan_in = 2 * 3 * 2.
  const double bound = 1 / std::sqrt(12.0);
  for (const Tensor& p : {conv->weight, conv->bias})
    for (double v : dvalues(p)) CHECK(std::abs(v) <= bound);
  CHECK(conv(rand({2, 4, 7, 6})).sizes() == IntArrayRef({2, 6, 3, 3}));
  CHECK(conv(rand({4, 7, 6})).sizes() == IntArrayRef({6, 3, 3}));

  nn::Conv1d no_bias(nn::Conv1dOptions(2, 3, 3).bias(false));
  CHECK(!no_bias->bias.defined());
  CHECK(no_bias->parameters().size() == 1);

  // A padding mode pads with F::pad, then convolves without padding.
  nn::Conv2d circ(nn::Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(kCircular));
  Tensor x = rand({1, 2, 4, 5});
  Tensor expected =
      conv2d(F::pad(x, F::PadFuncOptions({2, 2, 1, 1}).mode(kCircular)), circ->weight, circ->bias);
  CHECK(allclose(circ(x), expected));
  nn::Conv1d refl(nn::Conv1dOptions(2, 2, 4).padding(kSame).padding_mode(kReflect));
  Tensor x1 = rand({3, 2, 6});
  CHECK(allclose(refl(x1),
                 conv1d(F::pad(x1, F::PadFuncOptions({1, 2}).mode(kReflect)), refl->weight, refl->bias)));

  CHECK(printed(nn::Conv2d(nn::Conv2dOptions(1, 10, 5))) ==
        "ember::nn::Conv2d(1, 10, kernel_size=[5, 5], stride=[1, 1])");
  CHECK(
      printed(nn::Conv2d(nn::Conv2dOptions(4, 8, {3, 5})
                             .stride(2)
                             .padding(1)
                             .dilation(2)
                             .groups(2)
                             .bias(false)
                             .padding_mode(kCircular))) ==
      "ember::nn::Conv2d(4, 8, kernel_size=[3, 5], stride=[2, 2], padding=[1, 1], dilation=[2, 2], groups=2, "
      "bias=false, padding_mode=kCircular)");
  CHECK(printed(nn::Conv1d(nn::Conv1dOptions(1, 10, 5).padding(kSame))) ==
        "ember::nn::Conv1d(1, 10, kernel_size=5, stride=1, padding='same')");
  // clone() gives new parameters with the same values.
  auto copy = std::dynamic_pointer_cast<nn::Conv2dImpl>(conv->clone());
  CHECK(equal(copy->weight, conv->weight));
  CHECK(copy->weight.data_ptr() != conv->weight.data_ptr());
}

TEST_CASE("nn conv: Dropout2d and feature_dropout zero whole channels") {
  manual_seed(7);
  Tensor x = ones({4, 6, 3, 2});
  Tensor y = F::dropout2d(x, F::Dropout2dFuncOptions().p(0.5));
  const std::vector<double> v = dvalues(y);
  int zeroed = 0;
  for (int64_t plane = 0; plane < 24; ++plane) {
    const double first = v[size_t(plane * 6)];
    CHECK((first == 0 || first == 2));
    for (int64_t k = 1; k < 6; ++k) CHECK(v[size_t(plane * 6 + k)] == first);
    zeroed += first == 0;
  }
  CHECK(zeroed > 0);
  CHECK(zeroed < 24);
  // Unbatched (C, H, W): one draw per channel; eval and p = 0 are the identity, p = 1 zeroes.
  Tensor u = F::dropout2d(ones({5, 2, 2}), F::Dropout2dFuncOptions().p(0.3));
  CHECK(u.sizes() == IntArrayRef({5, 2, 2}));
  nn::Dropout2d drop(0.4);
  drop->eval();
  CHECK(equal(drop(x), x));
  CHECK(dvalues(F::dropout2d(x, F::Dropout2dFuncOptions().p(1))) == std::vector<double>(144, 0.0));
  CHECK(equal(feature_dropout(x, 0.5, false), x));
  // In place: the input itself holds the result.
  Tensor z = ones({2, 3, 1, 1});
  Tensor r = F::dropout2d(z, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  CHECK(r.data_ptr() == z.data_ptr());
  for (double e : dvalues(z)) CHECK((e == 0 || e == 2));
  // The gradient is the same mask.
  Tensor g = ones({2, 3, 2}, kDouble).requires_grad_();
  Tensor m = feature_dropout(g, 0.5, true);
  m.sum().backward();
  CHECK(equal(g.grad(), m.detach()));
  CHECK(printed(nn::Dropout2d(nn::Dropout2dOptions(0.25).inplace(true))) ==
        "ember::nn::Dropout2d(p=0.25, inplace=true)");
  expect_error([] { feature_dropout(ones({4}), 0.5, true); },
               "Feature dropout requires at least 2 dimensions in the input");
  expect_error(
      [] {
        feature_dropout(ones({4, 4}), 1.5, true);
      },
      "dropout probability has to be between 0 and 1, but got 1.5");
  expect_error([] { nn::Dropout2d bad(-0.5); },
               "dropout probability has to be between 0 and 1, but got -0.5");
  expect_error(
      [] {
        feature_dropout(ones({2, 2}, kLong), 0.5, true);
      },
      "result type Float can't be cast to the desired output type Long");
}

TEST_CASE("nn conv: Flatten merges start_dim .. end_dim") {
  nn::Flatten flat;
  CHECK(flat(rand({2, 3, 4, 5})).sizes() == IntArrayRef({2, 60}));
  nn::Flatten inner(nn::FlattenOptions().start_dim(1).end_dim(2));
  CHECK(inner(rand({2, 3, 4, 5})).sizes() == IntArrayRef({2, 12, 5}));
  CHECK(printed(flat) == "ember::nn::Flatten(start_dim=1, end_dim=-1)");
  expect_error(
      [] {
        nn::Flatten(nn::FlattenOptions().start_dim(2).end_dim(1))(rand({2, 3, 4}));
      },
      "flatten() has invalid args: start_dim cannot come after end_dim");
}

TEST_CASE("nn conv: the composite ops run on another device type with the CPU's values and gradients") {
  // The PrivateUse1 test backend ("npu") has no convolution or pooling kernels: every op
  // here is made of ordinary ops, so it runs there as on any device.
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  using Fn = std::function<Tensor(const variable_list&)>;
  const std::vector<std::pair<std::vector<std::vector<int64_t>>, Fn>> cases = {
      {{{2, 4, 7, 6}, {6, 2, 3, 2}, {6}},
       [](const variable_list& v) {
         return conv2d(v[0], v[1], v[2], {2, 1}, 1, 1, 2);
       }},
      {{{3, 9}, {2, 3, 4}}, [](const variable_list& v) { return conv1d(v[0], v[1], {}, 1, "same", 2); }},
      {{{2, 3, 5, 4}},
       [](const variable_list& v) {
         return F::pad(v[0], F::PadFuncOptions({2, 1, 1, 2}).mode(kReflect));
       }},
      {{{2, 3, 5, 4}},
       [](const variable_list& v) {
         return F::pad(v[0], F::PadFuncOptions({2, -1, 3, 1}).mode(kCircular));
       }},
      {{{2, 3, 7, 6}}, [](const variable_list& v) { return max_pool2d(v[0], 3, 2, 1, 1, true); }},
      {{{2, 3, 7, 6}}, [](const variable_list& v) { return avg_pool2d(v[0], 3, 2, 1, true, false); }},
      {{{2, 3, 7, 6}},
       [](const variable_list& v) {
         return adaptive_avg_pool2d(v[0], {3, 4});
       }},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    variable_list cpu, dev;
    for (const auto& sizes : cases[k].first) {
      cpu.push_back(leaf(sizes));
      dev.push_back(cpu.back().detach().to(npu).requires_grad_());
    }
    Tensor y = cases[k].second(cpu), yd = cases[k].second(dev);
    CHECK(yd.device() == npu);
    CHECK(allclose(yd.cpu(), y, 1e-12, 1e-12));
    Tensor g = rand(y.sizes(), kDouble);
    y.backward(g);
    yd.backward(g.to(npu));
    for (size_t i = 0; i < cpu.size(); ++i) CHECK(allclose(dev[i].grad().cpu(), cpu[i].grad(), 1e-12, 1e-12));
  }
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding(1).padding_mode(kReplicate));
  conv->to(npu);
  CHECK(conv(rand({1, 2, 5, 5}).to(npu)).device() == npu);
}

TEST_CASE("nn conv: libtorch's errors for bad shapes and options, inputs unchanged") {
  Tensor w = ones({4, 3, 3, 3});
  Tensor x = rand({1, 3, 8, 8});
  expect_error(
      [&] {
        conv2d(rand({2, 3}), w);
      },
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]");
  expect_error(
      [&] {
        conv1d(x, ones({4, 3, 3}));
      },
      "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [1, 3, 8, 8]");
  expect_error(
      [&] {
        conv2d(rand({1, 2, 8, 8}), w);
      },
      "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 8, 8] to have 3 channels, but got 2 "
      "channels instead",
      x);
  expect_error(
      [&] {
        conv2d(rand({2, 8, 8}), w);
      },
      "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 8, 8] to have 3 channels, but got 2 "
      "channels instead");
  expect_error(
      [&] {
        conv2d(rand({1, 2, 8, 8}), ones({3, 1, 3, 3}), {}, 1, 0, 1, 2);
      },
      "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 1, "
      "3, "
      "3]] instead");
  expect_error(
      [&] {
        conv2d(x, ones({4, 1, 3, 3}), {}, 1, 0, 1, 2);
      },
      "Given groups=2, weight of size [4, 1, 3, 3], expected input[1, 3, 8, 8] to have 2 channels, but got 3 "
      "channels instead");
  expect_error(
      [&] {
        conv2d(rand({1, 3, 4, 4}), ones({4, 3, 5, 5}));
      },
      "Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5). Kernel size can't be greater "
      "than actual input size");
  expect_error(
      [&] {
        conv1d(rand({1, 3, 2}), ones({4, 3, 3}));
      },
      "Calculated padded input size per channel: (2). Kernel size: (3). Kernel size can't be greater than "
      "actual input size");
  expect_error([&] { conv2d(x, w, {}, 0); }, "non-positive stride is not supported", x);
  expect_error([&] { conv2d(x, w, {}, 1, -1); }, "negative padding is not supported");
  expect_error([&] { conv2d(x, w, {}, 1, 0, 0); }, "dilation should be greater than zero, but got [0, 0]");
  expect_error([&] { conv2d(x, w, {}, 1, 0, 1, 0); }, "non-positive groups is not supported");
  expect_error(
      [&] { conv2d(x, w, ones({3})); },
      "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of "
      "size [3] instead");
  expect_error([&] { conv2d(x, ones({4})); }, "weight should have at least three dimensions");
  expect_error(
      [&] {
        conv1d(rand({1, 3, 8}), w);
      },
      "Expected 4-dimensional input for 4-dimensional weight [4, 3, 3, 3], but got 3-dimensional input of "
      "size "
      "[1, 3, 8] instead");
  expect_error(
      [&] {
        conv2d(x, w, {}, {1, 1, 1});
      },
      "expected stride to be a single integer value or a list of 2 values to match the convolution "
      "dimensions, "
      "but got stride=[1, 1, 1]");
  expect_error([&] { conv2d(x, w, {}, 2, "same"); },
               "padding='same' is not supported for strided convolutions");
  expect_error([&] { conv2d(x, w, {}, 1, "full"); }, "Invalid padding string: 'full'");
  expect_error([&] { conv2d(x.to(kDouble), w); }, "expected scalar type Double but found Float");
  expect_error([&] { conv2d(x, w, ones({4}, kDouble)); },
               "Input type (float) and bias type (double) should be the same");
  expect_error<NotImplemented>(
      [&] {
        conv2d(ones({1, 3, 8, 8}, kBool), ones({4, 3, 3, 3}, kBool));
      },
      "\"slow_conv2d_cpu\" not implemented for 'Bool'");
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); },
               "in_channels must be divisible by groups");
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(4, 3, 3).groups(2)); },
               "out_channels must be divisible by groups");
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(4, 4, 3).stride(2).padding(kSame)); },
               "padding='same' is not supported for strided convolutions");
  expect_error(
      [] {
        nn::Conv2dOptions(2, 2, std::vector<int64_t>{1, 2, 3});
      },
      "Expected 2 values, but instead got 3");

  Tensor p = arange(6.0).view({1, 2, 3});
  expect_error([&] { F::pad(p, F::PadFuncOptions({1, 1, 1})); }, "Padding length must be divisible by 2", p);
  expect_error([&] { F::pad(p, F::PadFuncOptions({1, 1, 1, 1, 1, 1, 1, 1})); }, "Padding length too large");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({-3, 0, 1, 0}));
      },
      "The input size 3, plus negative padding -3 and 0 resulted in a negative output size, which is "
      "invalid. "
      "Check dimension 2 of your input.");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({-2, -2}));
      },
      "start (0) + length (-1) exceeds dimension size (1).");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({3, 0}).mode(kReflect));
      },
      "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, "
      "0) at dimension 2 of input [1, 2, 3]");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({0, 0, 2, 0}).mode(kReflect));
      },
      "Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (2, "
      "0) at dimension 1 of input 3");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({1, 1}).mode(kReflect).value(2));
      },
      "Padding mode \"reflect\" doesn't take in value argument");
  expect_error<NotImplemented>(
      [] {
        F::pad(arange(4.0), F::PadFuncOptions({1, 1}).mode(kReplicate));
      },
      "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({4, 0}).mode(kCircular));
      },
      "Padding value causes wrapping around more than once.");
  expect_error(
      [&] {
        F::pad(p, F::PadFuncOptions({1, 0, 1, 1}).mode(kCircular));
      },
      "Invalid padding size, expected 2 but got 4");
  expect_error(
      [] {
        F::pad(zeros({1, 2, 0}), F::PadFuncOptions({1, 1}).mode(kReplicate));
      },
      "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
      "input, but got: [1, 2, 0]");
  expect_error(
      [] {
        F::pad(zeros({1, 0, 3}), F::PadFuncOptions({1, 1}).mode(kReflect));
      },
      "2D or 3D (batch mode) tensor expected for input, but got: [ CPUFloatType{1,0,3} ]");
}
