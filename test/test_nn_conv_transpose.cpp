// Transposed convolutions: hand-computed values (overlaps, stride, padding crop,
// output_padding), the adjoint identity <conv(x), y> = <x, conv_transpose(y)> for every
// option, float64 gradcheck and double backward, unbatched and empty batches, the
// modules (parameter shapes, output_size) and libtorch's error texts.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
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

Tensor leaf(IntArrayRef sizes) { return randn(sizes, kDouble).requires_grad_(); }

}  // namespace

TEST_CASE("nn conv_transpose: values of overlaps, stride, padding and output_padding") {
  const Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).view({1, 1, 2, 2});
  const Tensor w = ones({1, 1, 2, 2}, kDouble);
  nn_test::expect_values(conv_transpose2d(x, w), {1, 3, 2, 4, 10, 6, 3, 7, 4}, 1e-12);
  nn_test::expect_values(conv_transpose2d(x, w, {}, 2), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4},
                         1e-12);
  nn_test::expect_values(conv_transpose2d(x, w, {}, 1, 1), {10}, 1e-12);
  const Tensor op = conv_transpose2d(x, w, tensor({0.5}, kDouble), 2, 0, 1);
  CHECK(op.sizes() == IntArrayRef({1, 1, 5, 5}));
  nn_test::expect_values(op[0][0][4], {0.5, 0.5, 0.5, 0.5, 0.5}, 1e-12);
  nn_test::expect_values(op[0][0][0], {1.5, 1.5, 2.5, 2.5, 0.5}, 1e-12);
  // Dilation 2: the kernel's taps two apart.
  nn_test::expect_values(conv_transpose1d(tensor({1.0, 2.0}, kDouble).view({1, 1, 2}),
                                          ones({1, 1, 2}, kDouble), {}, 1, 0, 0, 1, 2),
                         {1, 2, 1, 2}, 1e-12);
  // Groups: each input channel reaches only its group's output channels.
  const Tensor xg = tensor({1.0, 10.0}, kDouble).view({1, 2, 1});
  const Tensor wg = tensor({1.0, 2.0}, kDouble).view({2, 1, 1});
  nn_test::expect_values(conv_transpose1d(xg, wg, {}, 1, 0, 0, 2), {1, 20}, 1e-12);
}

TEST_CASE("nn conv_transpose: the adjoint of conv for every option") {
  struct Case {
    int64_t c_in, c_out, h, w, kh, kw, stride, padding, dilation, groups;
  };
  for (const Case& c : {Case{1, 1, 5, 5, 3, 3, 1, 0, 1, 1}, Case{4, 6, 7, 6, 3, 2, 2, 1, 1, 2},
                        Case{3, 2, 9, 8, 2, 3, 3, 2, 2, 1}, Case{4, 4, 6, 6, 3, 3, 2, 1, 1, 4}}) {
    CAPTURE(c.c_in, c.c_out, c.stride, c.padding, c.dilation, c.groups);
    const Tensor x = randn({2, c.c_in, c.h, c.w}, kDouble);
    const Tensor w = randn({c.c_out, c.c_in / c.groups, c.kh, c.kw}, kDouble);
    const Tensor y = conv2d(x, w, {}, c.stride, c.padding, c.dilation, c.groups);
    const Tensor r = randn(y.sizes(), kDouble);
    // output_padding recovers the rows a strided conv skipped.
    std::vector<int64_t> output_padding;
    for (int64_t d = 0; d < 2; ++d) {
      const int64_t in = x.size(d + 2), k = d == 0 ? c.kh : c.kw;
      output_padding.push_back(in -
                               ((y.size(d + 2) - 1) * c.stride - 2 * c.padding + c.dilation * (k - 1) + 1));
    }
    const Tensor back = conv_transpose2d(r, w, {}, c.stride, c.padding, output_padding, c.groups, c.dilation);
    REQUIRE(back.sizes() == x.sizes());
    CHECK((y * r).sum().item<double>() == Approx((x * back).sum().item<double>()).epsilon(1e-10));
  }
}

