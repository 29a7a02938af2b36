// Activations (lib/nn/activations*.cpp): values on a fixed input (the numbers libtorch
// 1.13 prints for the same calls), float64 gradcheck of every function, in-place forms,
// integer inputs, the modules' options, parameters and printing, and errors by type and
// libtorch's message.

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

// The values the cases below use: both sides of each kink, and 0.
Tensor sample() { return tensor({-3., -1., -0.5, 0., 0.5, 2., 7.}).to(kDouble); }

void expect_values(const Tensor& got, const std::vector<double>& want) {
  nn_test::expect_values(got, want, 1e-9);
}

// Random float64 leaves away from the kinks at 0, +-0.5, +-1 and +-3 (gradcheck's finite
// differences straddle a kink otherwise).
Tensor leaf(IntArrayRef sizes) {
  Tensor x = rand(sizes, kDouble) * 8 - 4;
  NoGradGuard no_grad;
  for (double k : {-3., -1., -0.5, 0., 0.5, 1., 3.}) x = where(abs(x - k) < 0.05, x + 0.1, x);
  return x.requires_grad_();
}

}  // namespace

TEST_CASE("nn activation: pointwise values match libtorch's") {
  const Tensor x = sample();
  expect_values(elu(x), {-0.950212931632, -0.632120558829, -0.393469340287, 0, 0.5, 2, 7});
  expect_values(elu(x, 2, 3, 4), {-5.99996313473, -5.89010616667, -5.18798830058, 0, 1.5, 6, 21});
  expect_values(selu(x), {-1.67056872877, -1.11133073781, -0.691758187803, 0, 0.525350493678, 2.10140197471,
                          7.35490691149});
  expect_values(celu(x, 2), {-1.5537396797, -0.786938680575, -0.442398433857, 0, 0.5, 2, 7});
  expect_values(gelu(x, "tanh"),
                {-0.00363739208177, -0.158808009392, -0.154285990175, 0, 0.345714009825, 1.95459769409, 7});
  expect_values(gelu(x, "none"), dvalues(gelu(x)));
  expect_values(silu(x), {-0.142277619533, -0.26894142137, -0.188770334399, 0, 0.311229665601, 1.76159415596,
                          6.99362264164});
  expect_values(mish(x), {-0.145647461276, -0.303401461374, -0.220743774652, 0, 0.375245211305, 1.94395895953,
                          6.99998837981});
  expect_values(hardtanh(x), {-1, -1, -0.5, 0, 0.5, 1, 1});
  expect_values(relu6(x), {0, 0, 0, 0, 0.5, 2, 6});
  expect_values(hardswish(x), {0, -1. / 3, -0.208333333333, 0, 0.291666666667, 1.66666666667, 7});
  expect_values(hardsigmoid(x), {0, 1. / 3, 0.416666666667, 0.5, 0.583333333333, 0.833333333333, 1});
  expect_values(softplus(x), {0.0485873515737, 0.313261687518, 0.47407698418, 0.69314718056, 0.97407698418,
                              2.12692801104, 7.00091146645});
  // beta x > threshold: x itself.
  expect_values(softplus(x, 2, 3),
                {0.00123784256887, 0.0634640055215, 0.156630843759, 0.34657359028, 0.656630843759, 2, 7});
  expect_values(softshrink(x), {-2.5, -0.5, 0, 0, 0, 1.5, 6.5});
  expect_values(hardshrink(x), {-3, -1, 0, 0, 0, 2, 7});
  expect_values(threshold(x, 0.5, 9), {9, 9, 9, 9, 9, 2, 7});
  expect_values(log_sigmoid(x), {-3.04858735157, -1.31326168752, -0.97407698418, -0.69314718056,
                                 -0.47407698418, -0.126928011043, -0.000911466453774});
  expect_values(F::softsign(x), {-0.75, -0.5, -1. / 3, 0, 1. / 3, 2. / 3, 0.875});
  expect_values(F::tanhshrink(x), {-2.00494524631, -0.238405844044, -0.03788284274, 0, 0.03788284274,
                                   1.03597241992, 6.00000166306});
  expect_values(rrelu(x), {-0.6875, -0.229166666667, -0.114583333333, 0, 0.5, 2, 7});
  expect_values(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)),
                {-0.6, -0.2, -0.1, 0, 0.5, 2, 7});
  // Large inputs do not overflow.
  expect_values(log_sigmoid(tensor({-800., 800.}).to(kDouble)), {-800, 0});
  expect_values(softplus(tensor({-800., 800.}).to(kDouble)), {0, 800});
  expect_values(mish(tensor({-800., 800.}).to(kDouble)), {0, 800});
  // libtorch 1.13 clamps: min_val > max_val gives max_val everywhere.
  expect_values(hardtanh(x, 2, 1), {1, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("nn activation: softmin, glu and prelu values") {
  const Tensor y = tensor({1., -2., 3., 0.5, -1., 2.}).to(kDouble).view({2, 3});
  expect_values(F::softmin(y, 1), {0.0471234165247, 0.946499122553, 0.00637746092244, 0.17529039214,
                                   0.785597034589, 0.0391125732707});
  CHECK(F::softmin(y.to(kFloat), F::SoftminFuncOptions(1).dtype(kDouble)).dtype() == kDouble);
  expect_values(glu(y, 0), {0.622459331202, -0.53788284274, 2.64239123393});
  CHECK(glu(y.view({3, 2})).sizes() == IntArrayRef({3, 1}));
  const Tensor px = tensor({-1., 2., -3., 4., -5., 6.}).to(kDouble).view({1, 2, 3});
  expect_values(prelu(px, tensor({0.5, 0.25}).to(kDouble)), {-0.5, 2, -1.5, 4, -1.25, 6});
  expect_values(prelu(px, tensor({0.5}).to(kDouble)), {-0.5, 2, -1.5, 4, -2.5, 6});
  expect_values(prelu(px, tensor(0.5).to(kDouble)), {-0.5, 2, -1.5, 4, -2.5, 6});
  CHECK(prelu(tensor(-2.), tensor({0.5f})).dim() == 0);
}

TEST_CASE("nn activation: float64 gradcheck of every function") {
  const Tensor x = leaf({2, 3, 4});
  using Fn = std::function<Tensor(const variable_list&)>;
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"elu", [](const variable_list& v) { return elu(v[0], 1.5, 0.7, 1.3); }},
      {"selu", [](const variable_list& v) { return selu(v[0]); }},
      {"celu", [](const variable_list& v) { return celu(v[0], 0.7); }},
      {"gelu tanh", [](const variable_list& v) { return gelu(v[0], "tanh"); }},
      {"silu", [](const variable_list& v) { return silu(v[0]); }},
      {"mish", [](const variable_list& v) { return mish(v[0]); }},
      {"hardtanh", [](const variable_list& v) { return hardtanh(v[0], -2, 1); }},
      {"relu6", [](const variable_list& v) { return relu6(v[0] * 3); }},
      {"hardswish", [](const variable_list& v) { return hardswish(v[0]); }},
      {"hardsigmoid", [](const variable_list& v) { return hardsigmoid(v[0]); }},
      {"softplus", [](const variable_list& v) { return softplus(v[0], 2, 3.1); }},
      {"softshrink", [](const variable_list& v) { return softshrink(v[0], 1); }},
      {"hardshrink", [](const variable_list& v) { return hardshrink(v[0], 1); }},
      {"threshold", [](const variable_list& v) { return threshold(v[0], 0.5, -2); }},
      {"log_sigmoid", [](const variable_list& v) { return log_sigmoid(v[0]); }},
      {"glu", [](const variable_list& v) { return glu(v[0], 0); }},  // dim 0, of size 2
      {"rrelu eval", [](const variable_list& v) { return rrelu(v[0], 0.1, 0.3); }},
      {"softsign", [](const variable_list& v) { return F::softsign(v[0]); }},
      {"tanhshrink", [](const variable_list& v) { return F::tanhshrink(v[0]); }},
      {"softmin", [](const variable_list& v) { return F::softmin(v[0], 1); }},
      {"logsigmoid", [](const variable_list& v) { return F::logsigmoid(v[0]); }},
  };
  for (const auto& [name, fn] : fns) {
    INFO(name);
    CHECK(check(fn, {x}));
  }
  // prelu: input and weight, per-channel and shared.
  CHECK(check([](const variable_list& v) { return prelu(v[0], v[1]); }, {x, leaf({3})}));
  CHECK(check([](const variable_list& v) { return prelu(v[0], v[1]); }, {x, leaf({1})}));
  // rrelu in training: the drawn slopes are constants of the graph; same seed, same slopes.
  CHECK(check(
      [](const variable_list& v) {
        manual_seed(3);
        return rrelu(v[0], 0.1, 0.3, true);
      },
      {x}));
}

