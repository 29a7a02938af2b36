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
using nn_test::printed;

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-4);
}

template <class E = InvalidArgument>
void expect_error(const std::function<void()>& f, const std::string& text) {
  CHECK_THROWS_AS(f(), E);
  CHECK_THROWS_WITH(f(), Equals(text));
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