TEST_CASE("nn conv_transpose: gradcheck, double backward, unbatched and empty batches") {
  manual_seed(9);
  CHECK(check([](const variable_list& v) { return conv_transpose2d(v[0], v[1], v[2], 2, 1, 1, 2, 1); },
              {leaf({2, 4, 3, 3}), leaf({4, 3, 2, 3}), leaf({6})}));
  CHECK(check([](const variable_list& v) { return conv_transpose1d(v[0], v[1], v[2], 3, 0, 2, 1, 2); },
              {leaf({2, 2, 4}), leaf({2, 3, 3}), leaf({3})}));
  auto input_grad = [](const variable_list& v) {
    const Tensor y = conv_transpose2d(v[0], v[1], {}, 2);
    return autograd::grad({(y * y).sum()}, {v[0]}, {}, true, true)[0];
  };
  CHECK(check(input_grad, {leaf({1, 2, 2, 2}), leaf({2, 1, 2, 2})}));
  const Tensor w = randn({3, 2, 3, 3});
  const Tensor unbatched = conv_transpose2d(randn({3, 4, 4}), w);
  CHECK(unbatched.sizes() == IntArrayRef({2, 6, 6}));
  CHECK(conv_transpose2d(randn({0, 3, 4, 4}), w).sizes() == IntArrayRef({0, 2, 6, 6}));
}

TEST_CASE("nn conv_transpose: modules, output_size and printing") {
  nn::ConvTranspose2d m(nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).groups(2));
  CHECK(m->weight.sizes() == IntArrayRef({4, 3, 3, 3}));
  CHECK(m->bias.sizes() == IntArrayRef({6}));
  const double bound = 1 / std::sqrt(27.0);  // fan_in = C_out / groups * kH * kW
  CHECK(m->bias.abs().max().item<double>() <= bound);
  const Tensor x = randn({1, 4, 5, 5});
  CHECK(m(x).sizes() == IntArrayRef({1, 6, 9, 9}));
  CHECK(m->forward(x, IntArrayRef({10, 10})).sizes() == IntArrayRef({1, 6, 10, 10}));
  CHECK(m->forward(x, IntArrayRef({1, 6, 9, 10})).sizes() == IntArrayRef({1, 6, 9, 10}));
  expect_error(
      [&] {
        m->forward(x, IntArrayRef({11, 9}));
      },
      "requested an output size of [11, 9], but valid sizes range from 9 9 to 10 10 (for an input of [5, "
      "5])");
  expect_error([&] { m->forward(x, IntArrayRef({9})); }, "output_size must have 2 or 4 elements (got 1)");
  CHECK(printed(*m) ==
        "ember::nn::ConvTranspose2d(4, 6, kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], groups=2)");
  nn::ConvTranspose1d m1(nn::ConvTranspose1dOptions(2, 3, 4).output_padding(1).stride(2).bias(false));
  CHECK(!m1->bias.defined());
  CHECK(m1(randn({2, 2, 5})).sizes() == IntArrayRef({2, 3, 13}));
  CHECK(printed(*m1) ==
        "ember::nn::ConvTranspose1d(2, 3, kernel_size=4, stride=2, output_padding=1, bias=false)");
  nn::ConvTranspose2d reflect(nn::ConvTranspose2dOptions(1, 1, 2).padding_mode(kReflect));
  expect_error(
      [&] {
        reflect(randn({1, 1, 3, 3}));
      },
      "Only `zeros` padding mode is supported for ConvTranspose2d");
  CHECK_THROWS_AS(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(3, 4, 2).groups(2)), InvalidArgument);
  auto copy = std::dynamic_pointer_cast<nn::ConvTranspose2dImpl>(m->clone());
  CHECK(copy->weight.equal(m->weight));
}

TEST_CASE("nn conv_transpose: libtorch's errors, inputs unchanged") {
  const Tensor x = randn({2, 5, 4, 4}), w = randn({3, 4, 3, 3});
  expect_error(
      [&] { conv_transpose2d(x, w); },
      "Given transposed=1, weight of size [3, 4, 3, 3], expected input[2, 5, 4, 4] to have 3 channels, but "
      "got 5 channels instead");
  const Tensor x3 = randn({2, 3, 4, 4});
  expect_error(
      [&] { conv_transpose2d(x3, w, ones({3})); },
      "Given transposed=1, weight of size [3, 4, 3, 3], expected bias to be 1-dimensional with 4 elements, "
      "but got bias of size [3] instead");
  expect_error(
      [&] { conv_transpose2d(x3, w, {}, 1, 0, 1); },
      "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
      "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1");
  expect_error(
      [&] { conv_transpose2d(x3, w, {}, 1, 3); },
      "Given input size per channel: (4 x 4). Calculated output size per channel: (0 x 0). Output size is "
      "too small");
  expect_error([&] { conv_transpose2d(x3, w, {}, 1, -1); }, "negative padding is not supported");
  expect_error(
      [&] {
        conv_transpose2d(randn({3, 4}), w);
      },
      "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [3, 4]");
  const Tensor before = x3.clone();
  CHECK_THROWS(conv_transpose2d(x3, w, ones({3})));
  CHECK(x3.equal(before));
}
