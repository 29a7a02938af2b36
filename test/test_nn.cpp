// nn modules: the module tree (names, order, modes, conversion, printing), containers, and
// each layer's defaults, forward and backward with known values, and errors.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ember_test::dvalues;

namespace {

struct Net : nn::Module {
  Net() : nn::Module("Net") {
    scale = register_parameter("scale", ones({1}));
    fc1 = register_module("fc1", nn::Linear(2, 3));
    list = register_module("list", nn::ModuleList(nn::Linear(1, 1), nn::ReLU()));
    seq = register_module("seq", nn::Sequential(nn::Tanh()));
    empty = register_module("empty", nn::Sequential());
    running = register_buffer("running", zeros({2}));
  }
  Tensor scale, running;
  nn::Linear fc1{nullptr};
  nn::ModuleList list{nullptr};
  nn::Sequential seq{nullptr}, empty{nullptr};
};

template <class T>
std::string printed(const T& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

template <class Dict>
std::vector<std::string> keys(const Dict& d) {
  return d.keys();
}

void set(Tensor& t, const Tensor& values) {
  NoGradGuard no_grad;
  t.copy_(values);
}

}  // namespace

TEST_CASE("nn module: named parameters, buffers, children and modules in libtorch's order and dotted names") {
  auto net = std::make_shared<Net>();
  CHECK(keys(net->named_parameters()) ==
        std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "list.0.weight", "list.0.bias"});
  CHECK(keys(net->named_parameters(false)) == std::vector<std::string>{"scale"});
  CHECK(net->parameters().size() == 5);
  CHECK(keys(net->named_buffers()) == std::vector<std::string>{"running"});
  CHECK(keys(net->named_children()) == std::vector<std::string>{"fc1", "list", "seq", "empty"});
  CHECK(keys(net->named_modules()) ==
        std::vector<std::string>{"", "fc1", "list", "list.0", "list.1", "seq", "seq.0", "empty"});
  CHECK(keys(net->named_modules("net", false)) ==
        std::vector<std::string>{"net.fc1", "net.list", "net.list.0", "net.list.1", "net.seq", "net.seq.0",
                                 "net.empty"});
  CHECK(net->modules().size() == 8);
  CHECK(net->modules().front().get() == net.get());
  // the parameters are the module's own tensors, leaves that require grad
  CHECK(net->named_parameters()["fc1.weight"].unsafe_impl() == net->fc1->weight.unsafe_impl());
  for (const Tensor& p : net->parameters()) CHECK((p.is_leaf() && p.requires_grad()));
  CHECK_FALSE(net->running.requires_grad());
}

TEST_CASE("nn module: prints as libtorch with ember::nn:: names, children indented") {
  auto net = std::make_shared<Net>();
  CHECK(printed(*net) ==
        "Net(\n"
        "  (fc1): ember::nn::Linear(in_features=2, out_features=3, bias=true)\n"
        "  (list): ember::nn::ModuleList(\n"
        "    (0): ember::nn::Linear(in_features=1, out_features=1, bias=true)\n"
        "    (1): ember::nn::ReLU()\n"
        "  )\n"
        "  (seq): ember::nn::Sequential(\n"
        "    (0): ember::nn::Tanh()\n"
        "  )\n"
        "  (empty): ember::nn::Sequential\n"
        ")");
  nn::Sequential s(nn::Linear(nn::LinearOptions(3, 2).bias(false)), nn::GELU(), nn::Sigmoid(), nn::Softmax(1),
                   nn::Dropout(0.25), nn::Embedding(10, 3),
                   nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0)),
                   nn::LayerNorm(nn::LayerNormOptions({3})),
                   nn::LayerNorm(nn::LayerNormOptions({2, 3}).eps(1e-3).elementwise_affine(false)),
                   nn::ReLU(true), nn::Dropout(nn::DropoutOptions(0.5).inplace(true)));
  CHECK(printed(s) ==
        "ember::nn::Sequential(\n"
        "  (0): ember::nn::Linear(in_features=3, out_features=2, bias=false)\n"
        "  (1): ember::nn::GELU()\n"
        "  (2): ember::nn::Sigmoid()\n"
        "  (3): ember::nn::Softmax(dim=1)\n"
        "  (4): ember::nn::Dropout(p=0.25, inplace=false)\n"
        "  (5): ember::nn::Embedding(num_embeddings=10, embedding_dim=3)\n"
        "  (6): ember::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0)\n"
        "  (7): ember::nn::LayerNorm([3], eps=1e-05, elementwise_affine=true)\n"
        "  (8): ember::nn::LayerNorm([2, 3], eps=0.001, elementwise_affine=false)\n"
        "  (9): ember::nn::ReLU(inplace=true)\n"
        "  (10): ember::nn::Dropout(p=0.5, inplace=true)\n"
        ")");
  CHECK(printed(nn::MSELoss()) == "ember::nn::MSELoss()");
  CHECK(printed(nn::CrossEntropyLoss()) == "ember::nn::CrossEntropyLoss()");
  CHECK(printed(nn::Softmax(nn::SoftmaxOptions(-1))) == "ember::nn::Softmax(dim=-1)");
}

