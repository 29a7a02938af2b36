// Autograd: graph recording, the engine, modes, errors, hooks, devices and threads.
#include <catch2/catch.hpp>

#include <ember/ember.h>

#include <cmath>
#include <thread>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using Catch::Matchers::Contains;
using ember::testing::ensure_fake_accelerator;
using Catch::Matchers::Equals;
using ember_test::dvalues;

namespace {
TensorOptions grad_opts(ScalarType t = kFloat) { return TensorOptions(t).requires_grad(true); }
Tensor leaf(std::vector<double> v) { return tensor(v, kFloat).requires_grad_(); }
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("autograd: a tensor that never touches autograd carries no metadata") {
  Tensor a = ones({3});
  Tensor b = a + a;
  CHECK(a.unsafe_impl()->autograd_meta_ == nullptr);
  CHECK(b.unsafe_impl()->autograd_meta_ == nullptr);
  CHECK_FALSE(b.requires_grad());
  CHECK(b.is_leaf());
  CHECK_FALSE(b.grad().defined());
  CHECK(b.grad_fn() == nullptr);
}

TEST_CASE("autograd: requires_grad, is_leaf, grad_fn names and creation options") {
  Tensor a = ones({3}, grad_opts());
  CHECK(a.requires_grad());
  CHECK(a.is_leaf());
  Tensor y = a * 2;
  CHECK(y.requires_grad());
  CHECK_FALSE(y.is_leaf());
  CHECK(y.grad_fn()->name() == "MulBackward1");
  CHECK((a * a).grad_fn()->name() == "MulBackward0");
  CHECK((a + 2).grad_fn()->name() == "AddBackward1");
  CHECK(a.sum().grad_fn()->name() == "SumBackward0");
  CHECK(a.sum(0).grad_fn()->name() == "SumBackward1");
  CHECK(a.exp().grad_fn()->name() == "ExpBackward0");
  CHECK(a.view({3, 1}).mm(a.view({1, 3})).grad_fn()->name() == "MmBackward0");
  CHECK(addmm(zeros({3, 3}), a.view({3, 1}), a.view({1, 3})).grad_fn()->name() == "AddmmBackward0");
  CHECK(linear(a.view({1, 3}), a.view({1, 3}), a.narrow(0, 0, 1)).grad_fn()->name() == "AddmmBackward0");
  CHECK(a.dot(a).grad_fn()->name() == "DotBackward0");
  CHECK(a.max().grad_fn()->name() == "MaxBackward1");
  CHECK(std::get<0>(a.max(0)).grad_fn()->name() == "MaxBackward0");
  CHECK(a.pow(2).grad_fn()->name() == "PowBackward0");
  CHECK(a.pow(a).grad_fn()->name() == "PowBackward1");
  CHECK(a.clamp(0, 1).grad_fn()->name() == "ClampBackward1");
  CHECK(a.to(kDouble).grad_fn()->name() == "ToCopyBackward0");
  CHECK(a.view({3, 1}).transpose(0, 1).grad_fn()->name() == "TransposeBackward0");
  CHECK(a.narrow(0, 0, 1).grad_fn()->name() == "SliceBackward0");
  CHECK(a.select(0, 0).grad_fn()->name() == "SelectBackward0");
  CHECK(stack({a, a}).grad_fn()->name() == "StackBackward0");
  CHECK(a.view({3, 1}).t().grad_fn()->name() == "TBackward0");
  CHECK(a.split(1)[0].grad_fn()->name() == "SplitBackward0");
  CHECK(a.chunk(3)[2].grad_fn()->name() == "SplitBackward0");
  CHECK(a.unbind()[1].grad_fn()->name() == "UnbindBackward0");
  CHECK(a.unbind()[1].output_nr() == 1);
  CHECK(cat({a, a}).grad_fn()->name() == "CatBackward0");
  CHECK(softmax(a, 0).grad_fn()->name() == "SoftmaxBackward0");
  CHECK(a.var().grad_fn()->name() == "VarBackward0");
  CHECK(a.clone().grad_fn()->name() == "CloneBackward0");
  CHECK(a.view({1, 3}).expand({2, 3}).grad_fn()->name() == "ExpandBackward0");
  // integer and bool results never require grad
  CHECK_FALSE((a > 0).requires_grad());
  CHECK_FALSE(a.argmax().requires_grad());
  CHECK_FALSE(std::get<1>(a.max(0)).requires_grad());
  CHECK_FALSE(a.to(kInt64).requires_grad());
  CHECK_THAT(message_of([] { ones({2}, kInt64).requires_grad_(); }),
             Equals("Only Tensors of floating point and complex dtype can require gradients"));
}

TEST_CASE("autograd: backward accumulates into leaves across calls") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = (x * x).sum();
  y.backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 4, 6});
  (x * 3).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{5, 7, 9});
  x.mutable_grad().zero_();
  (x * x * x).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 12, 27});
}

