// Custom autograd functions in libtorch's forms: any mix of tensor and non-tensor forward
// arguments (double, bool, TensorList, optional<Tensor>), saved_data values, materialized
// gradients, and libtorch's errors for a backward that returns the wrong gradients.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;
using ember_test::dvalues;
using ember_test::expect_throw;

namespace {

// y = scale * (x + sum(list)) + (shift if given); flip negates.
struct Mixed : autograd::Function<Mixed> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double scale, bool flip, TensorList list,
                        std::optional<Tensor> shift) {
    ctx->saved_data["scale"] = flip ? -scale : scale;
    ctx->saved_data["name"] = "mixed";
    ctx->saved_data["none"] = std::nullopt;
    ctx->saved_data["list"] = std::vector<Tensor>(list.begin(), list.end());
    ctx->saved_data["count"] = int64_t(list.size());
    ctx->saved_data["shifted"] = shift.has_value();
    Tensor sum = x.clone();
    for (const Tensor& t : list) sum = sum + t;
    Tensor y = sum * (flip ? -scale : scale);
    return shift ? y + *shift : y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const double s = ctx->saved_data["scale"].toDouble();
    CHECK(ctx->saved_data["name"].toStringRef() == "mixed");
    CHECK(ctx->saved_data["none"].isNone());
    CHECK(ctx->saved_data["list"].toTensorList().size() == 2);
    CHECK(ctx->saved_data["count"].toInt() == 2);
    // needs_input_grad counts tensor arguments, as libtorch's: x, list[0], list[1] (shift).
    CHECK(ctx->needs_input_grad(0));
    CHECK(ctx->needs_input_grad(1));
    CHECK(ctx->needs_input_grad({{1, 3}}));
    // One entry per argument, the list's tensors one each: x, scale, flip, list[0], list[1], shift.
    const Tensor shift_grad = ctx->saved_data["shifted"].toBool() ? grads[0] : Tensor();
    return {grads[0] * s, Tensor(), Tensor(), grads[0] * s, grads[0] * s, shift_grad};
  }
};

// Returns as many gradients as told, to exercise libtorch's count and position checks.
int g_returned = 2;
bool g_grad_for_double = false;
struct Counted : autograd::Function<Counted> {
  static Tensor forward(AutogradContext*, const Tensor& x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    variable_list out{grads[0] * 2};
    if (g_returned >= 2) out.push_back(g_grad_for_double ? grads[0] : Tensor());
    if (g_returned >= 3) out.push_back(Tensor());
    return out;
  }
};

struct WrongShape : autograd::Function<WrongShape> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x.sum(); }
  static variable_list backward(AutogradContext*, variable_list) { return {ones({4})}; }
};

// Two outputs; backward reports whether the unused one's gradient arrived defined.
bool g_second_defined = false;
bool g_materialize = true;
struct TwoOutputs : autograd::Function<TwoOutputs> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x) {
    ctx->set_materialize_grads(g_materialize);
    return {x * 3, x * 5};
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    g_second_defined = grads[1].defined();
    Tensor g = grads[0] * 3;
    if (grads[1].defined()) g = g + grads[1] * 5;
    return {g};
  }
};

}  // namespace

TEST_CASE("custom function: tensor and non-tensor arguments, lists and optional tensors") {
  Tensor x = tensor({1.0, 2.0}, TensorOptions(kDouble).requires_grad(true));
  Tensor a = tensor({0.5, 0.5}, TensorOptions(kDouble).requires_grad(true));
  Tensor b = tensor({1.0, -1.0}, TensorOptions(kDouble).requires_grad(true));
  Tensor shift = tensor({10.0, 20.0}, TensorOptions(kDouble).requires_grad(true));
  std::vector<Tensor> list{a, b};
  // Temporaries passed by value: apply keeps its own references before forward moves them.
  Tensor y = Mixed::apply(x, 2.0, true, TensorList(list), std::optional<Tensor>(shift));
  CHECK(dvalues(y) == std::vector<double>{-5 + 10, -3 + 20});
  y.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{-2, -2});
  CHECK(dvalues(a.grad()) == std::vector<double>{-2, -2});
  CHECK(dvalues(b.grad()) == std::vector<double>{-2, -2});
  CHECK(dvalues(shift.grad()) == std::vector<double>{1, 1});
  // Without the optional tensor: its position still counts, and gets no gradient.
  x.mutable_grad() = Tensor();
  Tensor z = Mixed::apply(x, 1.0, false, TensorList(list), std::optional<Tensor>());
  z.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{1, 1});
}

