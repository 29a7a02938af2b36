// Shape and resampling layers against libtorch 1.13 on the same values: the padding modules,
// pixel_shuffle / pixel_unshuffle / channel_shuffle, Unflatten and Identity, im2col / col2im
// with F::unfold / F::fold, and F::interpolate in every mode (3-D to 5-D, size or
// scale_factor, align_corners, recompute_scale_factor) with the torch::upsample_* ops:
// values and gradients (values only where libtorch 1.13 has no or a wrong backward), float32
// values, module printing, warnings and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::printed;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;
using Sizes = std::vector<int64_t>;

ember::Tensor leaf(Sizes sizes, ember::ScalarType dt = ember::kDouble) {
  return ember::randn(sizes, dt).requires_grad_();
}

// Both libraries' messages for the same bad call.
void same_error(const std::string& what, const std::function<void()>& ours,
                const std::function<void()>& theirs) {
  INFO(what);
  const std::string t = torch_error(theirs);
  CHECK(t != "<no error>");
  CHECK(ember_error(ours) == t);
}

// Silences libtorch's and ember's warnings (align_corners, fractional scale_factor) for a scope.
struct QuietWarnings {
  struct TorchQuiet : c10::WarningHandler {
    void process(const c10::SourceLocation&, const std::string&, const bool) override {}
  } torch_handler;
  struct EmberQuiet : ember::WarningHandler {
    void process(const ember::Warning&) override {}
  } ember_handler;
  c10::Warning::WarningHandlerGuard torch_guard{&torch_handler};
  ember::WarningUtils::WarningHandlerGuard ember_guard{&ember_handler};
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Padding modules

TEST_CASE("libtorch shape: padding modules, values, gradients and printing") {
  ember::manual_seed(crosscheck::fresh_seed());
  auto run = [](const std::string& what, Sizes shape, auto ember_module, auto torch_module) {
    same_forward_backward(
        what, {leaf(shape)}, [&](const EInputs& v) { return ember_module(v[0]); },
        [&](const TInputs& v) { return torch_module(v[0]); }, 1e-12);
    CHECK(printed(*ember_module) == printed(*torch_module));
  };
  run("ReflectionPad1d", {2, 3, 6}, ember::nn::ReflectionPad1d(ember::nn::ReflectionPad1dOptions({2, 3})),
      torch::nn::ReflectionPad1d(torch::nn::ReflectionPad1dOptions({2, 3})));
  run("ReflectionPad1d unbatched", {3, 5}, ember::nn::ReflectionPad1d(2), torch::nn::ReflectionPad1d(2));
  run("ReflectionPad2d", {2, 2, 4, 5},
      ember::nn::ReflectionPad2d(ember::nn::ReflectionPad2dOptions({1, 2, 3, 0})),
      torch::nn::ReflectionPad2d(torch::nn::ReflectionPad2dOptions({1, 2, 3, 0})));
  run("ReflectionPad3d", {1, 2, 3, 4, 3},
      ember::nn::ReflectionPad3d(ember::nn::ReflectionPad3dOptions({1, 2, 2, 1, 1, 2})),
      torch::nn::ReflectionPad3d(torch::nn::ReflectionPad3dOptions({1, 2, 2, 1, 1, 2})));
  run("ReplicationPad1d", {2, 3, 4}, ember::nn::ReplicationPad1d(ember::nn::ReplicationPad1dOptions({3, 1})),
      torch::nn::ReplicationPad1d(torch::nn::ReplicationPad1dOptions({3, 1})));
  run("ReplicationPad2d", {3, 4, 2}, ember::nn::ReplicationPad2d(2), torch::nn::ReplicationPad2d(2));
  run("ReplicationPad3d", {2, 1, 2, 3, 2},
      ember::nn::ReplicationPad3d(ember::nn::ReplicationPad3dOptions({1, 0, 2, 1, 0, 3})),
      torch::nn::ReplicationPad3d(torch::nn::ReplicationPad3dOptions({1, 0, 2, 1, 0, 3})));
  run("ZeroPad2d", {2, 3, 4, 4}, ember::nn::ZeroPad2d(ember::nn::ZeroPad2dOptions({1, 2, 0, 3})),
      torch::nn::ZeroPad2d(torch::nn::ZeroPad2dOptions({1, 2, 0, 3})));
  run("ZeroPad2d cropping", {2, 3, 4, 4}, ember::nn::ZeroPad2d(ember::nn::ZeroPad2dOptions({-1, 2, 1, -2})),
      torch::nn::ZeroPad2d(torch::nn::ZeroPad2dOptions({-1, 2, 1, -2})));
  run("ConstantPad1d", {2, 3}, ember::nn::ConstantPad1d(ember::nn::ConstantPad1dOptions({1, 2}, 3.5)),
      torch::nn::ConstantPad1d(torch::nn::ConstantPad1dOptions({1, 2}, 3.5)));
  run("ConstantPad2d", {2, 2, 3}, ember::nn::ConstantPad2d(ember::nn::ConstantPad2dOptions(2, -1.25)),
      torch::nn::ConstantPad2d(torch::nn::ConstantPad2dOptions(2, -1.25)));
  run("ConstantPad3d", {1, 2, 2, 3},
      ember::nn::ConstantPad3d(ember::nn::ConstantPad3dOptions({1, 0, 0, 2, 1, 1}, 0)),
      torch::nn::ConstantPad3d(torch::nn::ConstantPad3dOptions({1, 0, 0, 2, 1, 1}, 0)));
}

TEST_CASE("libtorch shape: padding modules' error texts") {
  const ember::Tensor x = ember::randn({1, 2, 3, 3});
  const torch::Tensor t = as_torch(x);
  same_error(
      "reflection padding too large", [&] { ember::nn::ReflectionPad2d(3)(x); },
      [&] { torch::nn::ReflectionPad2d(3)(t); });
  same_error(
      "reflection pad of a 1-D input", [&] { ember::nn::ReflectionPad1d(1)(x[0][0][0]); },
      [&] { torch::nn::ReflectionPad1d(1)(t[0][0][0]); });
  same_error(
      "replication of an empty channel",
      [&] {
        ember::nn::ReplicationPad2d(1)(ember::zeros({1, 0, 2, 2}));
      },
      [&] {
        torch::nn::ReplicationPad2d(1)(torch::zeros({1, 0, 2, 2}));
      });
  same_error(
      "constant padding cropping all",
      [&] {
        ember::nn::ZeroPad2d(ember::nn::ZeroPad2dOptions({-2, -2, 0, 0}))(x);
      },
      [&] {
        torch::nn::ZeroPad2d(torch::nn::ZeroPad2dOptions({-2, -2, 0, 0}))(t);
      });
}

// ---------------------------------------------------------------------------------------
// pixel_shuffle, pixel_unshuffle, channel_shuffle, Unflatten, Identity

TEST_CASE("libtorch shape: pixel_shuffle, pixel_unshuffle and channel_shuffle values and gradients") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (const auto& [shape, r] : std::vector<std::pair<Sizes, int64_t>>{
           {{2, 8, 3, 2}, 2}, {{9, 2, 2}, 3}, {{2, 1, 4, 3, 1}, 1}, {{2, 3, 18, 2, 3}, 3}})
    same_forward_backward(
        "pixel_shuffle " + std::to_string(shape.size()) + "-D r=" + std::to_string(r), {leaf(shape)},
        [&](const EInputs& v) { return ember::pixel_shuffle(v[0], r); },
        [&](const TInputs& v) { return torch::pixel_shuffle(v[0], r); }, 1e-12);
  for (const auto& [shape, r] : std::vector<std::pair<Sizes, int64_t>>{
           {{2, 2, 4, 6}, 2}, {{1, 6, 3}, 3}, {{2, 1, 3, 4, 2}, 2}, {{3, 2, 5, 5}, 1}})
    same_forward_backward(
        "pixel_unshuffle " + std::to_string(shape.size()) + "-D r=" + std::to_string(r), {leaf(shape)},
        [&](const EInputs& v) { return ember::pixel_unshuffle(v[0], r); },
        [&](const TInputs& v) { return torch::pixel_unshuffle(v[0], r); }, 1e-12);
  for (const auto& [shape, g] : std::vector<std::pair<Sizes, int64_t>>{{{2, 6, 3, 2}, 2},
                                                                       {{2, 6, 3, 2}, 3},
                                                                       {{1, 4, 5}, 4},
                                                                       {{2, 6, 2, 2, 2}, 3},
                                                                       {{3, 5, 2}, 1},
                                                                       {{0, 4, 2}, 2}}) {
    // Values only: libtorch 1.13 has no derivative for channel_shuffle (ember's: gradcheck).
    const ember::Tensor x = ember::randn(shape, ember::kDouble);
    check_close(ember::channel_shuffle(x, g), torch::channel_shuffle(as_torch(x), g), 0,
                "channel_shuffle groups " + std::to_string(g));
  }
  // An empty batch: values only (libtorch 1.13's PixelShuffleBackward0 fails on it).
  const ember::Tensor empty = ember::randn({0, 4, 2, 2});
  check_close(ember::pixel_shuffle(empty, 2), torch::pixel_shuffle(as_torch(empty), 2), 0, "empty batch");
  // A strided input, the F:: forms and the modules.
  same_forward_backward(
      "pixel_shuffle of a transposed input", {leaf({2, 4, 3, 5})},
      [](const EInputs& v) {
        return EF::pixel_shuffle(v[0].transpose(2, 3), EF::PixelShuffleFuncOptions(2));
      },
      [](const TInputs& v) {
        return TF::pixel_shuffle(v[0].transpose(2, 3), TF::PixelShuffleFuncOptions(2));
      },
      1e-12);
  same_forward_backward(
      "PixelUnshuffle module", {leaf({1, 2, 6, 6})},
      [](const EInputs& v) { return ember::nn::PixelUnshuffle(3)(v[0]); },
      [](const TInputs& v) { return torch::nn::PixelUnshuffle(3)(v[0]); }, 1e-12);
  CHECK(printed(*ember::nn::PixelShuffle(3)) == printed(*torch::nn::PixelShuffle(3)));
  CHECK(printed(*ember::nn::PixelUnshuffle(2)) == printed(*torch::nn::PixelUnshuffle(2)));
}