TEST_CASE("autograd: gradients meeting in a node's buffer are summed without disturbing any other") {
  // A weight used through its transpose at every step (as a recurrent layer's), in float64:
  // the per-step gradients are summed in the buffer in place.
  manual_seed(3);
  Tensor w = randn({4, 3}, kDouble).requires_grad_();
  const Tensor wt = w.t();
  std::vector<Tensor> xs;
  Tensor total = zeros({}, kDouble);
  for (int k = 0; k < 5; ++k) {
    xs.push_back(randn({2, 3}, kDouble));
    total = total + (matmul(xs.back(), wt) * (k + 1)).sum();
  }
  total.backward();
  // d/dW[o][i] = sum_k (k + 1) * sum_rows x_k[r][i], the same for every o.
  std::vector<double> want(3, 0.0);
  for (int k = 0; k < 5; ++k) {
    const std::vector<double> x = dvalues(xs[size_t(k)]);
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 3; ++i) want[size_t(i)] += (k + 1) * x[size_t(r * 3 + i)];
  }
  const std::vector<double> got = dvalues(w.grad());
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 3; ++i) CHECK(got[size_t(o * 3 + i)] == Approx(want[size_t(i)]).epsilon(1e-12));

  // One gradient tensor handed to two nodes (an add passes g through to both operands):
  // summing into one of them must not change the other. dx = 2 * (1 + 1) + 3 * 1 = 7. (The
  // product makes the gradients dense: sum()'s own is an expanded scalar.)
  Tensor x = leaf({1, 2});
  Tensor p = x * 2, q = x * 3;
  (((p + q) + p) * tensor({1.0f, 1.0f})).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{7, 7});

  // A gradient a hook or retain_grad keeps is not summed into afterwards.
  Tensor z = leaf({1, 2});
  Tensor h = z * 2;
  h.retain_grad();
  Tensor seen;
  h.register_hook([&seen](const Tensor& g) -> Tensor {
    seen = g;
    return Tensor();
  });
  (h * h + h * 3).sum().backward();
  CHECK(dvalues(h.grad()) == std::vector<double>{7, 11});  // 2h + 3
  CHECK(dvalues(seen) == std::vector<double>{7, 11});
  CHECK(dvalues(z.grad()) == std::vector<double>{14, 22});

  // Under create_graph the sum is recorded: d/dx (x^2 + x^3) = 2x + 3x^2, then 2 + 6x.
  Tensor v = leaf({1, 2});
  Tensor g = autograd::grad({(v * v).sum() + (v * v * v).sum()}, {v}, {}, true, true)[0];
  CHECK(dvalues(g) == std::vector<double>{5, 16});
  CHECK(dvalues(autograd::grad({g.sum()}, {v})[0]) == std::vector<double>{8, 14});
}

TEST_CASE("autograd: a diamond graph runs each node once, after all its inputs") {
  Tensor x = leaf({2});
  Tensor a = x * 3;        // 6
  Tensor b = a.exp();      // e^6
  Tensor c = a * a;        // 36
  Tensor y = (b + c).sum();
  y.backward();
  // dy/dx = 3 (e^(3x) + 2 * 3x) at x = 2
  CHECK(std::abs(dvalues(x.grad())[0] - 3 * (std::exp(6.0) + 12)) < 1e-2);
}