TEST_CASE("nn module: registration errors name the offending entry and change nothing") {
  nn::Module m("M");
  m.register_parameter("w", ones({1}));
  CHECK_THROWS_WITH(m.register_parameter("a.b", ones({1})),
                    Equals("Parameter name must not contain a dot (got 'a.b')"));
  CHECK_THROWS_WITH(m.register_parameter("", ones({1})), Equals("Parameter name must not be empty"));
  CHECK_THROWS_WITH(m.register_parameter("w", ones({1})), Equals("Parameter 'w' already defined"));
  CHECK_THROWS_WITH(m.register_buffer("w", ones({1})), Equals("Buffer 'w' already defined as a parameter"));
  m.register_buffer("b", ones({1}));
  CHECK_THROWS_WITH(m.register_buffer("b", ones({1})), Equals("Buffer 'b' already defined"));
  m.register_module("sub", nn::ReLU());
  CHECK_THROWS_AS(m.register_module("sub", nn::ReLU()), InvalidArgument);
  CHECK_THROWS_WITH(m.register_module("sub", nn::ReLU()), Equals("Submodule 'sub' already defined"));
  CHECK(m.named_parameters(false).size() == 1);
  CHECK(m.children().size() == 1);
  // a module on the stack has no shared_ptr to list itself with
  CHECK_THROWS_WITH(m.modules(), Contains("but it is not stored in a shared_ptr (M)"));
  CHECK(m.modules(false).size() == 1);
}

TEST_CASE("nn module: train and eval propagate to every descendant") {
  auto net = std::make_shared<Net>();
  CHECK(net->is_training());
  net->eval();
  for (auto& m : net->modules()) CHECK_FALSE(m->is_training());
  net->list->train();
  CHECK(net->list[1]->is_training());
  CHECK_FALSE(net->is_training());
  net->train(true);
  for (auto& m : net->modules()) CHECK(m->is_training());
}

TEST_CASE("nn module: to(kDouble) converts in place; the same leaves keep names, grad and requires_grad") {
  nn::Linear lin(3, 2);
  Tensor w_before = lin->weight;
  std::vector<double> values = dvalues(lin->weight);
  lin(ones({1, 3})).sum().backward();
  lin->to(kDouble);
  CHECK(lin->weight.dtype() == kDouble);
  CHECK(w_before.dtype() == kDouble);  // every handle sees the new data
  CHECK(lin->named_parameters()["weight"].dtype() == kDouble);
  CHECK(dvalues(lin->weight) == values);
  CHECK((lin->weight.is_leaf() && lin->weight.requires_grad() && lin->bias.requires_grad()));
  CHECK(lin->weight.grad().dtype() == kDouble);
  Tensor y = lin(ones({1, 3}, kDouble));
  CHECK(y.dtype() == kDouble);
  y.sum().backward();
  CHECK(dvalues(lin->bias.grad()) == std::vector<double>{2, 2});
  // As libtorch's Module::to: integer buffers convert too (Python's nn.Module.to skips them).
  nn::Module m("M");
  m.register_buffer("steps", full({1}, 3, kInt64));
  m.to(kFloat);
  CHECK(m.named_buffers()["steps"].dtype() == kFloat);
  CHECK(dvalues(m.named_buffers()["steps"]) == std::vector<double>{3});
  // A parameter that requires grad cannot become an integer; nothing converts then.
  ember_test::expect_throw<InvalidArgument>(
      [&] { lin->to(kInt32); },
      "data set to a tensor that requires gradients must be floating point or complex dtype");
  CHECK(lin->weight.dtype() == kDouble);
  CHECK(lin->bias.dtype() == kDouble);
  lin->to(Device(kCPU, 0));
  CHECK(lin->weight.device() == Device(kCPU, 0));
}

