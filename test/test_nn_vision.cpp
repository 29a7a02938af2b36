// Spatial transformers: F::affine_grid and F::grid_sample / torch::grid_sampler. Values are
// libtorch 1.13's for fixed inputs in every mode, padding mode and align_corners (2-D and
// 3-D), gradients by float64 gradcheck (input, grid and theta, second order too), nearest's
// zero grid gradient, the warning for an unset align_corners and libtorch's error texts.
// torch_crosscheck_vision.cpp compares random inputs against libtorch itself.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using nn_test::expect_error;
using nn_test::expect_values;
namespace F = ember::nn::functional;

namespace {

struct SamplerCase {
  int64_t mode, padding;
  bool align_corners;
  std::vector<double> want;
};

// A 3x4 image sin(0.5 k) and six points: a corner, inside, and outside on every side.
Tensor image() { return (arange(12, kDouble).view({1, 1, 3, 4}) * 0.5).sin(); }
Tensor points() {
  return tensor({-1., -1., 0.3, -0.7, 1.2, 0.5, -0.9, 1.1, 0., 0., 0.77, -1.4}, kDouble).view({1, 2, 3, 2});
}

// Records the warnings raised in its scope.
struct WarningLog : WarningHandler {
  std::vector<std::string> messages;
  void process(const Warning& w) override { messages.push_back(w.msg()); }
};

}  // namespace

TEST_CASE("grid_sample: libtorch's values in every mode, padding mode and align_corners") {
  const std::vector<SamplerCase> cases{
      {0, 0, false, {0, 0.81421971573813678, -0.061685105110019671, -0.18541661135044221, 0.36979607608191184, 0}},  // bilinear zeros
      {0, 0, true, {0, 0.62555438320701984, -0.369713243641004, -0.71092047479535314, 0.36979607608191184, 0.56620002359062804}},  // bilinear zeros align
      {0, 1, false, {0, 0.85707338498751229, -0.61685105110019889, -0.7568024953079282, 0.36979607608191184, 0.99749498660405445}},  // bilinear border
      {0, 1, true, {0, 0.62555438320701984, -0.52816177663000585, -0.7899116386615036, 0.36979607608191184, 0.94366670598437996}},  // bilinear border align
      {0, 2, false, {0, 0.85707338498751229, -0.61685105110019889, -0.7568024953079282, 0.36979607608191184, 0.86266716517468722}},  // bilinear reflection
      {0, 2, true, {0, 0.62555438320701984, -0.49238388363149477, -0.62465311135361079, 0.36979607608191184, 0.49376937904820928}},  // bilinear reflection align
      {1, 0, false, {0, 0.8414709848078965, 0, 0, 0.14112000805986721, 0}},  // nearest zeros
      {1, 0, true, {0, 0.8414709848078965, -0.70554032557039192, -0.7568024953079282, 0.14112000805986721, 0.99749498660405445}},  // nearest zeros align
      {1, 1, false, {0, 0.8414709848078965, -0.70554032557039192, -0.7568024953079282, 0.14112000805986721, 0.99749498660405445}},  // nearest border
      {1, 1, true, {0, 0.8414709848078965, -0.70554032557039192, -0.7568024953079282, 0.14112000805986721, 0.99749498660405445}},  // nearest border align
      {1, 2, false, {0, 0.8414709848078965, -0.70554032557039192, -0.7568024953079282, 0.14112000805986721, 0.99749498660405445}},  // nearest reflection
      {1, 2, true, {0, 0.8414709848078965, -0.70554032557039192, -0.7568024953079282, 0.14112000805986721, 0.99749498660405445}},  // nearest reflection align
      {2, 0, false, {-0.072041952863835773, 0.87577298859094466, -0.060655031967212836, -0.24589760176190625, 0.3867721341782645, -0.058971167978642304}},  // bicubic zeros
      {2, 0, true, {0, 0.78688664927104179, -0.53685628832661747, -0.88649080946821102, 0.3867721341782645, 0.80395670084047965}},  // bicubic zeros align
      {2, 1, false, {-0.13713834186836163, 0.90344452458256297, -0.67214925643005097, -0.83255788195991864, 0.3867721341782645, 1.0018087382057161}},  // bicubic border
      {2, 1, true, {0, 0.69617166897815819, -0.67440817032880995, -0.8861849540610246, 0.3867721341782645, 1.0954404998301903}},  // bicubic border align
      {2, 2, false, {-0.28816781145534309, 0.90487533041259083, -0.66839787532313433, -1.0087374278454246, 0.3867721341782645, 0.89214924590147682}},  // bicubic reflection
      {2, 2, true, {0, 0.76757152659101846, -0.68112324841634142, -0.72588211271920611, 0.3867721341782645, 0.66838378877010851}},  // bicubic reflection align
  };
  for (const SamplerCase& c : cases) {
    INFO("mode " << c.mode << ", padding " << c.padding << ", align_corners " << c.align_corners);
    const Tensor out = grid_sampler(image(), points(), c.mode, c.padding, c.align_corners);
    CHECK(out.sizes() == IntArrayRef{1, 1, 2, 3});
    expect_values(out, c.want, 1e-12);
  }
}