TEST_CASE("autograd: broadcasting and type promotion give each input its own shape and dtype") {
  Tensor a = ones({2, 3}, grad_opts());
  Tensor b = ones({3}, grad_opts(kDouble));
  Tensor y = a * b + b;  // float64 [2, 3]
  CHECK(y.dtype() == kDouble);
  y.sum().backward();
  CHECK(a.grad().dtype() == kFloat);
  CHECK(a.grad().sizes() == std::vector<int64_t>{2, 3});
  CHECK(b.grad().dtype() == kDouble);
  CHECK(b.grad().sizes() == std::vector<int64_t>{3});
  CHECK(dvalues(b.grad()) == std::vector<double>{4, 4, 4});
}

TEST_CASE("autograd: backward with a gradient, retain_graph, and the errors libtorch raises") {
  Tensor x = leaf({1, 2});
  Tensor y = x * x;
  CHECK_THAT(message_of([&] { y.backward(); }), Equals("grad can be implicitly created only for scalar outputs"));
  y.backward(tensor({1.0, 0.5}, kFloat), true);
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 2});
  y.backward(tensor({1.0, 1.0}, kFloat));
  CHECK(dvalues(x.grad()) == std::vector<double>{4, 6});
  CHECK_THAT(message_of([&] { y.backward(tensor({1.0, 1.0}, kFloat)); }),
             Contains("Trying to backward through the graph a second time"));
  CHECK_THAT(message_of([] { ones({2}).sum().backward(); }),
             Equals("element 0 of tensors does not require grad and does not have a grad_fn"));
}

TEST_CASE("autograd: in-place ops bump versions, rewrite history and are refused on leaves") {
  Tensor x = leaf({1, 2, 3});
  CHECK_THAT(message_of([&] { x.add_(1); }),
             Equals("a leaf Variable that requires grad is being used in an in-place operation."));
  CHECK_THAT(message_of([&] { x.view({3}).mul_(2); }),
             Equals("a view of a leaf Variable that requires grad is being used in an in-place operation."));
  Tensor y = x * 2;
  const uint32_t v0 = y._version();
  y.mul_(3);
  CHECK(y._version() == v0 + 1);
  CHECK(y.grad_fn()->name() == "MulBackward1");
  y.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{6, 6, 6});
  // An in-place op into a tensor that did not require grad makes it part of the graph.
  Tensor z = zeros({3});
  z.add_(x);
  CHECK(z.requires_grad());
  CHECK(z.grad_fn()->name() == "AddBackward0");
  // In-place on a view of a non-leaf: the base's history becomes CopySlices.
  Tensor base = x * 1;
  base.narrow(0, 1, 2).mul_(x.narrow(0, 0, 2));
  CHECK(base.grad_fn()->name() == "CopySlices");
  // NoGradGuard lets an optimiser update a leaf.
  {
    NoGradGuard no_grad;
    x.sub_(x.grad() * 0.5);
  }
  CHECK(dvalues(x) == std::vector<double>{-2, -1, 0});
}