TEST_CASE("libtorch shape: pixel_shuffle, pixel_unshuffle and channel_shuffle error texts") {
  const ember::Tensor x = ember::randn({1, 6, 4, 6});
  const torch::Tensor t = as_torch(x);
  same_error(
      "pixel_shuffle 2-D", [&] { ember::pixel_shuffle(x[0][0], 2); },
      [&] { torch::pixel_shuffle(t[0][0], 2); });
  same_error(
      "pixel_shuffle factor 0", [&] { ember::pixel_shuffle(x, 0); }, [&] { torch::pixel_shuffle(t, 0); });
  same_error(
      "pixel_shuffle channels", [&] { ember::pixel_shuffle(x, 2); }, [&] { torch::pixel_shuffle(t, 2); });
  same_error(
      "pixel_unshuffle 2-D", [&] { ember::pixel_unshuffle(x[0][0], 2); },
      [&] { torch::pixel_unshuffle(t[0][0], 2); });
  same_error(
      "pixel_unshuffle factor -1", [&] { ember::pixel_unshuffle(x, -1); },
      [&] { torch::pixel_unshuffle(t, -1); });
  same_error(
      "pixel_unshuffle height", [&] { ember::pixel_unshuffle(x, 3); }, [&] { torch::pixel_unshuffle(t, 3); });
  same_error(
      "pixel_unshuffle width", [&] { ember::pixel_unshuffle(x.narrow(3, 0, 5), 2); },
      [&] { torch::pixel_unshuffle(t.narrow(3, 0, 5), 2); });
  same_error(
      "channel_shuffle 2-D", [&] { ember::channel_shuffle(x[0][0], 2); },
      [&] { torch::channel_shuffle(t[0][0], 2); });
  same_error(
      "channel_shuffle groups 0", [&] { ember::channel_shuffle(x, 0); },
      [&] { torch::channel_shuffle(t, 0); });
  same_error(
      "channel_shuffle channels", [&] { ember::channel_shuffle(x, 4); },
      [&] { torch::channel_shuffle(t, 4); });
}

