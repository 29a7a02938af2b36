// Pooling: max (values, libtorch's flat indices, ties and -inf windows, gradient to the
// first maximum), avg (ceil_mode, count_include_pad, divisor_override, int64), adaptive avg
// (tiling and overlapping bins, None sizes), gradcheck in float64, batch sizes 1 and 0,
// modules and libtorch's error texts. Expected numbers are libtorch 1.13's for the same calls.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Equals;
using ember_test::dvalues;
namespace F = ember::nn::functional;

namespace {

// Distinct values (no ties), so that max pooling is differentiable where gradcheck probes.
Tensor leaf(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (randperm(n).to(kDouble) / double(n) + rand({n}, kDouble) * 0.1 / double(n))
      .view(sizes)
      .requires_grad_();
}

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-4);
}

const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("nn pooling: max_pool2d values, flat indices, ties and -inf windows") {
  Tensor x = arange(16, kFloat).view({1, 1, 4, 4});
  auto [v, i] = max_pool2d_with_indices(x, 2);
  expect_values(v, {5, 7, 13, 15});
  expect_values(i, {5, 7, 13, 15});
  CHECK(i.dtype() == kInt64);
  // Ties: the first maximum of each window (and its gradient) in row-major window order.
  Tensor t = ones({1, 1, 4, 4}).requires_grad_();
  auto [tv, ti] = max_pool2d_with_indices(t, 3, 1);
  expect_values(ti, {0, 1, 4, 5});
  tv.sum().backward();
  expect_values(t.grad(), {1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  // A window of -inf keeps its first position inside the input, never the padding.
  auto [nv, ni] = max_pool2d_with_indices(full({1, 1, 3, 3}, -kInf), 3, 2, 1);
  expect_values(ni, {0, 1, 3, 4});
  CHECK(dvalues(nv) == std::vector<double>(4, -kInf));
  expect_values(std::get<1>(max_pool2d_with_indices(full({1, 1, 5, 5}, -kInf), 3, 2, 1, 2)), {6, 6, 6, 6});
  // Padding with dilation and strides of two sizes.
  Tensor y = arange(30, kFloat).view({1, 1, 5, 6});
  auto [pv, pi] = max_pool2d_with_indices(y, {2, 3}, {2, 1}, {1, 1}, {2, 1});
  CHECK(pv.sizes() == IntArrayRef({1, 1, 3, 6}));
  CHECK(equal(pv, y.flatten(2).gather(2, pi.flatten(2)).view_as(pv)));
  // Overlapping windows that share a maximum send it each window's gradient.
  Tensor c = tensor({0.0, 1.0, 0.0, 2.0, 9.0, 3.0, 0.0, 4.0, 0.0}).view({1, 1, 3, 3}).requires_grad_();
  max_pool2d(c, 2, 1).sum().backward();
  expect_values(c.grad(), {0, 0, 0, 0, 4, 0, 0, 0, 0});
  // Unbatched input, and F:: with options.
  CHECK(max_pool2d(rand({2, 5, 5}), 2).sizes() == IntArrayRef({2, 2, 2}));
  auto [fv, fi] = F::max_pool2d_with_indices(x[0], F::MaxPool2dFuncOptions(3).stride(1).padding(1));
  CHECK(fi.sizes() == IntArrayRef({1, 4, 4}));
  expect_values(fv, {5, 6, 7, 7, 9, 10, 11, 11, 13, 14, 15, 15, 13, 14, 15, 15});
}

TEST_CASE("nn pooling: ceil_mode output sizes and batch sizes 1 and 0") {
  CHECK(max_pool2d(rand({1, 1, 5, 5}), 2, 2, 0, 1, true).sizes() == IntArrayRef({1, 1, 3, 3}));
  CHECK(max_pool2d(rand({1, 1, 5, 5}), 2, 2, 1, 1, true).sizes() == IntArrayRef({1, 1, 3, 3}));
  CHECK(max_pool2d(rand({1, 1, 6, 6}), 3, 2, 1, 1, true).sizes() == IntArrayRef({1, 1, 4, 4}));
  CHECK(max_pool2d(rand({1, 1, 4, 4}), 3, 3, 1, 1, true).sizes() == IntArrayRef({1, 1, 2, 2}));
  // The last ceil_mode window hangs over the input: only its inside counts.
  expect_values(max_pool2d(arange(25, kFloat).view({1, 1, 5, 5}), 2, 2, 0, 1, true),
                {6, 8, 9, 16, 18, 19, 21, 23, 24});
  Tensor empty = zeros({0, 2, 5, 5}).requires_grad_();
  CHECK(max_pool2d(empty, 2).sizes() == IntArrayRef({0, 2, 2, 2}));
  CHECK(avg_pool2d(empty, 2).sizes() == IntArrayRef({0, 2, 2, 2}));
  CHECK(adaptive_avg_pool2d(empty, {3, 2}).sizes() == IntArrayRef({0, 2, 3, 2}));
  max_pool2d(empty, 2).sum().backward();
  CHECK(empty.grad().sizes() == IntArrayRef({0, 2, 5, 5}));
  CHECK(max_pool1d(rand({1, 3, 8}), 2).sizes() == IntArrayRef({1, 3, 4}));
  CHECK(adaptive_avg_pool2d(rand({1, 2, 5, 6}), {0, 2}).sizes() == IntArrayRef({1, 2, 0, 2}));
}

TEST_CASE("nn pooling: max_pool1d values, indices and libtorch's size-0 output without grad") {
  auto [v, i] = max_pool1d_with_indices(arange(8.0).view({1, 1, 8}), 3, 2, 1);
  expect_values(v, {1, 3, 5, 7});
  expect_values(i, {1, 3, 5, 7});
  expect_values(max_pool1d(tensor({3.0f, 1.0f, 4.0f, 1.0f, 5.0f}).view({1, 5}), 2, 1), {3, 4, 4, 5});
  CHECK(max_pool1d(rand({1, 3, 2}), 3).sizes() == IntArrayRef({1, 3, 0}));
  expect_error(
      [] {
        max_pool1d(rand({1, 1, 2}).requires_grad_(), 3);
      },
      "Given input size: (1x1x2). Calculated output size: (1x1x0). Output size is too small");
  nn::MaxPool1d pool(nn::MaxPool1dOptions(3).stride(2).padding(1));
  CHECK(std::get<1>(pool->forward_with_indices(arange(8.0).view({1, 1, 8}))).sizes() ==
        IntArrayRef({1, 1, 4}));
  CHECK(printed(nn::MaxPool1d(3)) ==
        "ember::nn::MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=false)");
}

TEST_CASE("nn pooling: avg_pool2d divisors (ceil_mode, count_include_pad, divisor_override) and int64") {
  Tensor one5 = ones({1, 1, 5, 5});
  expect_values(avg_pool2d(one5, 2, 2, 1, true, true), {0.25, 0.5, 0.5, 0.5, 1, 1, 0.5, 1, 1});
  expect_values(avg_pool2d(one5, 2, 2, 1, true, false), std::vector<double>(9, 1));
  expect_values(
      avg_pool2d(ones({1, 1, 6, 6}), 3, 2, 1, true, true),
      {4 / 9.0, 6 / 9.0, 6 / 9.0, 2 / 6.0, 6 / 9.0, 1, 1, 0.5, 6 / 9.0, 1, 1, 0.5, 2 / 6.0, 0.5, 0.5, 0.25});
  expect_values(avg_pool2d(one5, 3, 2, 0, true, true), {1, 1, 1, 1});
  expect_values(avg_pool2d(one5, 3, 2, 1, true, true, 2), {2, 3, 2, 3, 4.5, 3, 2, 3, 2});
  // int64: the sums divided with truncation, as libtorch's integer arithmetic.
  Tensor l = arange(16).view({1, 1, 4, 4});
  CHECK(dvalues(avg_pool2d(l, 2)) == std::vector<double>{2, 4, 10, 12});
  CHECK(dvalues(avg_pool2d(l, 3, 1, 1)) ==
        std::vector<double>{1, 2, 2, 2, 3, 5, 6, 4, 5, 9, 10, 7, 4, 7, 8, 5});
  CHECK(avg_pool2d(l, 2).dtype() == kInt64);
  expect_values(F::avg_pool2d(arange(16.0).view({1, 4, 4}),
                              F::AvgPool2dFuncOptions({2, 4}).stride({2, 1}).padding({0, 2})),
                {1.25, 2.25, 3.5, 3, 2.25, 5.25, 8.25, 11.5, 9, 6.25});
}

TEST_CASE("nn pooling: adaptive_avg_pool2d bins, None sizes and the 1 x 1 mean") {
  expect_values(adaptive_avg_pool2d(arange(35.0).view({1, 1, 5, 7}), {3, 4}),
                {4, 5.5, 7.5, 9, 14.5, 16, 18, 19.5, 25, 26.5, 28.5, 30});
  expect_values(adaptive_avg_pool2d(arange(4.0).view({1, 1, 2, 2}), {3, 3}),
                {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3});
  expect_values(adaptive_avg_pool2d(arange(16.0).view({1, 4, 4}), {2, 2}), {2.5, 4.5, 10.5, 12.5});
  expect_values(adaptive_avg_pool2d(arange(6.0).view({1, 1, 2, 3}), {1, 1}), {2.5});
  Tensor x = rand({2, 3, 5, 6});
  CHECK(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({std::nullopt, 3})).sizes() ==
        IntArrayRef({2, 3, 5, 3}));
  nn::AdaptiveAvgPool2d pool(nn::AdaptiveAvgPool2dOptions({3, std::nullopt}));
  CHECK(pool(x).sizes() == IntArrayRef({2, 3, 3, 6}));
  CHECK(printed(pool) == "ember::nn::AdaptiveAvgPool2d(output_size=[3, None])");
  CHECK(allclose(nn::AdaptiveAvgPool2d(1)(x), x.mean({2, 3}, true)));
}

TEST_CASE("nn pooling: gradcheck of max, avg and adaptive avg pooling in float64") {
  CHECK(check([](const variable_list& v) { return max_pool2d(v[0], 2); }, {leaf({2, 2, 4, 5})}));
  CHECK(check(
      [](const variable_list& v) {
        return max_pool2d(v[0], {3, 2}, {2, 1}, 1, {1, 2}, true);
      },
      {leaf({1, 2, 7, 6})}));
  CHECK(check([](const variable_list& v) { return max_pool2d(v[0], 3, 1, 1); }, {leaf({2, 4, 4})}));
  CHECK(check([](const variable_list& v) { return max_pool1d(v[0], 3, 2, 1); }, {leaf({2, 3, 9})}));
  CHECK(check([](const variable_list& v) { return avg_pool2d(v[0], 3, 2, 1, true, false); },
              {leaf({1, 2, 6, 7})}));
  CHECK(check(
      [](const variable_list& v) {
        return avg_pool2d(v[0], {2, 3}, 1, {1, 0}, false, true, 5);
      },
      {leaf({2, 1, 4, 5})}));
  CHECK(check(
      [](const variable_list& v) {
        return adaptive_avg_pool2d(v[0], {3, 4});
      },
      {leaf({2, 2, 5, 7})}));
  CHECK(check([](const variable_list& v) { return adaptive_avg_pool2d(v[0], {2, 3}); }, {leaf({1, 4, 6})}));
}

TEST_CASE("nn pooling: modules forward and print as libtorch's") {
  nn::MaxPool2d mp(nn::MaxPool2dOptions({3, 2}).stride(1).padding(1).dilation(2).ceil_mode(true));
  CHECK(printed(mp) ==
        "ember::nn::MaxPool2d(kernel_size=[3, 2], stride=[1, 1], padding=[1, 1], dilation=[2, 2], "
        "ceil_mode=true)");
  Tensor x = rand({1, 2, 6, 6});
  CHECK(equal(mp(x), max_pool2d(x, {3, 2}, 1, 1, 2, true)));
  CHECK(equal(std::get<1>(nn::MaxPool2d(2)->forward_with_indices(x)),
              std::get<1>(max_pool2d_with_indices(x, 2))));
  nn::AvgPool2d ap(nn::AvgPool2dOptions({2, 3}).stride(1).padding({1, 0}));
  CHECK(printed(ap) == "ember::nn::AvgPool2d(kernel_size=[2, 3], stride=[1, 1], padding=[1, 0])");
  CHECK(equal(ap(x), avg_pool2d(x, {2, 3}, 1, {1, 0})));
  CHECK(printed(nn::MaxPool2d(2)) ==
        "ember::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], "
        "ceil_mode=false)");
}

TEST_CASE("nn pooling: libtorch's errors for bad shapes and options") {
  Tensor x = rand({1, 2, 5, 5});
  expect_error(
      [] {
        max_pool2d(rand({2, 3}), 2);
      },
      "non-empty 3D or 4D (batch mode) tensor expected for input");
  expect_error(
      [] {
        max_pool2d(rand({1, 0, 5, 5}), 2);
      },
      "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 0, 5, 5]");
  expect_error(
      [&] {
        max_pool2d(x, {2, 2, 2});
      },
      "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  expect_error(
      [&] {
        max_pool2d(x, 2, {1, 1, 1});
      },
      "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  expect_error(
      [&] {
        max_pool2d(x, 2, 2, {1, 1, 1});
      },
      "max_pool2d: padding must be either be a single int, or a tuple of two ints");
  expect_error(
      [&] {
        max_pool2d(x, 2, 2, 0, {1, 1, 1});
      },
      "max_pool2d: dilation must be either a single int, or a tuple of two ints");
  expect_error([&] { max_pool2d(x, 0); }, "stride should not be zero");
  expect_error([&] { max_pool2d(x, -1); }, "kernel size should be greater than zero, but got kH: -1 kW: -1");
  expect_error([&] { max_pool2d(x, 2, -1); }, "stride should be greater than zero, but got dH: -1 dW: -1");
  expect_error([&] { max_pool2d(x, 2, 2, 2); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  expect_error([&] { max_pool2d(x, 2, 2, -1); }, "pad must be non-negative, but got pad: -1");
  expect_error([&] { max_pool2d(x, 2, 2, 0, 0); },
               "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
  expect_error(
      [] {
        max_pool2d(rand({1, 1, 2, 2}), 3);
      },
      "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
  expect_error<NotImplemented>(
      [] {
        max_pool2d(arange(16).view({1, 1, 4, 4}), 2);
      },
      "\"max_pool2d\" not implemented for 'Long'");
  expect_error([] { max_pool1d(rand({8}), 2); },
               "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
               "but got:[8]");
  expect_error(
      [] {
        max_pool1d(rand({1, 3, 8}), {2, 2});
      },
      "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size 2");
  expect_error(
      [] {
        max_pool1d(rand({1, 3, 8}), 2, 0);
      },
      "max_pool1d() stride must be greater than zero, but got 0");
  expect_error(
      [] {
        max_pool1d(rand({1, 3, 8}), 2, 2, 2);
      },
      "max_pool1d() padding should be at most half of kernel size, but got padding=2 and kernel_size=2");
  expect_error(
      [] {
        max_pool1d_with_indices(rand({1, 1, 4, 4}), 2);
      },
      "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking "
      "arguments for max_pool1d)");
  expect_error(
      [] {
        max_pool1d_with_indices(rand({1, 1, 4}), {2, 2});
      },
      "max_pool1d() argument 'kernel_size' should contain one int (got 2)");
  expect_error(
      [] {
        avg_pool2d(rand({2, 3}), 2);
      },
      "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  expect_error([&] { avg_pool2d(x, 2, 2, 0, false, true, 0); }, "divisor must be not zero");
  expect_error(
      [&] {
        avg_pool2d(x, 2, 2, {0, 0, 0});
      },
      "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  expect_error(
      [] {
        avg_pool2d(rand({1, 1, 1, 4, 4}), 2);
      },
      "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 1, 1, 4, "
      "4]");
  expect_error<NotImplemented>(
      [] {
        avg_pool2d(ones({1, 1, 4, 4}, kInt32), 2);
      },
      "\"avg_pool2d\" not implemented for 'Int'");
  expect_error(
      [] {
        adaptive_avg_pool2d(rand({2, 3}), {2, 2});
      },
      "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [2, 3]");
  expect_error(
      [&] {
        adaptive_avg_pool2d(x, {-1, 2});
      },
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, 2}");
  expect_error([&] { adaptive_avg_pool2d(x, {1, 2, 3}); }, "adaptive_avg_pool2d: output_size must be 2");
  expect_error(
      [] {
        adaptive_avg_pool2d(rand({1, 2, 0, 4}), {2, 2});
      },
      "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
      "sizes [1, 2, 0, 4] with dimension 2 being empty");
}

// ---- AvgPool1d, adaptive 1-D pooling, adaptive max, LP pooling, max unpooling, fractional max.

TEST_CASE("nn pooling: avg_pool1d and adaptive_avg_pool1d values, options and modules") {
  Tensor x = arange(8.0).view({1, 1, 8});
  expect_values(avg_pool1d(x, 3, 2, 1), {1 / 3.0, 2, 4, 6});
  expect_values(avg_pool1d(x, 3, 2, 1, false, false), {0.5, 2, 4, 6});
  // ceil_mode: the last window holds one element, and divides by it.
  expect_values(avg_pool1d(arange(5.0).view({1, 5}), 2, 2, 0, true), {0.5, 2.5, 4});
  CHECK(avg_pool1d(rand({2, 3, 9}), 2).sizes() == IntArrayRef({2, 3, 4}));
  CHECK(avg_pool1d(zeros({0, 3, 9}), 2).sizes() == IntArrayRef({0, 3, 4}));
  expect_values(F::avg_pool1d(x, F::AvgPool1dFuncOptions(4).stride(2).padding(2).count_include_pad(false)),
                {0.5, 1.5, 3.5, 5.5, 6.5});
  nn::AvgPool1d pool(nn::AvgPool1dOptions(3).stride(2).padding(1));
  CHECK(equal(pool(x), avg_pool1d(x, 3, 2, 1)));
  CHECK(printed(pool) == "ember::nn::AvgPool1d(kernel_size=3, stride=2, padding=1)");
  CHECK(printed(nn::AvgPool2d(3)) ==
        "ember::nn::AvgPool2d(kernel_size=[3, 3], stride=[3, 3], padding=[0, 0])");

  expect_values(adaptive_avg_pool1d(arange(5.0).view({1, 1, 5}), 3), {0.5, 2, 3.5});
  expect_values(adaptive_avg_pool1d(arange(2.0).view({1, 2}), 3), {0, 0.5, 1});
  expect_values(adaptive_avg_pool1d(arange(6.0).view({2, 3}), 1), {1, 4});
  CHECK(adaptive_avg_pool1d(zeros({0, 2, 7}), 3).sizes() == IntArrayRef({0, 2, 3}));
  nn::AdaptiveAvgPool1d ap(5);
  CHECK(ap(rand({2, 3, 11})).sizes() == IntArrayRef({2, 3, 5}));
  CHECK(printed(ap) == "ember::nn::AdaptiveAvgPool1d(output_size=5)");
  CHECK(equal(F::adaptive_avg_pool1d(x, F::AdaptiveAvgPool1dFuncOptions(3)), adaptive_avg_pool1d(x, 3)));
}

TEST_CASE("nn pooling: adaptive max pooling values, first-maximum indices, ties and gradients") {
  Tensor x = tensor({1.0, 3.0, 2.0, 5.0, 4.0}).view({1, 1, 5}).requires_grad_();
  auto [v, i] = adaptive_max_pool1d(x, 3);  // bins [0, 2), [1, 4), [3, 5)
  expect_values(v, {3, 5, 5});
  CHECK(dvalues(i) == std::vector<double>{1, 3, 3});
  CHECK(i.dtype() == kInt64);
  v.sum().backward();
  expect_values(x.grad(), {0, 1, 0, 2, 0});
  // Ties: the first maximum of each bin in row-major order gets the index and the gradient.
  CHECK(dvalues(std::get<1>(adaptive_max_pool1d(tensor({2.0, 2.0, 1.0, 2.0}).view({1, 4}), 2))) ==
        std::vector<double>{0, 3});
  Tensor t = ones({1, 1, 4, 4}).requires_grad_();
  auto [tv, ti] = adaptive_max_pool2d(t, {3, 3});
  CHECK(dvalues(ti) == std::vector<double>{0, 1, 2, 4, 5, 6, 8, 9, 10});
  tv.sum().backward();
  expect_values(t.grad(), {1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0});
  // Overlapping bins of 5 x 7 into 3 x 4: each bin's maximum is its bottom-right element.
  auto [mv, mi] = adaptive_max_pool2d(arange(35.0).view({1, 1, 5, 7}), {3, 4});
  expect_values(mv, {8, 10, 12, 13, 22, 24, 26, 27, 29, 31, 33, 34});
  CHECK(dvalues(mi) == dvalues(mv));
  // More bins than elements: bins of one or two elements.
  auto [uv, ui] = adaptive_max_pool2d(arange(4.0).view({1, 2, 2}), {3, 3});
  expect_values(uv, {0, 1, 1, 2, 3, 3, 2, 3, 3});
  CHECK(ui.sizes() == IntArrayRef({1, 3, 3}));
  // A bin with NaN takes its last NaN (libtorch's scan: '>' or isnan).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto [nv, ni] = adaptive_max_pool1d(tensor({nan, 1.0, nan, 3.0, 2.0, 7.0}).view({1, 1, 6}), 2);
  CHECK(dvalues(ni) == std::vector<double>{2, 5});
  CHECK(std::isnan(dvalues(nv)[0]));
  // A bin of -inf keeps its first position.
  CHECK(dvalues(std::get<1>(adaptive_max_pool2d(full({1, 3, 3}, -kInf), {2, 2}))) ==
        std::vector<double>{0, 1, 3, 4});
  // Batch sizes 0 and 1, a zero output size, None in F::, modules.
  Tensor empty = zeros({0, 2, 5, 5}).requires_grad_();
  auto [ev, ei] = adaptive_max_pool2d(empty, {2, 3});
  CHECK(ev.sizes() == IntArrayRef({0, 2, 2, 3}));
  CHECK(ei.sizes() == IntArrayRef({0, 2, 2, 3}));
  ev.sum().backward();
  CHECK(empty.grad().sizes() == IntArrayRef({0, 2, 5, 5}));
  CHECK(std::get<0>(adaptive_max_pool2d(rand({1, 2, 5, 5}), {0, 3})).sizes() == IntArrayRef({1, 2, 0, 3}));
  Tensor y = rand({1, 3, 6, 5});
  CHECK(F::adaptive_max_pool2d(y, F::AdaptiveMaxPool2dFuncOptions({std::nullopt, 2})).sizes() ==
        IntArrayRef({1, 3, 6, 2}));
  nn::AdaptiveMaxPool2d pool(nn::AdaptiveMaxPool2dOptions({3, std::nullopt}));
  CHECK(printed(pool) == "ember::nn::AdaptiveMaxPool2d(output_size=[3, None])");
  CHECK(equal(pool(y), std::get<0>(adaptive_max_pool2d(y, {3, 5}))));
  CHECK(equal(std::get<1>(pool->forward_with_indices(y)), std::get<1>(adaptive_max_pool2d(y, {3, 5}))));
  nn::AdaptiveMaxPool1d pool1(2);
  CHECK(printed(pool1) == "ember::nn::AdaptiveMaxPool1d(output_size=2)");
  CHECK(equal(std::get<1>(pool1->forward_with_indices(y[0])), std::get<1>(adaptive_max_pool1d(y[0], 2))));
  CHECK(equal(F::adaptive_max_pool1d(y[0], F::AdaptiveMaxPool1dFuncOptions(2)), pool1(y[0])));
}

TEST_CASE("nn pooling: LP pooling is libtorch's formula (ceil_mode scaling included)") {
  expect_values(F::lp_pool1d(tensor({3.0, 4.0, 1.0, 1.0}).view({1, 1, 4}), F::LPPool1dFuncOptions(2, 2)),
                {5, std::sqrt(2.0)});
  // p = 1 sums the window, negative sums included (sign(s) * relu(|s|) keeps the sign).
  expect_values(F::lp_pool2d(arange(16.0).view({1, 1, 4, 4}), F::LPPool2dFuncOptions(1, 2)),
                {10, 18, 42, 50});
  expect_values(F::lp_pool1d(tensor({-1.0, -2.0, 3.0, 1.0}).view({1, 4}), F::LPPool1dFuncOptions(1, 2)),
                {-3, 4});
  // The ceil_mode window of one element is averaged over one and scaled by the kernel's 2.
  const double r2 = std::sqrt(2.0);
  expect_values(F::lp_pool1d(ones({1, 1, 5}), F::LPPool1dFuncOptions(2, 2).ceil_mode(true)), {r2, r2, r2});
  expect_values(
      F::lp_pool2d(arange(1.0, 13.0).view({1, 3, 4}), F::LPPool2dFuncOptions(3, {3, 2}).stride({1, 2})),
      {std::cbrt(1 + 8 + 125 + 216 + 729 + 1000), std::cbrt(27 + 64 + 343 + 512 + 1331 + 1728)});
  nn::LPPool2d pool(nn::LPPool2dOptions(2, {3, 4}));
  CHECK(printed(pool) ==
        "ember::nn::LPPool2d(norm_type=2, kernel_size=[3, 4], stride=[3, 4], ceil_mode=false)");
  Tensor x = rand({2, 3, 7, 9});
  CHECK(allclose(pool(x), F::lp_pool2d(x, F::LPPool2dFuncOptions(2, {3, 4}))));
  nn::LPPool1d pool1(nn::LPPool1dOptions(1.5, 3).stride(2).ceil_mode(true));
  CHECK(printed(pool1) == "ember::nn::LPPool1d(norm_type=1.5, kernel_size=3, stride=2, ceil_mode=true)");
  CHECK(pool1(rand({3, 8})).sizes() == IntArrayRef({3, 4}));
  CHECK(pool1(zeros({0, 3, 8})).sizes() == IntArrayRef({0, 3, 4}));
}

TEST_CASE("nn pooling: max_unpool inverts max_pool (default and given output sizes, gradient)") {
  Tensor x = arange(16.0).view({1, 1, 4, 4});
  auto [v, i] = max_pool2d_with_indices(x, 2);
  Tensor leafv = v.detach().requires_grad_();
  Tensor u = F::max_unpool2d(leafv, i, F::MaxUnpool2dFuncOptions(2));
  expect_values(u, {0, 0, 0, 0, 0, 5, 0, 7, 0, 0, 0, 0, 0, 13, 0, 15});
  // The gradient of each value is the output's gradient at its index.
  u.backward(arange(16.0).view({1, 1, 4, 4}) * 10);
  expect_values(leafv.grad(), {50, 70, 130, 150});
  // output_size with N and C in front, within a stride of the default 4: the same flat
  // indices in a 5-wide plane.
  Tensor u5 =
      F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{1, 1, 5, 5}));
  CHECK(u5.sizes() == IntArrayRef({1, 1, 5, 5}));
  CHECK(dvalues(u5.flatten()[5]) == std::vector<double>{5});
  CHECK(dvalues(u5.flatten()[15]) == std::vector<double>{15});
  CHECK(equal(max_unpool2d(v, i, {5, 5}), u5));
  // Unbatched, batch 0, and the modules.
  nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(2));
  CHECK(equal(unpool(v[0], i[0]), u[0]));
  CHECK(unpool(zeros({0, 2, 2, 2}), zeros({0, 2, 2, 2}, kInt64)).sizes() == IntArrayRef({0, 2, 4, 4}));
  CHECK(printed(unpool) == "ember::nn::MaxUnpool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0])");
  Tensor s = tensor({1.0, 5.0, 2.0, 3.0, 4.0, 0.0}).view({1, 1, 6});
  auto [sv, si] = max_pool1d_with_indices(s, 2);
  nn::MaxUnpool1d unpool1(2);
  expect_values(unpool1(sv, si), {0, 5, 0, 3, 4, 0});
  expect_values(unpool1(sv[0], si[0]), {0, 5, 0, 3, 4, 0});
  CHECK(unpool1(sv, si, std::vector<int64_t>{7}).sizes() == IntArrayRef({1, 1, 7}));
  CHECK(printed(unpool1) == "ember::nn::MaxUnpool1d(kernel_size=2, stride=2, padding=0)");
  // Padding and stride: the default size is (L_in - 1) * stride + kernel - 2 * padding.
  auto [pv, pi] = max_pool1d_with_indices(arange(7.0).view({1, 7}), 3, 2, 1);
  expect_values(F::max_unpool1d(pv, pi, F::MaxUnpool1dFuncOptions(3).stride(2).padding(1)),
                {0, 1, 0, 3, 0, 5, 6});
  nn::AnyModule any(nn::MaxUnpool1d(2));
  CHECK(equal(any.forward(sv, si), unpool1(sv, si)));
}

TEST_CASE("nn pooling: fractional_max_pool2d windows from the samples, as libtorch's intervals") {
  Tensor x = arange(25.0).view({1, 1, 5, 5}).requires_grad_();
  // alpha = (5 - 2) / (3 - 1); u = 0.5: starts 0, int(2.25) - int(0.75) = 2, then 5 - 2 = 3.
  auto [v, i] = fractional_max_pool2d(x, {2, 2}, {3, 3}, full({1, 1, 2}, 0.5, x.dtype()));
  expect_values(v, {6, 8, 9, 16, 18, 19, 21, 23, 24});
  CHECK(dvalues(i) == dvalues(v));
  v.sum().backward();
  CHECK(x.grad().sum().item<double>() == 9);
  // u = 0: starts 0, 1, 3; a different (w, h) pair per plane.
  Tensor two = arange(50.0).view({2, 5, 5});
  Tensor samples = tensor({0.0, 0.0, 0.5, 0.0}).view({1, 2, 2}).to(two.dtype());
  auto [tv, ti] = fractional_max_pool2d(two, {2, 2}, {3, 3}, samples);
  expect_values(tv, {6, 7, 9, 11, 12, 14, 21, 22, 24, 31, 33, 34, 36, 38, 39, 46, 48, 49});
  // F:: draws rand({N, C, 2}) from the default generator when no samples are given.
  Tensor y = rand({2, 3, 9, 8});
  manual_seed(7);
  auto [fv, fi] =
      F::fractional_max_pool2d_with_indices(y, F::FractionalMaxPool2dFuncOptions(3).output_size(4));
  manual_seed(7);
  Tensor drawn = rand({2, 3, 2});
  CHECK(equal(fi, std::get<1>(fractional_max_pool2d(y, {3, 3}, {4, 4}, drawn))));
  CHECK(fv.sizes() == IntArrayRef({2, 3, 4, 4}));
  // output_ratio: int(9 * 0.5) x int(8 * 0.75).
  CHECK(F::fractional_max_pool2d(
            y, F::FractionalMaxPool2dFuncOptions(2).output_ratio(ExpandingArray<2, double>({0.5, 0.75})))
            .sizes() == IntArrayRef({2, 3, 4, 6}));
  // The module with fixed samples (a buffer), unbatched input, printing.
  nn::FractionalMaxPool2d pool(nn::FractionalMaxPool2dOptions(2).output_size(3)._random_samples(samples));
  CHECK(pool->named_buffers().contains("_random_samples"));
  CHECK(equal(pool(two), tv));
  CHECK(printed(pool) == "ember::nn::FractionalMaxPool2d()");
  auto copy = std::dynamic_pointer_cast<nn::FractionalMaxPool2dImpl>(pool->clone());
  REQUIRE(copy);
  CHECK(equal(copy->_random_samples, samples));
  CHECK(equal(std::get<1>(copy->forward_with_indices(two)), ti));
  CHECK(nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_ratio(0.5))(rand({1, 2, 8, 8}))
            .sizes() == IntArrayRef({1, 2, 4, 4}));
  CHECK(std::get<0>(fractional_max_pool2d(zeros({0, 2, 5, 5}), {2, 2}, {3, 3}, zeros({0, 2, 2}))).sizes() ==
        IntArrayRef({0, 2, 3, 3}));
}

TEST_CASE("nn pooling: gradcheck of the added pooling layers in float64") {
  CHECK(check([](const variable_list& v) { return avg_pool1d(v[0], 3, 2, 1, true, false); },
              {leaf({2, 3, 8})}));
  CHECK(check([](const variable_list& v) { return adaptive_avg_pool1d(v[0], 4); }, {leaf({3, 7})}));
  CHECK(check([](const variable_list& v) { return std::get<0>(adaptive_max_pool1d(v[0], 3)); },
              {leaf({2, 2, 7})}));
  CHECK(check(
      [](const variable_list& v) {
        return std::get<0>(adaptive_max_pool2d(v[0], {3, 4}));
      },
      {leaf({2, 2, 5, 7})}));
  CHECK(check(
      [](const variable_list& v) {
        return std::get<0>(adaptive_max_pool2d(v[0], {4, 5}));
      },
      {leaf({3, 3, 3})}));
  CHECK(
      check([](const variable_list& v) { return F::lp_pool1d(v[0], F::LPPool1dFuncOptions(2, 3).stride(2)); },
            {leaf({2, 2, 9})}));
  CHECK(check(
      [](const variable_list& v) {
        return F::lp_pool2d(v[0], F::LPPool2dFuncOptions(3, {2, 3}).ceil_mode(true));
      },
      {leaf({1, 2, 5, 7})}));
  Tensor idx = std::get<1>(max_pool2d_with_indices(rand({2, 3, 6, 6}), 2));
  CHECK(check([&](const variable_list& v) { return max_unpool2d(v[0], idx, {6, 6}); }, {leaf({2, 3, 3, 3})}));
  // Windows that do not overlap: no index twice (whose forward keeps one value only).
  Tensor idx1 = std::get<1>(max_pool1d_with_indices(rand({2, 9}), 3));
  CHECK(
      check([&](const variable_list& v) { return F::max_unpool1d(v[0], idx1, F::MaxUnpool1dFuncOptions(3)); },
            {leaf({2, 3})}));
  Tensor samples = rand({2, 2, 2}, kDouble);
  CHECK(check(
      [&](const variable_list& v) {
        return std::get<0>(fractional_max_pool2d(v[0], {2, 2}, {3, 4}, samples));
      },
      {leaf({2, 2, 6, 7})}));
}

TEST_CASE("nn pooling: libtorch's errors for the added pooling layers") {
  expect_error(
      [] { avg_pool1d(rand({8}), 2); },
      "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while checking "
      "arguments for avg_pool1d)");
  expect_error(
      [] {
        avg_pool1d(rand({1, 8}), {2, 2});
      },
      "avg_pool1d() argument 'kernel_size' should contain one int (got 2)");
  expect_error(
      [] {
        avg_pool1d(rand({1, 1, 2}), 3);
      },
      "Given input size: (1x1x2). Calculated output size: (1x1x0). Output size is too small");
  expect_error(
      [] {
        adaptive_avg_pool1d(rand({1, 1, 1, 8}), 2);
      },
      "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking "
      "arguments for adaptive_avg_pool1d)");
  expect_error(
      [] {
        adaptive_max_pool1d(rand({1, 8}), {2, 2});
      },
      "adaptive_max_pool1d() argument 'output_size' should contain one int (got 2)");
  expect_error(
      [] {
        adaptive_max_pool1d(rand({1, 2, 0}), 2);
      },
      "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
      "sizes [1, 2, 1, 0] with dimension 3 being empty");
  expect_error(
      [] {
        adaptive_max_pool2d(rand({4, 4}), {2, 2});
      },
      "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4, 4]");
  expect_error(
      [] {
        adaptive_max_pool2d(rand({1, 0, 4, 4}), {2, 2});
      },
      "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
      "sizes [1, 0, 4, 4] with dimension 1 being empty");
  expect_error<NotImplemented>(
      [] {
        adaptive_max_pool2d(ones({1, 4, 4}, kInt64), {2, 2});
      },
      "\"adaptive_max_pool2d\" not implemented for 'Long'");
  Tensor v = rand({1, 1, 2, 2});
  Tensor i = zeros({1, 1, 2, 2}, kInt64);
  expect_error(
      [&] {
        max_unpool2d(v, i.to(kFloat), {4, 4});
      },
      "elements in indices should be type int64 but got: Float");
  expect_error(
      [&] {
        max_unpool2d(v, i, {4, 4, 4});
      },
      "There should be exactly two elements (height, width) in output_size, but got 3 elements.");
  expect_error(
      [&] {
        max_unpool2d(v[0][0], i[0][0], {4, 4});
      },
      "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with 2 dimensions.");
  expect_error(
      [&] {
        max_unpool2d(v, i[0], {4, 4});
      },
      "Expected shape of indices to be same as that of the input tensor ([1, 1, 2, 2]) but got indices "
      "tensor with shape: [1, 2, 2]");
  expect_error(
      [&] {
        max_unpool2d(v, i + 16, {4, 4});
      },
      "Found an invalid max index: 16 (output volumes are of size 4x4");
  expect_error(
      [&] {
        F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{7, 7}));
      },
      "invalid output_size 7 7 (dim 0 must be between 2 and 6)");
  expect_error(
      [&] {
        F::max_unpool2d(v, i, F::MaxUnpool2dFuncOptions(2).output_size(std::vector<int64_t>{4, 4, 4}));
      },
      "output_size should be a sequence containing 2 or 4 elements, but it has a length of '3'");
  Tensor f = rand({1, 1, 5, 5});
  expect_error(
      [&] {
        fractional_max_pool2d(f, {2, 2}, {5, 5}, rand({1, 1, 2}));
      },
      "fractional_max_pool2d(): pool height 2 too large relative to input height 5");
  expect_error(
      [&] {
        fractional_max_pool2d(f, {1, 3}, {5, 4}, rand({1, 1, 2}));
      },
      "fractional_max_pool2d(): pool width 3 too large relative to input width 5");
  expect_error(
      [&] {
        fractional_max_pool2d(rand({5, 5}), {2, 2}, {3, 3}, rand({1, 1, 2}));
      },
      "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [5, 5]");
  expect_error([&] { F::fractional_max_pool2d(f, F::FractionalMaxPool2dFuncOptions(2)); },
               "fractional_max_pool2d requires specifying either an output_size or an output_ratio");
  expect_error([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2)); },
               "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio");
  expect_error(
      [] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_size(3).output_ratio(0.5)); },
      "only one of output_size and output_ratio may be specified");
  expect_error([] { nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(2).output_ratio(1.5)); },
               "output_ratio must be between 0 and 1 (got [1.5, 1.5])");
}