TEST_CASE("nn module: zero_grad zeroes (libtorch 1.13's default) or clears, apply visits parents first") {
  nn::Sequential s(nn::Linear(2, 2), nn::ReLU(), nn::Linear(2, 1));
  s->forward(ones({1, 2})).sum().backward();
  for (auto& p : s->parameters()) CHECK(p.grad().defined());
  s->zero_grad();
  for (auto& p : s->parameters()) CHECK(dvalues(p.grad()) == std::vector<double>(size_t(p.numel()), 0.0));
  s->zero_grad(/*set_to_none=*/true);
  for (auto& p : s->parameters()) CHECK_FALSE(p.grad().defined());
  std::vector<std::string> seen;
  s->apply([&](const std::string& name, nn::Module& m) { seen.push_back(name + ":" + m.name()); });
  CHECK(seen.size() == 4);
  CHECK(seen[0] == ":ember::nn::SequentialImpl");
  CHECK(seen[1] == "0:ember::nn::LinearImpl");
  int count = 0;
  s->apply([&](nn::Module&) { ++count; });
  CHECK(count == 4);
}

TEST_CASE("nn sequential: forward chains, indexing, nesting, errors") {
  nn::Linear a(2, 3), b(3, 1);
  nn::Sequential s(a, nn::ReLU(), b);
  CHECK(s->size() == 3);
  Tensor x = rand({4, 2});
  CHECK(dvalues(s->forward(x)) == dvalues(b(relu(a(x)))));
  CHECK(s[0].get() == a.ptr().get());
  CHECK(&s->at<nn::LinearImpl>(2) == b.get());
  CHECK_THROWS_WITH(s->at<nn::LinearImpl>(1), Contains("Attempted to cast module of type ember::nn::ReLUImpl"));
  CHECK_THROWS_WITH(s[3], Equals("Index out of range: 3 for a container of 3 modules"));
  nn::Sequential outer(s, nn::Tanh());
  CHECK(dvalues(outer->forward(x)) == dvalues(tanh(s->forward(x))));
  CHECK(keys(outer->named_parameters()) ==
        std::vector<std::string>{"0.0.weight", "0.0.bias", "0.2.weight", "0.2.bias"});
  nn::Sequential empty;
  CHECK_THROWS_WITH(empty->forward(x), Equals("Cannot call forward() on an empty Sequential"));
  nn::Sequential pushed;
  pushed->push_back(nn::Linear(2, 2));
  CHECK(keys(pushed->named_parameters()) == std::vector<std::string>{"0.weight", "0.bias"});
  nn::Linear none(nullptr);
  CHECK(none.is_empty());
  CHECK_THROWS_WITH(none->forward(x), Equals("Accessing empty ModuleHolder"));
}

TEST_CASE("nn linear: default shapes, names and init bounds as libtorch") {
  manual_seed(0);
  nn::Linear lin(16, 8);
  CHECK(keys(lin->named_parameters()) == std::vector<std::string>{"weight", "bias"});
  CHECK(lin->weight.sizes() == IntArrayRef{8, 16});
  CHECK(lin->bias.sizes() == IntArrayRef{8});
  // kaiming_uniform_(a = sqrt(5)) gives bound sqrt(6 / ((1 + 5) fan_in)) = 1 / sqrt(fan_in); bias the same
  const double bound = 1.0 / std::sqrt(16.0);
  for (double v : dvalues(lin->weight)) CHECK(std::abs(v) <= bound);
  for (double v : dvalues(lin->bias)) CHECK(std::abs(v) <= bound);
  CHECK(lin->weight.abs().max().item<double>() > 0.8 * bound);  // the whole range is used
  nn::Linear nobias(nn::LinearOptions(4, 2).bias(false));
  CHECK(keys(nobias->named_parameters()) == std::vector<std::string>{"weight"});
  CHECK_FALSE(nobias->bias.defined());
}