TEST_CASE("nn activation: backward names and gradients at the kinks follow libtorch") {
  const Tensor x = tensor({-3., -1., 0., 1., 3.}).to(kDouble).requires_grad_();
  CHECK(elu(x).grad_fn()->name() == "EluBackward0");
  CHECK(selu(x).grad_fn()->name() == "EluBackward0");
  CHECK(celu(x).grad_fn()->name() == "CeluBackward0");
  CHECK(relu6(x).grad_fn()->name() == "HardtanhBackward0");
  CHECK(softplus(x).grad_fn()->name() == "SoftplusBackward0");
  CHECK(threshold(x, 0, 1).grad_fn()->name() == "ThresholdBackward0");
  CHECK(mish(x).grad_fn()->name() == "MishBackward0");
  // hardtanh: zero at the bounds; hardswish: -0.5 at -3, 1.5 at 3; hardsigmoid: 0 at +-3.
  auto grad = [&](const Tensor& y) { return autograd::grad({y.sum()}, {x})[0]; };
  expect_values(grad(hardtanh(x)), {0, 0, 1, 0, 0});
  expect_values(grad(hardswish(x)), {-0.5, 1. / 6, 0.5, 5. / 6, 1.5});
  const double sixth = 1.0f / 6.0f;  // libtorch's kernel uses 1/6 rounded to float
  expect_values(grad(hardsigmoid(x)), {0, sixth, sixth, sixth, 0});
  expect_values(grad(softshrink(x, 1)), {1, 0, 0, 0, 1});
  expect_values(grad(threshold(x, 1, 5)), {0, 0, 0, 0, 1});
  expect_values(grad(softplus(x)), dvalues(sigmoid(x.detach())));
  expect_values(grad(elu(x)), {std::exp(-3.), std::exp(-1.), 1, 1, 1});
  // hardtanh passes the gradient through at NaN, as libtorch's kernel does.
  const Tensor nan = tensor({std::nan("")}, kDouble).requires_grad_();
  CHECK(autograd::grad({hardtanh(nan).sum()}, {nan})[0].item<double>() == 1);
}

