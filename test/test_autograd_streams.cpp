// Autograd's stream rule (Note [Backward streams]) on the fake "npu" backend, whose
// streams are tokens and whose waits are recorded: each node's backward runs on its
// forward's stream, and the engine asks for exactly the waits libtorch inserts. The CUDA
// tests (test_cuda_autograd.cpp) show on a GPU that these waits are what prevents the races.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "ember/ember.h"
#include "fake_accelerator.h"

using namespace ember;
using ember::testing::FakeStreamGuard;
using ember::testing::FakeStreamWait;
using ember::testing::fake_current_stream;
using ember::testing::fake_new_stream;
using ember::testing::fake_take_stream_waits;

namespace {
const Device kNpu(kPrivateUse1, 0);

Tensor leaf_on_npu(uint64_t seed) {
  ember::testing::ensure_fake_accelerator();
  manual_seed(seed);
  return randn({5}).to(kNpu).requires_grad_();
}
}  // namespace

TEST_CASE("autograd streams: each node's backward runs on its forward's stream, with the waits between") {
  Tensor x = leaf_on_npu(1);
  void *s1 = fake_new_stream(), *s2 = fake_new_stream(), *caller = fake_new_stream();
  Tensor a, b;
  {
    FakeStreamGuard on_s1(0, s1);
    a = x * 2;  // MulBackward0 and x's AccumulateGrad on s1
  }
  {
    FakeStreamGuard on_s2(0, s2);
    b = exp(a);  // ExpBackward0 on s2
  }
  void *seen_a = nullptr, *seen_b = nullptr;
  a.register_hook([&](const Tensor&) {
    seen_a = fake_current_stream(0);
    return Tensor();
  });
  b.register_hook([&](const Tensor&) {
    seen_b = fake_current_stream(0);
    return Tensor();
  });
  fake_take_stream_waits();
  {
    FakeStreamGuard on_caller(0, caller);
    b.sum().backward();  // SumBackward0 on the caller's stream
    CHECK(fake_current_stream(0) == caller);
  }
  CHECK(seen_b == s2);
  CHECK(seen_a == s1);
  const std::vector<FakeStreamWait> want = {
      {0, s2, caller},  // ExpBackward0 waits for SumBackward0's gradient
      {0, s1, s2},      // MulBackward0 waits for ExpBackward0's
      {0, caller, s2},  // at the end, the caller's stream waits for every stream the pass used
      {0, caller, s1},
  };
  CHECK(fake_take_stream_waits() == want);
  const Tensor xc = x.detach().cpu();
  CHECK(allclose(x.grad().cpu(), exp(xc * 2) * 2));
}

TEST_CASE("autograd streams: a seed made on the caller's stream is waited for, and the caller waits at the end") {
  Tensor x = leaf_on_npu(2);
  void *s1 = fake_new_stream(), *caller = fake_new_stream();
  Tensor y;
  {
    FakeStreamGuard on_s1(0, s1);
    y = x * 3;
  }
  fake_take_stream_waits();
  {
    FakeStreamGuard on_caller(0, caller);
    y.backward(ones({5}, TensorOptions().device(kNpu)));
  }
  const std::vector<FakeStreamWait> want = {{0, s1, caller}, {0, caller, s1}};
  CHECK(fake_take_stream_waits() == want);
  CHECK(allclose(x.grad().cpu(), full({5}, 3.0)));
}

TEST_CASE("autograd streams: one stream, the default stream or the CPU ask for no waits") {
  Tensor x = leaf_on_npu(3), z = leaf_on_npu(4);
  void* s1 = fake_new_stream();
  fake_take_stream_waits();
  {
    FakeStreamGuard on_s1(0, s1);  // forward and backward on the same stream
    (x * x).sum().backward();
  }
  (exp(z) * 2).sum().backward();  // the default stream throughout
  Tensor c = randn({4}).requires_grad_();
  (c * c).sum().backward();  // CPU: no streams at all
  CHECK(fake_take_stream_waits().empty());
  CHECK(allclose(x.grad().cpu(), x.detach().cpu() * 2));
  CHECK(allclose(z.grad().cpu(), exp(z.detach().cpu()) * 2));
  CHECK(fake_current_stream(0) == nullptr);
}

TEST_CASE("autograd streams: a backward that throws restores the current stream and still makes the caller wait") {
  Tensor x = leaf_on_npu(5);
  void *s1 = fake_new_stream(), *caller = fake_new_stream();
  Tensor a;
  {
    FakeStreamGuard on_s1(0, s1);
    a = x * 2;
  }
  a.register_hook([](const Tensor&) -> Tensor { throw std::runtime_error("hook failed"); });
  fake_take_stream_waits();
  {
    FakeStreamGuard on_caller(0, caller);
    CHECK_THROWS_WITH(a.sum().backward(), "hook failed");
    CHECK(fake_current_stream(0) == caller);  // MulBackward0's stream scope was undone
  }
  const std::vector<FakeStreamWait> want = {{0, s1, caller}, {0, caller, s1}};
  CHECK(fake_take_stream_waits() == want);
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd streams: a seed gradient on another device than its output is refused, as libtorch") {
  Tensor x = leaf_on_npu(6);
  Tensor y = x * 2;
  CHECK_THROWS_WITH(y.backward(ones({5})), "invalid gradient at index 0 - expected device npu:0 but got cpu");
  CHECK_THROWS_WITH(y.backward(ones({4}, TensorOptions().device(kNpu))),
                    "Mismatch in shape: grad_output[0] has a shape of [4] and output[0] has a shape of [5].");
  CHECK_FALSE(x.grad().defined());
  y.backward(ones({5}, TensorOptions().device(kNpu)));  // the graph is intact after the refusals
  CHECK(allclose(x.grad().cpu(), full({5}, 2.0)));
}

TEST_CASE("autograd streams: autograd::grad makes the same waits, and its result is ready on the caller's stream") {
  Tensor x = leaf_on_npu(7);
  void *s1 = fake_new_stream(), *caller = fake_new_stream();
  Tensor y;
  {
    FakeStreamGuard on_s1(0, s1);
    y = (x * x).sum();
  }
  fake_take_stream_waits();
  Tensor g;
  {
    FakeStreamGuard on_caller(0, caller);
    g = autograd::grad({y}, {x})[0];
  }
  const std::vector<FakeStreamWait> want = {{0, s1, caller}, {0, caller, s1}};
  CHECK(fake_take_stream_waits() == want);
  CHECK(allclose(g.cpu(), x.detach().cpu() * 2));
  CHECK_FALSE(x.grad().defined());
}