TEST_CASE("grid_sample: 3-D volumes, trilinear and nearest") {
  const Tensor volume = (arange(24, kDouble).view({1, 1, 2, 3, 4}) * 0.3).cos();
  const Tensor where_ = tensor({0.1, -0.3, 0.5, 1.1, 0.9, -1.2}, kDouble).view({1, 1, 1, 2, 3});
  const std::vector<SamplerCase> cases{
      {0, 0, false, {0.054290064996216358, -0.057767566539668601}},  // 3d bilinear zeros
      {0, 1, false, {0.054290064996216358, -0.98747976990886488}},  // 3d bilinear border
      {0, 2, false, {0.054290064996216358, -0.98747976990886488}},  // 3d bilinear reflection
      {1, 0, false, {0.63469287594263391, 0}},  // 3d nearest zeros
      {1, 1, false, {0.63469287594263391, -0.98747976990886488}},  // 3d nearest border
      {1, 2, false, {0.63469287594263391, -0.98747976990886488}},  // 3d nearest reflection
  };
  for (const SamplerCase& c : cases) {
    INFO("mode " << c.mode << ", padding " << c.padding);
    const Tensor out = grid_sampler(volume, where_, c.mode, c.padding, false);
    CHECK(out.sizes() == IntArrayRef{1, 1, 1, 1, 2});
    expect_values(out, c.want, 1e-12);
  }
}

TEST_CASE("grid_sample: the functional's options name the same samplers") {
  const Tensor x = image(), g = points();
  auto same = [&](F::GridSampleFuncOptions o, int64_t mode, int64_t padding) {
    CHECK(equal(F::grid_sample(x, g, o.align_corners(true)), grid_sampler(x, g, mode, padding, true)));
  };
  same(F::GridSampleFuncOptions(), 0, 0);
  same(F::GridSampleFuncOptions().mode(kNearest).padding_mode(kBorder), 1, 1);
  same(F::GridSampleFuncOptions().mode(kBicubic).padding_mode(kReflection), 2, 2);
  // Channels and batches are sampled alike; float32 follows float64.
  const Tensor batch = cat({x, x * 2}, 1).expand({3, 2, 3, 4});
  const Tensor out = F::grid_sample(batch, g.expand({3, 2, 3, 2}), F::GridSampleFuncOptions().align_corners(false));
  CHECK(out.sizes() == IntArrayRef{3, 2, 2, 3});
  CHECK(allclose(out.select(1, 1), out.select(1, 0) * 2));
  const Tensor f32 = F::grid_sample(x.to(kFloat), g.to(kFloat), F::GridSampleFuncOptions().align_corners(false));
  CHECK(f32.dtype() == kFloat);
  CHECK(allclose(f32.to(kDouble), grid_sampler(x, g, 0, 0, false), 1e-6, 1e-6));
}