TEST_CASE("nn linear: forward and backward with known values") {
  nn::Linear lin(3, 2);
  set(lin->weight, tensor({{1.0, 2.0, 3.0}, {-1.0, 0.5, 0.0}}));
  set(lin->bias, tensor({0.5, -0.5}));
  Tensor x = tensor({{1.0, 1.0, 1.0}, {2.0, 0.0, -1.0}}).requires_grad_();
  Tensor y = lin(x);
  CHECK(dvalues(y) == std::vector<double>{6.5, -1, -0.5, -2.5});
  y.backward(tensor({{1.0, 0.0}, {0.0, 2.0}}));
  CHECK(dvalues(lin->weight.grad()) == std::vector<double>{1, 1, 1, 4, 0, -2});
  CHECK(dvalues(lin->bias.grad()) == std::vector<double>{1, 2});
  CHECK(dvalues(x.grad()) == std::vector<double>{1, 2, 3, -2, 1, 0});
  // a 3-D input maps its last dim
  CHECK(lin(ones({2, 5, 3})).sizes() == IntArrayRef{2, 5, 2});
}

TEST_CASE("nn linear: wrong feature size or rank names expected and received shapes") {
  nn::Linear lin(4, 2);
  CHECK_THROWS_AS(lin(ones({2, 3})), InvalidArgument);
  CHECK_THROWS_WITH(
      lin(ones({2, 3})),
      Equals("linear: input has 3 features in its last dim, expected in_features = 4 (input shape [2, 3])"));
  CHECK_THROWS_WITH(
      lin(ones({})),
      Equals("linear: input must have at least 1 dim (*, in_features = 4), got a 0-dim tensor"));
  CHECK_THROWS_WITH(lin(ones({2, 4}, kDouble)),
                    Equals("linear: expected scalar type Double but found Float (input and weight must have the "
                           "same dtype)"));
  CHECK_FALSE(lin->weight.grad().defined());
}

TEST_CASE("nn embedding: N(0, 1) rows, padding row zeroed, lookup and gradient, errors") {
  manual_seed(1);
  nn::Embedding big(1000, 16);
  CHECK(big->weight.sizes() == IntArrayRef{1000, 16});
  CHECK(big->weight.mean().item<double>() == Approx(0).margin(0.03));
  CHECK(big->weight.std().item<double>() == Approx(1).margin(0.03));

  nn::Embedding e(nn::EmbeddingOptions(4, 2).padding_idx(-1));
  CHECK(*e->options.padding_idx() == 3);
  CHECK(dvalues(e->weight.select(0, 3)) == std::vector<double>{0, 0});
  set(e->weight, tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}, {7.0, 8.0}}));
  Tensor idx = tensor({{0, 2, 0}, {3, 1, 0}});
  Tensor y = e(idx);
  CHECK(y.sizes() == IntArrayRef{2, 3, 2});
  CHECK(dvalues(y) == std::vector<double>{1, 2, 5, 6, 1, 2, 7, 8, 3, 4, 1, 2});
  y.sum().backward();
  // row 0 used three times; the padding row 3 gets no gradient
  CHECK(dvalues(e->weight.grad()) == std::vector<double>{3, 3, 1, 1, 1, 1, 0, 0});

  CHECK_THROWS_WITH(e(tensor({4})), Equals("index out of range in self"));
  CHECK_THROWS_WITH(e(tensor({1.0})),
                    Equals("embedding: Expected tensor for argument #1 'indices' to have one of the following scalar "
                           "types: Long, Int; but got Float instead"));
  CHECK_THROWS_WITH(nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(10)),
                    Equals("Padding_idx must be within num_embeddings"));
}

TEST_CASE("nn layer_norm: ones / zeros, normalises the trailing dims, gradient, errors") {
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  CHECK(dvalues(ln->weight) == std::vector<double>{1, 1, 1});
  CHECK(dvalues(ln->bias) == std::vector<double>{0, 0, 0});
  Tensor x = tensor({{1.0, 2.0, 3.0}, {0.0, 0.0, 6.0}}, kDouble).requires_grad_();
  ln->to(kDouble);
  Tensor y = ln(x);
  const double s1 = 1 / std::sqrt(2.0 / 3 + 1e-5), s2 = 1 / std::sqrt(8.0 + 1e-5);
  std::vector<double> want{-s1, 0, s1, -2 * s2, -2 * s2, 4 * s2};
  auto got = dvalues(y);
  for (size_t i = 0; i < 6; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-12));
  (y * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  CHECK(dvalues(ln->bias.grad()) == std::vector<double>{2, 4, 6});
  auto wg = dvalues(ln->weight.grad());
  for (size_t i = 0; i < 3; ++i)
    CHECK(wg[i] == Approx((want[i] + want[i + 3]) * double(i + 1)).epsilon(1e-12));
  // the input's gradient sums to zero over each normalised row
  CHECK(x.grad().sum(1).abs().max().item<double>() < 1e-12);

  nn::LayerNorm plain(nn::LayerNormOptions({2, 3}).elementwise_affine(false));
  CHECK(plain->parameters().empty());
  CHECK_THROWS_WITH(
      ln(ones({2, 4}, kDouble)),
      Equals("layer_norm: Given normalized_shape=[3], expected input with shape [*, 3], but got input of "
             "size[2, 4]"));
}

