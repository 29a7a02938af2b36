// Autograd hooks and the engine's options: post-accumulate-grad hooks and final callbacks
// (data parallelism), hooks that return nothing, retain_grad across in-place ops,
// backward(inputs=), libtorch's autograd warnings and anomaly mode.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;

TEST_CASE("autograd hooks: a post-accumulate hook sees the accumulated gradient") {
  Tensor w = tensor({1.0f, 2.0f}).requires_grad_(true);
  std::vector<std::vector<double>> seen;
  const unsigned id = w.register_post_accumulate_grad_hook(
      [&](const Tensor& p) { seen.push_back(ember_test::dvalues(p.grad())); });
  (w * 3).sum().backward();
  (w * w).sum().backward();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::vector<double>{3, 3});
  CHECK(seen[1] == std::vector<double>{5, 7});  // 3 + 2w: after accumulation, not the incoming gradient
  w.remove_hook(id);
  (w * 1).sum().backward();
  CHECK(seen.size() == 2);
  ember_test::expect_throw<InvalidArgument>([&] { (void)w.remove_hook(id); },
                                            "remove_hook: Invalid index, no hook at position");
}

TEST_CASE("autograd hooks: post-accumulate hooks are for leaves that require grad") {
  Tensor w = ones({2}).requires_grad_(true);
  Tensor y = w * 2;
  ember_test::expect_throw<InvalidArgument>([&] { (void)y.register_post_accumulate_grad_hook([](const Tensor&) {}); }, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  ember_test::expect_throw<InvalidArgument>([&] { (void)ones({2}).register_post_accumulate_grad_hook([](const Tensor&) {}); }, "cannot register a hook on a tensor that doesn't require gradient");
}

TEST_CASE("autograd hooks: final callbacks run once after every node of the pass") {
  Tensor a = tensor({1.0f}).requires_grad_(true), b = tensor({2.0f}).requires_grad_(true);
  std::vector<std::string> events;
  a.register_post_accumulate_grad_hook([&](const Tensor&) {
    events.push_back("a");
    autograd::queue_callback([&] {
      events.push_back("final");
      autograd::queue_callback([&] { events.push_back("queued by final"); });
    });
  });
  b.register_post_accumulate_grad_hook([&](const Tensor&) { events.push_back("b"); });
  (a * b).sum().backward();
  REQUIRE(events.size() == 4);
  CHECK(events[2] == "final");
  CHECK(events[3] == "queued by final");
  ember_test::expect_throw<InvalidArgument>([&] { (void)autograd::queue_callback([] {}); }, "queue_callback: Final callbacks can only be installed during backward pass.");
}

namespace {
// libtorch 1.13's handler form: process(SourceLocation, msg, verbatim).
struct Messages : WarningHandler {
  std::vector<std::string> seen;
  void process(const SourceLocation&, const std::string& msg, bool) override { seen.push_back(msg); }
};
}  // namespace

TEST_CASE("autograd hooks: a hook that returns nothing sees the gradient and leaves it") {
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  std::vector<double> seen;
  x.register_hook([&](const Tensor& g) { seen = ember_test::dvalues(g); });
  Tensor y = x * 3;
  y.register_hook([](Tensor g) { (void)g; });  // by value, as libtorch's tests write it
  y.sum().backward();
  CHECK(seen == std::vector<double>{3, 3});
  CHECK(ember_test::dvalues(x.grad()) == std::vector<double>{3, 3});
  ember_test::expect_throw<InvalidArgument>([&] { x.remove_hook(12345); },
                                            "remove_hook: Invalid index, no hook at position 12345");
}

TEST_CASE("autograd hooks: backward(inputs=) accumulates into the given tensors only") {
  Tensor a = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  Tensor b = tensor({3.0, 4.0}, kDouble).requires_grad_(true);
  Tensor h = a * b;  // a non-leaf input
  Tensor loss = (h * a).sum();
  loss.backward({}, /*retain_graph=*/true, /*create_graph=*/false, {{b, h}});
  CHECK_FALSE(a.grad().defined());
  CHECK(ember_test::dvalues(b.grad()) == std::vector<double>{1, 4});  // a * a
  CHECK(ember_test::dvalues(h.grad()) == std::vector<double>{1, 2});  // a
  autograd::backward({loss}, {}, /*retain_graph=*/true, false, {b});
  CHECK(ember_test::dvalues(b.grad()) == std::vector<double>{2, 8});  // accumulated
  const std::vector<Tensor> none;
  ember_test::expect_throw<InvalidArgument>([&] { loss.backward({}, true, false, TensorList(none)); },
                                            "'inputs' argument to backward() cannot be empty.");
  ember_test::expect_throw<InvalidArgument>([&] { autograd::grad({loss}, {}); },
                                            "grad requires non-empty inputs.");
}

TEST_CASE("autograd hooks: libtorch's warnings for a non-leaf grad() and for create_graph in backward") {
  Messages messages;
  WarningUtils::WarningHandlerGuard guard(&messages);
  WarningUtils::WarnAlways always;
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  Tensor y = x * 2;
  CHECK_FALSE(y.grad().defined());
  REQUIRE(messages.seen.size() == 1);
  CHECK(messages.seen[0].rfind("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.",
                               0) == 0);
  CHECK_FALSE(x.grad().defined());  // a leaf: no warning
  y.retain_grad();
  CHECK_FALSE(y.grad().defined());  // retains its grad: no warning
  CHECK(messages.seen.size() == 1);
  (x * x).sum().backward({}, {}, /*create_graph=*/true);
  REQUIRE(messages.seen.size() == 2);
  CHECK(messages.seen[1].rfind("Using backward() with create_graph=True will create a reference cycle", 0) ==
        0);
  autograd::grad({(x * x).sum()}, {x}, {}, {}, /*create_graph=*/true);
  CHECK(messages.seen.size() == 2);  // grad() does not warn
  x.mutable_grad() = Tensor();      // the cycle the warning is about: x.grad's graph holds x
}

TEST_CASE("autograd hooks: retain_grad keeps the gradient of the newest version after an in-place op") {
  Tensor a = ones({3}, kDouble).requires_grad_(true);
  Tensor b = a * 1;
  b.retain_grad();
  std::vector<double> before_inplace;
  b.register_hook([&](const Tensor& g) { before_inplace = ember_test::dvalues(g); });
  b.mul_(2);
  (b * 3).sum().backward();
  CHECK(ember_test::dvalues(b.grad()) == std::vector<double>{3, 3, 3});  // the gradient of b after mul_
  CHECK(before_inplace == std::vector<double>{6, 6, 6});                 // the hook stays with the old b
  CHECK(ember_test::dvalues(a.grad()) == std::vector<double>{6, 6, 6});
}

TEST_CASE("autograd hooks: anomaly mode names the failing node and catches NaN gradients") {
  Messages messages;
  WarningUtils::WarningHandlerGuard guard(&messages);
  WarningUtils::WarnAlways always;
  autograd::DetectAnomalyGuard anomaly;
  CHECK(autograd::AnomalyMode::is_enabled());
  Tensor x = tensor({5.0}, kDouble).requires_grad_(true);
  Tensor y = x * x;
  Tensor z = y * y;
  y.add_(1);
  ember_test::expect_throw<InvalidArgument>([&] { z.backward(); }, "modified by an inplace operation");
  bool named = false;
  for (const std::string& m : messages.seen)
    named =
        named ||
        m.rfind("Error detected in MulBackward0. Traceback of forward call that caused the error:", 0) == 0;
  CHECK(named);
  // sqrt's gradient at 0 times 0 is NaN: the node that gave it is named.
  Tensor w = tensor({0.0}, kDouble).requires_grad_(true);
  messages.seen.clear();
  ember_test::expect_throw<InvalidArgument>(
      [&] { (w.sqrt() * 0).sum().backward(); },
      "Function 'SqrtBackward0' returned nan values in its 0th output.");
  REQUIRE(messages.seen.size() == 1);  // named in a warning too, as libtorch's
  CHECK(messages.seen[0].rfind("Error detected in SqrtBackward0. Traceback of forward call that caused the error:",
                               0) == 0);
  {
    autograd::DetectAnomalyGuard without_nan_check(/*check_nan=*/false);
    Tensor v = tensor({0.0}, kDouble).requires_grad_(true);
    (v.sqrt() * 0).sum().backward();
    CHECK(std::isnan(v.grad().item<double>()));
  }
  CHECK(autograd::AnomalyMode::should_check_nan());
  // A node a backward recorded (create_graph) names the node whose backward made it, as
  // libtorch 1.13 does (the same case, run there: PowBackward0 twice).
  Tensor p = tensor({0.0}, kDouble).requires_grad_(true);
  Tensor q = p.pow(1.5);
  autograd::variable_list first = autograd::grad({q}, {p}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  messages.seen.clear();
  ember_test::expect_throw<InvalidArgument>([&] { autograd::grad({first[0]}, {p}, {tensor({0.0}, kDouble)}); },
                                            "Function 'PowBackward0' returned nan values in its 0th output.");
  REQUIRE(messages.seen.size() == 2);
  CHECK(messages.seen[0].rfind("Error detected in PowBackward0. Traceback of forward call that caused the error:",
                               0) == 0);
  CHECK(messages.seen[1].rfind("\n\nPrevious calculation was induced by PowBackward0. Traceback of forward call "
                               "that induced the previous calculation:",
                               0) == 0);
}

TEST_CASE("autograd hooks: backward(inputs=) accumulates as AccumulateGrad does: own buffers, leaf hooks") {
  Tensor a = tensor({1.0, 2.0}, kDouble).requires_grad_(true);
  Tensor b = tensor({3.0, 4.0}, kDouble).requires_grad_(true);
  std::vector<double> hooked;
  a.register_hook([&](const Tensor& g) {
    hooked = ember_test::dvalues(g);
    return g * 10;
  });
  Tensor loss = (a + b).sum();  // AddBackward hands one gradient tensor to both inputs
  loss.backward({}, /*retain_graph=*/true, false, {{a, b}});
  CHECK(hooked == std::vector<double>{1, 1});
  CHECK(ember_test::dvalues(a.grad()) == std::vector<double>{10, 10});
  CHECK(ember_test::dvalues(b.grad()) == std::vector<double>{1, 1});
  CHECK(a.grad().data_ptr() != b.grad().data_ptr());
  void* const kept = b.grad().data_ptr();
  loss.backward({}, true, false, {{b}});
  CHECK(b.grad().data_ptr() == kept);  // added in place
  CHECK(ember_test::dvalues(b.grad()) == std::vector<double>{2, 2});
  b.grad().mul_(0);
  CHECK(ember_test::dvalues(a.grad()) == std::vector<double>{10, 10});
  const Tensor plain = ones({2}, kDouble);
  ember_test::expect_throw<InvalidArgument>([&] { loss.backward({}, true, false, {{plain}}); },
                                            "One of the differentiated Tensors does not require grad");
}

TEST_CASE("autograd hooks: anomaly mode nests its guards and set_enabled as libtorch's") {
  CHECK_FALSE(autograd::AnomalyMode::is_enabled());
  {
    autograd::DetectAnomalyGuard outer;
    {
      autograd::DetectAnomalyGuard inner(/*check_nan=*/false);
      CHECK(autograd::AnomalyMode::is_enabled());
      CHECK_FALSE(autograd::AnomalyMode::should_check_nan());
    }
    CHECK(autograd::AnomalyMode::is_enabled());  // the outer guard still holds it
    CHECK(autograd::AnomalyMode::should_check_nan());
    autograd::AnomalyMode::set_enabled(false);
    CHECK_FALSE(autograd::AnomalyMode::is_enabled());
    autograd::DetectAnomalyGuard again;
    CHECK(autograd::AnomalyMode::is_enabled());
  }
  CHECK_FALSE(autograd::AnomalyMode::is_enabled());
  autograd::AnomalyMode::set_enabled(true);
  { autograd::DetectAnomalyGuard guard; }
  CHECK_FALSE(autograd::AnomalyMode::is_enabled());  // the last guard turns it off, as libtorch's
}