TEST_CASE("nn activation: the recorded nodes' formulas are differentiable (double backward)") {
  manual_seed(21);
  for (auto f : std::vector<std::function<Tensor(const Tensor&)>>{
           [](const Tensor& t) { return elu(t); }, [](const Tensor& t) { return softplus(t); },
           [](const Tensor& t) { return mish(t); }, [](const Tensor& t) { return gelu(t, "tanh"); },
           [](const Tensor& t) { return leaky_relu(t, 0.2); }}) {
    auto input_grad = [&](const variable_list& v) {
      const Tensor y = f(v[0]);
      return autograd::grad({(y * y).sum()}, {v[0]}, {}, true, true)[0];
    };
    CHECK(check(input_grad, {leaf({6})}));
  }
}

TEST_CASE("nn activation: in-place forms modify and return their input") {
  using InPlace = std::function<Tensor&(Tensor&)>;
  const std::vector<std::pair<InPlace, std::function<Tensor(const Tensor&)>>> pairs = {
      {[](Tensor& t) -> Tensor& { return elu_(t, 0.5); }, [](const Tensor& t) { return elu(t, 0.5); }},
      {[](Tensor& t) -> Tensor& { return selu_(t); }, [](const Tensor& t) { return selu(t); }},
      {[](Tensor& t) -> Tensor& { return celu_(t, 2); }, [](const Tensor& t) { return celu(t, 2); }},
      {[](Tensor& t) -> Tensor& { return hardtanh_(t, -2, 2); },
       [](const Tensor& t) { return hardtanh(t, -2, 2); }},
      {[](Tensor& t) -> Tensor& { return relu6_(t); }, [](const Tensor& t) { return relu6(t); }},
      {[](Tensor& t) -> Tensor& { return hardswish_(t); }, [](const Tensor& t) { return hardswish(t); }},
      {[](Tensor& t) -> Tensor& { return hardsigmoid_(t); }, [](const Tensor& t) { return hardsigmoid(t); }},
      {[](Tensor& t) -> Tensor& { return threshold_(t, 0.5, 9); },
       [](const Tensor& t) { return threshold(t, 0.5, 9); }},
      {[](Tensor& t) -> Tensor& { return rrelu_(t); }, [](const Tensor& t) { return rrelu(t); }},
      {[](Tensor& t) -> Tensor& { return silu_(t); }, [](const Tensor& t) { return silu(t); }},
      {[](Tensor& t) -> Tensor& { return mish_(t); }, [](const Tensor& t) { return mish(t); }},
  };
  for (const auto& [in_place, out_of_place] : pairs) {
    Tensor t = sample();
    const Tensor want = out_of_place(t);
    Tensor& r = in_place(t);
    CHECK(&r == &t);
    CHECK(equal(t, want));
  }
  // The functional forms' inplace option: the same tensor comes back, changed.
  Tensor t = sample();
  Tensor r = F::elu(t, F::ELUFuncOptions().inplace(true));
  CHECK(r.is_same(t));
  CHECK(t.min().item<double>() > -1);
  t = sample();
  CHECK(F::relu6(t, true).is_same(t));
  CHECK(t.max().item<double>() == 6);
  t = sample();
  CHECK(F::threshold(t, F::ThresholdFuncOptions(0.5, 9).inplace(true)).is_same(t));
  CHECK(t.min().item<double>() == 2);
  t = sample();
  CHECK(F::hardtanh(t, F::HardtanhFuncOptions().inplace(true)).is_same(t));
  CHECK(t.max().item<double>() == 1);
  // In place on a non-leaf records, and the gradient flows through the saved copy.
  const Tensor l = sample().requires_grad_();
  Tensor y = l * 1;
  elu_(y);
  y.sum().backward();
  expect_values(l.grad(), dvalues(where(sample() > 0, 1., exp(sample()))));
  // A leaf that requires grad is refused, as in libtorch.
  Tensor leaf_rg = sample().requires_grad_();
  CHECK_THROWS_AS(elu_(leaf_rg), Error);
}

