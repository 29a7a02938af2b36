// Autograd on the GPU: each backward node runs on the stream its forward ran on, and the
// engine waits wherever a gradient crosses streams (Note [Backward streams]). The race
// tests queue several milliseconds of matmuls on one stream before the gradient is read on
// another, so a missing wait reads memory that is not written yet.
#include <catch2/catch.hpp>

#include "cuda_test_util.h"

using namespace ember;
using ember::test::kGpu;

namespace {

// Several milliseconds of GPU work on the current stream: a 4096^2 float32 product chain
// (no TF32), scaled to stay near unit size.
Tensor slow_product(const Tensor& a, const Tensor& b) {
  Tensor r = matmul(a, b) * (1.0 / 64);
  return matmul(r, b) * (1.0 / 64);
}

// Elements where got and want differ by more than tol (relative and absolute).
int64_t mismatches(const Tensor& got, const Tensor& want, double tol) {
  return logical_not(isclose(got, want, tol, tol)).sum().item<int64_t>();
}

}  // namespace

TEST_CASE("cuda autograd: each node's backward runs on its forward's stream") {
  EMBER_REQUIRE_GPU();
  const cuda::Stream s1 = cuda::new_stream(0), s2 = cuda::new_stream(0);
  REQUIRE(s1 != s2);
  Tensor x = randn({1000}, TensorOptions().device(kGpu)).requires_grad_();
  Tensor a, b;
  {
    cuda::StreamGuard on_s1(s1);
    a = x * 2;
  }
  s1.synchronize();
  {
    cuda::StreamGuard on_s2(s2);
    b = exp(a);
  }
  s2.synchronize();
  cuda::Stream seen_a, seen_b;
  a.register_hook([&](const Tensor&) {
    seen_a = cuda::current_stream(0);
    return Tensor();
  });
  b.register_hook([&](const Tensor&) {
    seen_b = cuda::current_stream(0);
    return Tensor();
  });
  b.sum().backward();
  CHECK(seen_b == s2);  // ExpBackward0
  CHECK(seen_a == s1);  // MulBackward0
  CHECK(cuda::current_stream(0).handle() == nullptr);  // the caller's stream again
  const Tensor want = (exp(x.detach() * 2) * 2).cpu();
  CHECK(mismatches(x.grad().cpu(), want, 1e-6) == 0);
}

TEST_CASE("cuda autograd: a seed gradient made on the caller's stream is waited for", "[slow]") {
  EMBER_REQUIRE_GPU();
  manual_seed(11);
  const TensorOptions on_gpu = TensorOptions().device(kGpu);
  Tensor a = randn({4096, 4096}, on_gpu), b = randn({4096, 4096}, on_gpu) * 0.125, w = randn({4096, 4096}, on_gpu);
  Tensor x = randn({4096, 4096}, on_gpu).requires_grad_();
  Tensor y = x * w;  // MulBackward0 and x's AccumulateGrad run on the default stream (handle null)
  cuda::synchronize();
  const cuda::Stream side = cuda::new_stream(0);
  Tensor seed, grad;
  {
    cuda::StreamGuard on_side(side);
    seed = slow_product(a, b);  // still running when backward queues MulBackward0
    y.backward(seed);
    grad = x.grad().clone();  // on the caller's stream: valid after the engine's final wait
  }
  cuda::synchronize();
  CHECK(mismatches(grad, seed * w, 0) == 0);  // the same kernel on the same values: exact

  // Control: the same read on the default stream without a wait sees the seed unfinished.
  Tensor early, seed2;
  {
    cuda::StreamGuard on_side(side);
    seed2 = slow_product(a, b);
  }
  early = seed2 * w;  // default stream, no wait: races with the side stream
  cuda::synchronize();
  WARN("control without the wait: " << mismatches(early, seed2 * w, 0) << " of " << early.numel()
                                    << " elements differ (the race the engine's wait prevents)");
}

TEST_CASE("cuda autograd: a gradient that crosses streams inside the graph is waited for", "[slow]") {
  EMBER_REQUIRE_GPU();
  manual_seed(12);
  const TensorOptions on_gpu = TensorOptions().device(kGpu);
  Tensor w1 = randn({4096, 4096}, on_gpu) * 0.02, w2 = randn({4096, 4096}, on_gpu) * 0.02;
  Tensor x = randn({4096, 4096}, on_gpu).requires_grad_();
  const cuda::Stream s1 = cuda::new_stream(0), s2 = cuda::new_stream(0);
  cuda::synchronize();
  Tensor h, y;
  {
    cuda::StreamGuard on_s1(s1);
    h = matmul(x, w1);  // MmBackward0 (and x's AccumulateGrad) on s1
  }
  s1.synchronize();
  {
    cuda::StreamGuard on_s2(s2);
    y = matmul(h, w2);  // MmBackward0 on s2: its gradient for h crosses to s1
  }
  s2.synchronize();
  Tensor seed = randn({4096, 4096}, on_gpu);  // the caller's (default) stream
  y.backward(seed);
  const Tensor grad = x.grad().clone();  // default stream, after the final wait
  cuda::synchronize();
  const Tensor want = matmul(matmul(seed, w2.t()), w1.t());
  const double scale = want.abs().max().item<double>();
  CHECK(mismatches(grad, want, 1e-4 * scale) == 0);
  CHECK(cuda::current_stream(0).handle() == nullptr);
}

TEST_CASE("cuda autograd: grad() captures and double backward across streams") {
  EMBER_REQUIRE_GPU();
  manual_seed(13);
  const TensorOptions on_gpu = TensorOptions().device(kGpu);
  Tensor x = randn({256, 256}, on_gpu).requires_grad_();
  const cuda::Stream s1 = cuda::new_stream(0);
  Tensor y;
  {
    cuda::StreamGuard on_s1(s1);
    y = (x * x * x).sum();
  }
  s1.synchronize();
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, true);  // 3x^2, with a graph
  Tensor gg = autograd::grad({g[0].sum()}, {x})[0];             // 6x
  cuda::synchronize();
  CHECK(mismatches(g[0].cpu(), (x.detach() * x.detach() * 3).cpu(), 1e-5) == 0);
  CHECK(mismatches(gg.cpu(), (x.detach() * 6).cpu(), 1e-5) == 0);
}