TEST_CASE("libtorch shape: Unflatten and Identity values, printing and error texts") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (const auto& [dim, sizes] : std::vector<std::pair<int64_t, Sizes>>{
           {1, {2, 3}}, {-1, {2, 2}}, {0, {1, 2, 1}}, {1, {-1, 2}}, {2, {4}}, {-2, {3, -1}}})
    same_forward_backward(
        "Unflatten dim " + std::to_string(dim), {leaf({2, 6, 4})},
        [&](const EInputs& v) { return ember::nn::Unflatten(dim, sizes)(v[0]); },
        [&](const TInputs& v) { return torch::nn::Unflatten(dim, sizes)(v[0]); }, 1e-12);
  CHECK(printed(*ember::nn::Unflatten(1, Sizes{2, 3})) == printed(*torch::nn::Unflatten(1, Sizes{2, 3})));
  CHECK(printed(*ember::nn::Unflatten(ember::nn::UnflattenOptions(-1, {5}))) ==
        printed(*torch::nn::Unflatten(torch::nn::UnflattenOptions(-1, {5}))));
  CHECK(printed(*ember::nn::Identity()) == printed(*torch::nn::Identity()));
  const ember::Tensor x = ember::randn({2, 6, 4});
  CHECK(ember::nn::Identity()(x).is_same(x));
  const torch::Tensor t = as_torch(x);
  for (const auto& [dim, sizes] : std::vector<std::pair<int64_t, Sizes>>{
           {3, {2, 3}}, {-4, {2, 3}}, {1, {4, 2}}, {1, {-1, -1}}, {1, {-2, -3}}, {1, {}}, {1, {-1, 4}}})
    same_error(
        "Unflatten dim " + std::to_string(dim) + " sizes " + std::to_string(sizes.size()),
        [&] { ember::nn::Unflatten(dim, sizes)(x); }, [&] { torch::nn::Unflatten(dim, sizes)(t); });
  same_error(
      "Unflatten of a 0-dim tensor", [&] { ember::nn::Unflatten(0, Sizes{1})(ember::tensor(1.0)); },
      [&] { torch::nn::Unflatten(0, Sizes{1})(torch::tensor(1.0)); });
  same_error(
      "Unflatten of zero elements with -1",
      [&] {
        ember::nn::Unflatten(1, Sizes{-1, 0})(ember::zeros({2, 0}));
      },
      [&] {
        torch::nn::Unflatten(1, Sizes{-1, 0})(torch::zeros({2, 0}));
      });
}

// ---------------------------------------------------------------------------------------
// Fold and Unfold

namespace {

struct Blocks {
  Sizes kernel, dilation, padding, stride;
};

}  // namespace