TEST_CASE("grid_sample: points at NaN or infinity read zeros, in every mode and padding") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor g = tensor({nan, 0., 0., inf, -inf, 0.2, 0.1, 0.1}, kDouble).view({1, 1, 4, 2});
  for (int64_t mode : {0, 1, 2})
    for (int64_t padding : {0, 1, 2}) {
      INFO("mode " << mode << ", padding " << padding);
      const Tensor x = image().requires_grad_(), grid = g.clone().requires_grad_();
      const Tensor out = grid_sampler(x, grid, mode, padding, false);
      const std::vector<double> v = ember_test::dvalues(out);
      CHECK(v[0] == 0);
      CHECK(v[1] == 0);
      CHECK(v[2] == 0);
      // The finite point is sampled as on its own (a tolerance: vector and scalar loops may round apart).
      CHECK(v[3] == Approx(ember_test::dvalues(grid_sampler(image(), g.narrow(2, 3, 1), mode, padding, false))[0])
                        .epsilon(1e-12)
                        .margin(1e-15));
      out.sum().backward();
      CHECK(std::isfinite(ember_test::dvalues(x.grad().sum())[0]));
      CHECK(ember_test::dvalues(grid.grad().narrow(2, 0, 3).abs().sum())[0] == 0);
    }
}

TEST_CASE("grid_sample: an unset align_corners warns as libtorch and means false") {
  WarningLog log;
  WarningUtils::WarningHandlerGuard guard(&log);
  const Tensor out = F::grid_sample(image(), points());
  REQUIRE(log.messages.size() == 1);
  CHECK(log.messages[0] ==
        "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
        "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
        "details.");
  CHECK(equal(out, grid_sampler(image(), points(), 0, 0, false)));
  F::grid_sample(image(), points(), F::GridSampleFuncOptions().align_corners(false));
  CHECK(log.messages.size() == 1);
}

TEST_CASE("grid_sample: gradients of the input and the grid") {
  SECTION("libtorch's values, bilinear with border padding") {
    const Tensor x = image().requires_grad_(), g = points().requires_grad_();
    grid_sampler(x, g, 0, 1, false).sum().backward();
    expect_values(g.grad(), {0, 0, 0.31204800359231588, 0, 0, -0.5321356468211581, 0, 0, -0.91470427208817839, -2.007034908369044, 0, -0}, 1e-12);
    expect_values(x.grad(), {1, 0, 0.89999999999999991, 1.1000000000000001, 0, 0.5, 0.5, 0.25, 1, 0, 0, 0.75}, 1e-12);
  }
  SECTION("gradcheck in every mode, padding mode and align_corners") {
    manual_seed(7);
    for (int64_t mode : {0, 1, 2})
      for (int64_t padding : {0, 1, 2})
        for (bool align : {false, true}) {
          INFO("mode " << mode << ", padding " << padding << ", align_corners " << align);
          const Tensor x = ember_test::grad::input({2, 2, 3, 4});
          const Tensor g = ember_test::grad::input({2, 3, 2, 2}, -1.3, 1.3);
          CHECK(ember_test::grad::check([&](const autograd::variable_list& v) {
            return grid_sampler(v[0], v[1], mode, padding, align);
          }, {x, g}));
        }
  }
  SECTION("3-D, and second order through the sampler") {
    manual_seed(8);
    const Tensor x = ember_test::grad::input({1, 2, 2, 3, 3}), g = ember_test::grad::input({1, 2, 1, 2, 3}, -1.2, 1.2);
    for (int64_t padding : {0, 1, 2})
      CHECK(ember_test::grad::check(
          [&](const autograd::variable_list& v) { return grid_sampler(v[0], v[1], 0, padding, false); }, {x, g}));
    const Tensor x2 = ember_test::grad::input({1, 1, 3, 4}), g2 = ember_test::grad::input({1, 2, 2, 2});
    CHECK(ember_test::grad::check_second(
        [&](const autograd::variable_list& v) { return grid_sampler(v[0], v[1], 2, 0, true); }, {x2, g2}));
  }
  SECTION("nearest: the grid's gradient is zeros, as libtorch's") {
    const Tensor g = points().requires_grad_();
    const Tensor out = grid_sampler(image(), g, 1, 0, false);
    REQUIRE(out.requires_grad());
    (out * 3).sum().backward();
    REQUIRE(g.grad().defined());
    CHECK(equal(g.grad(), zeros({1, 2, 3, 2}, kDouble)));
  }
}