TEST_CASE("nn activation: integer inputs where libtorch takes them, its errors where it does not") {
  const Tensor i = tensor({-3, -1, 0, 1, 2, 7});
  CHECK(relu6(i).dtype() == kLong);
  CHECK(dvalues(relu6(i)) == std::vector<double>{0, 0, 0, 1, 2, 6});
  // Bounds cast to the integer dtype (toward 0).
  CHECK(dvalues(hardtanh(i, -1.5, 1.5)) == std::vector<double>{-1, -1, 0, 1, 1, 1});
  CHECK(dvalues(threshold(i, -0.5, 9.7)) == std::vector<double>{9, 9, 9, 1, 2, 7});
  CHECK(threshold(i, 1, 5).dtype() == kLong);
  // softsign and tanhshrink promote to float.
  CHECK(F::softsign(i).dtype() == kFloat);
  CHECK(F::tanhshrink(i).dtype() == kFloat);
  expect_error<NotImplemented>([&] { elu(i); }, "\"elu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { selu(i); }, "\"elu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { celu(i); }, "\"elu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { gelu(i, "tanh"); }, "\"GeluKernelImpl\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { silu(i); }, "\"silu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { mish(i); }, "\"mish_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { hardswish(i); }, "\"hardswish_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { hardsigmoid(i); }, "\"hardsigmoid_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { softplus(i); }, "\"softplus_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { softshrink(i); }, "\"softshrink_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { hardshrink(i); }, "\"hardshrink_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { log_sigmoid(i); }, "\"log_sigmoid_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { prelu(i, tensor({1})); }, "\"prelu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { rrelu(i); }, "\"leaky_relu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { rrelu(i, 0.1, 0.3, true); },
                               "\"rrelu_with_noise_out_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { glu(i.view({3, 2})); }, "\"glu_cpu\" not implemented for 'Long'");
  expect_error<NotImplemented>([&] { threshold(tensor({true}), 0, 1); },
                               "\"threshold_cpu\" not implemented for 'Bool'");
  expect_error([&] { hardtanh(tensor({true})); }, "Bool inputs not supported for hardtanh");
  expect_error([&] { relu6(tensor({true})); }, "Bool inputs not supported for hardtanh");
}

