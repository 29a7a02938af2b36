// nn::functional and nn::init: values against hand-computed numbers (and libtorch 1.13's
// where noted), every reduction, gradcheck in float64, errors by type and message.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ember_test::dvalues;
namespace F = ember::nn::functional;

namespace {

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }

template <class Fn>
bool check(Fn f, const variable_list& inputs) {
  return autograd::gradcheck([&](const variable_list& v) -> variable_list { return {f(v)}; }, inputs);
}

void approx_equal(const Tensor& got, const std::vector<double>& want, double eps = 1e-12) {
  auto g = dvalues(got);
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Approx(want[i]).epsilon(eps).margin(1e-30));
}

}  // namespace

TEST_CASE("nn functional: linear, gelu (erf and tanh), silu, relu, softmax and log_softmax") {
  Tensor x = tensor({{1.0, -2.0}}, kDouble);
  Tensor w = tensor({{1.0, 1.0}, {2.0, 0.0}, {0.0, -1.0}}, kDouble);
  approx_equal(F::linear(x, w), {-1, 2, 2});
  approx_equal(F::linear(x, w, tensor({1.0, 1.0, 1.0}, kDouble)), {0, 3, 3});
  CHECK(check([](const variable_list& v) { return F::linear(v[0], v[1], v[2]); },
              {leaf({4, 3}), leaf({2, 3}), leaf({2})}));
  CHECK(check([](const variable_list& v) { return F::linear(v[0], v[1]); }, {leaf({2, 2, 3}), leaf({5, 3})}));

  Tensor v = tensor({-1.5, 0.0, 0.7}, kDouble);
  std::vector<double> gt, si;
  for (double e : dvalues(v)) {
    gt.push_back(0.5 * e * (1 + std::tanh(std::sqrt(2 / M_PI) * (e + 0.044715 * e * e * e))));
    si.push_back(e / (1 + std::exp(-e)));
  }
  approx_equal(F::gelu(v, nn::GELUOptions().approximate("tanh")), gt);
  approx_equal(F::silu(v), si);
  CHECK(check([](const variable_list& a) { return F::gelu(a[0], nn::GELUOptions().approximate("tanh")); },
              {leaf({5})}));
  CHECK(check([](const variable_list& a) { return F::silu(a[0]); }, {leaf({5})}));
  CHECK_THROWS_WITH(F::gelu(v, nn::GELUOptions().approximate("fast")),
                    Equals("gelu: approximate must be \"none\" or \"tanh\", got \"fast\""));
  approx_equal(F::relu(v), {0, 0, 0.7});

  Tensor s = F::softmax(tensor({{1.0, 2.0, 3.0}}, kDouble), 1);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  approx_equal(s, {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z});
  approx_equal(F::log_softmax(tensor({{1.0, 2.0, 3.0}}, kDouble), -1),
               {1 - std::log(z), 2 - std::log(z), 3 - std::log(z)});
  CHECK(F::softmax(tensor({1.0, 2.0}), F::SoftmaxFuncOptions(0).dtype(kDouble)).dtype() == kDouble);
}

TEST_CASE("nn functional: dropout in training and not, every p, in place") {
  Tensor x = ones({1000});
  CHECK(F::dropout(x, F::DropoutFuncOptions(0.3).training(false)).unsafe_impl() == x.unsafe_impl());
  CHECK(F::dropout(x, 0.0).unsafe_impl() == x.unsafe_impl());
  for (double e : dvalues(F::dropout(x, 0.5))) CHECK((e == 0 || e == 2));
  Tensor y = ones({8});
  F::dropout(y, F::DropoutFuncOptions(1.0).inplace(true));
  CHECK(dvalues(y) == std::vector<double>(8, 0.0));
  CHECK_THROWS_WITH(F::dropout(x, -0.1),
                    Equals("dropout: dropout probability has to be between 0 and 1, but got -0.1"));
  CHECK_THROWS_WITH(F::dropout(ones({2}, kInt64), 0.5),
                    Equals("dropout: input must be floating point, got Long"));
}

