// The activations against libtorch 1.13 on the same random values: forward values and
// gradients of every function (float64 and float32, strided inputs), the in-place forms,
// RReLU's training draws after the same seed, modules' printing and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::printed;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

// Values spread over the kinks and both tails (|x| up to ~12), as a leaf.
ember::Tensor leaf(std::vector<int64_t> sizes, ember::ScalarType dt) {
  return (ember::randn(sizes, ember::kDouble) * 4).to(dt).requires_grad_();
}

struct Case {
  std::string name;
  std::function<ember::Tensor(const ember::Tensor&)> ours;
  std::function<torch::Tensor(const torch::Tensor&)> theirs;
};

}  // namespace

TEST_CASE("activation crosscheck: values and gradients of every function on random inputs") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const std::vector<Case> cases = {
      {"elu", [](const ember::Tensor& x) { return ember::elu(x, 1.3, 0.8, 1.7); },
       [](const torch::Tensor& x) { return torch::elu(x, 1.3, 0.8, 1.7); }},
      {"F::elu", [](const ember::Tensor& x) { return EF::elu(x, EF::ELUFuncOptions().alpha(0.5)); },
       [](const torch::Tensor& x) { return TF::elu(x, TF::ELUFuncOptions().alpha(0.5)); }},
      {"selu", [](const ember::Tensor& x) { return ember::selu(x); },
       [](const torch::Tensor& x) { return torch::selu(x); }},
      {"celu", [](const ember::Tensor& x) { return ember::celu(x, 0.6); },
       [](const torch::Tensor& x) { return torch::celu(x, 0.6); }},
      {"gelu tanh", [](const ember::Tensor& x) { return ember::gelu(x, "tanh"); },
       [](const torch::Tensor& x) { return torch::gelu(x, "tanh"); }},
      {"silu", [](const ember::Tensor& x) { return ember::silu(x); },
       [](const torch::Tensor& x) { return torch::silu(x); }},
      {"mish", [](const ember::Tensor& x) { return ember::mish(x); },
       [](const torch::Tensor& x) { return torch::mish(x); }},
      {"hardtanh", [](const ember::Tensor& x) { return ember::hardtanh(x, -2.5, 1.5); },
       [](const torch::Tensor& x) { return torch::hardtanh(x, -2.5, 1.5); }},
      {"relu6", [](const ember::Tensor& x) { return ember::relu6(x); },
       [](const torch::Tensor& x) { return torch::relu6(x); }},
      {"hardswish", [](const ember::Tensor& x) { return ember::hardswish(x); },
       [](const torch::Tensor& x) { return torch::hardswish(x); }},
      {"hardsigmoid", [](const ember::Tensor& x) { return ember::hardsigmoid(x); },
       [](const torch::Tensor& x) { return torch::hardsigmoid(x); }},
      {"softplus", [](const ember::Tensor& x) { return ember::softplus(x); },
       [](const torch::Tensor& x) { return torch::softplus(x); }},
      {"softplus beta threshold", [](const ember::Tensor& x) { return ember::softplus(x, 2.5, 4); },
       [](const torch::Tensor& x) { return torch::softplus(x, 2.5, 4); }},
      {"softshrink", [](const ember::Tensor& x) { return ember::softshrink(x, 1.5); },
       [](const torch::Tensor& x) { return torch::softshrink(x, 1.5); }},
      {"hardshrink", [](const ember::Tensor& x) { return ember::hardshrink(x, 1.5); },
       [](const torch::Tensor& x) { return torch::hardshrink(x, 1.5); }},
      {"threshold", [](const ember::Tensor& x) { return ember::threshold(x, 0.7, -3); },
       [](const torch::Tensor& x) { return torch::threshold(x, 0.7, -3); }},
      {"log_sigmoid", [](const ember::Tensor& x) { return ember::log_sigmoid(x); },
       [](const torch::Tensor& x) { return torch::log_sigmoid(x); }},
      {"leaky_relu",
       [](const ember::Tensor& x) {
         return EF::leaky_relu(x, EF::LeakyReLUFuncOptions().negative_slope(0.2));
       },
       [](const torch::Tensor& x) {
         return TF::leaky_relu(x, TF::LeakyReLUFuncOptions().negative_slope(0.2));
       }},
      {"rrelu eval", [](const ember::Tensor& x) { return ember::rrelu(x, 0.1, 0.4); },
       [](const torch::Tensor& x) { return torch::rrelu(x, 0.1, 0.4); }},
      {"glu", [](const ember::Tensor& x) { return ember::glu(x, 1); },
       [](const torch::Tensor& x) { return torch::glu(x, 1); }},
      {"softsign", [](const ember::Tensor& x) { return EF::softsign(x); },
       [](const torch::Tensor& x) { return TF::softsign(x); }},
      {"tanhshrink", [](const ember::Tensor& x) { return EF::tanhshrink(x); },
       [](const torch::Tensor& x) { return TF::tanhshrink(x); }},
      {"softmin", [](const ember::Tensor& x) { return EF::softmin(x, 2); },
       [](const torch::Tensor& x) { return TF::softmin(x, 2); }},
      {"Softmax2d", [](const ember::Tensor& x) { return ember::nn::Softmax2d()(x); },
       [](const torch::Tensor& x) { return torch::nn::Softmax2d()(x); }},
      {"LogSoftmax", [](const ember::Tensor& x) { return ember::nn::LogSoftmax(1)(x); },
       [](const torch::Tensor& x) { return torch::nn::LogSoftmax(1)(x); }},
  };
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    // float32: the composed formulas (gelu tanh, mish) round differently from libtorch's fused
    // kernels by up to a few tens of ulps.
    const double tol = dt == ember::kDouble ? 1e-12 : 2e-5;
    for (const Case& c : cases) {
      const std::string name = c.name + " " + ember::name(dt);
      same_forward_backward(
          name, {leaf({3, 4, 5, 6}, dt)}, [&](const EInputs& v) { return c.ours(v[0]); },
          [&](const TInputs& v) { return c.theirs(v[0]); }, tol);
      // A strided (transposed, sliced) view of the leaf.
      same_forward_backward(
          name + " strided", {leaf({6, 5, 4, 8}, dt)},
          [&](const EInputs& v) { return c.ours(v[0].transpose(1, 3).slice(1, 0, 8, 2)); },
          [&](const TInputs& v) { return c.theirs(v[0].transpose(1, 3).slice(1, 0, 8, 2)); }, tol);
    }
    // Exactly on the kinks (0, +-bounds): the gradients pick libtorch's side.
    const ember::Tensor kinks =
        ember::tensor({-3., -2.5, -1.5, -1., -0.5, 0., 0.5, 0.7, 1., 1.5, 3., 6.}).to(dt).requires_grad_();
    for (const Case& c : cases) {
      if (c.name == "glu" || c.name == "softmin" || c.name == "Softmax2d" || c.name == "LogSoftmax") continue;
      same_forward_backward(
          c.name + " at the kinks " + ember::name(dt), {kinks.detach().requires_grad_()},
          [&](const EInputs& v) { return c.ours(v[0]); }, [&](const TInputs& v) { return c.theirs(v[0]); },
          tol);
    }
    // prelu: shared and per-channel weights, gradients of both.
    same_forward_backward(
        std::string("prelu per channel ") + ember::name(dt), {leaf({4, 3, 5, 2}, dt), leaf({3}, dt)},
        [](const EInputs& v) { return ember::prelu(v[0], v[1]); },
        [](const TInputs& v) { return torch::prelu(v[0], v[1]); }, tol);
    same_forward_backward(
        std::string("prelu shared ") + ember::name(dt), {leaf({4, 3, 5}, dt), leaf({1}, dt)},
        [](const EInputs& v) { return ember::prelu(v[0], v[1]); },
        [](const TInputs& v) { return torch::prelu(v[0], v[1]); }, tol);
  }
  // Integer inputs, where libtorch takes them.
  const ember::Tensor i = ember::randint(-9, 10, {40});
  CHECK(torch::equal(as_torch(ember::relu6(i)), torch::relu6(as_torch(i))));
  CHECK(torch::equal(as_torch(ember::hardtanh(i, -2.5, 3.5)), torch::hardtanh(as_torch(i), -2.5, 3.5)));
  CHECK(torch::equal(as_torch(ember::threshold(i, -0.5, 7.9)), torch::threshold(as_torch(i), -0.5, 7.9)));
  check_close(EF::softsign(i), TF::softsign(as_torch(i)), 1e-6, "softsign of int64");
}