TEST_CASE("libtorch shape: unfold and fold values and gradients for every option") {
  ember::manual_seed(crosscheck::fresh_seed());
  const std::vector<Blocks> cases = {{{2, 2}, {1, 1}, {0, 0}, {1, 1}}, {{3, 2}, {1, 2}, {1, 0}, {2, 1}},
                                     {{1, 1}, {1, 1}, {0, 0}, {1, 1}}, {{2, 3}, {2, 1}, {2, 1}, {1, 3}},
                                     {{3, 3}, {1, 1}, {1, 1}, {2, 2}}, {{4, 1}, {1, 1}, {0, 2}, {3, 2}}};
  for (const Blocks& b : cases) {
    const std::string what = "k " + std::to_string(b.kernel[0]) + "x" + std::to_string(b.kernel[1]) + " d " +
                             std::to_string(b.dilation[0]) + "," + std::to_string(b.dilation[1]) + " p " +
                             std::to_string(b.padding[0]) + "," + std::to_string(b.padding[1]) + " s " +
                             std::to_string(b.stride[0]) + "," + std::to_string(b.stride[1]);
    const auto eopts =
        EF::UnfoldFuncOptions(b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride);
    const auto topts =
        TF::UnfoldFuncOptions(b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride);
    for (Sizes shape : {Sizes{2, 3, 7, 6}, Sizes{1, 2, 5, 8}, Sizes{0, 2, 6, 6}})
      same_forward_backward(
          "unfold " + what, {leaf(shape)}, [&](const EInputs& v) { return EF::unfold(v[0], eopts); },
          [&](const TInputs& v) { return TF::unfold(v[0], topts); }, 1e-12);
    // im2col of an unbatched input.
    same_forward_backward(
        "im2col unbatched " + what, {leaf({3, 6, 7})},
        [&](const EInputs& v) { return ember::im2col(v[0], b.kernel, b.dilation, b.padding, b.stride); },
        [&](const TInputs& v) { return torch::im2col(v[0], b.kernel, b.dilation, b.padding, b.stride); },
        1e-12);
    // Fold the columns of a 7 x 6 output (and 8 x 9) back, batched and unbatched.
    for (Sizes out : {Sizes{7, 6}, Sizes{8, 9}}) {
      const torch::Tensor cols =
          torch::im2col(torch::zeros({1, 1, out[0], out[1]}), b.kernel, b.dilation, b.padding, b.stride);
      const int64_t rows = 2 * b.kernel[0] * b.kernel[1], length = cols.size(2);
      const auto efold =
          EF::FoldFuncOptions(out, b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride);
      const auto tfold =
          TF::FoldFuncOptions(out, b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride);
      for (Sizes shape : {Sizes{3, rows, length}, Sizes{rows, length}, Sizes{0, rows, length}})
        same_forward_backward(
            "fold " + std::to_string(shape.size()) + "-D " + what, {leaf(shape)},
            [&](const EInputs& v) { return EF::fold(v[0], efold); },
            [&](const TInputs& v) { return TF::fold(v[0], tfold); }, 1e-12);
    }
  }
  // float32, a strided input and the modules.
  const ember::Tensor x = ember::randn({2, 3, 6, 5});
  check_close(EF::unfold(x.transpose(2, 3), EF::UnfoldFuncOptions(2).stride(2).padding(1)),
              TF::unfold(as_torch(x).transpose(2, 3), TF::UnfoldFuncOptions(2).stride(2).padding(1)), 1e-6,
              "float32 strided unfold");
  ember::nn::Unfold eu(ember::nn::UnfoldOptions({2, 3}).dilation(2).padding({1, 0}).stride(2));
  torch::nn::Unfold tu(torch::nn::UnfoldOptions({2, 3}).dilation(2).padding({1, 0}).stride(2));
  ember::nn::Fold ef(ember::nn::FoldOptions({6, 5}, {2, 3}).dilation(2).padding({1, 0}).stride(2));
  torch::nn::Fold tf(torch::nn::FoldOptions({6, 5}, {2, 3}).dilation(2).padding({1, 0}).stride(2));
  same_forward_backward(
      "Fold(Unfold(x)) modules", {leaf({2, 3, 6, 5})}, [&](const EInputs& v) { return ef(eu(v[0])); },
      [&](const TInputs& v) { return tf(tu(v[0])); }, 1e-12);
  CHECK(printed(*eu) == printed(*tu));
  CHECK(printed(*ef) == printed(*tf));
}

