// Shape and resampling layers: the padding modules, PixelShuffle / PixelUnshuffle /
// ChannelShuffle, Unflatten, Identity, Unfold / Fold and F::interpolate / Upsample. Values
// on hand-checkable inputs (the numbers libtorch 1.13 gives for the same calls), gradcheck
// in float64, warnings, errors by type and libtorch's message, and module printing.

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
using ember_test::dvalues;
namespace F = ember::nn::functional;

namespace {

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;
using Sizes = std::vector<int64_t>;

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-6);
}

// Collects the warnings of a scope.
struct CapturedWarnings : WarningHandler {
  std::vector<std::string> messages;
  void process(const Warning& w) override { messages.push_back(w.msg()); }
};

const Tensor kRow = tensor({1.0, 2.0, 3.0, 4.0}).view({1, 1, 4});
const Tensor kSquare = tensor({1.0, 2.0, 3.0, 4.0}).view({1, 1, 2, 2});

}  // namespace

TEST_CASE("nn shape: padding modules' values, gradients and printing") {
  expect_values(nn::ReflectionPad1d(2)(kRow), {3, 2, 1, 2, 3, 4, 3, 2});
  expect_values(nn::ReplicationPad1d(nn::ReplicationPad1dOptions({1, 2}))(kRow), {1, 1, 2, 3, 4, 4, 4});
  expect_values(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 1}, 3.5))(kRow), {3.5, 1, 2, 3, 4, 3.5});
  expect_values(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 0, 0, 1}))(kSquare), {0, 1, 2, 0, 3, 4, 0, 0, 0});
  expect_values(nn::ReflectionPad2d(1)(kSquare), {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1});
  expect_values(nn::ReplicationPad2d(nn::ReplicationPad2dOptions({0, 1, 1, 0}))(kSquare),
                {1, 2, 2, 1, 2, 2, 3, 4, 4});
  expect_values(nn::ConstantPad2d(nn::ConstantPad2dOptions({0, 0, 1, 0}, -1))(kSquare), {-1, -1, 1, 2, 3, 4});
  // Unbatched inputs and the 3-D modules.
  CHECK(nn::ReflectionPad1d(1)(kRow[0]).sizes() == IntArrayRef({1, 6}));
  CHECK(nn::ReplicationPad3d(1)(ones({1, 1, 1, 1, 1})).sizes() == IntArrayRef({1, 1, 3, 3, 3}));
  CHECK(dvalues(nn::ReplicationPad3d(1)(full({1, 1, 1, 1}, 2.0))) == std::vector<double>(27, 2.0));
  CHECK(nn::ReflectionPad3d(nn::ReflectionPad3dOptions({1, 0, 0, 1, 1, 1}))(zeros({2, 3, 2, 2})).sizes() ==
        IntArrayRef({2, 5, 3, 3}));
  CHECK(nn::ConstantPad3d(nn::ConstantPad3dOptions(1, 0.5))(zeros({1, 1, 1, 1})).sizes() ==
        IntArrayRef({1, 3, 3, 3}));
  // Negative padding crops.
  expect_values(nn::ZeroPad2d(nn::ZeroPad2dOptions({-1, 0, 0, 0}))(kSquare), {2, 4});
  nn::ReflectionPad2d reflect(nn::ReflectionPad2dOptions({1, 2, 0, 1}));
  nn::ReplicationPad3d replicate(1);
  nn::ConstantPad2d constant(nn::ConstantPad2dOptions(1, 2.0));
  CHECK(check([&](const variable_list& v) { return reflect(v[0]); }, {leaf({2, 2, 3, 4})}));
  CHECK(check([&](const variable_list& v) { return replicate(v[0]); }, {leaf({1, 2, 2, 3, 2})}));
  CHECK(check([&](const variable_list& v) { return constant(v[0]); }, {leaf({2, 3, 2})}));
  CHECK(printed(reflect) == "ember::nn::ReflectionPad2d(padding=[1, 2, 0, 1])");
  CHECK(printed(replicate) == "ember::nn::ReplicationPad3d(padding=[1, 1, 1, 1, 1, 1])");
  CHECK(printed(constant) == "ember::nn::ConstantPad2d(padding=[1, 1, 1, 1], value=2)");
  CHECK(printed(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 2}, 3.5))) ==
        "ember::nn::ConstantPad1d(padding=[1, 2], value=3.5)");
  CHECK(printed(nn::ZeroPad2d(nn::ZeroPad2dOptions({1, 0, 0, 1}))) ==
        "ember::nn::ZeroPad2d(padding=[1, 0, 0, 1])");
  CHECK(printed(nn::ReflectionPad1d(3)) == "ember::nn::ReflectionPad1d(padding=[3, 3])");
  // clone() copies the options.
  auto copy = std::dynamic_pointer_cast<nn::ReflectionPad2dImpl>(reflect->clone());
  REQUIRE(copy);
  CHECK(printed(*copy) == printed(*reflect));
  // F::pad's errors come through.
  expect_error([] { nn::ReflectionPad1d(4)(kRow); },
               "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
               "padding (4, 4) at "
               "dimension 2 of input [1, 1, 4]");
}

