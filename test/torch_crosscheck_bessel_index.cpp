// Against Debian's libtorch 1.13: the modified Bessel functions (i0, i0e, i1, i1e) within a few ulps
// and their gradients, the Kaiser window, index_copy / index_reduce, and the in-place
// views (t_, transpose_, squeeze_, unsqueeze_, as_strided_) with their gradients.
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::same_forward_backward;

// Within a few ulps of libtorch (both use the same series and FMA-fused steps, and are
// bit-identical on the machines tried; CI's CPUs differ, so a tolerance is stated).
namespace {
void check_bits(const ember::Tensor& e, const torch::Tensor& t, const std::string& what) {
  crosscheck::check_ulps(e, t, 8, what);
}
}  // namespace

TEST_CASE("crosscheck: i0, i0e, i1 and i1e are libtorch's within a few ulps, with its gradients") {
  using EFn = std::function<ember::Tensor(const ember::Tensor&)>;
  using TFn = std::function<torch::Tensor(const torch::Tensor&)>;
  const std::vector<std::tuple<std::string, EFn, TFn, bool>> fns{
      {"i0", [](const ember::Tensor& x) { return ember::i0(x); },
       [](const torch::Tensor& x) { return torch::i0(x); }, true},
      {"i0e", [](const ember::Tensor& x) { return ember::special::i0e(x); },
       [](const torch::Tensor& x) { return torch::special::i0e(x); }, true},
      {"i1", [](const ember::Tensor& x) { return ember::special::i1(x); },
       [](const torch::Tensor& x) { return torch::special::i1(x); }, false},
      {"i1e", [](const ember::Tensor& x) { return ember::special::i1e(x); },
       [](const torch::Tensor& x) { return torch::special::i1e(x); }, false},
  };
  // Both series of both pieces, the boundary at 8, zero, signs, and the special values.
  const double kInf = std::numeric_limits<double>::infinity();
  ember::Tensor grid = ember::cat({ember::linspace(-40, 40, 4001, ember::kDouble),
                                   ember::tensor({0.0, -0.0, 8.0, -8.0, 7.999999, 8.000001, 1e-300, 700.0,
                                                  710.0, kInf, -kInf, std::nan("")},
                                                 ember::kDouble),
                                   ember::randn({500}, ember::kDouble) * 15});
  for (const auto& [name, ours, theirs, takes_bf16] : fns) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat, ember::kBFloat16}) {
      if (dt == ember::kBFloat16 && !takes_bf16) continue;
      const ember::Tensor x = grid.to(dt);
      check_bits(ours(x), theirs(as_torch(x)),
                 name + (dt == ember::kDouble  ? " of Double"
                         : dt == ember::kFloat ? " of Float"
                                               : " of BFloat16"));
    }
    check_bits(ours(ember::arange(-5, 6)), theirs(torch::arange(-5, 6)), name + " of int64");
    // Gradients, float64, x = 0 included (libtorch's 0.5 for i1 and i1e there).
    const ember::Tensor leaf =
        ember::cat({ember::rand({40}, ember::kDouble) * 24 - 12, ember::zeros({1}, ember::kDouble)})
            .requires_grad_();
    same_forward_backward(
        name + " gradient", {leaf}, [&](const std::vector<ember::Tensor>& v) { return ours(v[0]); },
        [&](const std::vector<torch::Tensor>& v) { return theirs(v[0]); }, 1e-12);
  }
  // The dtypes libtorch refuses, with its kernels' names.
  const ember::Tensor half = ember::ones({2}, ember::kHalf);
  CHECK_THROWS_WITH(ember::i0(half), "\"i0_vml_cpu\" not implemented for 'Half'");
  CHECK_THROWS_WITH(ember::special::i0e(half), "\"i0e_cpu\" not implemented for 'Half'");
  CHECK_THROWS_WITH(ember::special::i1(half.to(ember::kBFloat16)),
                    "\"i1_cpu\" not implemented for 'BFloat16'");
  CHECK_THROWS_WITH(ember::special::i1e(half.to(ember::kBFloat16)),
                    "\"i1e_cpu\" not implemented for 'BFloat16'");
  ember::Tensor y = grid.to(ember::kFloat);
  torch::Tensor ty = as_torch(y).clone();
  check_bits(y.i0_(), ty.i0_(), "i0_");
}

TEST_CASE("crosscheck: kaiser_window is libtorch's within an ulp") {
  // libtorch's kernel is built with FMA contraction (1 - r^2 is one fused step); ember composes
  // the window of its own ops, so an element may differ in the last bit.
  for (int64_t n : {0, 1, 2, 3, 8, 51, 256}) {
    for (bool periodic : {true, false}) {
      for (double beta : {0.0, 5.0, 12.0, 30.5}) {
        const std::string what = "kaiser " + std::to_string(n) + (periodic ? " periodic" : " symmetric") +
                                 " beta " + std::to_string(beta);
        check_close(ember::kaiser_window(n, periodic, beta), torch::kaiser_window(n, periodic, beta), 1e-6,
                    what);
        check_close(ember::kaiser_window(n, periodic, beta, ember::kDouble),
                    torch::kaiser_window(n, periodic, beta, torch::kDouble), 1e-14, what + " float64");
      }
    }
  }
  check_close(ember::kaiser_window(10, ember::kDouble), torch::kaiser_window(10, torch::kDouble), 1e-14,
              "options only");
  CHECK_THROWS_WITH(ember::kaiser_window(3, true, 12.0, ember::kLong),
                    Catch::Contains("kaiser_window expects floating point dtypes, got: Long"));
}