TEST_CASE("autograd: a saved tensor modified in place is detected by its version") {
  Tensor a = leaf({1, 2, 3});
  Tensor e = a.exp();
  Tensor s = (e * e).sum();  // MulBackward0 saves e
  e.add_(1);
  CHECK_THAT(message_of([&] { s.backward(); }),
             Equals("one of the variables needed for gradient computation has been modified by an inplace operation: "
                    "[CPUFloatType [3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 "
                    "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                    "gradient, with torch.autograd.set_detect_anomaly(True)."));
  // Views share the counter: a write through a view counts too.
  Tensor b = leaf({1, 2});
  Tensor t = b.tanh();
  Tensor u = t.sum();
  {
    NoGradGuard no_grad;
    t.view({2}).mul_(2);
  }
  CHECK_THAT(message_of([&] { u.backward(); }), Contains("modified by an inplace operation"));
}

TEST_CASE("autograd: out= variants refuse arguments that require grad") {
  Tensor a = leaf({1, 2});
  Tensor out = empty({2});
  CHECK_THAT(message_of([&] { add_out(out, a, a); }),
             Equals("add(): functions with out=... arguments don't support automatic differentiation, but one of "
                    "the arguments requires grad."));
  Tensor m = empty({1, 1});
  CHECK_THAT(message_of([&] { matmul_out(m, a.view({1, 2}), a.view({2, 1})); }),
             Equals("matmul(): functions with out=... arguments don't support automatic differentiation, but one "
                    "of the arguments requires grad."));
  CHECK_NOTHROW(mul_out(out, a.detach(), a.detach()));
}

TEST_CASE("autograd: grad() returns gradients without touching .grad()") {
  Tensor x = leaf({1, 2});
  Tensor w = leaf({3, 4});
  Tensor y = (x * w).sum();
  auto g = autograd::grad({y}, {x, w}, {}, true);
  CHECK(dvalues(g[0]) == std::vector<double>{3, 4});
  CHECK(dvalues(g[1]) == std::vector<double>{1, 2});
  CHECK_FALSE(x.grad().defined());
  Tensor unused = leaf({1});
  CHECK_THAT(message_of([&] { autograd::grad({y}, {unused}, {}, true); }),
             Equals("One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior."));
  auto g2 = autograd::grad({y}, {unused}, {}, true, false, true);
  CHECK_FALSE(g2[0].defined());
  CHECK_THAT(message_of([&] { autograd::grad({y}, {ones({2})}, {}, true); }),
             Equals("One of the differentiated Tensors does not require grad"));
  // gradient with respect to an intermediate
  Tensor h = x * 2;
  Tensor z = (h * h).sum();
  CHECK(dvalues(autograd::grad({z}, {h})[0]) == std::vector<double>{4, 8});
}

TEST_CASE("autograd: create_graph gives second derivatives") {
  Tensor x = leaf({0.5, -1.0});
  Tensor y = x.pow(3).sum();
  Tensor g = autograd::grad({y}, {x}, {}, std::nullopt, true)[0];  // 3x^2
  CHECK(g.requires_grad());
  Tensor gg = autograd::grad({g.sum()}, {x})[0];  // 6x
  CHECK(dvalues(gg) == std::vector<double>{3, -6});
  Tensor t = leaf({0.3});
  Tensor d1 = autograd::grad({t.tanh().sum()}, {t}, {}, std::nullopt, true)[0];
  Tensor d2 = autograd::grad({d1.sum()}, {t})[0];
  const double th = std::tanh(0.3);
  CHECK(std::abs(dvalues(d2)[0] - (-2 * th * (1 - th * th))) < 1e-6);
}

TEST_CASE("autograd: GradMode, NoGradGuard and AutoGradMode are per thread") {
  Tensor x = leaf({1});
  {
    NoGradGuard no_grad;
    CHECK_FALSE(GradMode::is_enabled());
    CHECK_FALSE((x * 2).requires_grad());
    {
      AutoGradMode on(true);
      CHECK((x * 2).requires_grad());
    }
    bool other_thread = false;
    std::thread([&] { other_thread = GradMode::is_enabled(); }).join();
    CHECK(other_thread);
  }
  CHECK(GradMode::is_enabled());
}

TEST_CASE("autograd: detach, detach_, retain_grad and hooks") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 3;
  Tensor d = y.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.data_ptr() == y.data_ptr());
  y.retain_grad();
  Tensor z = (y * y).sum();
  unsigned h = x.register_hook([](const Tensor& g) { return g * 10; });
  z.backward(Tensor(), true);
  CHECK(dvalues(y.grad()) == std::vector<double>{6, 12});
  CHECK(dvalues(x.grad()) == std::vector<double>{180, 360});
  x.remove_hook(h);
  x.mutable_grad() = Tensor();
  z.backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{18, 36});
  Tensor w = x * 1;
  w.detach_();
  CHECK(w.is_leaf());
  CHECK_FALSE(w.requires_grad());
  // A view of a tensor with history cannot be detached in place (its base's history would go too).
  Tensor v = (x * 2).narrow(0, 0, 1);
  CHECK_THROWS_MATCHES(v.detach_(), InvalidArgument, Catch::Matchers::Message("Can't detach views in-place. Use detach() instead."));
  CHECK(v.requires_grad());
  CHECK(v.grad_fn() != nullptr);
  // a hook on an intermediate replaces the gradient flowing past it
  Tensor a = leaf({1});
  Tensor b = a * 2;
  b.register_hook([](const Tensor& g) { return g * 0; });
  (b * 5).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{0});
}

