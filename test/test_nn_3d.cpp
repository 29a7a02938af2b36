// The 3-D layers: conv3d, conv_transpose3d, max / avg / adaptive / fractional pooling and max
// unpooling on hand-checkable inputs (the numbers libtorch 1.13 gives for the same calls),
// gradcheck in float64 of every differentiable input, double backward, batch sizes 1 and 0,
// strided inputs, modules (parameters, `transposed`, printing) and libtorch's error texts.

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
namespace F = ember::nn::functional;

namespace {

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }

// 0, 1, ..., 26 as a (1, 1, 3, 3, 3) volume: the element at (d, h, w) is 9 d + 3 h + w.
Tensor cube() { return arange(27, kDouble).view({1, 1, 3, 3, 3}); }

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-9);
}

void expect_ints(const Tensor& got, const std::vector<int64_t>& want) {
  REQUIRE(got.dtype() == kInt64);
  REQUIRE(got.numel() == int64_t(want.size()));
  const Tensor c = got.contiguous();
  for (size_t i = 0; i < want.size(); ++i) CHECK(c.data_ptr<int64_t>()[i] == want[i]);
}

// A Conv3d whose reset() ran with `transposed` set.
struct TransposedConv3d : nn::Conv3dImpl {
  explicit TransposedConv3d(const nn::Conv3dOptions& o) : nn::Conv3dImpl(o) {
    options.transposed(true);
    parameters_.clear();
    reset();
  }
};

// The gradient of sum(f(v)^2) with respect to v[0], itself differentiable (create_graph).
std::function<Tensor(const variable_list&)> grad_of(std::function<Tensor(const variable_list&)> f) {
  return [f](const variable_list& v) {
    Tensor y = f(v);
    return autograd::grad({(y * y).sum()}, {v[0]}, {}, true, true)[0];
  };
}

}  // namespace

TEST_CASE("nn 3d: conv3d values with stride, padding, dilation, groups, bias and padding modes") {
  const Tensor x = cube(), w = ones({1, 1, 2, 2, 2}, kDouble);
  // Each 2x2x2 window sums to 8 (its corner's value) + 52.
  expect_values(conv3d(x, w), {52, 60, 76, 84, 124, 132, 148, 156});
  expect_values(conv3d(x, w, tensor({1.5}, kDouble)), {53.5, 61.5, 77.5, 85.5, 125.5, 133.5, 149.5, 157.5});
  // Padding 1, stride 2: windows over {0} or {1, 2} along each dim.
  expect_values(conv3d(x, w, {}, 2, 1), {0, 3, 9, 24, 27, 60, 72, 156});
  expect_values(conv3d(x, w, {}, 1, 0, 2), {104});  // the eight corners
  expect_values(conv3d(x, w, {}, {2, 1, 1}, {0, 0, 0}, {1, 2, 2}), {68});
  expect_values(F::conv3d(x, w, F::Conv3dFuncOptions().stride(2).padding(1)), {0, 3, 9, 24, 27, 60, 72, 156});
  CHECK(conv3d(x, w, {}, 1, "same").sizes() == IntArrayRef({1, 1, 3, 3, 3}));
  CHECK(F::conv3d(x, w, F::Conv3dFuncOptions().padding(kSame)).sizes() == IntArrayRef({1, 1, 3, 3, 3}));
  // "same" with an even kernel: the extra zero goes after; the first output is the corner cube.
  CHECK(conv3d(x, w, {}, 1, "same")[0][0][0][0][0].item<double>() == 52);
  expect_values(conv3d(x, w, {}, 1, "valid"), {52, 60, 76, 84, 124, 132, 148, 156});
  // Unbatched (C, D, H, W) in and out; batch 0.
  CHECK(conv3d(x[0], w).sizes() == IntArrayRef({1, 2, 2, 2}));
  CHECK(conv3d(zeros({0, 1, 3, 3, 3}, kDouble), w).sizes() == IntArrayRef({0, 1, 2, 2, 2}));
  // Groups: each of two channels by its own 1x1x1 filter.
  const Tensor two = cat({ones({1, 1, 1, 1, 2}, kDouble), full({1, 1, 1, 1, 2}, 2.0, kDouble)}, 1);
  expect_values(conv3d(two, tensor({3.0, 5.0}, kDouble).view({2, 1, 1, 1, 1}), {}, 1, 0, 1, 2),
                {3, 3, 10, 10});
  // A strided (permuted) input gives the contiguous one's values.
  const Tensor perm = cube().permute({0, 1, 4, 3, 2}).contiguous().permute({0, 1, 4, 3, 2});
  CHECK_FALSE(perm.is_contiguous());
  CHECK(allclose(conv3d(perm, w), conv3d(x, w)));
  // Integers convolve exactly.
  expect_values(conv3d(arange(27).view({1, 1, 3, 3, 3}), ones({1, 1, 2, 2, 2}, kInt64)).to(kDouble),
                {52, 60, 76, 84, 124, 132, 148, 156});
  // Module padding modes: circular padding of 1 on a 2x2x2 volume of ones with a 3x3x3 kernel of
  // ones sums 27 ones per output.
  nn::Conv3d conv(nn::Conv3dOptions(1, 1, 3).padding(1).bias(false).padding_mode(kCircular));
  {
    NoGradGuard no_grad;
    conv->weight.fill_(1);
  }
  expect_values(conv(ones({1, 1, 2, 2, 2})), {27, 27, 27, 27, 27, 27, 27, 27});
  conv->options.padding_mode(kZeros);
  expect_values(conv(ones({1, 1, 2, 2, 2})), {8, 8, 8, 8, 8, 8, 8, 8});
  conv->options.padding_mode(kReplicate);
  expect_values(conv(ones({1, 1, 2, 2, 2})), {27, 27, 27, 27, 27, 27, 27, 27});
  conv->options.padding_mode(kReflect);
  CHECK(conv(arange(27, kFloat).view({1, 1, 3, 3, 3})).sizes() == IntArrayRef({1, 1, 3, 3, 3}));
}