TEST_CASE("activation crosscheck: in-place forms and the PReLU module") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const ember::Tensor x = ember::randn({5, 7}, ember::kDouble) * 4;
  auto run = [&](const std::string& what, const std::function<void(ember::Tensor&)>& ours,
                 const std::function<void(torch::Tensor&)>& theirs) {
    ember::Tensor e = x.clone();
    torch::Tensor t = as_torch(x);
    ours(e);
    theirs(t);
    check_close(e, t, 1e-12, what);
  };
  run(
      "elu_", [](ember::Tensor& e) { ember::elu_(e, 0.5); }, [](torch::Tensor& t) { torch::elu_(t, 0.5); });
  run(
      "selu_", [](ember::Tensor& e) { ember::selu_(e); }, [](torch::Tensor& t) { torch::selu_(t); });
  run(
      "celu_", [](ember::Tensor& e) { ember::celu_(e, 2); }, [](torch::Tensor& t) { torch::celu_(t, 2); });
  run(
      "hardtanh_", [](ember::Tensor& e) { ember::hardtanh_(e, -2, 3); },
      [](torch::Tensor& t) { torch::hardtanh_(t, -2, 3); });
  run(
      "relu6_", [](ember::Tensor& e) { ember::relu6_(e); }, [](torch::Tensor& t) { torch::relu6_(t); });
  run(
      "hardswish_", [](ember::Tensor& e) { ember::hardswish_(e); },
      [](torch::Tensor& t) { torch::hardswish_(t); });
  run(
      "hardsigmoid_", [](ember::Tensor& e) { ember::hardsigmoid_(e); },
      [](torch::Tensor& t) { torch::hardsigmoid_(t); });
  run(
      "threshold_", [](ember::Tensor& e) { ember::threshold_(e, 1, 9); },
      [](torch::Tensor& t) { torch::threshold_(t, 1, 9); });
  run(
      "silu_", [](ember::Tensor& e) { ember::silu_(e); }, [](torch::Tensor& t) { torch::silu_(t); });
  run(
      "mish_", [](ember::Tensor& e) { ember::mish_(e); }, [](torch::Tensor& t) { torch::mish_(t); });
  run(
      "rrelu_ eval", [](ember::Tensor& e) { ember::rrelu_(e); }, [](torch::Tensor& t) { torch::rrelu_(t); });
  run(
      "F::elu inplace", [](ember::Tensor& e) { EF::elu(e, EF::ELUFuncOptions().inplace(true)); },
      [](torch::Tensor& t) { TF::elu(t, TF::ELUFuncOptions().inplace(true)); });
  // In place on a non-leaf: the gradient through it.
  same_forward_backward(
      "elu_ on a non-leaf", {x.detach().requires_grad_()},
      [](const EInputs& v) {
        ember::Tensor y = v[0] * 2;
        return ember::elu_(y, 0.7);
      },
      [](const TInputs& v) {
        torch::Tensor y = v[0] * 2;
        return torch::elu_(y, 0.7);
      },
      1e-12);
  // The PReLU module: same weight, same forward and gradients.
  ember::nn::PReLU ep(ember::nn::PReLUOptions().num_parameters(3).init(0.3));
  torch::nn::PReLU tp(torch::nn::PReLUOptions().num_parameters(3).init(0.3));
  CHECK(torch::equal(as_torch(ep->weight), tp->weight));
  const ember::Tensor in = ember::randn({2, 3, 4});
  const ember::Tensor ey = ep(in);
  const torch::Tensor ty = tp(as_torch(in));
  check_close(ey, ty, 1e-6, "PReLU forward");
  ey.sum().backward();
  ty.sum().backward();
  check_close(ep->weight.grad(), tp->weight.grad(), 1e-5, "PReLU weight grad");
}