TEST_CASE("autograd: the graph and its saved tensors are freed after backward") {
  Tensor x = rand({256}, grad_opts());
  const auto before = memory::stats(Device(kCPU, 0)).allocated_bytes;
  {
    Tensor y = (x.exp() * x.sin()).sum();
    y.backward();
  }
  x.mutable_grad() = Tensor();
  CHECK(memory::stats(Device(kCPU, 0)).allocated_bytes == before);
}

TEST_CASE("autograd: independent graphs run backward from several threads at once") {
  Tensor w = leaf({1, 2, 3});
  std::vector<std::thread> threads;
  std::vector<double> results(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Tensor x = full({3}, double(t + 1), grad_opts());
        Tensor y = (x * w).sum();
        auto g = autograd::grad({y}, {x});
        results[size_t(t)] = dvalues(g[0])[2];
        (w * double(t)).sum().backward();
      }
    });
  for (auto& th : threads) th.join();
  CHECK(results == std::vector<double>{3, 3, 3, 3});
  // sum over threads of 50 * t, t = 0..3, accumulated into the shared leaf under its lock
  CHECK(dvalues(w.grad()) == std::vector<double>{300, 300, 300});
}

TEST_CASE("autograd: gradients cross devices: a tower on the test accelerator, its gradient on cpu") {
  ensure_fake_accelerator();
  Tensor w = tensor({1.0, 2.0, 3.0}, kFloat).requires_grad_();
  Tensor loss;
  {
    DeviceScope scope("npu:0");
    Tensor h = (w * w).tanh();  // placement copies w to npu:0
    CHECK(h.device() == Device("npu:0"));
    loss = h.sum();
  }
  Tensor moved = w.to(Device("npu:1"));
  CHECK(moved.grad_fn()->name() == "ToCopyBackward0");
  (loss + moved.sum().to(Device("npu:0"))).backward();
  REQUIRE(w.grad().defined());
  CHECK(w.grad().device() == Device(kCPU, 0));
  std::vector<double> g = dvalues(w.grad());
  for (int i = 0; i < 3; ++i) {
    const double v = i + 1, t = std::tanh(v * v);
    CHECK(std::abs(g[size_t(i)] - ((1 - t * t) * 2 * v + 1)) < 1e-5);
  }
}

TEST_CASE("autograd: gradcheck accepts a right gradient and reports a wrong one") {
  Tensor x = rand({3}, grad_opts(kDouble));
  CHECK(autograd::gradcheck([](const autograd::variable_list& v) -> autograd::variable_list { return {v[0].sin()}; },
                            {x}));
  CHECK_THROWS_WITH(autograd::gradcheck(
                        [](const autograd::variable_list& v) -> autograd::variable_list {
                          return {v[0] * v[0].detach()};  // the analytic side misses half
                        },
                        {x}),
                    Contains("gradcheck: Jacobian mismatch"));
  CHECK_THROWS_AS(autograd::gradcheck([](const autograd::variable_list& v) { return v; }, {rand({2}, grad_opts())}),
                  InvalidArgument);
}

namespace {
// y = x * k (k a saved double), its backward written by hand; also returns a non-differentiable mask.
struct ScaleFn : autograd::Function<ScaleFn> {
  static autograd::variable_list forward(autograd::AutogradContext* ctx, const Tensor& x, double k) {
    ctx->saved_data["k"] = k;
    ctx->save_for_backward({x});
    Tensor mask = x > 0;
    ctx->mark_non_differentiable({mask});
    return {x * k, mask};
  }
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    CHECK(ctx->needs_input_grad(0));
    return {grads[0] * ctx->saved_data["k"].toDouble() + x * 0, Tensor()};
  }
};
struct AddOneInPlace : autograd::Function<AddOneInPlace> {
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    x.add_(1);
    ctx->mark_dirty({x});
    return x;
  }
  static autograd::variable_list backward(autograd::AutogradContext*, autograd::variable_list grads) { return grads; }
};
}  // namespace