TEST_CASE("nn 3d: conv_transpose3d values with stride, padding, output_padding, groups and dilation") {
  const Tensor x = ones({1, 1, 2, 2, 2}, kDouble), w = ones({1, 1, 2, 2, 2}, kDouble);
  // Each output counts the windows over it: 1, 2, 1 along each dim.
  const Tensor y = conv_transpose3d(x, w);
  CHECK(y.sizes() == IntArrayRef({1, 1, 3, 3, 3}));
  CHECK(y[0][0][1][1][1].item<double>() == 8);
  CHECK(y[0][0][0][0][0].item<double>() == 1);
  CHECK(y[0][0][0][1][2].item<double>() == 2);
  CHECK(y.sum().item<double>() == 64);
  // Stride 2: windows side by side; output_padding adds a zero row, padding crops the border.
  expect_values(conv_transpose3d(x, w, {}, 2).sum(), {64});
  const Tensor op = conv_transpose3d(x, w, tensor({0.5}, kDouble), 2, 0, {1, 0, 0});
  CHECK(op.sizes() == IntArrayRef({1, 1, 5, 4, 4}));
  expect_values(op[0][0][4].sum(), {8});  // the added plane holds the bias only
  CHECK(conv_transpose3d(x, w, {}, 2, 1).sizes() == IntArrayRef({1, 1, 2, 2, 2}));
  expect_values(conv_transpose3d(x, w, {}, 2, 1), {1, 1, 1, 1, 1, 1, 1, 1});
  // Dilation 2: the kernel's taps land two apart.
  CHECK(conv_transpose3d(x, w, {}, 1, 0, 0, 1, 2).sizes() == IntArrayRef({1, 1, 4, 4, 4}));
  // Groups: channel c by its own filter.
  const Tensor two = ones({1, 2, 1, 1, 1}, kDouble);
  expect_values(conv_transpose3d(two, tensor({3.0, 5.0}, kDouble).view({2, 1, 1, 1, 1}), {}, 1, 0, 0, 2),
                {3, 5});
  expect_values(F::conv_transpose3d(x, w, F::ConvTranspose3dFuncOptions().stride(2).padding(1)),
                {1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(conv_transpose3d(x[0], w).sizes() == IntArrayRef({1, 3, 3, 3}));
  CHECK(conv_transpose3d(zeros({0, 1, 2, 2, 2}, kDouble), w).sizes() == IntArrayRef({0, 1, 3, 3, 3}));
  // The adjoint of conv3d: <conv3d(a, w), b> = <a, conv_transpose3d(b, w)>.
  const Tensor a = rand({1, 2, 4, 3, 5}, kDouble), k = rand({3, 2, 2, 2, 3}, kDouble);
  const Tensor c = conv3d(a, k, {}, {2, 1, 1}, 1), b = rand(c.sizes(), kDouble);
  const Tensor back = conv_transpose3d(b, k, {}, {2, 1, 1}, 1);
  REQUIRE(back.sizes() == a.sizes());
  CHECK((c * b).sum().item<double>() == Approx((a * back).sum().item<double>()).epsilon(1e-12));
  // Module with output_size.
  nn::ConvTranspose3d m(nn::ConvTranspose3dOptions(1, 2, 2).stride(2));
  CHECK(m->weight.sizes() == IntArrayRef({1, 2, 2, 2, 2}));
  CHECK(m->forward(x.to(kFloat), IntArrayRef({5, 4, 5})).sizes() == IntArrayRef({1, 2, 5, 4, 5}));
  CHECK(m->forward(x.to(kFloat), IntArrayRef({1, 2, 4, 4, 5})).sizes() == IntArrayRef({1, 2, 4, 4, 5}));
}

TEST_CASE("nn 3d: gradcheck of conv3d and conv_transpose3d, and double backward") {
  CHECK(check([](const variable_list& v) { return conv3d(v[0], v[1], v[2]); },
              {leaf({1, 2, 3, 3, 3}), leaf({2, 2, 2, 2, 2}), leaf({2})}));
  CHECK(check(
      [](const variable_list& v) {
        return conv3d(v[0], v[1], v[2], {2, 1, 1}, {1, 0, 1}, {1, 2, 1});
      },
      {leaf({2, 2, 3, 4, 3}), leaf({2, 2, 2, 2, 2}), leaf({2})}));
  CHECK(check([](const variable_list& v) { return conv3d(v[0], v[1], {}, 1, 0, 1, 2); },
              {leaf({1, 4, 2, 3, 2}), leaf({2, 2, 1, 2, 2})}));
  CHECK(check([](const variable_list& v) { return conv3d(v[0], v[1], {}, 1, "same"); },
              {leaf({2, 3, 3, 2}), leaf({1, 2, 2, 2, 2})}));
  CHECK(check([](const variable_list& v) { return conv3d(v[0].transpose(2, 4), v[1], v[2]); },
              {leaf({1, 2, 3, 2, 3}), leaf({1, 2, 2, 2, 2}), leaf({1})}));
  CHECK(check(
      [](const variable_list& v) {
        return conv_transpose3d(v[0], v[1], v[2], 2, 1, {1, 0, 1});
      },
      {leaf({1, 2, 2, 2, 2}), leaf({2, 1, 2, 2, 2}), leaf({1})}));
  CHECK(check([](const variable_list& v) { return conv_transpose3d(v[0], v[1], v[2], 1, 0, 0, 2, 2); },
              {leaf({2, 2, 2, 1, 2}), leaf({2, 1, 2, 2, 1}), leaf({2})}));
  // Second derivatives: the input's gradient, differentiated again in input and weight.
  CHECK(check(grad_of([](const variable_list& v) {
                return conv3d(v[0], v[1], {}, 2, 1, {1, 1, 2});
              }),
              {leaf({1, 2, 3, 3, 4}), leaf({2, 2, 2, 2, 2})}));
  CHECK(check(grad_of([](const variable_list& v) { return conv_transpose3d(v[0], v[1], {}, 2, 0, 1); }),
              {leaf({1, 1, 2, 2, 2}), leaf({1, 2, 2, 1, 2})}));
  CHECK(check(
      grad_of([](const variable_list& v) { return max_pool3d(v[0], 2, 1, 1) * avg_pool3d(v[0], 2, 1, 1); }),
      {leaf({1, 1, 3, 3, 2})}));
}

TEST_CASE("nn 3d: Conv3d and ConvTranspose3d modules: parameters, transposed, printing") {
  nn::Conv3d conv(nn::Conv3dOptions(2, 4, {1, 2, 3})
                      .stride(2)
                      .padding(1)
                      .dilation(2)
                      .groups(2)
                      .bias(false)
                      .padding_mode(kCircular));
  CHECK(conv->weight.sizes() == IntArrayRef({4, 1, 1, 2, 3}));
  CHECK_FALSE(conv->bias.defined());
  CHECK(printed(conv) ==
        "ember::nn::Conv3d(2, 4, kernel_size=[1, 2, 3], stride=[2, 2, 2], padding=[1, 1, 1], dilation=[2, 2, "
        "2], "
        "groups=2, bias=false, padding_mode=kCircular)");
  // libtorch's ConvNdOptions: not transposed by default; transposed(true) makes reset()
  // register the weight as (C_in, C_out / groups, k...); output_padding prints when set.
  nn::Conv3d plain(2, 6, 2);
  CHECK_FALSE(plain->options.transposed());
  CHECK(plain->weight.sizes() == IntArrayRef({6, 2, 2, 2, 2}));
  CHECK(plain->bias.sizes() == IntArrayRef({6}));
  // reset() with transposed set (libtorch's ConvNdImpl built from ConvNdOptions).
  TransposedConv3d flipped(nn::Conv3dOptions(2, 6, 2).groups(2));
  CHECK(flipped.weight.sizes() == IntArrayRef({2, 3, 2, 2, 2}));
  CHECK(flipped.named_parameters().size() == 2);
  flipped.options.output_padding(1);
  CHECK(
      printed(flipped) ==
      "ember::nn::Conv3d(2, 6, kernel_size=[2, 2, 2], stride=[1, 1, 1], output_padding=[1, 1, 1], groups=2)");
  nn::ConvTranspose3d t(nn::ConvTranspose3dOptions(2, 4, {1, 2, 3})
                            .stride(2)
                            .padding(1)
                            .output_padding(1)
                            .dilation(2)
                            .groups(2)
                            .bias(false));
  CHECK(t->weight.sizes() == IntArrayRef({2, 2, 1, 2, 3}));
  CHECK(t->options.transposed());
  CHECK(printed(t) ==
        "ember::nn::ConvTranspose3d(2, 4, kernel_size=[1, 2, 3], stride=[2, 2, 2], padding=[1, 1, 1], "
        "dilation=[2, "
        "2, 2], output_padding=[1, 1, 1], groups=2, bias=false)");
  // Batch 1 and unbatched forwards agree.
  nn::Conv3d c(2, 3, 2);
  const Tensor x = rand({2, 3, 3, 3});
  CHECK(allclose(c(x), c(x.unsqueeze(0))[0]));
  const auto cloned = std::dynamic_pointer_cast<nn::Conv3dImpl>(c->clone());
  REQUIRE(cloned);
  CHECK(allclose(cloned->forward(x), c(x)));
}

TEST_CASE("nn 3d: max_pool3d and avg_pool3d values, indices, options and batch sizes") {
  const Tensor x = cube();
  auto [v, i] = max_pool3d_with_indices(x, 2, 1);
  expect_values(v, {13, 14, 16, 17, 22, 23, 25, 26});
  expect_ints(i, {13, 14, 16, 17, 22, 23, 25, 26});
  // Padding 1, stride 2: the maxima of {0} or {1, 2} along each dim.
  std::tie(v, i) = max_pool3d_with_indices(x, 2, 2, 1);
  expect_values(v, {0, 2, 6, 8, 18, 20, 24, 26});
  expect_ints(i, {0, 2, 6, 8, 18, 20, 24, 26});
  expect_values(max_pool3d(x, 2, 1, 0, 2), {26});  // dilation 2: the corners
  CHECK(max_pool3d(x, 2, 2, 0, 1, true).sizes() == IntArrayRef({1, 1, 2, 2, 2}));
  expect_values(max_pool3d(x, 2, 2, 0, 1, true), {13, 14, 16, 17, 22, 23, 25, 26});
  // Ties: the first maximum, as libtorch's scan.
  std::tie(v, i) = max_pool3d_with_indices(ones({1, 1, 2, 2, 2}), 2);
  expect_ints(i, {0});
  CHECK(max_pool3d(x[0], 3).sizes() == IntArrayRef({1, 1, 1, 1}));
  CHECK(max_pool3d(zeros({0, 2, 3, 3, 3}), 2).sizes() == IntArrayRef({0, 2, 1, 1, 1}));
  expect_values(F::max_pool3d(x, F::MaxPool3dFuncOptions(2).stride(2).padding(1)),
                {0, 2, 6, 8, 18, 20, 24, 26});
  std::tie(v, i) = nn::MaxPool3d(nn::MaxPool3dOptions(3))->forward_with_indices(x);
  expect_ints(i, {26});
  // avg: a 2x2x2 window's mean is its corner + 6.5.
  expect_values(avg_pool3d(x, 2, 1), {6.5, 7.5, 9.5, 10.5, 15.5, 16.5, 18.5, 19.5});
  expect_values(avg_pool3d(x, 2, 2, 1), {0, 3. / 8, 9. / 8, 3, 27. / 8, 60. / 8, 9, 156. / 8});
  expect_values(avg_pool3d(x, 2, 2, 1, false, false), {0, 1.5, 4.5, 6, 13.5, 15, 18, 19.5});
  expect_values(avg_pool3d(x, 2, 2, 1, false, true, 2), {0, 1.5, 4.5, 12, 13.5, 30, 36, 78});
  // ceil_mode: windows {0, 1} and {2} along each dim, each divided by its own size.
  expect_values(avg_pool3d(x, 2, 2, 0, true), {6.5, 8, 11, 12.5, 20, 21.5, 24.5, 26});
  expect_values(F::avg_pool3d(x, F::AvgPool3dFuncOptions(3)), {13});
  expect_values(nn::AvgPool3d(nn::AvgPool3dOptions(3).divisor_override(1))(x), {351});
  // int64 divides with truncation.
  expect_ints(avg_pool3d(arange(8).view({1, 1, 2, 2, 2}), 2), {3});
  CHECK(avg_pool3d(zeros({0, 1, 2, 2, 2}), 2).sizes() == IntArrayRef({0, 1, 1, 1, 1}));
  CHECK(avg_pool3d(x[0], 2).sizes() == IntArrayRef({1, 1, 1, 1}));
  CHECK(
      printed(nn::MaxPool3d(2)) ==
      "ember::nn::MaxPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0], dilation=[1, 1, 1], "
      "ceil_mode=false)");
  CHECK(printed(nn::AvgPool3d(2)) ==
        "ember::nn::AvgPool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0])");
}

TEST_CASE("nn 3d: adaptive pooling, max unpooling and fractional max pooling values") {
  const Tensor x = cube();
  // Bins [0, 2) and [1, 3) along each dim: the 2x2x2 windows.
  expect_values(adaptive_avg_pool3d(x, {2, 2, 2}), {6.5, 7.5, 9.5, 10.5, 15.5, 16.5, 18.5, 19.5});
  expect_values(adaptive_avg_pool3d(x, {1, 1, 1}), {13});
  expect_values(adaptive_avg_pool3d(x, {1, 3, 1}), {10, 13, 16});
  auto [v, i] = adaptive_max_pool3d(x, {2, 2, 2});
  expect_values(v, {13, 14, 16, 17, 22, 23, 25, 26});
  expect_ints(i, {13, 14, 16, 17, 22, 23, 25, 26});
  std::tie(v, i) = adaptive_max_pool3d(x, {1, 1, 3});
  expect_ints(i, {24, 25, 26});
  CHECK(F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions({2, std::nullopt, 1})).sizes() ==
        IntArrayRef({1, 1, 2, 3, 1}));
  CHECK(nn::AdaptiveMaxPool3d(nn::AdaptiveMaxPool3dOptions({std::nullopt, 1, 2}))(x).sizes() ==
        IntArrayRef({1, 1, 3, 1, 2}));
  CHECK(adaptive_avg_pool3d(zeros({0, 2, 3, 3, 3}), {2, 2, 2}).sizes() == IntArrayRef({0, 2, 2, 2, 2}));
  CHECK(std::get<0>(adaptive_max_pool3d(x[0], {2, 1, 2})).sizes() == IntArrayRef({1, 2, 1, 2}));
  CHECK(printed(nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({2, std::nullopt, 3}))) ==
        "ember::nn::AdaptiveAvgPool3d(output_size=[2, None, 3])");
  // Max unpooling puts each maximum back at its index.
  const Tensor e = arange(8, kDouble).view({1, 1, 2, 2, 2});
  std::tie(v, i) = max_pool3d_with_indices(e, 2);
  expect_values(max_unpool3d(v, i, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}), {0, 0, 0, 0, 0, 0, 0, 7});
  expect_values(nn::MaxUnpool3d(2)(v, i), {0, 0, 0, 0, 0, 0, 0, 7});
  CHECK(F::max_unpool3d(v, i, F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{1, 1, 3, 2, 2}))
            .sizes() == IntArrayRef({1, 1, 3, 2, 2}));
  CHECK(max_unpool3d(v[0], i[0], {2, 2, 2}, {2, 2, 2}, {0, 0, 0}).sizes() == IntArrayRef({1, 2, 2, 2}));
  CHECK(printed(nn::MaxUnpool3d(2)) ==
        "ember::nn::MaxUnpool3d(kernel_size=[2, 2, 2], stride=[2, 2, 2], padding=[0, 0, 0])");
  // Fractional: two windows of 2 over 4 start at 0 and 2 (any sample): max_pool3d(2)'s.
  const Tensor samples = full({1, 1, 3}, 0.7, kDouble), big = arange(64, kDouble).view({1, 1, 4, 4, 4});
  std::tie(v, i) = fractional_max_pool3d(big, {2, 2, 2}, {2, 2, 2}, samples);
  expect_values(v, {21, 23, 29, 31, 53, 55, 61, 63});
  expect_ints(i, {21, 23, 29, 31, 53, 55, 61, 63});
  // One output per dim: the window at in - pool.
  std::tie(v, i) = fractional_max_pool3d(x, {1, 2, 1}, {1, 1, 1}, samples);
  expect_ints(i, {26});
  nn::FractionalMaxPool3d fm(nn::FractionalMaxPool3dOptions(2).output_size(2)._random_samples(samples));
  expect_values(fm(big), {21, 23, 29, 31, 53, 55, 61, 63});
  CHECK(printed(fm) == "ember::nn::FractionalMaxPool3d()");
  CHECK(F::fractional_max_pool3d(rand({2, 2, 5, 5, 5}, kDouble),
                                 F::FractionalMaxPool3dFuncOptions(2).output_ratio(0.5))
            .sizes() == IntArrayRef({2, 2, 2, 2, 2}));
}