TEST_CASE("nn shape: pixel_shuffle, pixel_unshuffle and channel_shuffle values and gradients") {
  const Tensor x = arange(16, kDouble).view({1, 4, 2, 2});
  const Tensor y = pixel_shuffle(x, 2);
  CHECK(y.sizes() == IntArrayRef({1, 1, 4, 4}));
  expect_values(y, {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  CHECK(equal(pixel_unshuffle(y, 2), x));
  CHECK(equal(F::pixel_shuffle(x, F::PixelShuffleFuncOptions(2)), y));
  CHECK(equal(F::pixel_unshuffle(y, 2), x));
  CHECK(equal(nn::PixelShuffle(2)(x), y));
  CHECK(equal(nn::PixelUnshuffle(2)(y), x));
  // Unbatched, extra batch dims, an empty batch, and a new tensor even for factor 1.
  CHECK(pixel_shuffle(x[0], 2).sizes() == IntArrayRef({1, 4, 4}));
  CHECK(pixel_shuffle(zeros({2, 3, 9, 1, 2}), 3).sizes() == IntArrayRef({2, 3, 1, 3, 6}));
  CHECK(pixel_unshuffle(zeros({0, 1, 4, 6}), 2).sizes() == IntArrayRef({0, 4, 2, 3}));
  const Tensor same = pixel_shuffle(x, 1);
  CHECK(equal(same, x));
  same.add_(1);
  CHECK(x.index({0, 0, 0, 0}).item<double>() == 0);
  expect_values(channel_shuffle(arange(6, kDouble).view({1, 6, 1}), 2), {0, 3, 1, 4, 2, 5});
  expect_values(channel_shuffle(arange(6, kDouble).view({1, 6, 1}), 3), {0, 2, 4, 1, 3, 5});
  expect_values(nn::ChannelShuffle(2)(arange(4, kDouble).view({1, 4, 1, 1})), {0, 2, 1, 3});
  CHECK(check([](const variable_list& v) { return pixel_shuffle(v[0], 2); }, {leaf({2, 8, 2, 3})}));
  CHECK(check([](const variable_list& v) { return pixel_unshuffle(v[0], 3); }, {leaf({1, 2, 3, 6})}));
  CHECK(check([](const variable_list& v) { return channel_shuffle(v[0], 3); }, {leaf({2, 6, 2})}));
  CHECK(printed(nn::PixelShuffle(2)) == "ember::nn::PixelShuffle(upscale_factor=2)");
  CHECK(printed(nn::PixelUnshuffle(3)) == "ember::nn::PixelUnshuffle(downscale_factor=3)");
  CHECK(printed(nn::ChannelShuffle(4)) == "ember::nn::ChannelShuffle(groups=4)");
}

TEST_CASE("nn shape: pixel_shuffle, pixel_unshuffle and channel_shuffle errors") {
  const Tensor x = zeros({1, 6, 4, 6});
  expect_error(
      [&] { pixel_shuffle(x[0][0], 2); },
      "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)");
  expect_error([&] { pixel_shuffle(x, 0); }, "pixel_shuffle expects a positive upscale_factor, but got 0");
  expect_error([&] { pixel_shuffle(x, 2); },
               "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
               "upscale_factor, but input.size(-3)=6 is not divisible by 4");
  expect_error(
      [&] { pixel_unshuffle(x, 3); },
      "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=4 is not "
      "divisible by 3");
  expect_error(
      [&] { pixel_unshuffle(x.narrow(3, 0, 5), 2); },
      "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=5 is not "
      "divisible by 2");
  expect_error([&] { channel_shuffle(x, 4); },
               "Number of channels must be divisible by groups. Got 6 channels and 4 groups.");
  expect_error([&] { channel_shuffle(x[0][0], 2); },
               "channel_shuffle expects input with > 2 dims, but got input with sizes [4, 6]");
}

TEST_CASE("nn shape: Unflatten and Identity") {
  const Tensor x = arange(12, kDouble).view({2, 6});
  nn::Unflatten unflatten(1, Sizes{2, 3});
  const Tensor y = unflatten(x);
  CHECK(y.sizes() == IntArrayRef({2, 2, 3}));
  CHECK(equal(y.flatten(1), x));
  CHECK(nn::Unflatten(-1, Sizes{3, -1})(x).sizes() == IntArrayRef({2, 3, 2}));
  CHECK(nn::Unflatten(0, Sizes{1, 2})(x).sizes() == IntArrayRef({1, 2, 6}));
  CHECK(check([](const variable_list& v) { return nn::Unflatten(0, Sizes{3, 1})(v[0]); }, {leaf({3, 2})}));
  CHECK(printed(unflatten) == "ember::nn::Unflatten(dim=1, unflattened_size={2, 3})");
  expect_error(
      [&] {
        nn::Unflatten(1, Sizes{4, 2})(x);
      },
      "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input tensor");
  expect_error([&] { nn::Unflatten(2, Sizes{6})(x); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error([&] { nn::Unflatten(1, Sizes{})(x); }, "unflatten: sizes must be non-empty");
  expect_error([] { nn::Unflatten(0, Sizes{1})(tensor(1.0)); },
               "Dimension specified as 0 but tensor has no dimensions");
  nn::Identity identity;
  CHECK(identity(x).is_same(x));
  CHECK(printed(identity) == "ember::nn::Identity()");
  nn::Sequential seq(nn::Flatten(), nn::Identity(), nn::Unflatten(1, Sizes{3, 4}));
  CHECK(seq->forward(zeros({2, 3, 4})).sizes() == IntArrayRef({2, 3, 4}));
}

TEST_CASE("nn shape: unfold and fold values and gradients") {
  const Tensor x = arange(9, kDouble).view({1, 1, 3, 3});
  // Row (i, j) of block l = (oh, ow): x[oh + i][ow + j].
  expect_values(F::unfold(x, F::UnfoldFuncOptions(2)), {0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8});
  // Padding 1, stride 2: the blocks at (-1, -1), (-1, 1), (1, -1) and (1, 1).
  const Tensor padded = F::unfold(x, F::UnfoldFuncOptions(2).padding(1).stride(2));
  CHECK(padded.sizes() == IntArrayRef({1, 4, 4}));
  expect_values(padded, {0, 0, 0, 4, 0, 0, 3, 5, 0, 1, 0, 7, 0, 2, 6, 8});
  // Dilation 2 on a 3 x 3 input: one block, the corners.
  expect_values(F::unfold(x, F::UnfoldFuncOptions(2).dilation(2)), {0, 2, 6, 8});
  // Fold sums the blocks back: every element times the number of blocks it is in.
  expect_values(F::fold(ones({1, 4, 4}, kDouble), F::FoldFuncOptions(3, 2)), {1, 2, 1, 2, 4, 2, 1, 2, 1});
  expect_values(F::fold(F::unfold(x, F::UnfoldFuncOptions(2)), F::FoldFuncOptions(3, 2)),
                {0, 2, 2, 6, 16, 10, 6, 14, 8});
  expect_values(F::fold(padded, F::FoldFuncOptions(3, 2).padding(1).stride(2)), {0, 1, 2, 3, 4, 5, 6, 7, 8});
  // Unbatched fold, im2col / col2im of unbatched inputs, channels and an empty batch.
  CHECK(F::fold(ones({4, 4}), F::FoldFuncOptions(3, 2)).sizes() == IntArrayRef({1, 3, 3}));
  CHECK(im2col(zeros({2, 5, 4}), {2, 3}, {1, 1}, {0, 0}, {1, 1}).sizes() == IntArrayRef({12, 8}));
  CHECK(col2im(zeros({12, 8}), {5, 4}, {2, 3}, {1, 1}, {0, 0}, {1, 1}).sizes() == IntArrayRef({2, 5, 4}));
  CHECK(F::unfold(zeros({0, 2, 4, 4}), F::UnfoldFuncOptions(3)).sizes() == IntArrayRef({0, 18, 4}));
  // A 1 x 1 kernel at stride 1 still gives a new tensor.
  const Tensor flat = F::unfold(x, F::UnfoldFuncOptions(1));
  flat.add_(1);
  CHECK(x.index({0, 0, 0, 0}).item<double>() == 0);
  auto unfold_opts = F::UnfoldFuncOptions({2, 3}).dilation({1, 2}).padding({1, 0}).stride({2, 1});
  CHECK(check([&](const variable_list& v) { return F::unfold(v[0], unfold_opts); }, {leaf({2, 2, 5, 6})}));
  const int64_t length = F::unfold(zeros({1, 1, 5, 6}), unfold_opts).size(2);
  auto fold_opts = F::FoldFuncOptions({5, 6}, {2, 3}).dilation({1, 2}).padding({1, 0}).stride({2, 1});
  CHECK(check([&](const variable_list& v) { return F::fold(v[0], fold_opts); }, {leaf({2, 12, length})}));
  nn::Unfold unfold(nn::UnfoldOptions({2, 3}).stride(2));
  nn::Fold fold(nn::FoldOptions({4, 5}, 2).padding(1));
  CHECK(printed(unfold) ==
        "ember::nn::Unfold(kernel_size=[2, 3], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
  CHECK(printed(fold) ==
        "ember::nn::Fold(output_size=[4, 5], kernel_size=[2, 2], dilation=[1, 1], padding=[1, 1], stride=[1, "
        "1])");
  nn::Fold refold(nn::FoldOptions({4, 5}, {2, 3}).stride(2));
  // The blocks (rows 0-1 and 2-3, columns 0-2 and 2-4) take column 2 twice.
  const Tensor z = rand({2, 3, 4, 5});
  CHECK(allclose(refold(unfold(z)), z * tensor({1.0f, 1.0f, 2.0f, 1.0f, 1.0f})));
}

TEST_CASE("nn shape: unfold and fold errors") {
  const Tensor x = zeros({2, 3, 4, 4});
  expect_error([&] { F::unfold(x[0], F::UnfoldFuncOptions(2)); },
               "Input Error: Only 4D input Tensors are supported (got 3D)");
  expect_error([&] { F::fold(x, F::FoldFuncOptions(4, 2)); },
               "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got 4D)");
  expect_error(
      [&] {
        F::unfold(x, F::UnfoldFuncOptions({0, 2}));
      },
      "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 2");
  expect_error(
      [&] {
        F::unfold(x, F::UnfoldFuncOptions(2).stride({1, 0}));
      },
      "stride should be greater than zero, but got stride_height: 1 stride_width: 0");
  expect_error([&] { F::unfold(x, F::UnfoldFuncOptions(2).padding(-1)); },
               "padding should be non-negative, but got pad_height: -1 pad_width: -1");
  expect_error(
      [&] { F::unfold(x, F::UnfoldFuncOptions(5)); },
      "Given input with spatial size (4, 4), kernel_size=(5, 5), dilation=(1, 1), padding=(0, 0), "
      "calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one.");
  expect_error(
      [&] {
        F::fold(zeros({2, 12, 9}), F::FoldFuncOptions(4, {2, 4}));
      },
      "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
      "input.size(1)=12 and kernel_size=(2, 4).");
  expect_error(
      [&] {
        F::fold(zeros({2, 12, 9}), F::FoldFuncOptions({5, 4}, 2));
      },
      "Given output_size=(5, 4), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), "
      "expected size of input's dimension 2 to match the calculated number of sliding blocks 4 * 3 = 12, "
      "but got input.size(2)=9.");
  expect_error<NotImplemented>(
      [] {
        F::unfold(zeros({1, 1, 2, 2}, kLong), F::UnfoldFuncOptions(1));
      },
      "\"im2col_out_cpu\" not implemented for 'Long'");
}

TEST_CASE("nn shape: interpolate values in every mode") {
  const Tensor row = tensor({1.0, 2.0, 3.0}).view({1, 1, 3});
  auto opts = [] { return F::InterpolateFuncOptions(); };
  // Nearest: floor(i * in / out); nearest-exact: floor((i + 0.5) * in / out).
  expect_values(F::interpolate(row, opts().size(Sizes{6})), {1, 1, 2, 2, 3, 3});
  expect_values(F::interpolate(row, opts().size(Sizes{5})), {1, 1, 2, 2, 3});
  expect_values(F::interpolate(row, opts().size(Sizes{5}).mode(kNearestExact)), {1, 1, 2, 3, 3});
  expect_values(F::interpolate(row, opts().size(Sizes{2})), {1, 2});
  // scale_factor 2.5: 7 outputs reading floor(i / 2.5).
  expect_values(F::interpolate(row, opts().scale_factor(std::vector<double>{2.5})), {1, 1, 1, 2, 2, 3, 3});
  // Linear: source (i + 0.5) in / out - 0.5 clamped at 0, or i (in - 1) / (out - 1) with align_corners.
  expect_values(F::interpolate(row, opts().size(Sizes{6}).mode(kLinear).align_corners(false)),
                {1, 1.25, 1.75, 2.25, 2.75, 3});
  expect_values(F::interpolate(row, opts().size(Sizes{5}).mode(kLinear).align_corners(true)),
                {1, 1.5, 2, 2.5, 3});
  expect_values(F::interpolate(kSquare, opts().size(Sizes{4, 4}).mode(kBilinear).align_corners(false)),
                {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  expect_values(
      F::interpolate(kSquare,
                     opts().scale_factor(std::vector<double>{1.5, 1}).mode(kBilinear).align_corners(true)),
      {1, 2, 2, 3, 3, 4});
  // Bicubic (A = -0.75) along W, H unchanged: taps at the border repeat it.
  expect_values(F::interpolate(tensor({1.0, 2.0, 4.0}).view({1, 1, 1, 3}),
                               opts().size(Sizes{1, 5}).mode(kBicubic).align_corners(true)),
                {1, 1.3125, 2, 3.09375, 4});
  // Area: adaptive average pooling.
  expect_values(
      F::interpolate(tensor({1.0, 2.0, 3.0, 4.0, 5.0}).view({1, 1, 5}), opts().size(Sizes{2}).mode(kArea)),
      {2, 4});
  expect_values(F::interpolate(kSquare, opts().size(Sizes{1, 1}).mode(kArea)), {2.5});
  // 5-D area: bins [floor(i in / out), ceil((i + 1) in / out)) along each dim.
  expect_values(
      F::interpolate(arange(8, kDouble).view({1, 1, 2, 2, 2}), opts().size(Sizes{1, 1, 2}).mode(kArea)),
      {3, 4});
  expect_values(
      F::interpolate(arange(3, kDouble).view({1, 1, 1, 1, 3}), opts().size(Sizes{1, 1, 2}).mode(kArea)),
      {0.5, 1.5});
  // Trilinear and 5-D nearest.
  const Tensor cube = arange(8, kDouble).view({1, 1, 2, 2, 2});
  expect_values(F::interpolate(cube, opts().size(Sizes{1, 1, 1}).mode(kTrilinear).align_corners(false)),
                {3.5});
  CHECK(F::interpolate(cube, opts().scale_factor(std::vector<double>{2, 1, 3})).sizes() ==
        IntArrayRef({1, 1, 4, 2, 6}));
  // torch::kLinear is nn::init's; it converts to the mode, other nonlinearities do not.
  const InterpolateMode linear = kLinear;
  CHECK(linear == InterpolateMode::Linear);
  CHECK_THROWS_AS(InterpolateMode(kReLU), InvalidArgument);
  // The upsample_* ops take the scales themselves.
  expect_values(upsample_nearest1d(row, {4}, 2.0), {1, 1, 2, 2});
  expect_values(upsample_linear1d(row, {3}, false), {1, 2, 3});
  // uint8 images resample by nearest; libtorch 1.13's CPU kernels refuse half and integers.
  CHECK(dvalues(F::interpolate(tensor({1, 2}, kUInt8).view({1, 1, 2}), opts().size(Sizes{4}))) ==
        std::vector<double>{1, 1, 2, 2});
  expect_error<NotImplemented>(
      [&] { F::interpolate(row.to(kHalf), opts().size(Sizes{4}).mode(kLinear).align_corners(true)); },
      "\"compute_indices_weights_linear\" not implemented for 'Half'");
  expect_error<NotImplemented>([&] { F::interpolate(row.to(kLong), opts().size(Sizes{4})); },
                               "\"compute_indices_weights_nearest\" not implemented for 'Long'");
  // float32 inputs give float32.
  CHECK(F::interpolate(kSquare.to(kFloat), opts().size(Sizes{3, 3}).mode(kBicubic).align_corners(false))
            .dtype() == kFloat);
}

TEST_CASE("nn shape: interpolate gradients") {
  CapturedWarnings quiet;  // fractional scale_factor warns on every call
  WarningUtils::WarningHandlerGuard guard(&quiet);
  auto opts = [] { return F::InterpolateFuncOptions(); };
  const std::vector<F::InterpolateFuncOptions> cases3 = {
      opts().size(Sizes{7}),
      opts().scale_factor(std::vector<double>{1.1}),
      opts().scale_factor(std::vector<double>{2.1}),
      opts().scale_factor(std::vector<double>{0.6}).mode(kNearestExact),
      opts().size(Sizes{8}).mode(kLinear).align_corners(false),
      opts().size(Sizes{3}).mode(kLinear).align_corners(true),
      opts().size(Sizes{3}).mode(kArea)};
  for (const auto& o : cases3)
    CHECK(check([&](const variable_list& v) { return F::interpolate(v[0], o); }, {leaf({2, 2, 5})}));
  const std::vector<F::InterpolateFuncOptions> cases4 = {
      opts().size(Sizes{7, 3}),
      opts().size(Sizes{3, 7}).mode(kNearestExact),
      opts().scale_factor(std::vector<double>{1.5, 2.5}).mode(kBilinear).align_corners(false),
      opts().size(Sizes{6, 2}).mode(kBilinear).align_corners(true),
      opts().size(Sizes{7, 3}).mode(kBicubic).align_corners(false),
      opts().size(Sizes{2, 6}).mode(kBicubic).align_corners(true),
      opts().size(Sizes{2, 3}).mode(kArea)};
  for (const auto& o : cases4)
    CHECK(check([&](const variable_list& v) { return F::interpolate(v[0], o); }, {leaf({1, 2, 4, 5})}));
  CHECK(check(
      [&](const variable_list& v) {
        return F::interpolate(v[0], opts().size(Sizes{2, 2, 4}).mode(kArea));
      },
      {leaf({1, 2, 3, 3, 2})}));
  CHECK(check(
      [&](const variable_list& v) {
        return F::interpolate(v[0], opts().size(Sizes{3, 4, 2}).mode(kTrilinear).align_corners(false));
      },
      {leaf({1, 1, 2, 3, 3})}));
}

TEST_CASE("nn shape: interpolate warnings and errors") {
  CapturedWarnings captured;
  WarningUtils::WarningHandlerGuard guard(&captured);
  const Tensor x = zeros({1, 1, 4, 4});
  F::interpolate(x, F::InterpolateFuncOptions().size(Sizes{2, 2}).mode(kBilinear));
  F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 2}));
  F::interpolate(
      x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 2}).recompute_scale_factor(false));
  F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{3, 2}));
  REQUIRE(captured.messages.size() == 2);
  CHECK(
      captured.messages[0] ==
      "Default upsampling behavior when mode=kBilinear is changed to align_corners=False since 0.4.0. Please "
      "specify align_corners=True if the old behavior is desired. See the documentation of nn.Upsample for "
      "details.");
  CHECK(captured.messages[1].rfind(
            "The default behavior for interpolate/upsample with float scale_factor changed in "
            "1.6.0",
            0) == 0);
  auto interp = [&](const Tensor& t, F::InterpolateFuncOptions o) {
    return [t, o] { F::interpolate(t, o); };
  };
  expect_error(interp(x, F::InterpolateFuncOptions()), "either size or scale_factor should be defined");
  expect_error(
      interp(x, F::InterpolateFuncOptions().size(Sizes{2, 2}).scale_factor(std::vector<double>{2, 2})),
      "only one of size or scale_factor should be defined");
  expect_error(interp(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2})),
               "scale_factor shape must match input shape. Input is 2D, scale_factor size is [2]");
  expect_error(
      interp(x, F::InterpolateFuncOptions().size(Sizes{2, 2}).align_corners(true)),
      "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
      "trilinear");
  expect_error(interp(x, F::InterpolateFuncOptions().size(Sizes{2}).mode(kLinear).align_corners(true)),
               "Got 4D input, but linear mode needs 3D input");
  expect_error(
      interp(x[0], F::InterpolateFuncOptions().size(Sizes{2}).mode(kBicubic).align_corners(true)),
      "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: nearest | linear | "
      "bilinear | bicubic | trilinear (got kBicubic)");
  expect_error(interp(x, F::InterpolateFuncOptions().size(Sizes{2})),
               "It is expected output_size equals to 2, but got size 1");
  expect_error(
      interp(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{0.2, 1})),
      "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) output (H: 0, W: 4)");
  expect_error(interp(zeros({1, 0, 2, 2}), F::InterpolateFuncOptions().size(Sizes{3, 3})),
               "Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 2, 2]");
  expect_error(interp(x, F::InterpolateFuncOptions().size(Sizes{2, 2}).antialias(true)),
               "Anti-alias option is only supported for bilinear and bicubic modes");
  expect_error<NotImplemented>(
      interp(
          x,
          F::InterpolateFuncOptions().size(Sizes{2, 2}).mode(kBilinear).align_corners(false).antialias(true)),
      "interpolate: antialias=true (_upsample_bilinear2d_aa) is not implemented in ember");
  expect_error(
      interp(zeros({1, 0, 2, 2, 2}), F::InterpolateFuncOptions().size(Sizes{2, 1, 1}).mode(kArea)),
      "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has "
      "sizes [1, 0, 2, 2, 2] with dimension 1 being empty");
}

TEST_CASE("nn shape: Upsample module") {
  nn::Upsample up(
      nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(kBilinear).align_corners(false));
  const Tensor y = up(kSquare);
  expect_values(y, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  CHECK(printed(up) == "ember::nn::Upsample(scale_factor=[2, 2], mode=kBilinear)");
  nn::Upsample nearest(nn::UpsampleOptions().size(Sizes{6}));
  expect_values(nearest(tensor({1.0, 2.0, 3.0}).view({1, 1, 3})), {1, 1, 2, 2, 3, 3});
  CHECK(printed(nearest) == "ember::nn::Upsample(size=[6], mode=kNearest)");
  CHECK(printed(nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{1.5}).mode(kLinear))) ==
        "ember::nn::Upsample(scale_factor=[1.5], mode=kLinear)");
  CHECK(check([&](const variable_list& v) { return up(v[0]); }, {leaf({1, 2, 3, 2})}));
}