TEST_CASE("affine_grid: libtorch's values and gradients") {
  const Tensor theta = tensor({0.5, 0.2, 0.1, -0.3, 0.8, 0.0}, kDouble).view({1, 2, 3});
  const Tensor grid = F::affine_grid(theta, {1, 1, 2, 3});
  CHECK(grid.sizes() == IntArrayRef{1, 2, 3, 2});
  expect_values(grid, {-0.33333333333333337, -0.20000000000000004, 0, -0.40000000000000002, 0.33333333333333331, -0.59999999999999998, -0.1333333333333333, 0.59999999999999998, 0.20000000000000001, 0.40000000000000002, 0.53333333333333333, 0.20000000000000004}, 1e-12);
  expect_values(F::affine_grid(theta, {1, 1, 2, 3}, true), {-0.59999999999999998, -0.5, -0.10000000000000001, -0.80000000000000004, 0.40000000000000002, -1.1000000000000001, -0.19999999999999998, 1.1000000000000001, 0.30000000000000004, 0.80000000000000004, 0.79999999999999993, 0.5}, 1e-12);
  const Tensor theta3 =
      tensor({0.5, 0.2, 0.1, 0.3, -0.3, 0.8, 0.0, 0.1, 0.2, 0.1, 0.9, -0.2}, kDouble).view({1, 3, 4});
  const Tensor grid3 = F::affine_grid(theta3, {1, 1, 2, 2, 3});
  CHECK(grid3.sizes() == IntArrayRef{1, 2, 2, 3, 3});
  expect_values(grid3, {-0.18333333333333335, -0.10000000000000003, -0.83333333333333326, 0.14999999999999997, -0.30000000000000004, -0.69999999999999996, 0.48333333333333328, -0.5, -0.56666666666666665, 0.016666666666666663, 0.69999999999999996, -0.73333333333333339, 0.34999999999999998, 0.5, -0.60000000000000009, 0.68333333333333335, 0.30000000000000004, -0.46666666666666667, -0.08333333333333337, -0.10000000000000003, 0.066666666666666652, 0.25, -0.30000000000000004, 0.20000000000000001, 0.58333333333333326, -0.5, 0.33333333333333331, 0.1166666666666667, 0.69999999999999996, 0.16666666666666669, 0.45000000000000001, 0.5, 0.29999999999999999, 0.78333333333333333, 0.30000000000000004, 0.43333333333333329}, 1e-12);
  // The identity transform with one pixel per dim samples the centre.
  const Tensor identity = tensor({1., 0., 0., 0., 1., 0.}, kDouble).view({1, 2, 3});
  expect_values(F::affine_grid(identity, {1, 1, 1, 1}), {0, 0}, 0);
  manual_seed(9);
  const Tensor t = ember_test::grad::input({2, 2, 3}), t3 = ember_test::grad::input({1, 3, 4});
  CHECK(ember_test::grad::check([](const autograd::variable_list& v) { return F::affine_grid(v[0], {2, 3, 3, 2}); }, {t}));
  CHECK(ember_test::grad::check(
      [](const autograd::variable_list& v) { return F::affine_grid(v[0], {1, 1, 2, 2, 2}, true); }, {t3}));
  // A spatial transformer: the image moved by theta, differentiable in both.
  const Tensor img = ember_test::grad::input({2, 1, 3, 3});
  CHECK(ember_test::grad::check(
      [](const autograd::variable_list& v) {
        return F::grid_sample(v[1], F::affine_grid(v[0], {2, 1, 3, 3}),
                              F::GridSampleFuncOptions().padding_mode(kBorder).align_corners(false));
      },
      {t, img}));
}