TEST_CASE("nn functional: mse_loss and l1_loss, each reduction, and gradients") {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble).requires_grad_();
  Tensor b = tensor({{0.0, 2.0}, {5.0, 3.0}}, kDouble);
  CHECK(F::mse_loss(a, b).item<double>() == Approx(1.5));
  CHECK(F::mse_loss(a, b, nn::MSELossOptions(kSum)).item<double>() == 6);
  approx_equal(F::mse_loss(a, b, kNone), {1, 0, 4, 1});
  CHECK(F::l1_loss(a, b).item<double>() == 1);
  CHECK(F::l1_loss(a, b, kSum).item<double>() == 4);
  approx_equal(F::l1_loss(a, b, kNone), {1, 0, 2, 1});
  F::mse_loss(a, b).backward();
  approx_equal(a.grad(), {0.5, 0, -1, 0.5});  // 2 (a - b) / 4
  CHECK(check([](const variable_list& v) { return F::mse_loss(v[0], v[1]); }, {leaf({3, 2}), leaf({3, 2})}));
  CHECK_THROWS_AS(F::mse_loss(ones({2, 3}), ones({2, 4})), InvalidArgument);
}

TEST_CASE("nn functional: nll_loss with weight and ignore_index follows libtorch's weighted mean") {
  Tensor logp =
      tensor({{-1.0, -2.0, -3.0}, {-0.5, -1.5, -2.5}, {-0.1, -0.2, -0.3}}, kDouble).requires_grad_();
  Tensor t = tensor({2, 0, 1});
  Tensor w = tensor({1.0, 2.0, 4.0}, kDouble);
  CHECK(F::nll_loss(logp, t).item<double>() == Approx((3 + 0.5 + 0.2) / 3));
  // weighted mean: sum(w[t] * -logp[t]) / sum(w[t]) = (4*3 + 1*0.5 + 2*0.2) / 7
  auto o = nn::NLLLossOptions().weight(w);
  CHECK(F::nll_loss(logp, t, o).item<double>() == Approx(12.9 / 7));
  CHECK(F::nll_loss(logp, t, nn::NLLLossOptions().weight(w).reduction(kSum)).item<double>() == Approx(12.9));
  approx_equal(F::nll_loss(logp, t, nn::NLLLossOptions().ignore_index(0).reduction(kNone)), {3, 0, 0.2});
  CHECK(F::nll_loss(logp, t, nn::NLLLossOptions().ignore_index(0)).item<double>() == Approx(1.6));
  // every target ignored: 0 / 0, NaN as in libtorch
  CHECK(
      std::isnan(F::nll_loss(logp, tensor({1, 1, 1}), nn::NLLLossOptions().ignore_index(1)).item<double>()));
  F::nll_loss(logp, t, o).backward();
  approx_equal(logp.grad(), {0, 0, -4.0 / 7, -1.0 / 7, 0, 0, 0, -2.0 / 7, 0});
  // 1-D input with a 0-dim target, and the (N, C, d) layout
  CHECK(F::nll_loss(tensor({-1.0, -2.0}, kDouble), tensor(int64_t(1))).item<double>() == 2);
  Tensor img = leaf({2, 3, 4});
  Tensor tgt = randint(0, 3, {2, 4});
  CHECK(check([&](const variable_list& v) { return F::nll_loss(v[0], tgt, nn::NLLLossOptions().weight(w)); },
              {img}));
  CHECK_THROWS_WITH(F::nll_loss(logp, tensor({0, 3, 1})),
                    Equals("nll_loss: Target 3 is out of bounds (expected class indices in [0, 3))"));
  CHECK_THROWS_WITH(
      F::nll_loss(logp, t, nn::NLLLossOptions().weight(ones({2}, kDouble))),
      Equals("nll_loss: weight tensor should be defined either for all 3 classes or no classes but got "
             "weight tensor of shape: [2]"));
  CHECK_THROWS_WITH(
      F::nll_loss(logp, tensor({{0, 1, 2}})),
      Equals("nll_loss: Expected target of 1 dims for input of shape [3, 3], got target of shape [1, 3]"));
}