TEST_CASE("custom function: saved_data values say what they hold") {
  autograd::SavedValue v(2.5);
  CHECK(v.isDouble());
  CHECK(v.tagKind() == "Double");
  expect_throw<InvalidArgument>([&] { v.toInt(); }, "Expected Int but got Double");
  expect_throw<InvalidArgument>([&] { autograd::SavedValue("s").toTensor(); },
                                "Expected Tensor but got String");
  CHECK(autograd::SavedValue(std::string("abc")).toString() == "abc");
  CHECK(autograd::SavedValue(true).toBool());
  CHECK(autograd::SavedValue().isNone());
}

TEST_CASE("custom function: libtorch's errors for the gradients backward returns") {
  Tensor x = ones({3}, TensorOptions().requires_grad(true));
  const std::string name = Counted::apply(x, 1.0).grad_fn()->name();
  CHECK(name == "torch::autograd::CppNode<(anonymous namespace)::Counted>");
  g_returned = 1;
  expect_throw<InvalidArgument>(
      [&] { Counted::apply(x, 1.0).sum().backward(); },
      "function " + name + " returned an incorrect number of gradients (expected 2, got 1)");
  g_returned = 3;  // a trailing undefined extra is dropped, as libtorch
  Counted::apply(x, 1.0).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 2, 2});
  g_returned = 2;
  g_grad_for_double = true;
  expect_throw<InvalidArgument>(
      [&] { Counted::apply(x, 1.0).sum().backward(); },
      "returned a gradient different that is defined at position 2, but the corresponding "
      "forward input was not a Variable");
  g_grad_for_double = false;
  expect_throw<InvalidArgument>(
      [&] {
        WrongShape::apply(ones({2, 3}, TensorOptions().requires_grad(true))).backward();
      },
      "returned an invalid gradient at index 0 - got [4] but expected shape compatible with [2, 3]");
}

TEST_CASE("custom function: gradients of unused outputs are zeros unless materialize_grads is off") {
  Tensor x = tensor({1.0, 2.0}, TensorOptions(kDouble).requires_grad(true));
  g_materialize = true;
  variable_list outs = TwoOutputs::apply(x);
  outs[0].sum().backward();
  CHECK(g_second_defined);
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 3});
  g_materialize = false;
  x.mutable_grad() = Tensor();
  outs = TwoOutputs::apply(x);
  outs[0].sum().backward();
  CHECK_FALSE(g_second_defined);
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 3});
  g_materialize = true;
}

namespace {
// Returns x unchanged in forward and no gradient in backward.
struct NoGradient : autograd::Function<NoGradient> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x * 1; }
  static variable_list backward(AutogradContext*, variable_list) { return {Tensor()}; }
};

// Doubles x in place and says so.
struct DoubleInPlace : autograd::Function<DoubleInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

// Records whether backward saw materialized zeros or undefined gradients.
struct SeesGrad : autograd::Function<SeesGrad> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, bool materialize) {
    ctx->set_materialize_grads(materialize);
    return x.clone();
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    seen_defined = grads[0].defined();
    if (seen_defined) seen_sum = grads[0].sum().item<double>();
    return {grads[0], Tensor()};
  }
  static inline bool seen_defined = false;
  static inline double seen_sum = -1;
};
}  // namespace