TEST_CASE("grid_sample and affine_grid: libtorch's errors, inputs unchanged") {
  const Tensor x = image(), g = points();
  expect_error([&] { grid_sampler(x, points().view({1, 2, 3, 1, 2}), 0, 0, false); },
               "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes "
               "[1, 1, 3, 4] and grid with sizes [1, 2, 3, 1, 2]", x);
  expect_error([&] { grid_sampler(x, g.expand({2, 2, 3, 2}), 0, 0, false); },
               "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
               "[1, 1, 3, 4] and grid with sizes [2, 2, 3, 2]");
  expect_error([&] { grid_sampler(x, zeros({1, 2, 3, 3}, kDouble), 0, 0, false); },
               "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [1, 2, 3, 3]");
  expect_error([&] { grid_sampler(zeros({1, 1, 0, 4}, kDouble), g, 0, 0, false); },
               "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [1, 1, 0, 4] "
               "with dimension 2 being empty");
  expect_error([&] { grid_sampler(zeros({1, 1, 2, 3, 4}, kDouble), zeros({1, 1, 1, 2, 3}, kDouble), 2, 0, false); },
               "grid_sampler(): bicubic interpolation only supports 4D input");
  expect_error([&] { grid_sampler_3d(x, g, 0, 0, false); },
               "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes "
               "[1, 1, 3, 4] and grid with sizes [1, 2, 3, 2]");
  expect_error([&] { grid_sampler(x, g.to(kFloat), 0, 0, false); }, "grid_sampler(): expected scalar type Double but found Float");
  expect_error([&] { grid_sampler(x.to(kLong), g.to(kLong), 0, 0, false); },
               "grid_sampler(): expected a floating point input (Half, BFloat16, Float or Double), but got Long");
  expect_error([&] { grid_sampler(x, g, 3, 0, false); },
               "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got 3");
  expect_error([&] { grid_sampler(x, g, 0, -1, false); },
               "grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got -1");
  expect_error([&] { grid_sampler(x, Tensor(), 0, 0, false); }, "grid_sampler(): expected grid to not be undefined");
  expect_error([&] { F::grid_sample(x, g, F::GridSampleFuncOptions().mode(kTrilinear).align_corners(true)); },
               "grid_sample: mode must be kBilinear, kNearest or kBicubic, got kTrilinear");
  expect_error([&] { F::grid_sample(x, g, F::GridSampleFuncOptions().padding_mode(kReflect).align_corners(true)); },
               "grid_sample: padding_mode must be kZeros, kBorder or kReflection, got kReflect");
  // Empty batches and outputs are fine, as in libtorch, and differentiable (zero gradients).
  CHECK(grid_sampler(zeros({0, 2, 3, 4}), zeros({0, 5, 6, 2}), 0, 0, false).sizes() == IntArrayRef{0, 2, 5, 6});
  const Tensor some = ones({2, 2, 3, 4}).requires_grad_(), nowhere = zeros({2, 0, 6, 2}).requires_grad_();
  const Tensor empty_out = grid_sampler(some, nowhere, 2, 1, false);
  CHECK(empty_out.sizes() == IntArrayRef{2, 2, 0, 6});
  empty_out.sum().backward();
  CHECK(equal(some.grad(), zeros({2, 2, 3, 4})));
  CHECK(nowhere.grad().sizes() == IntArrayRef{2, 0, 6, 2});

  const Tensor theta = zeros({1, 2, 3}, kDouble);
  expect_error([&] { F::affine_grid(theta.to(kLong), {1, 1, 2, 2}); },
               "Expected theta to have floating point type, but got long int");
  expect_error([&] { F::affine_grid(zeros({1, 3, 3}), {1, 1, 2, 2}); },
               "Expected a batch of 2D affine matrices of shape Nx2x3 for size [1, 1, 2, 2]. Got [1, 3, 3].");
  expect_error([&] { F::affine_grid(theta, {1, 1, 2, 2, 2}); },
               "Expected a batch of 3D affine matrices of shape Nx3x4 for size [1, 1, 2, 2, 2]. Got [1, 2, 3].");
  expect_error([&] { F::affine_grid(theta, {1, 1, 2}); },
               "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size "
               "[1, 1, 2]");
  expect_error([&] { F::affine_grid(theta, {1, 0, 2, 2}); }, "Expected non-zero, positive output size. Got [1, 0, 2, 2]");
  expect_error([&] { F::affine_grid(zeros({2, 2, 3}), {1, 1, 2, 2}); },
               "Expected size for first two dimensions of batch2 tensor to be: [1, 3] but got: [2, 3].");
  expect_error([&] { affine_grid_generator(theta, {1, 1, 2}, false); },
               "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
}

TEST_CASE("padding modes: kBorder and kReflection are grid_sample's only") {
  expect_error([] { nn::Conv2d(nn::Conv2dOptions(1, 1, 3).padding_mode(kBorder)); },
               "padding_mode must be kZeros, kReflect, kReplicate or kCircular, got kBorder");
  expect_error([] { F::pad(zeros({1, 1, 2, 2}), F::PadFuncOptions({1, 1}).mode(kReflection)); },
               "pad: mode must be kConstant, kReflect, kReplicate or kCircular, got kReflection");
  CHECK(std::string(padding_mode_name(kBorder)) == "kBorder");
  CHECK(std::string(padding_mode_name(kReflection)) == "kReflection");
}
