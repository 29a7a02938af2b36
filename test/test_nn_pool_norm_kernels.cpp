// Max pooling and batch norm through their registry kernels (Note [Library kernels]: the
// CPU's direct loops) against the composite forms those layers fall back to elsewhere
// (forced here with Placement::PreferAccelerator, which keeps layers off the CPU's kernels):
// values, indices, running statistics and gradients, NaN and ties, the |mean| >> std case,
// the recorded nodes, the placement log and threads.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::check_close;

namespace {

// The composite forms while alive: on the CPU when no accelerator exists, else on the
// accelerator (the fake "npu" of other test files included), compared after .cpu().
struct CompositeOnly {
  Placement before = placement();
  CompositeOnly() { set_placement(Placement::PreferAccelerator); }
  ~CompositeOnly() { set_placement(before); }
};

// NaN as 7 (equal() treats NaN as unequal to itself).
Tensor no_nan(const Tensor& t) { return where(isnan(t), full_like(t, 7), t); }

struct PoolCase {
  std::vector<int64_t> size, kernel, stride, padding, dilation;
  bool ceil;
};

}  // namespace

TEST_CASE("nn pool kernel: max_pool2d equals the composite form, NaN and ties included") {
  manual_seed(21);
  const std::vector<PoolCase> cases = {
      {{4, 3, 24, 24}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
      {{2, 5, 15, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},
      {{1, 2, 11, 17}, {3, 2}, {2, 3}, {1, 1}, {2, 1}, true},
      {{3, 2, 9, 40}, {2, 5}, {1, 1}, {1, 2}, {1, 1}, false},
      {{2, 1, 5, 5}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true},
  };
  for (const PoolCase& c : cases) {
    for (int kind = 0; kind < 3; ++kind) {
      Tensor x = kind == 1 ? randint(0, 3, c.size, kDouble) : randn(c.size, kDouble);
      if (kind == 2) {
        x.view({-1}).index_put_({randint(0, x.numel(), {x.numel() / 6})}, std::nan(""));
        x.view({-1}).index_put_({randint(0, x.numel(), {x.numel() / 5})}, -INFINITY);
      }
      for (ScalarType dt : {kFloat, kDouble}) {
        INFO("size " << c.size[2] << "x" << c.size[3] << " kind " << kind << " " << name(dt));
        auto run = [&](Tensor& grad) {
          Tensor leaf = x.to(dt).detach().requires_grad_();  // to() returns x itself for its own dtype
          auto [v, i] = max_pool2d_with_indices(leaf, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
          v.backward(ones_like(v) + arange(v.numel(), TensorOptions(dt)).view(v.sizes()) / 7);
          grad = leaf.grad();
          return std::make_tuple(v.detach(), i, v.grad_fn() ? v.grad_fn()->name() : std::string());
        };
        Tensor g_kernel, g_composite;
        auto [v_k, i_k, node_k] = run(g_kernel);
        std::tuple<Tensor, Tensor, std::string> composite;
        {
          CompositeOnly off;
          composite = run(g_composite);
        }
        CHECK(node_k == "MaxPool2DWithIndicesBackward0");
        CHECK(std::get<2>(composite) != node_k);
        CHECK(equal(no_nan(v_k), no_nan(std::get<0>(composite).cpu())));
        // With several NaN in a window the kernel keeps libtorch's index (the last NaN: the
        // libtorch cross-check compares it), the composite form its first; otherwise equal.
        if (kind == 2) continue;
        CHECK(equal(i_k, std::get<1>(composite).cpu()));
        check_close(g_kernel, g_composite, 1e-6, "gradient");
      }
    }
  }
}

TEST_CASE("nn pool kernel: adaptive_avg_pool2d equals the composite form, bins overlapping or not") {
  manual_seed(23);
  for (const auto& [size, out] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{4, 3, 30, 30}, {7, 7}}, {{2, 5, 9, 13}, {4, 5}}, {{3, 2, 8, 8}, {4, 2}}, {{2, 2, 3, 5}, {6, 7}}}) {
    for (ScalarType dt : {kFloat, kDouble}) {
      INFO(size[2] << "x" << size[3] << " to " << out[0] << "x" << out[1] << " " << name(dt));
      const Tensor x0 = randn(size, dt), g = randn({size[0], size[1], out[0], out[1]}, dt);
      auto run = [&, out = out] {  // clang 14 cannot capture a structured binding by [&]
        Tensor x = x0.detach().requires_grad_();
        Tensor y = adaptive_avg_pool2d(x, out);
        y.backward(g.to(y.device()));
        return std::make_tuple(y.detach(), x.grad(), y.grad_fn()->name());
      };
      auto [y_k, gx_k, node_k] = run();
      std::tuple<Tensor, Tensor, std::string> composite;
      {
        CompositeOnly off;
        composite = run();
      }
      CHECK(node_k == "AdaptiveAvgPool2DBackward0");
      const double tol = dt == kFloat ? 1e-6 : 1e-13;
      check_close(y_k, std::get<0>(composite), tol, "output");
      check_close(gx_k, std::get<1>(composite), tol, "gradient");
    }
  }
}

TEST_CASE("nn pool kernel: double backward through the pool kernels' nodes") {
  manual_seed(29);
  // The pools are piecewise linear in x: a gradient penalty's gradient flows through the
  // first-order gradient's dependence on the weights w (create_graph's composite form).
  for (int which = 0; which < 2; ++which) {
    INFO((which == 0 ? "max_pool2d" : "adaptive_avg_pool2d"));
    const Tensor x = randn({2, 3, 9, 8}, kDouble).requires_grad_();
    const Tensor w = randn({2, 3, which == 0 ? 4 : 5, which == 0 ? 4 : 3}, kDouble).requires_grad_();
    auto f = [&](const autograd::variable_list& v) -> autograd::variable_list {
      Tensor y = which == 0 ? max_pool2d(v[0], 2) : adaptive_avg_pool2d(v[0], {5, 3});
      auto g = autograd::grad({(y * v[1]).sum()}, {v[0]}, {}, true, true);
      return {g[0].pow(2).sum()};
    };
    CHECK(autograd::gradcheck(f, {x, w}));
  }
}

TEST_CASE("nn pool kernel: values and indices on a hand-checked plane, and errors first") {
  // 4x4 with a tie (5 twice in the first window: the first wins) and a NaN (it wins).
  Tensor x = tensor({5.0f, 1.0f, 2.0f, 3.0f, 5.0f, 0.0f, NAN, 3.0f, -1.0f, -2.0f, 8.0f, 9.0f, -4.0f, -3.0f, 9.0f, 1.0f})
                 .view({1, 1, 4, 4});
  auto [v, i] = max_pool2d_with_indices(x, 2);
  const auto vals = ember_test::dvalues(v);
  CHECK(vals[0] == 5);
  CHECK(std::isnan(vals[1]));
  CHECK(vals[2] == -1);
  CHECK(vals[3] == 9);
  CHECK(ember_test::dvalues(i) == std::vector<double>{0, 6, 8, 11});
  // Padding never wins: -inf inputs keep the first position inside the plane.
  auto [v2, i2] = max_pool2d_with_indices(full({1, 1, 3, 3}, -INFINITY), 2, 2, 1);
  CHECK(ember_test::dvalues(i2) == std::vector<double>{0, 1, 3, 4});
  const Tensor before = x.clone();
  CHECK_THROWS_AS(max_pool2d(x, 5), InvalidArgument);  // output size too small
  CHECK_THROWS_AS(max_pool2d(x, 2, 2, 2), InvalidArgument);  // pad more than half the kernel
  CHECK(equal(no_nan(x), no_nan(before)));
}

TEST_CASE("nn norm kernel: batch_norm training equals the composite form, |mean| >> std included") {
  manual_seed(17);
  for (const std::vector<int64_t>& size : std::vector<std::vector<int64_t>>{{8, 5, 6, 7}, {16, 3, 10}, {4, 6}, {2, 3, 3, 4, 5}}) {
    for (double offset : {0.0, 100.0}) {
      INFO("size dims " << size.size() << " offset " << offset);
      // Values float32 holds exactly, so float32 and float64 start from the same numbers.
      auto exact = [](const Tensor& t) { return t.to(kFloat).to(kDouble); };
      const Tensor x64 = exact(randn(size, kDouble) * (offset > 0 ? 0.1 : 1.0) + offset);
      const Tensor w64 = exact(randn({size[1]}, kDouble)), b64 = exact(randn({size[1]}, kDouble));
      const Tensor g64 = exact(randn(size, kDouble));
      auto run = [&](ScalarType dt) {
        Tensor x = x64.to(dt).detach().requires_grad_(), w = w64.to(dt).detach().requires_grad_(),
               b = b64.to(dt).detach().requires_grad_();
        Tensor rm = zeros({size[1]}, dt), rv = ones({size[1]}, dt);
        Tensor y = batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
        y.backward(g64.to(dt).to(y.device()));
        return std::vector<Tensor>{y.detach(), rm, rv, x.grad(), w.grad(), b.grad()};
      };
      const auto want = run(kDouble);
      const auto kernel32 = run(kFloat);
      std::vector<Tensor> composite64;
      {
        CompositeOnly off;
        composite64 = run(kDouble);
      }
      const char* names[] = {"output", "running mean", "running var", "grad input", "grad weight", "grad bias"};
      for (size_t k = 0; k < want.size(); ++k) {
        check_close(want[k], composite64[k], 1e-10, std::string("float64 kernel vs composite: ") + names[k]);
        // float32 against float64: with |mean| / std = 1000, libtorch's affine form (x * alpha
        // + beta, terms near 1000) and the rounded mean leave ~1e-4 of the result in float32.
        check_close(kernel32[k], want[k], offset > 0 ? 2e-3 : 2e-5, std::string("float32: ") + names[k]);
      }
    }
  }
}

TEST_CASE("nn pool/norm kernels: the placement log names them, and threads share nothing") {
  const Tensor x = randn({8, 4, 12, 12}).requires_grad_();
  std::vector<std::string> lines;
  set_placement_log_sink([&](const std::string& l) { lines.push_back(l); });
  set_log_device_placement(true);
  Tensor y = max_pool2d(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5), 2);
  y.sum().backward();
  set_log_device_placement(false);
  set_placement_log_sink(nullptr);
  for (const char* op : {"MaxPool2d", "BatchNormStats", "BatchNormBackwardReduce"}) {
    bool found = false;
    for (const auto& l : lines)
      found = found || l == std::string("Executing op ") + op + " in device /job:localhost/replica:0/task:0/device:CPU:0";
    CHECK(found);
  }
  const Tensor big = randn({16, 32, 40, 40});
  const Tensor want = max_pool2d(big, 3, 2, 1);
  std::vector<Tensor> got(3);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) got[t] = max_pool2d(big, 3, 2, 1);
    });
  for (auto& th : threads) th.join();
  for (const Tensor& g : got) CHECK(equal(g, want));
}

TEST_CASE("nn pool kernel: a window with no input position gets no gradient; saved indices are checked") {
  // Padding 1 and dilation 3 over 2x2: the only window reads offsets -1 and 2, both outside.
  const Tensor x = randn({1, 1, 2, 2}).requires_grad_();
  auto [v, i] = max_pool2d_with_indices(x, 2, 1, 1, 3);
  CHECK(v.sizes() == IntArrayRef({1, 1, 1, 1}));
  v.sum().backward();
  CHECK(equal(x.grad(), zeros({1, 1, 2, 2})));
  // The indices handed back are the ones backward reads: changing them in place is refused.
  const Tensor y = randn({1, 2, 4, 4}).requires_grad_();
  auto [values, indices] = max_pool2d_with_indices(y, 2);
  indices.zero_();
  CHECK_THROWS_AS(values.sum().backward(), Error);
}