TEST_CASE("nn activation: argument errors carry libtorch's messages") {
  const Tensor x = sample();
  expect_error([&] { glu(randn({2, 3}), 1); }, "Halving dimension must be even, but dimension 1 is size 3");
  expect_error([&] { glu(randn({2, 3})); }, "Halving dimension must be even, but dimension 1 is size 3");
  expect_error(
      [&] {
        glu(randn({2, 4}), 2);
      },
      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error([&] { glu(randn({})); }, "glu does not support 0-dimensional tensors");
  expect_error([&] { F::glu(randn({})); }, "glu does not suppport scalars because halving size must be even");
  expect_error(
      [&] {
        prelu(randn({2, 3}), ones({2}));
      },
      "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel "
      "size = 3.");
  expect_error(
      [&] { prelu(randn({3}), ones({3})); },
      "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel "
      "size = 1.");
  expect_error([&] { prelu(randn({}), ones({3})); }, "Not allow zero-dim input tensor.");
  expect_error(
      [&] {
        prelu(randn({2, 3}), ones({3, 1}));
      },
      "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = 2");
  expect_error([&] { prelu(randn({2, 3}), ones({1}, kDouble)); }, "Found dtype Double but expected Float");
  expect_error([&] { softshrink(x, -1); }, "lambda must be greater or equal to 0, but found to be -1.");
  expect_error([&] { softshrink(x, -0.5); }, "lambda must be greater or equal to 0, but found to be -0.5.");
  expect_error([&] { celu(x, 0); }, "ZeroDivisionError: alpha cannot be 0 for CELU");
  expect_error([&] { rrelu(x, 0.5, 0.1, true); },
               "Lower bound should be less than or equal to the upper bound");
  expect_error([&] { rrelu(x, 0.5, 0.1); }, "Lower bound should be less than or equal to the upper bound");
  expect_error([&] { gelu(x, "foo"); }, "approximate argument must be either none or tanh.");
  expect_error([&] { nn::Hardtanh(nn::HardtanhOptions().min_val(2).max_val(1)); },
               "max_val must be greater than min_val");
  expect_error([&] { nn::Hardtanh(nn::HardtanhOptions().min_val(1).max_val(1)); },
               "max_val must be greater than min_val");
  expect_error([&] { nn::Softmax2d()(randn({2, 3})); }, "Softmax2d requires a 3D or 4D tensor as input");
  expect_error(
      [&] {
        nn::Softmax2d()(randn({1, 2, 3, 4, 5}));
      },
      "Softmax2d requires a 3D or 4D tensor as input");
}

TEST_CASE("nn activation: RReLU draws its slopes from the default generator while training") {
  const Tensor z = tensor({-1., -2., 3., -4., 5., -6.}).to(kDouble);
  // libtorch 1.13 after torch::manual_seed(7): one draw per element <= 0, in order.
  const std::vector<double> want = {-0.155876085981, -0.309477485461, 3, -1.08967436913, 5, -1.38802611671};
  manual_seed(7);
  expect_values(rrelu(z, 0.1, 0.3, true), want);
  manual_seed(7);
  nn::RReLU m(nn::RReLUOptions().lower(0.1).upper(0.3));
  expect_values(m(z), want);
  // The float stream: the same doubles, bounds and slopes rounded to float.
  manual_seed(7);
  nn_test::expect_values(rrelu(z.to(kFloat), 0.1, 0.3, true),
                         {-0.155876085162, -0.309477508068, 3, -1.0896743536, 5, -1.38802623749}, 1e-7);
  // Every slope within [lower, upper]; eval uses their mean.
  const Tensor big = -ones({1000}, kDouble);
  const Tensor slopes = -rrelu(big, 0.2, 0.4, true);
  CHECK(slopes.min().item<double>() >= 0.2);
  CHECK(slopes.max().item<double>() <= 0.4);
  m->eval();
  expect_values(m(z), {-0.2, -0.4, 3, -0.8, 5, -1.2});
  // In place while training: the input changes and comes back.
  m->train();
  nn::RReLU mi(nn::RReLUOptions().inplace(true));
  Tensor t = z.clone();
  CHECK(mi(t).is_same(t));
  CHECK(t.max().item<double>() == 5);
  CHECK(t.min().item<double>() > -6);
}

TEST_CASE("nn activation: modules forward their options") {
  const Tensor x = sample();
  CHECK(equal(nn::ELU(nn::ELUOptions().alpha(2))(x), elu(x, 2)));
  CHECK(equal(nn::SELU()(x), selu(x)));
  CHECK(equal(nn::CELU(nn::CELUOptions().alpha(3))(x), celu(x, 3)));
  CHECK(equal(nn::Hardshrink(1.0)(x), hardshrink(x, 1)));
  CHECK(equal(nn::Hardtanh(nn::HardtanhOptions().min_val(-2).max_val(3))(x), hardtanh(x, -2, 3)));
  CHECK(equal(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.3))(x), leaky_relu(x, 0.3)));
  CHECK(equal(nn::LogSigmoid()(x), log_sigmoid(x)));
  CHECK(equal(nn::ReLU6()(x), relu6(x)));
  CHECK(equal(nn::GLU(0)(x.view({7, 1}).repeat({2, 1})), glu(x.view({7, 1}).repeat({2, 1}), 0)));
  CHECK(equal(nn::GELU(nn::GELUOptions().approximate("tanh"))(x), gelu(x, "tanh")));
  CHECK(equal(nn::SiLU()(x), silu(x)));
  CHECK(equal(nn::Mish()(x), mish(x)));
  CHECK(equal(nn::Softplus(nn::SoftplusOptions().beta(2).threshold(3))(x), softplus(x, 2, 3)));
  CHECK(equal(nn::Softshrink(1.0)(x), softshrink(x, 1)));
  CHECK(equal(nn::Softsign()(x), F::softsign(x)));
  CHECK(equal(nn::Tanhshrink()(x), F::tanhshrink(x)));
  CHECK(equal(nn::Threshold(0.5, 9)(x), threshold(x, 0.5, 9)));
  const Tensor y = randn({2, 3, 4, 5});
  CHECK(equal(nn::Softmin(1)(y), softmax(-y, 1)));
  CHECK(equal(nn::LogSoftmax(2)(y), log_softmax(y, 2)));
  CHECK(equal(nn::Softmax2d()(y), softmax(y, 1)));
  CHECK(equal(nn::Softmax2d()(y[0]), softmax(y[0], 0)));
  // An inplace module changes its input.
  Tensor t = sample();
  CHECK(nn::ReLU6(true)(t).is_same(t));
  CHECK(t.min().item<double>() == 0);
}