TEST_CASE("custom function: an undefined gradient passes through built-in nodes as undefined") {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  NoGradient::apply(x.pow(2)).sum().backward();  // PowBackward gets no gradient, and gives none
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("custom function: mark_dirty bumps the version of the input written in place") {
  Tensor leaf = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  Tensor x = leaf.clone();
  const uint32_t before = x._version();
  Tensor y = DoubleInPlace::apply(x);
  CHECK(x._version() >= before + 1);
  CHECK(dvalues(x) == std::vector<double>{2, 4});
  y.sum().backward();
  CHECK(dvalues(leaf.grad()) == std::vector<double>{2, 2});
}

TEST_CASE("custom function: UndefinedGrad hands undefined gradients, materialized as zeros or not") {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  autograd::variable_list through = autograd::UndefinedGrad().apply({x});
  REQUIRE(through.size() == 1);
  CHECK(through[0].grad_fn()->name() == "UndefinedGradBackward");
  SeesGrad::apply(through[0], true).sum().backward();
  CHECK_FALSE(x.grad().defined());  // UndefinedGradBackward gave x nothing
  // SeesGrad's output got a gradient; UndefinedGrad in front of a custom function's output
  // makes the function's backward see zeros or undefined.
  Tensor z = tensor({3.0}, kDouble).requires_grad_(true);
  SeesGrad::seen_defined = true;
  autograd::UndefinedGrad().apply({SeesGrad::apply(z, false)})[0].sum().backward();
  CHECK_FALSE(SeesGrad::seen_defined);
  SeesGrad::seen_sum = -1;
  autograd::UndefinedGrad().apply({SeesGrad::apply(z, true)})[0].sum().backward();
  CHECK(SeesGrad::seen_defined);
  CHECK(SeesGrad::seen_sum == 0);
  CHECK(autograd::make_variable(x, true).requires_grad());
  CHECK(autograd::make_variable(x).is_leaf());
  CHECK_FALSE(autograd::make_variable(x).requires_grad());
}

namespace {
// Records which arguments its backward was told need a gradient.
std::vector<bool> g_needed;
struct Product : autograd::Function<Product> {
  static Tensor forward(AutogradContext* ctx, const Tensor& a, const Tensor& b) {
    ctx->save_for_backward({a, b});
    return a * b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    g_needed = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    const variable_list saved = ctx->get_saved_variables();
    return {ctx->needs_input_grad(0) ? grads[0] * saved[1] : Tensor(),
            ctx->needs_input_grad(1) ? grads[0] * saved[0] : Tensor()};
  }
};
}  // namespace

TEST_CASE("custom function: needs_input_grad says which gradients this backward pass computes") {
  const Tensor a = tensor({2.0, 3.0}).requires_grad_(), b = tensor({5.0, 7.0}).requires_grad_();
  // Through another op, so that b's path has a node of its own.
  auto out = [&] { return Product::apply(a, b.exp()).sum(); };
  out().backward();
  CHECK(g_needed == std::vector<bool>{true, true});
  // grad() for a only: b's branch is not computed (libtorch's GraphTaskTrimEdges).
  const variable_list ga = autograd::grad({out()}, {a});
  CHECK(g_needed == std::vector<bool>{true, false});
  CHECK(dvalues(ga[0]) == dvalues(b.exp().detach()));
  const variable_list gb = autograd::grad({out()}, {b});
  CHECK(g_needed == std::vector<bool>{false, true});
  CHECK(allclose(gb[0], a.detach() * b.exp().detach()));
  a.grad().zero_();
  b.grad().zero_();
  const std::vector<Tensor> only_b{b};
  out().backward({}, false, false, ArrayRef<Tensor>(only_b));
  CHECK(g_needed == std::vector<bool>{false, true});
  CHECK(dvalues(a.grad()) == std::vector<double>{0, 0});
  // An argument that does not require grad never needs one.
  const Tensor c = tensor({1.0, 1.0});
  Product::apply(a, c).sum().backward();
  CHECK(g_needed == std::vector<bool>{true, false});
}

namespace {
// Each backward runs a backward pass of its own on x - 1 until x reaches 0 (libtorch's
// DeepReentrant): the passes nest as deep as x.
std::atomic<int> g_deepest{0};
thread_local int t_level = 0;
struct DeepReenter : autograd::Function<DeepReenter> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    {
      AutoGradMode enable_grad(true);
      ctx->saved_data["x"] = x.detach().requires_grad_() - 1;
    }
    return ctx->saved_data["x"].toTensor().detach();
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor x = ctx->saved_data["x"].toTensor();
    if (x.item<double>() == 0) return grads;
    ++t_level;
    g_deepest = std::max(g_deepest.load(), t_level);
    AutoGradMode enable_grad(true);
    apply(x).sum().backward();
    --t_level;
    return {grads[0] * 2};
  }
};
}  // namespace