TEST_CASE("libtorch shape: unfold and fold error texts") {
  const ember::Tensor x = ember::randn({2, 3, 4, 4});
  const torch::Tensor t = as_torch(x);
  auto unfold_error = [&](const std::string& what, const ember::Tensor& e, const torch::Tensor& tt,
                          Blocks b) {
    same_error(
        "unfold " + what,
        [&] {
          EF::unfold(
              e, EF::UnfoldFuncOptions(b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride));
        },
        [&] {
          TF::unfold(
              tt, TF::UnfoldFuncOptions(b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride));
        });
  };
  unfold_error("3-D", x[0], t[0], {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  unfold_error("kernel 0", x, t, {{0, 2}, {1, 1}, {0, 0}, {1, 1}});
  unfold_error("dilation 0", x, t, {{2, 2}, {1, 0}, {0, 0}, {1, 1}});
  unfold_error("negative padding", x, t, {{2, 2}, {1, 1}, {-1, 0}, {1, 1}});
  unfold_error("stride 0", x, t, {{2, 2}, {1, 1}, {0, 0}, {0, 1}});
  unfold_error("too large a kernel", x, t, {{5, 2}, {1, 1}, {0, 0}, {1, 1}});
  unfold_error("too large a dilated kernel", x, t, {{2, 2}, {1, 4}, {0, 0}, {1, 1}});
  unfold_error("empty channels", ember::zeros({2, 0, 4, 4}), torch::zeros({2, 0, 4, 4}),
               {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  unfold_error("integer input", ember::zeros({1, 1, 4, 4}, ember::kLong),
               torch::zeros({1, 1, 4, 4}, torch::kLong), {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  same_error(
      "im2col 2-D input",
      [&] {
        ember::im2col(x[0][0], {2, 2}, {1, 1}, {0, 0}, {1, 1});
      },
      [&] {
        torch::im2col(t[0][0], {2, 2}, {1, 1}, {0, 0}, {1, 1});
      });
  same_error(
      "im2col one kernel size",
      [&] {
        ember::im2col(x, {2}, {1, 1}, {0, 0}, {1, 1});
      },
      [&] {
        torch::im2col(t, {2}, {1, 1}, {0, 0}, {1, 1});
      });
  same_error(
      "im2col 0-dim input",
      [&] {
        ember::im2col(ember::tensor(1.0), {2, 2}, {1, 1}, {0, 0}, {1, 1});
      },
      [&] {
        torch::im2col(torch::tensor(1.0), {2, 2}, {1, 1}, {0, 0}, {1, 1});
      });
  same_error(
      "im2col 1-D input",
      [&] {
        ember::im2col(ember::zeros({3}), {2, 2}, {1, 1}, {0, 0}, {1, 1});
      },
      [&] {
        torch::im2col(torch::zeros({3}), {2, 2}, {1, 1}, {0, 0}, {1, 1});
      });
  same_error(
      "im2col three strides",
      [&] {
        ember::im2col(x, {2, 2}, {1, 1}, {0, 0}, {1, 1, 1});
      },
      [&] {
        torch::im2col(t, {2, 2}, {1, 1}, {0, 0}, {1, 1, 1});
      });

  const ember::Tensor cols = ember::randn({2, 12, 9});
  const torch::Tensor tcols = as_torch(cols);
  auto fold_error = [&](const std::string& what, const ember::Tensor& e, const torch::Tensor& tt, Sizes out,
                        Blocks b) {
    same_error(
        "fold " + what,
        [&] {
          EF::fold(
              e, EF::FoldFuncOptions(out, b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride));
        },
        [&] {
          TF::fold(
              tt,
              TF::FoldFuncOptions(out, b.kernel).dilation(b.dilation).padding(b.padding).stride(b.stride));
        });
  };
  fold_error("4-D", cols.unsqueeze(0), tcols.unsqueeze(0), {4, 4}, {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("kernel 0", cols, tcols, {4, 4}, {{2, 0}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("stride 0", cols, tcols, {4, 4}, {{2, 2}, {1, 1}, {0, 0}, {1, 0}});
  fold_error("dilation 0", cols, tcols, {4, 4}, {{2, 2}, {0, 1}, {0, 0}, {1, 1}});
  fold_error("negative padding", cols, tcols, {4, 4}, {{2, 2}, {1, 1}, {0, -2}, {1, 1}});
  fold_error("rows not divisible", cols, tcols, {4, 4}, {{2, 4}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("block count", cols, tcols, {5, 4}, {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("empty length", ember::zeros({2, 4, 0}), torch::zeros({2, 4, 0}), {4, 4},
             {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("no blocks", ember::zeros({1, 9, 1}), torch::zeros({1, 9, 1}), {1, 1},
             {{3, 3}, {1, 1}, {0, 0}, {1, 1}});
  fold_error("zero output size", ember::zeros({1, 4, 5}), torch::zeros({1, 4, 5}), {0, 4},
             {{2, 2}, {1, 1}, {1, 1}, {1, 1}});
  fold_error("integer input", ember::zeros({1, 4, 9}, ember::kLong), torch::zeros({1, 4, 9}, torch::kLong),
             {4, 4}, {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  same_error(
      "col2im one output size",
      [&] {
        ember::col2im(cols, {4}, {2, 2}, {1, 1}, {0, 0}, {1, 1});
      },
      [&] {
        torch::col2im(tcols, {4}, {2, 2}, {1, 1}, {0, 0}, {1, 1});
      });
}

// ---------------------------------------------------------------------------------------
// interpolate and Upsample

namespace {

enum Mode { kNearest, kLinear, kBilinear, kBicubic, kTrilinear, kArea, kNearestExact };
const char* const kModeNames[] = {"nearest",   "linear", "bilinear",     "bicubic",
                                  "trilinear", "area",   "nearest-exact"};

struct Interp {
  Mode mode;
  std::optional<Sizes> size;
  std::optional<std::vector<double>> scale;
  std::optional<bool> align;
  std::optional<bool> recompute;
  bool antialias = false;
};

ember::InterpolateMode ember_mode(Mode m) {
  switch (m) {
    case kNearest:
      return ember::kNearest;
    case kLinear:
      return ember::kLinear;
    case kBilinear:
      return ember::kBilinear;
    case kBicubic:
      return ember::kBicubic;
    case kTrilinear:
      return ember::kTrilinear;
    case kArea:
      return ember::kArea;
    case kNearestExact:
      return ember::kNearestExact;
  }
  return ember::kNearest;
}

TF::InterpolateFuncOptions::mode_t torch_mode(Mode m) {
  switch (m) {
    case kNearest:
      return torch::kNearest;
    case kLinear:
      return torch::kLinear;
    case kBilinear:
      return torch::kBilinear;
    case kBicubic:
      return torch::kBicubic;
    case kTrilinear:
      return torch::kTrilinear;
    case kArea:
      return torch::kArea;
    case kNearestExact:
      return torch::kNearestExact;
  }
  return torch::kNearest;
}

EF::InterpolateFuncOptions ember_options(const Interp& c) {
  return EF::InterpolateFuncOptions()
      .mode(ember_mode(c.mode))
      .size(c.size)
      .scale_factor(c.scale)
      .align_corners(c.align)
      .recompute_scale_factor(c.recompute)
      .antialias(c.antialias);
}

template <class T>
c10::optional<T> to_c10(const std::optional<T>& o) {
  return o ? c10::optional<T>(*o) : c10::nullopt;
}

TF::InterpolateFuncOptions torch_options(const Interp& c) {
  return TF::InterpolateFuncOptions()
      .mode(torch_mode(c.mode))
      .size(to_c10(c.size))
      .scale_factor(to_c10(c.scale))
      .align_corners(to_c10(c.align))
      .recompute_scale_factor(to_c10(c.recompute))
      .antialias(c.antialias);
}

std::string describe(const Interp& c, const Sizes& shape) {
  std::ostringstream s;
  s << kModeNames[c.mode] << " " << shape.size() << "-D";
  if (c.size) s << " size " << c10::IntArrayRef(*c.size);
  if (c.scale) s << " scale " << c10::ArrayRef<double>(*c.scale);
  if (c.align) s << " align_corners " << *c.align;
  if (c.recompute) s << " recompute " << *c.recompute;
  return s.str();
}

// Every way of giving the output size for `nd` spatial dims of an input of `in` sizes.
std::vector<Interp> specs(Mode mode, const Sizes& in, std::vector<std::optional<bool>> aligns) {
  const size_t nd = in.size() - 2;
  auto each = [nd](std::vector<double> v) { return std::vector<double>(v.begin(), v.begin() + long(nd)); };
  auto each_size = [nd](Sizes v) { return Sizes(v.begin(), v.begin() + long(nd)); };
  std::vector<Interp> out;
  for (const std::optional<bool>& align : aligns) {
    for (Sizes s : {Sizes{8, 7, 5}, Sizes{3, 2, 2}, Sizes{1, 1, 1},
                    each_size({in[2], in[3 % in.size()], in[4 % in.size()]}), Sizes{11, 3, 6}})
      out.push_back({mode, each_size(s), std::nullopt, align, std::nullopt});
    for (std::vector<double> sc :
         {std::vector<double>{2, 3, 2}, {1.5, 0.75, 2.5}, {0.6, 1.7, 0.45}, {1.1, 2.2, 0.7}})
      for (std::optional<bool> recompute : {std::optional<bool>(), std::optional<bool>(true)})
        out.push_back({mode, std::nullopt, each(sc), align, recompute});
  }
  return out;
}

// libtorch 1.13's nearest backward reads source i for an output as large as the input and
// i / 2 for one twice as large, whatever scale_factor its forward used; its gradient is then
// not the forward's adjoint. ember's is (gradcheck in test_nn_shape.cpp): values only there.
bool nearest_backward_differs(const Interp& c, const Sizes& shape) {
  if (c.mode != kNearest || !c.scale || c.recompute.value_or(false)) return false;
  for (size_t i = 0; i + 2 < shape.size(); ++i) {
    const double scale = (*c.scale)[i];
    const int64_t in = shape[i + 2], out = int64_t(std::floor(double(in) * scale));
    if ((out == in || out == 2 * in) && scale != double(out) / double(in)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("libtorch shape: interpolate values and gradients in every mode") {
  QuietWarnings quiet;
  ember::manual_seed(crosscheck::fresh_seed());
  const std::vector<std::optional<bool>> interpolating = {false, true};
  const std::vector<std::pair<Mode, Sizes>> modes = {{kNearest, {2, 3, 5}},
                                                     {kNearest, {2, 3, 5, 4}},
                                                     {kNearest, {1, 2, 3, 4, 3}},
                                                     {kNearestExact, {2, 3, 5}},
                                                     {kNearestExact, {2, 3, 5, 4}},
                                                     {kNearestExact, {1, 2, 3, 4, 3}},
                                                     {kLinear, {2, 3, 5}},
                                                     {kBilinear, {2, 3, 5, 4}},
                                                     {kBicubic, {2, 3, 5, 4}},
                                                     {kTrilinear, {1, 2, 3, 4, 3}},
                                                     {kArea, {2, 3, 5}},
                                                     {kArea, {2, 3, 5, 4}},
                                                     {kArea, {1, 2, 3, 4, 3}}};
  for (const auto& [mode, shape] : modes) {
    const bool aligning = mode == kLinear || mode == kBilinear || mode == kBicubic || mode == kTrilinear;
    for (const Interp& c :
         specs(mode, shape, aligning ? interpolating : std::vector<std::optional<bool>>{std::nullopt})) {
      const std::string what = describe(c, shape);
      if (nearest_backward_differs(c, shape)) {
        const ember::Tensor x = ember::randn(shape, ember::kDouble);
        check_close(EF::interpolate(x, ember_options(c)), TF::interpolate(as_torch(x), torch_options(c)),
                    1e-12, what + " (values only)");
        continue;
      }
      same_forward_backward(
          what, {leaf(shape)}, [&](const EInputs& v) { return EF::interpolate(v[0], ember_options(c)); },
          [&](const TInputs& v) { return TF::interpolate(v[0], torch_options(c)); }, 1e-10);
      // float32: the source indices come from float arithmetic, as libtorch's.
      const ember::Tensor x = ember::randn(shape);
      check_close(EF::interpolate(x, ember_options(c)), TF::interpolate(as_torch(x), torch_options(c)), 1e-5,
                  what + " float32");
    }
  }
  // Default align_corners (false, with a warning) and a strided input.
  same_forward_backward(
      "bilinear of a transposed input", {leaf({2, 3, 4, 6})},
      [](const EInputs& v) {
        return EF::interpolate(v[0].transpose(2, 3),
                               EF::InterpolateFuncOptions().size(Sizes{5, 9}).mode(ember::kBilinear));
      },
      [](const TInputs& v) {
        return TF::interpolate(v[0].transpose(2, 3),
                               TF::InterpolateFuncOptions().size(Sizes{5, 9}).mode(torch::kBilinear));
      },
      1e-10);
}

TEST_CASE("libtorch shape: torch::upsample_* ops with explicit scales") {
  ember::manual_seed(crosscheck::fresh_seed());
  using OD = c10::optional<double>;
  const ember::Tensor x3 = ember::randn({2, 3, 5}, ember::kDouble),
                      x4 = ember::randn({2, 2, 4, 5}, ember::kDouble),
                      x5 = ember::randn({1, 2, 3, 2, 4}, ember::kDouble);
  const torch::Tensor t3 = as_torch(x3), t4 = as_torch(x4), t5 = as_torch(x5);
  check_close(ember::upsample_nearest1d(x3, {7}, 1.3), torch::upsample_nearest1d(t3, {7}, OD(1.3)), 1e-12,
              "nearest1d");
  check_close(ember::upsample_nearest2d(x4, {9, 3}, 2.1, 0.7),
              torch::upsample_nearest2d(t4, {9, 3}, OD(2.1), OD(0.7)), 1e-12, "nearest2d");
  check_close(ember::upsample_nearest3d(x5, {4, 4, 5}, 1.5, 2.5, 1.2),
              torch::upsample_nearest3d(t5, {4, 4, 5}, OD(1.5), OD(2.5), OD(1.2)), 1e-12, "nearest3d");
  check_close(ember::_upsample_nearest_exact2d(x4, {9, 3}, 2.1, 0.7),
              torch::_upsample_nearest_exact2d(t4, {9, 3}, OD(2.1), OD(0.7)), 1e-12, "nearest_exact2d");
  check_close(ember::upsample_linear1d(x3, {7}, false, 1.3),
              torch::upsample_linear1d(t3, {7}, false, OD(1.3)), 1e-12, "linear1d");
  check_close(ember::upsample_bilinear2d(x4, {9, 3}, false, 2.1, 0.7),
              torch::upsample_bilinear2d(t4, {9, 3}, false, OD(2.1), OD(0.7)), 1e-12, "bilinear2d");
  check_close(ember::upsample_bicubic2d(x4, {9, 3}, true, 2.1, 0.7),
              torch::upsample_bicubic2d(t4, {9, 3}, true, OD(2.1), OD(0.7)), 1e-12,
              "bicubic2d align_corners");
  check_close(ember::upsample_bicubic2d(x4, {9, 3}, false, 2.1, 0.7),
              torch::upsample_bicubic2d(t4, {9, 3}, false, OD(2.1), OD(0.7)), 1e-12, "bicubic2d");
  check_close(ember::upsample_trilinear3d(x5, {4, 4, 5}, false, 1.5, 2.5, 1.2),
              torch::upsample_trilinear3d(t5, {4, 4, 5}, false, OD(1.5), OD(2.5), OD(1.2)), 1e-12,
              "trilinear3d");
}

TEST_CASE("libtorch shape: interpolate error texts") {
  QuietWarnings quiet;
  const ember::Tensor x3 = ember::randn({2, 3, 5}), x4 = ember::randn({2, 3, 5, 4});
  const torch::Tensor t3 = as_torch(x3), t4 = as_torch(x4);
  auto check = [&](const Interp& c, const ember::Tensor& e, const torch::Tensor& t) {
    same_error(
        describe(c, e.sizes().vec()), [&] { EF::interpolate(e, ember_options(c)); },
        [&] { TF::interpolate(t, torch_options(c)); });
  };
  check({kNearest, std::nullopt, std::nullopt, std::nullopt, std::nullopt}, x4, t4);
  check({kNearest, Sizes{3, 3}, std::vector<double>{2, 2}, std::nullopt, std::nullopt}, x4, t4);
  check({kNearest, std::nullopt, std::vector<double>{2, 2}, std::nullopt, std::nullopt}, x3, t3);
  check({kNearest, Sizes{3, 3}, std::nullopt, true, std::nullopt}, x4, t4);
  check({kArea, Sizes{3, 3}, std::nullopt, false, std::nullopt}, x4, t4);
  check({kBilinear, Sizes{3}, std::nullopt, false, std::nullopt}, x3, t3);
  check({kTrilinear, Sizes{3}, std::nullopt, false, std::nullopt}, x3, t3);
  check({kLinear, Sizes{3, 3}, std::nullopt, false, std::nullopt}, x4, t4);
  check({kTrilinear, Sizes{3, 3}, std::nullopt, false, std::nullopt}, x4, t4);
  check({kBicubic, Sizes{3}, std::nullopt, false, std::nullopt}, x3, t3);
  check({kNearest, Sizes{3}, std::nullopt, std::nullopt, std::nullopt}, x3[0], t3[0]);
  check({kNearest, Sizes{3}, std::nullopt, std::nullopt, std::nullopt, true}, x3, t3);
  check({kNearest, Sizes{3}, std::nullopt, std::nullopt, std::nullopt}, x4, t4);
  check({kBilinear, Sizes{3, 3, 3}, std::nullopt, false, std::nullopt}, x4, t4);
  check({kNearest, std::nullopt, std::vector<double>{0.1, 1}, std::nullopt, std::nullopt}, x4, t4);
  check({kLinear, Sizes{0}, std::nullopt, true, std::nullopt}, x3, t3);
  check({kNearest, Sizes{3, 3}, std::nullopt, std::nullopt, std::nullopt}, ember::zeros({2, 0, 3, 3}),
        torch::zeros({2, 0, 3, 3}));
  check({kArea, Sizes{3}, std::nullopt, std::nullopt, std::nullopt}, x4, t4);
  for (Mode m : {kNearest, kBilinear})
    check({m, Sizes{3, 3}, std::nullopt, m == kBilinear ? std::optional<bool>(false) : std::nullopt,
           std::nullopt},
          ember::zeros({1, 2, 2, 2}, ember::kLong), torch::zeros({1, 2, 2, 2}, torch::kLong));
  same_error(
      "upsample_nearest2d of a 3-D input",
      [&] {
        ember::upsample_nearest2d(x3, {3, 3});
      },
      [&] {
        torch::upsample_nearest2d(t3, {3, 3});
      });
}

TEST_CASE("libtorch shape: Upsample module values and printing") {
  QuietWarnings quiet;
  ember::manual_seed(crosscheck::fresh_seed());
  ember::nn::Upsample e1(ember::nn::UpsampleOptions()
                             .scale_factor(std::vector<double>{2, 1.5})
                             .mode(ember::kBilinear)
                             .align_corners(true));
  torch::nn::Upsample t1(torch::nn::UpsampleOptions()
                             .scale_factor(std::vector<double>{2, 1.5})
                             .mode(torch::kBilinear)
                             .align_corners(true));
  ember::nn::Upsample e2(ember::nn::UpsampleOptions().size(Sizes{7}));
  torch::nn::Upsample t2(torch::nn::UpsampleOptions().size(Sizes{7}));
  ember::nn::Upsample e3(ember::nn::UpsampleOptions().size(Sizes{3, 9}).mode(ember::kBicubic));
  torch::nn::Upsample t3(torch::nn::UpsampleOptions().size(Sizes{3, 9}).mode(torch::kBicubic));
  same_forward_backward(
      "Upsample bilinear", {leaf({2, 3, 4, 5})}, [&](const EInputs& v) { return e1(v[0]); },
      [&](const TInputs& v) { return t1(v[0]); }, 1e-10);
  same_forward_backward(
      "Upsample nearest", {leaf({2, 3, 4})}, [&](const EInputs& v) { return e2(v[0]); },
      [&](const TInputs& v) { return t2(v[0]); }, 1e-10);
  same_forward_backward(
      "Upsample bicubic", {leaf({2, 3, 4, 5})}, [&](const EInputs& v) { return e3(v[0]); },
      [&](const TInputs& v) { return t3(v[0]); }, 1e-10);
  CHECK(printed(*e1) == printed(*t1));
  CHECK(printed(*e2) == printed(*t2));
  CHECK(printed(*e3) == printed(*t3));
}

TEST_CASE("libtorch shape: interpolate warnings") {
  struct TorchWarnings : c10::WarningHandler {
    std::vector<std::string> messages;
    void process(const c10::SourceLocation&, const std::string& msg, const bool) override {
      messages.push_back(msg);
    }
  } torch_warnings;
  struct EmberWarnings : ember::WarningHandler {
    std::vector<std::string> messages;
    void process(const ember::Warning& w) override { messages.push_back(w.msg()); }
  } ember_warnings;
  c10::Warning::WarningHandlerGuard torch_guard(&torch_warnings);
  ember::WarningUtils::WarningHandlerGuard ember_guard(&ember_warnings);
  const ember::Tensor x = ember::randn({1, 2, 4, 4});
  const torch::Tensor t = as_torch(x);
  for (const Interp& c :
       std::vector<Interp>{{kBilinear, Sizes{3, 3}, std::nullopt, std::nullopt, std::nullopt},
                           {kBicubic, std::nullopt, std::vector<double>{1.5, 2}, std::nullopt, std::nullopt},
                           {kNearestExact, Sizes{3, 3}, std::nullopt, std::nullopt, std::nullopt},
                           {kNearest, std::nullopt, std::vector<double>{1.5, 2}, std::nullopt, false},
                           {kNearest, std::nullopt, std::vector<double>{3, 2}, std::nullopt, std::nullopt}}) {
    EF::interpolate(x, ember_options(c));
    TF::interpolate(t, torch_options(c));
  }
  CHECK(ember_warnings.messages.size() == 4);
  CHECK(ember_warnings.messages == torch_warnings.messages);
}
