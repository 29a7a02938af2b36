// Convolutions through a library kernel (Note [Library kernels]: oneDNN on the CPU, float32):
// values and the three gradients against the portable im2col + GEMM form and against
// float64, over 1-D/2-D/3-D shapes with stride, padding, dilation, groups, odd sizes and
// strided inputs; the recorded node, double backward, the switch, placement logging and
// threads; a kernel that declines a shape (on the "npu" test backend, in every build). In a
// build without oneDNN the switch reports it and the portable form runs.

#include <ember/ember.h>
#include <ember/nn.h>
#include <ember/registry.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/kernel_table.h"
#include "fake_accelerator.h"
#include "test_util.h"

using ember_test::check_close;

using namespace ember;

namespace {

// oneDNN off while alive (then back to what it was).
struct PortableOnly {
  bool before = onednn_enabled();
  PortableOnly() { set_onednn_enabled(false); }
  ~PortableOnly() { set_onednn_enabled(before || onednn_available()); }
};

struct ConvCase {
  std::string name;
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
};

Tensor conv_nd(const Tensor& x, const Tensor& w, const Tensor& b, const ConvCase& c) {
  if (x.dim() == 3) return conv1d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
  if (x.dim() == 4) return conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
  return conv3d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
}

struct Result {
  Tensor y, gx, gw, gb;
  std::string node;
};

// Forward and backward of case c on copies of x, w, b in dtype dt (x transposed in its last
// two dims first when `strided`, a non-contiguous input).
Result run(const ConvCase& c, const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& g0, ScalarType dt) {
  Tensor x = x0.to(dt).detach().requires_grad_(), w = w0.to(dt).detach().requires_grad_();
  Tensor b = c.bias ? b0.to(dt).detach().requires_grad_() : Tensor();
  Tensor y = conv_nd(x, w, b, c);
  y.backward(g0.to(dt));
  return {y.detach(), x.grad(), w.grad(), c.bias ? b.grad() : Tensor(), y.grad_fn()->name()};
}

const std::vector<ConvCase>& cases() {
  static const std::vector<ConvCase> all = {
      {"2-D plain", {2, 3, 9, 8}, {4, 3, 3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true},
      {"2-D LeNet layer", {8, 1, 28, 28}, {10, 1, 5, 5}, {1, 1}, {0, 0}, {1, 1}, 1, true},
      {"2-D padded 3x3", {2, 16, 14, 14}, {16, 16, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false},
      {"2-D stride 2, odd sizes (floor drops a row)", {3, 5, 12, 11}, {7, 5, 3, 2}, {2, 3}, {1, 0}, {1, 1}, 1, true},
      {"2-D dilation", {2, 4, 13, 10}, {6, 4, 3, 3}, {1, 2}, {2, 1}, {2, 3}, 1, true},
      {"2-D groups", {2, 6, 10, 9}, {9, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, true},
      {"2-D depthwise", {2, 8, 11, 11}, {8, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 8, false},
      {"2-D 1x1 stride 2", {2, 16, 9, 9}, {32, 16, 1, 1}, {2, 2}, {0, 0}, {1, 1}, 1, true},
      {"2-D batch 1", {1, 3, 7, 7}, {2, 3, 7, 7}, {1, 1}, {0, 0}, {1, 1}, 1, true},
      {"1-D", {3, 4, 17}, {6, 2, 3}, {2}, {1}, {2}, 2, true},
      {"3-D", {2, 3, 6, 7, 5}, {4, 3, 2, 3, 2}, {1, 2, 1}, {1, 0, 1}, {1, 1, 2}, 1, true},
  };
  return all;
}

// Convolution kernels of the "npu" test backend for one test, then the backend's own again.
struct FakeConvKernels {
  detail::KernelEntry forward = detail::g_kernel_table[int(Op::Convolution)][int(kPrivateUse1)];
  detail::KernelEntry backward = detail::g_kernel_table[int(Op::ConvolutionBackward)][int(kPrivateUse1)];
  FakeConvKernels(ConvKernel f, ConvKernel b) {
    register_kernel(Op::Convolution, kPrivateUse1, f, DtypeSet({kFloat, kDouble}));
    register_kernel(Op::ConvolutionBackward, kPrivateUse1, b, DtypeSet({kFloat, kDouble}));
  }
  ~FakeConvKernels() {
    detail::g_kernel_table[int(Op::Convolution)][int(kPrivateUse1)] = forward;
    detail::g_kernel_table[int(Op::ConvolutionBackward)][int(kPrivateUse1)] = backward;
  }
};

std::atomic<int> g_fake_calls{0};

void declining_kernel(const ConvArgs&) {
  ++g_fake_calls;
  throw NotImplemented("fake library: no algorithm for this shape");
}

// Runs, writing zeros (so the test sees that it ran).
void zeroing_forward(const ConvArgs& a) {
  ++g_fake_calls;
  int64_t n = a.batch * a.out_channels * int64_t(element_size(a.dtype));
  for (int d = 0; d < a.spatial; ++d) n *= a.output_size[d];
  std::memset(a.output, 0, size_t(n));
}

void failing_forward(const ConvArgs&) {
  ++g_fake_calls;
  throw DeviceError("fake library: the device failed");
}

}  // namespace

TEST_CASE("nn conv library: a kernel that declines a shape leaves it to the portable form") {
  testing::ensure_fake_accelerator();
  manual_seed(13);
  const Tensor x0 = randn({2, 4, 7, 6}, kDouble), w0 = randn({6, 2, 3, 2}, kDouble), b0 = randn({6}, kDouble);
  auto run = [&](const Device& d) {
    Tensor x = x0.to(d).detach().requires_grad_(), w = w0.to(d).detach().requires_grad_(),
           b = b0.to(d).detach().requires_grad_();
    Tensor y = conv2d(x, w, b, {2, 1}, {1, 1}, 1, 2);
    y.pow(2).sum().backward();
    return std::vector<Tensor>{y.detach().cpu(), x.grad().cpu(), w.grad().cpu(), b.grad().cpu()};
  };
  const std::vector<Tensor> expected = run(Device("cpu:0"));  // float64: the portable form
  SECTION("the forward declines: the portable form runs and autograd differentiates it") {
    FakeConvKernels fake(declining_kernel, declining_kernel);
    g_fake_calls = 0;
    const std::vector<Tensor> got = run(Device("npu:0"));
    CHECK(g_fake_calls == 1);  // asked once, never for the backward of a form it did not run
    for (size_t i = 0; i < got.size(); ++i)
      check_close(got[i], expected[i], 1e-12, "output " + std::to_string(i));
  }
  SECTION("the forward runs, the backward declines: the gradients come from ember ops") {
    FakeConvKernels fake(zeroing_forward, declining_kernel);
    g_fake_calls = 0;
    Tensor x = x0.to(Device("npu:0")).requires_grad_(), w = w0.to(Device("npu:0")).requires_grad_();
    Tensor y = conv2d(x, w, {}, {2, 1}, {1, 1}, 1, 2);
    CHECK(y.grad_fn()->name() == "ConvolutionBackward0");
    CHECK(y.abs().sum().item<double>() == 0.0);  // the fake kernel's zeros
    Tensor g = randn(y.sizes(), kDouble);
    y.backward(g.to(Device("npu:0")));
    CHECK(g_fake_calls == 2);
    Tensor xr = x0.clone().requires_grad_(), wr = w0.clone().requires_grad_();
    conv2d(xr, wr, {}, {2, 1}, {1, 1}, 1, 2).backward(g);
    check_close(x.grad().cpu(), xr.grad(), 1e-12, "grad input");
    check_close(w.grad().cpu(), wr.grad(), 1e-12, "grad weight");
  }
  SECTION("other errors from the kernel reach the caller, and the inputs are untouched") {
    FakeConvKernels fake(failing_forward, declining_kernel);
    const Tensor x = x0.to(Device("npu:0")), w = w0.to(Device("npu:0"));
    CHECK_THROWS_AS(conv2d(x, w, {}, 1, 1, 1, 2), DeviceError);
    CHECK(equal(x.cpu(), x0));
    CHECK(equal(w.cpu(), w0));
  }
}

TEST_CASE("nn conv library: the switch says whether oneDNN runs") {
  if (!onednn_available()) {
    CHECK_FALSE(onednn_enabled());
    set_onednn_enabled(true);
    CHECK_FALSE(onednn_enabled());  // nothing to switch on
    CHECK_FALSE(has_kernel(Op::Convolution, kCPU, kFloat));
    WARN("this build has no oneDNN (EMBER_ONEDNN=OFF or libdnnl-dev missing): the portable convolutions ran");
    return;
  }
  CHECK(onednn_enabled());
  CHECK(has_kernel(Op::Convolution, kCPU, kFloat));
  CHECK(has_kernel(Op::ConvolutionBackward, kCPU, kFloat));
  CHECK_FALSE(has_kernel(Op::Convolution, kCPU, kDouble));  // float64 stays portable
  {
    PortableOnly off;
    CHECK_FALSE(onednn_enabled());
  }
  CHECK(onednn_enabled());
}

TEST_CASE("nn conv library: values and gradients equal the portable form's and float64's") {
  manual_seed(7);
  for (const ConvCase& c : cases()) {
    for (bool strided : {false, true}) {
      INFO(c.name << (strided ? ", non-contiguous input" : ""));
      Tensor x = randn(c.input, kDouble);
      if (strided) x = x.transpose(-1, -2).contiguous().transpose(-1, -2);  // same values, other strides
      const Tensor w = randn(c.weight, kDouble), b = randn({c.weight[0]}, kDouble);
      const Tensor y64 = conv_nd(x, w, b, c);
      const Tensor g = randn(y64.sizes(), kDouble);
      const Result want = run(c, x, w, b, g, kDouble);
      const Result lib = run(c, x, w, b, g, kFloat);
      Result portable;
      {
        PortableOnly off;
        portable = run(c, x, w, b, g, kFloat);
      }
      if (onednn_available()) {
        CHECK(lib.node == "ConvolutionBackward0");
        CHECK(portable.node != "ConvolutionBackward0");
      }
      CHECK(want.node != "ConvolutionBackward0");  // float64: the portable form
      for (const Result* r : {&lib, static_cast<const Result*>(&portable)}) {
        const std::string who = r == &lib ? "library " : "portable ";
        check_close(r->y, want.y, 2e-5, who + "output");
        check_close(r->gx, want.gx, 2e-5, who + "grad input");
        check_close(r->gw, want.gw, 2e-5, who + "grad weight");
        if (c.bias) check_close(r->gb, want.gb, 2e-5, who + "grad bias");
      }
    }
  }
}

TEST_CASE("nn conv library: only the gradients that are needed, and none under no_grad") {
  manual_seed(3);
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}), b = randn({4});
  const Tensor w_leaf = w.clone().requires_grad_();
  Tensor y = conv2d(x, w_leaf, b, 1, 1);  // only the weight requires grad
  y.sum().backward();
  Tensor w64 = w.to(kDouble).requires_grad_();
  conv2d(x.to(kDouble), w64, b.to(kDouble), 1, 1).sum().backward();
  check_close(w_leaf.grad(), w64.grad(), 2e-5, "grad weight alone");
  const Tensor b_leaf = b.clone().requires_grad_();
  conv2d(x, w, b_leaf, 1, 1).sum().backward();  // only the bias: sum of ones per channel
  CHECK(allclose(b_leaf.grad(), full({4}, 2.0 * 8 * 8)));
  {
    NoGradGuard no_grad;
    CHECK_FALSE(conv2d(x, w_leaf, b, 1, 1).requires_grad());
  }
}

TEST_CASE("nn conv library: double backward (create_graph) equals the portable form's") {
  manual_seed(11);
  const Tensor x0 = randn({2, 4, 7, 6}), w0 = randn({6, 2, 3, 2}), b0 = randn({6});
  auto second_order = [&] {
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    Tensor y = conv2d(x, w, b, {2, 1}, {1, 1}, 1, 2);
    auto g = autograd::grad({y.pow(2).sum()}, {x, w}, {}, true, true);
    // A gradient penalty: differentiate the gradients' norm again.
    Tensor penalty = g[0].pow(2).sum() + g[1].pow(2).sum();
    auto gg = autograd::grad({penalty}, {x, w, b});
    return std::vector<Tensor>{g[0], g[1], gg[0], gg[1], gg[2]};
  };
  const auto lib = second_order();
  std::vector<Tensor> portable;
  {
    PortableOnly off;
    portable = second_order();
  }
  for (size_t i = 0; i < lib.size(); ++i)
    check_close(lib[i], portable[i], 2e-5, "order " + std::to_string(i));
}

TEST_CASE("nn conv library: modules, padding modes, batch 0 and the placement log") {
  manual_seed(5);
  nn::Conv2d conv(nn::Conv2dOptions(3, 5, 3).padding(1).padding_mode(kReflect));
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor y = conv->forward(x);
  Tensor y_portable;
  {
    PortableOnly off;
    y_portable = conv->forward(x);
  }
  check_close(y, y_portable.to(kDouble), 2e-5, "reflect-padded module");
  // Batch 0 takes the portable form (no kernel call on an empty input).
  CHECK(conv->forward(zeros({0, 3, 6, 6})).sizes() == IntArrayRef({0, 5, 6, 6}));
  if (!onednn_available()) return;
  std::vector<std::string> lines;
  set_placement_log_sink([&](const std::string& l) { lines.push_back(l); });
  set_log_device_placement(true);
  Tensor w = randn({4, 3, 3, 3}).requires_grad_();
  conv2d(x, w).sum().backward();
  set_log_device_placement(false);
  set_placement_log_sink(nullptr);
  auto logged = [&](const std::string& op) {
    for (const auto& l : lines)
      if (l == "Executing op " + op + " in device /job:localhost/replica:0/task:0/device:CPU:0") return true;
    return false;
  };
  CHECK(logged("Convolution"));
  CHECK(logged("ConvolutionBackward"));
}

TEST_CASE("nn conv library: threads convolve at once with their own primitives") {
  manual_seed(13);
  const Tensor x = randn({4, 8, 16, 16}), w = randn({8, 8, 3, 3});
  const Tensor want = conv2d(x.to(kDouble), w.to(kDouble), {}, 1, 1);
  std::vector<Tensor> got(3);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) got[t] = conv2d(x, w, {}, 1, 1);
    });
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < got.size(); ++t) check_close(got[t], want, 2e-5, "thread " + std::to_string(t));
}

TEST_CASE("nn conv library: errors come before the kernel and leave the inputs alone") {
  const Tensor x = randn({1, 4, 5, 5}), w = randn({2, 3, 3, 3});
  const Tensor before = x.clone();
  CHECK_THROWS_AS(conv2d(x, w), InvalidArgument);  // 4 channels, weight wants 3
  CHECK(equal(x, before));
  CHECK_THROWS_AS(conv2d(x, randn({2, 4, 6, 6})), InvalidArgument);  // kernel bigger than the input
  CHECK_THROWS_AS(conv2d(x, randn({2, 4, 3, 3}).to(kDouble)), Error);  // mixed dtypes
  CHECK(equal(x, before));
}