TEST_CASE("autograd: custom functions save tensors and data, mark outputs and inputs") {
  Tensor x = leaf({-1, 2});
  auto outs = ScaleFn::apply(x, 3.0);
  CHECK_THAT(outs[0].grad_fn()->name(), Contains("CppNode<") && Contains("ScaleFn>"));
  CHECK_FALSE(outs[1].requires_grad());
  outs[0].sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 3});
  Tensor h = x * 2;
  Tensor r = AddOneInPlace::apply(h);
  CHECK(r.is_same(h));
  CHECK(dvalues(h) == std::vector<double>{-1, 5});
  (r * r).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{3 + 2 * 2 * -1, 3 + 2 * 2 * 5});
  CHECK_THAT(message_of([&] { AddOneInPlace::apply(x); }),
             Equals("a leaf Variable that requires grad is being used in an in-place operation."));
  {
    NoGradGuard no_grad;
    CHECK_FALSE(ScaleFn::apply(x, 2.0)[0].requires_grad());
  }
}

TEST_CASE("autograd: towers summed with add_n and make_parallel train across devices") {
  ensure_fake_accelerator();
  Tensor w = tensor({1.0, 2.0}, kFloat).requires_grad_();
  std::vector<Tensor> towers;
  for (const char* dev : {"npu:0", "npu:1", "cpu:0"}) {
    DeviceScope scope(dev);
    towers.push_back((w * w).sum().view({1}));
  }
  {
    DeviceScope scope("cpu:0");  // add_n copies every tower's result to the scope's device
    add_n(towers).sum().backward();
  }
  CHECK(w.grad().device() == Device(kCPU, 0));
  CHECK(dvalues(w.grad()) == std::vector<double>{6, 12});
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kFloat).view({4, 1}).requires_grad_();
  Tensor y = make_parallel([&](const std::vector<Tensor>& in) { return in[0] * w.view({1, 2}); },
                           {Device("npu:0"), Device("npu:1")}, {x});
  CHECK(y.sizes() == std::vector<int64_t>{4, 2});
  y.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 3, 3, 3});
  CHECK(dvalues(w.grad()) == std::vector<double>{6 + 10, 12 + 10});
}

TEST_CASE("autograd: in-place ops on views rewrite the base's history (CopySlices)") {
  // The same values computed in place through views and out of place give the same gradients.
  auto run = [](bool in_place) {
    Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, kDouble).view({2, 3}).requires_grad_();
    Tensor w = tensor({0.5, -1.0, 2.0}, kDouble).requires_grad_();
    Tensor y;
    if (in_place) {
      Tensor a = x * 1;
      Tensor row = a.select(0, 1);
      row.mul_(w);                      // a[1] *= w
      a.narrow(1, 0, 1).sub_(w.narrow(0, 0, 1), 2);  // a[:, 0] -= 2 w[0] (saves nothing a.mul_ changes)
      Tensor stale = a.select(0, 0);    // taken before the next write through a
      a.mul_(2);
      y = (a * a).sum() + (stale * 3).sum();
    } else {
      Tensor r0 = x.select(0, 0), r1 = x.select(0, 1) * w;
      Tensor a = stack({r0, r1});
      a = cat({a.narrow(1, 0, 1) - w.narrow(0, 0, 1) * 2, a.narrow(1, 1, 2)}, 1);
      a = a * 2;
      y = (a * a).sum() + (a.select(0, 0) * 3).sum();
    }
    y.backward();
    return std::make_pair(dvalues(x.grad()), dvalues(w.grad()));
  };
  auto [gx_in, gw_in] = run(true);
  auto [gx_out, gw_out] = run(false);
  REQUIRE(gx_in.size() == gx_out.size());
  for (size_t i = 0; i < gx_in.size(); ++i) CHECK(std::abs(gx_in[i] - gx_out[i]) < 1e-9 * (1 + std::abs(gx_out[i])));
  for (size_t i = 0; i < gw_in.size(); ++i) CHECK(std::abs(gw_in[i] - gw_out[i]) < 1e-9 * (1 + std::abs(gw_out[i])));
  // copy_ and fill_ into slices assemble a tensor whose gradient reaches the sources
  Tensor s = tensor({1.0, 2.0}, kFloat).requires_grad_();
  Tensor buf = zeros({4}, TensorOptions(kFloat).requires_grad(true)) * 1;
  buf.narrow(0, 0, 2).copy_(s * 3);
  buf.narrow(0, 2, 1).fill_(7);
  (buf * tensor({1.0, 2.0, 3.0, 4.0}, kFloat)).sum().backward();
  CHECK(dvalues(s.grad()) == std::vector<double>{3, 6});
  // a view of a view: the region is mapped onto the root base's storage
  Tensor x = ones({2, 3}, grad_opts());
  Tensor t = (x * 1).t();
  t.select(0, 0).mul_(2);  // x[:, 0] doubled
  t.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 1, 1, 2, 1, 1});
}