TEST_CASE("nn activation: PReLU's weight is a learnable parameter of num_parameters, init 0.25") {
  nn::PReLU one;
  REQUIRE(one->named_parameters().size() == 1);
  CHECK(one->named_parameters()[0].key() == "weight");
  CHECK(one->weight.sizes() == IntArrayRef({1}));
  CHECK(one->weight.dtype() == kFloat);
  CHECK(one->weight.item<float>() == 0.25f);
  nn::PReLU three(nn::PReLUOptions().num_parameters(3).init(0.5));
  CHECK(dvalues(three->weight) == std::vector<double>{0.5, 0.5, 0.5});
  const Tensor x = -ones({2, 3, 4});
  const Tensor y = three(x);
  expect_values(y.sum(), {-12});
  y.sum().backward();
  expect_values(three->weight.grad(), {-8, -8, -8});
  // clone() has its own weight.
  auto copy = std::dynamic_pointer_cast<nn::PReLUImpl>(three->clone());
  REQUIRE(copy);
  CHECK(!copy->weight.is_same(three->weight));
  CHECK(equal(copy->weight, three->weight));
  CHECK_THROWS_WITH(three(randn({2, 4})),
                    Equals("Mismatch of parameter numbers and input channel size. Found "
                           "parameter numbers = 3 and channel size = 4."));
}