TEST_CASE("activation crosscheck: RReLU's training draws equal libtorch's after the same seed") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    ember::manual_seed(seed);
    const ember::Tensor x = ember::randn({4, 5, 6}, dt);
    ember::manual_seed(seed + 1);
    torch::manual_seed(seed + 1);
    const ember::Tensor ex = x.detach().requires_grad_();
    const torch::Tensor tx = as_torch(x).requires_grad_();
    const ember::Tensor ey = ember::rrelu(ex, 0.05, 0.6, true);
    const torch::Tensor ty = torch::rrelu(tx, 0.05, 0.6, true);
    CHECK(torch::equal(as_torch(ey), ty));
    const ember::Tensor g = ember::randn(ey.sizes(), dt);
    ey.backward(g);
    ty.backward(as_torch(g));
    check_close(ex.grad(), tx.grad(), 0, "rrelu grad");
    // The module in training (on a view), then the streams continue alike (the gradient
    // above drew from ember's stream only: seed both again).
    ember::manual_seed(seed + 2);
    torch::manual_seed(seed + 2);
    ember::nn::RReLU em;
    torch::nn::RReLU tm;
    CHECK(torch::equal(as_torch(em(x.transpose(0, 2))), tm(as_torch(x).transpose(0, 2))));
    CHECK(torch::equal(as_torch(ember::rand({3}, dt)), torch::rand({3}, crosscheck::to_torch(dt))));
    em->eval();
    tm->eval();
    CHECK(torch::equal(as_torch(em(x)), tm(as_torch(x))));
  }
}