TEST_CASE("autograd: create_graph differentiates through CopySlices and a refreshed view") {
  // b = [x0^2, x1^2, x2, x3] written in place through a view; out = sum(b^2)
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).requires_grad_();
  Tensor b = x * 1;
  b.narrow(0, 0, 2).mul_(x.narrow(0, 0, 2));
  REQUIRE(b.grad_fn()->name() == "CopySlices");
  Tensor g = autograd::grad({(b * b).sum()}, {x}, {}, true, true)[0];
  CHECK(dvalues(g) == std::vector<double>{4, 32, 6, 8});  // 4 x^3 on the head, 2 x on the tail
  REQUIRE(g.requires_grad());
  g.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{12, 48, 2, 2});  // 12 x^2, then 2

  // v is taken before its base is doubled in place: its history is refreshed from the base's
  Tensor y = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).requires_grad_();
  Tensor c = y * 1;
  Tensor v = c.narrow(0, 0, 2);
  c.mul_(2);
  Tensor gy = autograd::grad({(v * v * v).sum()}, {y}, {}, true, true)[0];  // 8 (y0^3 + y1^3)
  CHECK(dvalues(gy) == std::vector<double>{24, 96, 0, 0});
  gy.sum().backward();
  CHECK(dvalues(y.grad()) == std::vector<double>{48, 96, 0, 0});
}

TEST_CASE("autograd: a refreshed view that overlaps itself; a view written after its base was detached") {
  // e expands c's one row; c is then doubled in place, so e's history is AsStridedBackward0
  // of c's: the gradient of each row of e is summed into c's row.
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).requires_grad_();
  Tensor c = (x * 1).view({1, 4});
  Tensor e = c.expand({3, 4});
  c.mul_(2);
  Tensor w = arange(12, TensorOptions(kDouble)).view({3, 4});
  (e * w).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{24, 30, 36, 42});  // 2 * column sums of w

  // y is detached after v was taken: y is a leaf now, so writing through v is refused (libtorch)
  Tensor z = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).requires_grad_();
  Tensor y = z * 1;
  Tensor v = y.narrow(0, 1, 2);
  y.detach_();
  CHECK_THROWS_AS(v.mul_(2), InvalidArgument);
  CHECK_THROWS_WITH(v.mul_(2), Catch::Contains("a view of a leaf Variable that requires grad is being used in an in-place operation."));
  CHECK(dvalues(y) == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("autograd: where and lerp with a Scalar operand record through the tensor operands") {
  Tensor x = leaf({1.0, -2.0, 3.0});
  Tensor y = where(x > 0, 0.5, x);
  y.sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{0, 1, 0});
  Tensor a = leaf({1.0, 2.0}), b = leaf({3.0, 5.0});
  lerp(a, b, 0.25).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{0.75, 0.75});
  CHECK(dvalues(b.grad()) == std::vector<double>{0.25, 0.25});
}