TEST_CASE("nn activation: modules print in libtorch's format") {
  CHECK(printed(nn::ELU()) == "ember::nn::ELU(alpha=1)");
  CHECK(printed(nn::ELU(nn::ELUOptions().alpha(42.42).inplace(true))) ==
        "ember::nn::ELU(alpha=42.42, inplace=true)");
  CHECK(printed(nn::SELU()) == "ember::nn::SELU()");
  CHECK(printed(nn::SELU(true)) == "ember::nn::SELU(inplace=true)");
  CHECK(printed(nn::Hardshrink()) == "ember::nn::Hardshrink(0.5)");
  CHECK(printed(nn::Hardshrink(42.42)) == "ember::nn::Hardshrink(42.42)");
  CHECK(printed(nn::Hardtanh()) == "ember::nn::Hardtanh(min_val=-1, max_val=1)");
  CHECK(printed(nn::Hardtanh(nn::HardtanhOptions().min_val(-42.42).max_val(0.42).inplace(true))) ==
        "ember::nn::Hardtanh(min_val=-42.42, max_val=0.42, inplace=true)");
  CHECK(printed(nn::LeakyReLU()) == "ember::nn::LeakyReLU(negative_slope=0.01)");
  CHECK(printed(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.42).inplace(true))) ==
        "ember::nn::LeakyReLU(negative_slope=0.42, inplace=true)");
  CHECK(printed(nn::LogSigmoid()) == "ember::nn::LogSigmoid()");
  CHECK(printed(nn::Softmin(1)) == "ember::nn::Softmin(dim=1)");
  CHECK(printed(nn::LogSoftmax(1)) == "ember::nn::LogSoftmax(dim=1)");
  CHECK(printed(nn::Softmax2d()) == "ember::nn::Softmax2d()");
  CHECK(printed(nn::PReLU()) == "ember::nn::PReLU(num_parameters=1)");
  CHECK(printed(nn::PReLU(nn::PReLUOptions().num_parameters(42).init(0.5))) ==
        "ember::nn::PReLU(num_parameters=42)");
  CHECK(printed(nn::ReLU6()) == "ember::nn::ReLU6()");
  CHECK(printed(nn::ReLU6(true)) == "ember::nn::ReLU6(inplace=true)");
  CHECK(printed(nn::RReLU()) == "ember::nn::RReLU(lower=0.125, upper=0.333333)");
  CHECK(printed(nn::RReLU(nn::RReLUOptions().lower(0.1).upper(0.42).inplace(true))) ==
        "ember::nn::RReLU(lower=0.1, upper=0.42, inplace=true)");
  CHECK(printed(nn::CELU()) == "ember::nn::CELU(alpha=1)");
  CHECK(printed(nn::CELU(nn::CELUOptions().alpha(42.42).inplace(true))) ==
        "ember::nn::CELU(alpha=42.42, inplace=true)");
  CHECK(printed(nn::GLU()) == "ember::nn::GLU(dim=-1)");
  CHECK(printed(nn::GLU(1)) == "ember::nn::GLU(dim=1)");
  CHECK(printed(nn::SiLU()) == "ember::nn::SiLU()");
  CHECK(printed(nn::Mish()) == "ember::nn::Mish()");
  CHECK(printed(nn::Softplus()) == "ember::nn::Softplus(beta=1, threshold=20)");
  CHECK(printed(nn::Softplus(nn::SoftplusOptions().beta(0.24).threshold(42.42))) ==
        "ember::nn::Softplus(beta=0.24, threshold=42.42)");
  CHECK(printed(nn::Softshrink()) == "ember::nn::Softshrink(0.5)");
  CHECK(printed(nn::Softshrink(42.42)) == "ember::nn::Softshrink(42.42)");
  CHECK(printed(nn::Softsign()) == "ember::nn::Softsign()");
  CHECK(printed(nn::Tanhshrink()) == "ember::nn::Tanhshrink()");
  CHECK(printed(nn::Threshold(42.42, 24.24)) == "ember::nn::Threshold(threshold=42.42, value=24.24)");
  CHECK(printed(nn::Threshold(nn::ThresholdOptions(42.42, 24.24).inplace(true))) ==
        "ember::nn::Threshold(threshold=42.42, value=24.24, inplace=true)");
  // In a Sequential, as libtorch nests them.
  nn::Sequential seq{nn::ELU(), nn::Mish()};
  CHECK(printed(seq) ==
        "ember::nn::Sequential(\n  (0): ember::nn::ELU(alpha=1)\n  (1): ember::nn::Mish()\n)");
}