TEST_CASE("activation crosscheck: printing and error texts equal libtorch's") {
  CHECK(printed(ember::nn::ELU(ember::nn::ELUOptions().alpha(0.3).inplace(true))) ==
        printed(torch::nn::ELU(torch::nn::ELUOptions().alpha(0.3).inplace(true))));
  CHECK(printed(ember::nn::RReLU()) == printed(torch::nn::RReLU()));
  CHECK(printed(ember::nn::Hardtanh(ember::nn::HardtanhOptions().min_val(-0.25).inplace(true))) ==
        printed(torch::nn::Hardtanh(torch::nn::HardtanhOptions().min_val(-0.25).inplace(true))));
  CHECK(printed(ember::nn::Softplus(ember::nn::SoftplusOptions().beta(1.0 / 3))) ==
        printed(torch::nn::Softplus(torch::nn::SoftplusOptions().beta(1.0 / 3))));
  CHECK(printed(ember::nn::Threshold(0.1, 20)) == printed(torch::nn::Threshold(0.1, 20)));
  CHECK(printed(ember::nn::PReLU(ember::nn::PReLUOptions().num_parameters(7))) ==
        printed(torch::nn::PReLU(torch::nn::PReLUOptions().num_parameters(7))));
  CHECK(printed(ember::nn::LeakyReLU()) == printed(torch::nn::LeakyReLU()));
  CHECK(printed(ember::nn::GLU()) == printed(torch::nn::GLU()));

  const ember::Tensor e = ember::randn({2, 3});
  const torch::Tensor t = as_torch(e);
  const ember::Tensor ei = ember::randint(-3, 3, {4});
  const torch::Tensor ti = as_torch(ei);
  CHECK(ember_error([&] { ember::glu(e, 1); }) == torch_error([&] { torch::glu(t, 1); }));
  CHECK(ember_error([&] { ember::glu(e, -3); }) == torch_error([&] { torch::glu(t, -3); }));
  CHECK(ember_error([&] { ember::glu(e[0][0]); }) == torch_error([&] { torch::glu(t[0][0]); }));
  CHECK(ember_error([&] { EF::glu(e[0][0]); }) == torch_error([&] { TF::glu(t[0][0]); }));
  CHECK(ember_error([&] { ember::prelu(e, ember::ones({2})); }) ==
        torch_error([&] { torch::prelu(t, torch::ones({2})); }));
  CHECK(ember_error([&] {
          ember::prelu(e, ember::ones({3, 1}));
        }) == torch_error([&] {
          torch::prelu(t, torch::ones({3, 1}));
        }));
  CHECK(ember_error([&] { ember::softshrink(e, -0.25); }) ==
        torch_error([&] { torch::softshrink(t, -0.25); }));
  CHECK(ember_error([&] { ember::celu(e, 0); }) == torch_error([&] { torch::celu(t, 0); }));
  CHECK(ember_error([&] { ember::rrelu(e, 0.6, 0.2, true); }) ==
        torch_error([&] { torch::rrelu(t, 0.6, 0.2, true); }));
  CHECK(ember_error([&] { ember::gelu(e, "exact"); }) == torch_error([&] { torch::gelu(t, "exact"); }));
  CHECK(ember_error([&] { ember::nn::Hardtanh(ember::nn::HardtanhOptions().min_val(3)); }) ==
        torch_error([&] { torch::nn::Hardtanh(torch::nn::HardtanhOptions().min_val(3)); }));
  CHECK(ember_error([&] { ember::nn::Softmax2d()(e); }) == torch_error([&] { torch::nn::Softmax2d()(t); }));
  CHECK(ember_error([&] { ember::hardtanh(ember::ones({2}, ember::kBool)); }) ==
        torch_error([&] { torch::hardtanh(torch::ones({2}, torch::kBool)); }));
  CHECK(ember_error([&] { ember::threshold(ember::ones({2}, ember::kBool), 0, 1); }) ==
        torch_error([&] { torch::threshold(torch::ones({2}, torch::kBool), 0, 1); }));
  const std::vector<std::pair<std::function<void()>, std::function<void()>>> int_refusals = {
      {[&] { ember::elu(ei); }, [&] { torch::elu(ti); }},
      {[&] { ember::selu(ei); }, [&] { torch::selu(ti); }},
      {[&] { ember::celu(ei); }, [&] { torch::celu(ti); }},
      {[&] { ember::gelu(ei, "tanh"); }, [&] { torch::gelu(ti, "tanh"); }},
      {[&] { ember::silu(ei); }, [&] { torch::silu(ti); }},
      {[&] { ember::mish(ei); }, [&] { torch::mish(ti); }},
      {[&] { ember::hardswish(ei); }, [&] { torch::hardswish(ti); }},
      {[&] { ember::hardsigmoid(ei); }, [&] { torch::hardsigmoid(ti); }},
      {[&] { ember::softplus(ei); }, [&] { torch::softplus(ti); }},
      {[&] { ember::softshrink(ei); }, [&] { torch::softshrink(ti); }},
      {[&] { ember::hardshrink(ei); }, [&] { torch::hardshrink(ti); }},
      {[&] { ember::log_sigmoid(ei); }, [&] { torch::log_sigmoid(ti); }},
      {[&] { ember::rrelu(ei); }, [&] { torch::rrelu(ti); }},
      {[&] { ember::rrelu(ei, 0.1, 0.2, true); }, [&] { torch::rrelu(ti, 0.1, 0.2, true); }},
      {[&] { ember::glu(ei); }, [&] { torch::glu(ti); }},
      {[&] { ember::prelu(ei, ember::ones({1}, ember::kLong)); },
       [&] { torch::prelu(ti, torch::ones({1}, torch::kLong)); }},
  };
  for (size_t k = 0; k < int_refusals.size(); ++k) {
    INFO("integer refusal " << k);
    CHECK(ember_error(int_refusals[k].first) == torch_error(int_refusals[k].second));
  }
  // In place on a leaf that requires grad.
  ember::Tensor el = ember::randn({2}).requires_grad_();
  torch::Tensor tl = torch::randn({2}).requires_grad_();
  CHECK(ember_error([&] { ember::elu_(el); }) == torch_error([&] { torch::elu_(tl); }));
}

TEST_CASE("activation crosscheck: gumbel_softmax draws and pdist equal libtorch's") {
  for (bool hard : {false, true}) {
    const ember::Tensor logits = ember::randn({4, 5}, ember::kDouble);
    ember::manual_seed(17);
    torch::manual_seed(17);
    const ember::Tensor e = EF::gumbel_softmax(logits, EF::GumbelSoftmaxFuncOptions().tau(0.7).hard(hard));
    const torch::Tensor t =
        TF::gumbel_softmax(as_torch(logits), TF::GumbelSoftmaxFuncOptions().tau(0.7).hard(hard));
    check_close(e, t, 1e-12, hard ? "gumbel_softmax hard" : "gumbel_softmax soft");
  }
  for (double p : {0.5, 1.0, 2.0, 3.0})
    same_forward_backward(
        "pdist p " + std::to_string(p), {ember::randn({5, 3}, ember::kDouble).requires_grad_()},
        [&](const EInputs& v) { return EF::pdist(v[0], p); },
        [&](const TInputs& v) { return TF::pdist(v[0], p); }, 1e-11);
}