TEST_CASE("nn 3d: gradcheck of the 3-D pooling layers in float64") {
  CHECK(check([](const variable_list& v) { return max_pool3d(v[0], 2, 1, 1); }, {leaf({1, 2, 3, 3, 3})}));
  CHECK(check(
      [](const variable_list& v) {
        return max_pool3d(v[0], {2, 1, 2}, 2, 0, {1, 1, 2}, true);
      },
      {leaf({2, 1, 3, 2, 5})}));
  CHECK(check([](const variable_list& v) { return avg_pool3d(v[0], 2, 2, 1, true, false); },
              {leaf({1, 2, 3, 4, 3})}));
  CHECK(check(
      [](const variable_list& v) {
        return avg_pool3d(v[0], {3, 2, 2}, 1, {1, 0, 1}, false, true, 5);
      },
      {leaf({2, 3, 2, 3})}));
  CHECK(check(
      [](const variable_list& v) {
        return adaptive_avg_pool3d(v[0], {2, 3, 2});
      },
      {leaf({1, 2, 3, 4, 3})}));
  CHECK(check(
      [](const variable_list& v) {
        return std::get<0>(adaptive_max_pool3d(v[0], {2, 2, 3}));
      },
      {leaf({1, 1, 3, 3, 4})}));
  const Tensor samples = rand({1, 2, 3}, kDouble);
  CHECK(check(
      [&](const variable_list& v) {
        return std::get<0>(fractional_max_pool3d(v[0], {2, 2, 2}, {2, 3, 2}, samples));
      },
      {leaf({1, 2, 4, 5, 4})}));
  const auto [pv, pi] = max_pool3d_with_indices(rand({1, 2, 4, 4, 4}, kDouble), 2);
  CHECK(check(
      [&, pi = pi](const variable_list& v) {  // clang 14 cannot capture a structured binding by [&]
        return max_unpool3d(v[0], pi, {4, 4, 4}, {2, 2, 2}, {0, 0, 0});
      },
      {pv.detach().requires_grad_()}));
}