TEST_CASE("nn dropout: identity in eval, zero or 1/(1-p) in training, errors") {
  nn::Dropout d(0.25);
  Tensor x = ones({10000});
  d->eval();
  CHECK(d(x).unsafe_impl() == x.unsafe_impl());
  d->train();
  manual_seed(3);
  Tensor y = d(x);
  auto v = dvalues(y);
  size_t zeros_seen = 0;
  for (double e : v) {
    CHECK((e == 0 || e == Approx(1 / 0.75)));
    zeros_seen += e == 0;
  }
  CHECK(double(zeros_seen) / 10000 == Approx(0.25).margin(0.03));
  CHECK(dvalues(nn::Dropout(1.0)(ones({4}))) == std::vector<double>{0, 0, 0, 0});
  // the gradient flows through the kept elements only, scaled the same way
  Tensor leaf = ones({1000}).requires_grad_();
  Tensor out = d(leaf);
  out.sum().backward();
  CHECK(dvalues(leaf.grad()) == dvalues(out));
  CHECK_THROWS_WITH(nn::Dropout(1.5),
                    Equals("Dropout: dropout probability has to be between 0 and 1, but got 1.5"));
}

TEST_CASE("nn activations: ReLU, GELU, Tanh, Sigmoid, Softmax values and gradients") {
  Tensor x = tensor({-1.0, 0.5, 2.0}, kDouble).requires_grad_();
  CHECK(dvalues(nn::ReLU()(x)) == std::vector<double>{0, 0.5, 2});
  auto g = dvalues(nn::GELU()(x));
  for (size_t i = 0; i < 3; ++i) {
    const double v = dvalues(x)[i];
    CHECK(g[i] == Approx(0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))).epsilon(1e-12));
  }
  auto t = dvalues(nn::Tanh()(x)), s = dvalues(nn::Sigmoid()(x));
  CHECK(t[2] == Approx(std::tanh(2.0)));
  CHECK(s[0] == Approx(1 / (1 + std::exp(1.0))));
  Tensor sm = nn::Softmax(0)(x);
  const double z = std::exp(-1.0) + std::exp(0.5) + std::exp(2.0);
  CHECK(dvalues(sm)[2] == Approx(std::exp(2.0) / z));
  sm.select(0, 2).backward();
  const double p2 = std::exp(2.0) / z, p0 = std::exp(-1.0) / z;
  CHECK(dvalues(x.grad())[0] == Approx(-p2 * p0));
  CHECK(dvalues(x.grad())[2] == Approx(p2 * (1 - p2)));
  // in-place ReLU returns its input
  Tensor y = tensor({-2.0, 3.0});
  Tensor r = nn::ReLU(true)(y);
  CHECK(dvalues(y) == std::vector<double>{0, 3});
  CHECK(r.unsafe_impl() == y.unsafe_impl());
}

TEST_CASE("nn losses: MSELoss reductions and CrossEntropyLoss with weight, ignore_index and smoothing") {
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({0.0, 2.0, 5.0});
  CHECK(nn::MSELoss()(a, b).item<double>() == Approx(5.0 / 3));
  CHECK(nn::MSELoss(nn::MSELossOptions().reduction(kSum))(a, b).item<double>() == 5);
  CHECK(dvalues(nn::MSELoss(nn::MSELossOptions(kNone))(a, b)) == std::vector<double>{1, 0, 4});

  // value from libtorch 1.13: cross_entropy(x, t, label_smoothing 0.2, ignore_index 2)
  Tensor x = tensor({{1.0, 2.0, 0.5}, {0.1, -1.0, 3.0}}, kDouble).requires_grad_();
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().ignore_index(2).label_smoothing(0.2));
  ce->to(kDouble);
  Tensor loss = ce(x, tensor({1, 2}));
  CHECK(loss.item<double>() == Approx(0.63103545077461165).epsilon(1e-12));
  loss.backward();
  CHECK(dvalues(x.grad().select(0, 1)) == std::vector<double>{0, 0, 0});  // the ignored row

  nn::CrossEntropyLoss weighted(nn::CrossEntropyLossOptions().weight(tensor({1.0, 2.0, 3.0})));
  CHECK(keys(weighted->named_buffers()) == std::vector<std::string>{"weight"});
  Tensor xf = tensor({{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}});
  // uniform logits: each term is log 3, the weighted mean stays log 3
  CHECK(weighted(xf, tensor({0, 2})).item<double>() == Approx(std::log(3.0)));
  CHECK_THROWS_WITH(weighted(xf, tensor({0, 3})),
                    Equals("cross_entropy: Target 3 is out of bounds (expected class indices in [0, 3))"));
  CHECK_THROWS_WITH(
      weighted(xf, tensor({0.0, 1.0})),
      Contains("cross_entropy: a floating-point target holds class probabilities and must have input's "
               "shape [2, 3], got [2]"));
  CHECK_THROWS_WITH(weighted(xf, tensor({0, 1, 1})),
                    Equals("cross_entropy: Expected input batch_size (2) to match target batch_size (3)."));
  CHECK_THROWS_WITH(weighted(xf, tensor({0, 1}, kInt32)),
                    Equals("cross_entropy: expected scalar type Long but found Int (class-index targets)"));
}