TEST_CASE("custom function: backward passes nest to any depth") {
  // 1000 nested passes: past 32 on a thread, each further 32 run on a fresh thread (Note
  // [Deep reentrant backward]), so neither the stack nor the DeviceScope stack overflows.
  const Tensor v = tensor({1000.0f}).requires_grad_();
  DeepReenter::apply(v).sum().backward();
  CHECK(dvalues(v.grad()) == std::vector<double>{2});
  CHECK(g_deepest.load() < 40);  // no thread ran more than its share of the levels
  // An error deep inside reaches the outermost caller, its message intact.
  struct Fails : autograd::Function<Fails> {
    static Tensor forward(AutogradContext* ctx, const Tensor& x) {
      ctx->saved_data["depth"] = x.item<double>();
      return x.clone();
    }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
      const double depth = ctx->saved_data["depth"].toDouble();
      if (depth == 0) throw InvalidArgument("the deepest backward failed");
      AutoGradMode enable_grad(true);
      apply(tensor({depth - 1}).requires_grad_()).sum().backward();
      return grads;
    }
  };
  CHECK_THROWS_MATCHES(Fails::apply(tensor({100.0}).requires_grad_()).sum().backward(), InvalidArgument,
                       Catch::Message("the deepest backward failed"));
}

TEST_CASE("custom function: needs_input_grad over IndexRanges") {
  struct Ranges : autograd::Function<Ranges> {
    static Tensor forward(AutogradContext*, const Tensor& a, const Tensor& b, const Tensor& c) { return a + b + c; }
    static variable_list backward(AutogradContext* ctx, variable_list grads) {
      const autograd::IndexRange first{0, 1}, rest{1, 3}, empty{2, 2};
      CHECK(ctx->needs_input_grad({first}));
      CHECK_FALSE(ctx->needs_input_grad({rest}));
      CHECK_FALSE(ctx->needs_input_grad({empty}));
      CHECK(ctx->needs_input_grad({rest, first}));
      return {grads[0], Tensor(), Tensor()};
    }
  };
  const Tensor a = tensor({1.0}).requires_grad_(), b = tensor({2.0}), c = tensor({3.0}).requires_grad_();
  // c requires grad but this pass computes only a's.
  const variable_list g = autograd::grad({Ranges::apply(a, b, c).sum()}, {a});
  CHECK(dvalues(g[0]) == std::vector<double>{1});
}

namespace {
struct Interleaved : autograd::Function<Interleaved> {
  static Tensor forward(AutogradContext*, double s, const Tensor& a, TensorList l, const Tensor& b) {
    return a * s + b + l[0] + l[1];
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    g_needed.clear();
    for (size_t i = 0; i < 4; ++i) g_needed.push_back(ctx->needs_input_grad(i));
    CHECK_THROWS_MATCHES(ctx->needs_input_grad(4), InvalidArgument, Catch::Message("Index out of range"));
    return {Tensor(), grads[0], grads[0], grads[0], grads[0]};
  }
};
}  // namespace

TEST_CASE("custom function: needs_input_grad counts tensor arguments, as libtorch's") {
  // libtorch 1.13 prints 1 0 1 0 and "Index out of range" for index 4 with these arguments.
  const Tensor a = ones({2}).requires_grad_(), b = ones({2}), l0 = ones({2}), l1 = ones({2}).requires_grad_();
  const std::vector<Tensor> list{l0, l1};
  Interleaved::apply(2.0, a, TensorList(list), b).sum().backward();
  CHECK(g_needed == std::vector<bool>{true, false, true, false});
  CHECK(dvalues(a.grad()) == std::vector<double>{1, 1});
  CHECK(dvalues(l1.grad()) == std::vector<double>{1, 1});
}