TEST_CASE("nn 3d: libtorch's errors for bad shapes and options, inputs unchanged") {
  const Tensor x = rand({1, 2, 5, 5, 5}), w = rand({4, 2, 3, 3, 3});
  expect_error(
      [&] {
        conv3d(rand({5, 5, 5}), w);
      },
      "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [5, 5, 5]");
  expect_error(
      [&] {
        conv3d(rand({1, 3, 5, 5, 5}), w);
      },
      "Given groups=1, weight of size [4, 2, 3, 3, 3], expected input[1, 3, 5, 5, 5] to have 2 channels, "
      "but got 3 channels instead");
  expect_error(
      [&] { conv3d(x, w, {}, 1, 0, 1, 3); },
      "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [[4, 2, "
      "3, 3, 3]] instead",
      x);
  expect_error(
      [&] {
        conv3d(x, rand({4, 2, 7, 3, 3}));
      },
      "Calculated padded input size per channel: (5 x 5 x 5). Kernel size: (7 x 3 x 3). Kernel size can't "
      "be greater than actual input size");
  expect_error<NotImplemented>([&] { conv3d(x.to(kBool), w.to(kBool)); },
                               "\"compute_columns3d\" not implemented for 'Bool'");
  expect_error([&] { conv3d(x, w, {}, 2, "same"); },
               "padding='same' is not supported for strided convolutions");
  expect_error(
      [&] {
        conv3d(x, w, {}, {1, 1}, 0);
      },
      "expected stride to be a single integer value or a list of 3 values to match the convolution "
      "dimensions, but got stride=[1, 1]");
  expect_error([&] { nn::Conv3d(nn::Conv3dOptions(3, 4, 2).groups(2)); },
               "in_channels must be divisible by groups");
  const Tensor x4 = rand({1, 4, 2, 2, 2});
  expect_error(
      [&] {
        conv_transpose3d(rand({1, 3, 5, 5, 5}), w);
      },
      "Given transposed=1, weight of size [4, 2, 3, 3, 3], expected input[1, 3, 5, 5, 5] to have 4 "
      "channels, but got 3 channels instead");
  expect_error(
      [&] { conv_transpose3d(x4, w, {}, 1, 0, 2); },
      "output padding must be smaller than either stride or dilation, but got output_padding_depth: 2 "
      "output_padding_height: 2 output_padding_width: 2 stride_depth: 1 stride_height: 1 stride_width: 1 "
      "dilation_depth: 1 dilation_height: 1 dilation_width: 1");
  expect_error(
      [&] { conv_transpose3d(x4, w, {}, 1, 3); },
      "Given input size per channel: (2 x 2 x 2). Calculated output size per channel: (-2 x -2 x -2). "
      "Output size is too small");
  expect_error([&] { conv_transpose3d(x4, w, {}, 1, 0, 0, 1, 0); },
               "dilation should be greater than zero, but got dilation_depth: 0, dilation_height: 0, "
               "dilation_width: 0");
  expect_error<NotImplemented>([&] { conv_transpose3d(x4.to(kInt32), w.to(kInt32)); },
                               "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Int'");
  expect_error([&] { nn::ConvTranspose3d(nn::ConvTranspose3dOptions(2, 4, 2).padding_mode(kReflect))(x); },
               "Only `zeros` padding mode is supported for ConvTranspose3d");
  expect_error(
      [&] {
        max_pool3d(rand({2, 5, 5}), 2);
      },
      "non-empty 4D or 5D (batch mode) tensor expected for input");
  expect_error([&] { max_pool3d(x, 7); },
               "Given input size: (2x5x5x5). Calculated output size: (2x0x0x0). Output size is too small", x);
  expect_error(
      [&] {
        max_pool3d(x, {2, 2});
      },
      "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  expect_error(
      [&] {
        max_pool3d(rand({1, 0, 5, 5, 5}), 2);
      },
      "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive "
      "length, but input has a shape of [1, 0, 5, 5, 5] and non-batch dimension 0 has length zero!");
  expect_error<NotImplemented>([&] { max_pool3d(x.to(kInt64), 2); },
                               "\"max_pool3d_with_indices_cpu\" not implemented for 'Long'");
  expect_error([&] { avg_pool3d(x, 7); },
               "input image (T: 5 H: 5 W: 5) smaller than kernel size (kT: 7 kH: 7 kW: 7)");
  expect_error([&] { avg_pool3d(x, 2, 2, 0, false, true, 0); }, "divisor must be not zero");
  expect_error(
      [&] {
        adaptive_avg_pool3d(rand({2, 5, 5}), {2, 2, 2});
      },
      "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [2, 5, 5]");
  expect_error(
      [&] {
        adaptive_max_pool3d(x, {2, 2});
      },
      "adaptive_max_pool3d(): internal error: output_size.size() must be 3");
  const auto [v, i] = max_pool3d_with_indices(rand({1, 2, 4, 4, 4}), 2);
  expect_error(
      [&, v = v, i = i] {
        max_unpool3d(v, i, {1, 1, 1}, {2, 2, 2}, {0, 0, 0});
      },
      "Found an invalid max index: " + std::to_string(i.flatten()[-1].item<int64_t>()) +
          " (output volumes are of size 1x1x1");
  expect_error(
      [&, v = v, i = i] {
        max_unpool3d(v, i.to(kInt32), {4, 4, 4}, {2, 2, 2}, {0, 0, 0});
      },
      "elements in indices should be type int64");
  const Tensor s = rand({1, 2, 3});
  expect_error(
      [&] {
        fractional_max_pool3d(x, {4, 2, 2}, {3, 3, 3}, s);
      },
      "fractional_max_pool3d_out(): pool time 4 too large relative to input time 5");
  expect_error([&] { nn::FractionalMaxPool3d(nn::FractionalMaxPool3dOptions(2)); },
               "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio");
  expect_error([&] { F::fractional_max_pool3d(x, F::FractionalMaxPool3dFuncOptions(2)); },
               "fractional_max_pool3d requires specifying either an output_size or an output_ratio");
}
