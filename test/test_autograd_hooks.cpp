// Autograd hooks for data parallelism: post-accumulate-grad hooks on leaves and the
// engine's final callbacks (queue_callback).
#include <catch2/catch.hpp>
#include <ember/ember.h>

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
  ember_test::expect_throw<InvalidArgument>([&] { (void)w.remove_hook(id); }, "remove_hook: invalid hook handle");
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