TEST_CASE("nn functional: cross_entropy with indices, probabilities, weights and label smoothing") {
  Tensor x = tensor({{1.0, 2.0, 0.5}, {0.1, -1.0, 3.0}}, kDouble);
  Tensor t = tensor({1, 2});
  // = mean of -log_softmax at the targets
  Tensor ls = x.log_softmax(1);
  const double want = -(ls[0][1].item<double>() + ls[1][2].item<double>()) / 2;
  CHECK(F::cross_entropy(x, t).item<double>() == Approx(want));
  // libtorch 1.13: label_smoothing 0.2 with ignore_index 2
  CHECK(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(0.2).ignore_index(2))
            .item<double>() == Approx(0.63103545077461165).epsilon(1e-12));
  // probabilities equal to the one-hot targets give the index loss; smoothing mixes in 1/C
  Tensor p = one_hot(t, 3).to(kDouble);
  CHECK(F::cross_entropy(x, p).item<double>() == Approx(want));
  auto smooth = F::CrossEntropyFuncOptions().label_smoothing(0.3);
  CHECK(F::cross_entropy(x, p, smooth).item<double>() ==
        Approx(F::cross_entropy(x, t, smooth).item<double>()));
  auto weighted = F::CrossEntropyFuncOptions().weight(tensor({0.5, 1.0, 2.0}, kDouble)).label_smoothing(0.1);
  CHECK(check([&](const variable_list& v) { return F::cross_entropy(v[0], t, weighted); }, {leaf({2, 3})}));
  CHECK(check([&](const variable_list& v) { return F::cross_entropy(v[0], v[1].softmax(1), weighted); },
              {leaf({2, 3}), leaf({2, 3})}));
  CHECK(check([&](const variable_list& v) { return F::cross_entropy(v[0], t, smooth.reduction(kNone)); },
              {leaf({2, 3})}));
  CHECK_THROWS_WITH(F::cross_entropy(x, t, F::CrossEntropyFuncOptions().label_smoothing(1.5)),
                    Equals("cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: 1.5"));
  CHECK_THROWS_WITH(F::cross_entropy(ones({2, 3}, kInt64), t),
                    Equals("cross_entropy: input must be floating point, got Long"));
  CHECK_THROWS_WITH(
      F::cross_entropy(ones({}), tensor(int64_t(0))),
      Equals("cross_entropy: input must have a class dim ((C) or (N, C, ...)), got a 0-dim tensor"));
}

TEST_CASE("nn functional: binary_cross_entropy_with_logits is stable, with weight and pos_weight") {
  Tensor x = tensor({0.0, 2.0, -3.0, 100.0, -100.0}, kDouble);
  Tensor t = tensor({1.0, 0.0, 1.0, 1.0, 0.0}, kDouble);
  std::vector<double> want;
  auto xv = dvalues(x), tv = dvalues(t);
  for (size_t i = 0; i < xv.size(); ++i)
    want.push_back(std::log1p(std::exp(-std::abs(xv[i]))) + std::max(xv[i], 0.0) - xv[i] * tv[i]);
  approx_equal(F::binary_cross_entropy_with_logits(
                   x, t, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(kNone)),
               want);
  CHECK(std::isfinite(F::binary_cross_entropy_with_logits(x, t).item<double>()));
  // pos_weight 3 triples the positive term: -3 t log(sigmoid(x)) - (1 - t) log(1 - sigmoid(x))
  Tensor pw = F::binary_cross_entropy_with_logits(
      tensor({0.5}, kDouble), tensor({1.0}, kDouble),
      F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(tensor({3.0}, kDouble)));
  CHECK(pw.item<double>() == Approx(-3 * std::log(1 / (1 + std::exp(-0.5)))));
  auto o = F::BinaryCrossEntropyWithLogitsFuncOptions()
               .weight(tensor({1.0, 2.0, 0.5}, kDouble))
               .pos_weight(tensor({2.0, 1.0, 0.5}, kDouble));
  CHECK(check([&](const variable_list& v) { return F::binary_cross_entropy_with_logits(v[0], v[1], o); },
              {leaf({4, 3}), rand({4, 3}, kDouble).requires_grad_()}));
  CHECK_THROWS_WITH(
      F::binary_cross_entropy_with_logits(ones({2, 3}), ones({2, 4})),
      Equals(
          "binary_cross_entropy_with_logits: Target size ([2, 4]) must be the same as input size ([2, 3])"));
}