TEST_CASE("crosscheck: index_copy and index_reduce, values and gradients") {
  for (int trial = 0; trial < 3; ++trial) {
    const ember::Tensor self = ember::randn({6, 5}, ember::kDouble).requires_grad_();
    const ember::Tensor source = ember::randn({6, 4}, ember::kDouble).requires_grad_();
    const ember::Tensor index = ember::randperm(5).slice(0, 0, 4);
    same_forward_backward(
        "index_copy", {self, source},
        [&](const std::vector<ember::Tensor>& v) { return v[0].index_copy(1, index, v[1]); },
        [&](const std::vector<torch::Tensor>& v) { return v[0].index_copy(1, as_torch(index), v[1]); },
        1e-12);
    const ember::Tensor repeated = ember::randint(0, 5, {4}, ember::kLong);
    for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
      for (bool include_self : {true, false}) {
        const std::string what =
            std::string("index_reduce ") + reduce + (include_self ? "" : " without self");
        // Gradients of amax/amin with include_self=false differ from libtorch's when self ties
        // (see scatter_reduce); random values do not tie.
        same_forward_backward(
            what, {self.detach().clone().requires_grad_(), source.detach().clone().requires_grad_()},
            [&](const std::vector<ember::Tensor>& v) {
              return v[0].index_reduce(1, repeated, v[1], reduce, include_self);
            },
            [&](const std::vector<torch::Tensor>& v) {
              return v[0].index_reduce(1, as_torch(repeated), v[1], reduce, include_self);
            },
            1e-12);
      }
    }
  }
  // Integer mean divides with floor, as libtorch's.
  const ember::Tensor ints = ember::arange(15).reshape({5, 3});
  check_close(
      ints.index_reduce(0, ember::tensor({4, 4, 0}), ember::arange(9).reshape({3, 3}) - 4, "mean"),
      as_torch(ints).index_reduce(0, torch::tensor({4, 4, 0}), torch::arange(9).reshape({3, 3}) - 4, "mean"),
      0, "integer mean");
}

TEST_CASE("crosscheck: in-place views as libtorch's, with their gradients") {
  using EOp = std::function<void(ember::Tensor&)>;
  using TOp = std::function<void(torch::Tensor&)>;
  const std::vector<std::tuple<std::string, EOp, TOp>> ops{
      {"t_", [](ember::Tensor& z) { z.t_(); }, [](torch::Tensor& z) { z.t_(); }},
      {"transpose_", [](ember::Tensor& z) { z.transpose_(0, -1); },
       [](torch::Tensor& z) { z.transpose_(0, -1); }},
      {"unsqueeze_ squeeze_", [](ember::Tensor& z) { z.unsqueeze_(1).unsqueeze_(0).squeeze_(1); },
       [](torch::Tensor& z) { z.unsqueeze_(1).unsqueeze_(0).squeeze_(1); }},
      {"squeeze_()", [](ember::Tensor& z) { z.unsqueeze_(2).squeeze_(); },
       [](torch::Tensor& z) { z.unsqueeze_(2).squeeze_(); }},
      {"as_strided_",
       [](ember::Tensor& z) {
         z.as_strided_({3, 2}, {1, 3}, 1);
       },
       [](torch::Tensor& z) {
         z.as_strided_({3, 2}, {1, 3}, 1);
       }},
  };
  for (const auto& [name, ours, theirs] : ops) {
    const ember::Tensor leaf = ember::randn({3, 4}, ember::kDouble).requires_grad_();
    same_forward_backward(
        name, {leaf},
        [&](const std::vector<ember::Tensor>& v) {
          ember::Tensor z = v[0] * 2;
          ours(z);
          return z * z.detach();
        },
        [&](const std::vector<torch::Tensor>& v) {
          torch::Tensor z = v[0] * 2;
          theirs(z);
          return z * z.detach();
        },
        1e-12);
    ember::Tensor e = ember::randn({3, 4}) * 1;
    torch::Tensor t = as_torch(e).clone();
    ours(e);
    theirs(t);
    CHECK(e.sizes().vec() == t.sizes().vec());
    CHECK(e.strides().vec() == t.strides().vec());
    CHECK(e.storage_offset() == t.storage_offset());
    ember::Tensor ge = ember::randn({3, 4}, ember::kDouble).requires_grad_() * 1;
    torch::Tensor gt = torch::randn({3, 4}, torch::kDouble).requires_grad_() * 1;
    ours(ge);
    theirs(gt);
    CHECK(ge.grad_fn()->name() == gt.grad_fn()->name());
  }
}