TEST_CASE("nn activation: gumbel_softmax samples, soft and hard (straight-through)") {
  manual_seed(5);
  const Tensor logits = tensor({1.0, 2.0, 0.5, -1.0, 0.0, 3.0}, kDouble).view({2, 3}).requires_grad_();
  const Tensor soft = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5));
  expect_values(soft.sum(-1), {1, 1});
  manual_seed(5);
  const Tensor hard = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5).hard(true));
  // The same draws: the hard sample is the one-hot of the soft one's argmax.
  expect_values(hard, dvalues(zeros_like(soft).scatter_(1, std::get<1>(soft.max(1, true)), 1.0)));
  const Tensor r = randn({2, 3}, kDouble);
  const Tensor g_hard = autograd::grad({(hard * r).sum()}, {logits})[0];
  const Tensor g_soft = autograd::grad({(soft * r).sum()}, {logits})[0];
  CHECK(g_hard.allclose(g_soft));
  CHECK_THROWS_AS(F::gumbel_softmax(Tensor()), InvalidArgument);
}

TEST_CASE("nn activation: pdist of the rows, gradients and errors") {
  const Tensor x = tensor({0.0, 0.0, 3.0, 4.0, 6.0, 8.0}, kDouble).view({3, 2});
  expect_values(F::pdist(x), {5, 10, 5});
  expect_values(F::pdist(x, 1), {7, 14, 7});
  CHECK(F::pdist(zeros({1, 4})).sizes() == IntArrayRef({0}));
  manual_seed(8);
  CHECK(check([](const variable_list& v) { return F::pdist(v[0], 3); }, {leaf({4, 3})}));
  expect_error([] { F::pdist(zeros({3})); }, "pdist only supports 2D tensors, got: 1D");
  expect_error([] { F::pdist(zeros({3, 2}, kLong)); }, "pdist only supports floating-point dtypes");
  expect_error([] { F::pdist(zeros({3, 2}), -1); }, "pdist only supports non-negative p values");
}