TEST_CASE("nn Bilinear: libtorch's initial values, outputs, printing, gradients and errors") {
  manual_seed(0);
  nn::Bilinear m(5, 3, 2);
  // Printed by libtorch 1.13 for the same seed and inputs.
  CHECK(m->weight[0][0][0].item<float>() == Approx(-0.0033482077997177839).epsilon(1e-6));
  CHECK(m->weight[1][4][2].item<float>() == Approx(-0.11321894079446793).epsilon(1e-6));
  CHECK(m->bias[1].item<float>() == Approx(0.38639289140701294).epsilon(1e-6));
  const Tensor x1 = arange(10, kFloat).view({2, 5}) / 10;
  const Tensor x2 = arange(6, kFloat).view({2, 3}) / 5 - 0.5;
  const std::vector<double> y = dvalues(m(x1, x2));
  const std::vector<double> want = {-0.048080101609230042, 0.48315513134002686, -0.44485801458358765,
                                    0.60337334871292114};
  for (size_t i = 0; i < want.size(); ++i) CHECK(y[i] == Approx(want[i]).margin(1e-6));
  std::ostringstream printed;
  printed << *m;
  CHECK(printed.str() == "ember::nn::Bilinear(in1_features=5, in2_features=3, out_features=2, bias=true)");
  // Leading dims, and the float64 gradient of every operand.
  CHECK(bilinear(ones({2, 2, 5}), ones({2, 2, 3}), m->weight).sizes() == IntArrayRef({2, 2, 2}));
  auto leaf = [](IntArrayRef s) { return (rand(s, kDouble) - 0.5).requires_grad_(); };
  CHECK(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        return autograd::variable_list{nn::functional::bilinear(v[0], v[1], v[2], v[3])};
      },
      {leaf({3, 4}), leaf({3, 2}), leaf({2, 4, 2}), leaf({2})}));
  using ember_test::expect_throw;
  const Tensor w = m->weight, b = m->bias;
  expect_throw<InvalidArgument>(
      [&] {
        bilinear(ones({4, 5}), ones({4, 3, 1}), w, b);
      },
      "bilinear(): input dimensions do not match: got 2 and 3");
  expect_throw<InvalidArgument>(
      [&] {
        bilinear(ones({4, 5}), ones({3, 3}), w, b);
      },
      "bilinear(): input batch dimensions do not match at dim 0: got 4 and 3");
  expect_throw<InvalidArgument>(
      [&] {
        bilinear(ones({4, 4}), ones({4, 3}), w, b);
      },
      "bilinear(): input1 size does not match weight size: got 4 but expected 5");
  expect_throw<InvalidArgument>(
      [&] {
        bilinear(ones({4, 5}), ones({4, 4}), w, b);
      },
      "bilinear(): input2 size does not match weight size: got 4 but expected 3");
  expect_throw<InvalidArgument>(
      [&] {
        bilinear(ones({4, 5}), ones({4, 3}), w, ones({3}));
      },
      "bilinear(): bias size does not match weight size: got 3 but expected 2");
  nn::Bilinear no_bias(nn::BilinearOptions(2, 2, 1).bias(false));
  CHECK_FALSE(no_bias->bias.defined());
  CHECK(no_bias->parameters().size() == 1);
}