TEST_CASE("nn functional: layer_norm and embedding gradcheck, errors") {
  Tensor w = leaf({2, 3}), b = leaf({2, 3});
  CHECK(check(
      [](const variable_list& v) {
        return F::layer_norm(v[0], F::LayerNormFuncOptions({2, 3}).weight(v[1]).bias(v[2]).eps(1e-3));
      },
      {leaf({4, 2, 3}), w, b}));
  CHECK(check([](const variable_list& v) { return F::layer_norm(v[0], F::LayerNormFuncOptions({3})); },
              {leaf({5, 3})}));
  CHECK_THROWS_WITH(F::layer_norm(ones({2, 3}), F::LayerNormFuncOptions({3}).weight(ones({4}))),
                    Equals("layer_norm: weight and bias must have the normalized shape [3], got [4]"));
  Tensor idx = tensor({{1, 0}, {1, 3}});
  CHECK(check([&](const variable_list& v) { return F::embedding(idx, v[0]); }, {leaf({4, 2})}));
  // the padding row gets no gradient (by design, so no gradcheck): the other rows count their uses
  Tensor table = leaf({4, 2});
  F::embedding(idx, table, F::EmbeddingFuncOptions().padding_idx(1)).sum().backward();
  CHECK(dvalues(table.grad()) == std::vector<double>{1, 1, 0, 0, 0, 0, 1, 1});
  CHECK(F::embedding(tensor({2}, kInt32), eye(3)).sizes() == IntArrayRef{1, 3});
  CHECK_THROWS_WITH(F::embedding(tensor({-1}), eye(3)),
                    Equals("index out of range in self"));
  CHECK_THROWS_WITH(F::embedding(tensor({0}), ones({3})),
                    Equals("embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape [3]"));
}

TEST_CASE("nn init: gains, bounds and fills in place without recording") {
  CHECK(nn::init::calculate_gain(kReLU) == Approx(std::sqrt(2.0)));
  CHECK(nn::init::calculate_gain(kTanh) == Approx(5.0 / 3));
  CHECK(nn::init::calculate_gain(kLeakyReLU) == Approx(std::sqrt(2.0 / (1 + 1e-4))));
  CHECK(nn::init::calculate_gain(kLeakyReLU, 0.2) == Approx(std::sqrt(2.0 / 1.04)));
  CHECK(nn::init::calculate_gain(kSigmoid) == 1);
  CHECK(nn::init::calculate_gain(kLinear) == 1);

  Tensor w = empty({64, 32}).requires_grad_();
  Tensor r = nn::init::kaiming_uniform_(w);
  CHECK(r.unsafe_impl() == w.unsafe_impl());
  CHECK((w.is_leaf() && !w.grad_fn()));
  const double kb = std::sqrt(3.0) * std::sqrt(2.0 / (1 + 1e-4)) / std::sqrt(32.0);
  CHECK(w.abs().max().item<double>() <= kb);
  CHECK(w.abs().max().item<double>() > 0.9 * kb);
  nn::init::kaiming_uniform_(w, 0, kFanOut, kReLU);
  CHECK(w.abs().max().item<double>() <= std::sqrt(6.0 / 64));
  manual_seed(5);
  Tensor big = empty({400, 300});
  nn::init::kaiming_normal_(big, 0, kFanIn, kReLU);
  CHECK(big.std().item<double>() == Approx(std::sqrt(2.0 / 300)).epsilon(0.03));
  nn::init::xavier_uniform_(big, 2.0);
  CHECK(big.abs().max().item<double>() <= 2.0 * std::sqrt(6.0 / 700));
  nn::init::xavier_normal_(big);
  CHECK(big.std().item<double>() == Approx(std::sqrt(2.0 / 700)).epsilon(0.03));
  nn::init::normal_(big, 3, 0.5);
  CHECK(big.mean().item<double>() == Approx(3).epsilon(0.01));
  nn::init::uniform_(big, -2, -1);
  CHECK((big.max().item<double>() < -1 && big.min().item<double>() >= -2));
  nn::init::constant_(w, 0.25);
  CHECK(w.min().item<double>() == 0.25);
  nn::init::ones_(w);
  CHECK(w.sum().item<double>() == 64 * 32);
  nn::init::zeros_(w);
  CHECK(w.abs().sum().item<double>() == 0);
  CHECK_FALSE(w.grad_fn());

  CHECK_THROWS_WITH(
      nn::init::kaiming_uniform_(ones({3})),
      Equals("kaiming_uniform_: Fan in and fan out can not be computed for tensor with fewer than 2 "
             "dimensions (got shape of 1 dims)"));
  CHECK_THROWS_WITH(nn::init::normal_(ones({3}), 0, -1),
                    Equals("normal_: expects std >= 0.0, but found std -1"));
  CHECK_THROWS_WITH(nn::init::zeros_(Tensor()), Equals("constant_: the tensor to fill is undefined"));
}
