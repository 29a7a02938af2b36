// Against Debian's libtorch 1.13: torch::special's Bessel functions, orthogonal polynomials,
// erfcx and the incomplete gamma functions over wide grids, within a few ulps (the same
// algorithms and constants; CI's CPUs differ from the ones tried, so a tolerance is stated),
// with the gradients libtorch has.
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

using crosscheck::as_torch;
using crosscheck::check_ulps;
using crosscheck::same_forward_backward;

namespace {

constexpr double kUlps = 8;

std::string dtype_name(ember::ScalarType t) { return t == ember::kDouble ? " of Double" : " of Float"; }

}  // namespace

TEST_CASE("crosscheck: the Bessel functions, Airy Ai and erfcx are libtorch's within a few ulps") {
  using EFn = std::function<ember::Tensor(const ember::Tensor&)>;
  using TFn = std::function<torch::Tensor(const torch::Tensor&)>;
#define EMBER_PAIR(name)                                                                                \
  {                                                                                                     \
#name, [](const ember::Tensor&                                                                      \
                  x) { return ember::special::name(x); }, [](const torch::Tensor&                       \
                                                                 x) { return torch::special::name(x); } \
  }
  const std::vector<std::tuple<std::string, EFn, TFn>> fns{
      EMBER_PAIR(bessel_j0),
      EMBER_PAIR(bessel_j1),
      EMBER_PAIR(bessel_y0),
      EMBER_PAIR(bessel_y1),
      EMBER_PAIR(modified_bessel_i0),
      EMBER_PAIR(modified_bessel_i1),
      EMBER_PAIR(modified_bessel_k0),
      EMBER_PAIR(modified_bessel_k1),
      EMBER_PAIR(scaled_modified_bessel_k0),
      EMBER_PAIR(scaled_modified_bessel_k1),
      EMBER_PAIR(spherical_bessel_j0),
      EMBER_PAIR(airy_ai),
      EMBER_PAIR(erfcx),
  };
#undef EMBER_PAIR
  // Every branch: small and large arguments, both signs, the series boundaries (2, 5, 8, 25),
  // zero, huge values and the special ones.
  const double kInf = std::numeric_limits<double>::infinity();
  const ember::Tensor grid = ember::cat(
      {ember::linspace(-40, 40, 4001, ember::kDouble), ember::logspace(-8, 3, 300, 10.0, ember::kDouble),
       -ember::logspace(-8, 3, 300, 10.0, ember::kDouble),
       ember::tensor(
           {0.0, -0.0, 2.0, 5.0, 8.0, 25.0, 1e-300, 1e5, 1e10, 700.0, 710.0, kInf, -kInf, std::nan("")},
           ember::kDouble),
       ember::randn({500}, ember::kDouble) * 15});
  for (const auto& [name, ours, theirs] : fns) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      const ember::Tensor x = grid.to(dt);
      check_ulps(ours(x), theirs(as_torch(x)), kUlps, name + dtype_name(dt));
    }
    check_ulps(ours(ember::arange(-5, 6)), theirs(torch::arange(-5, 6)), kUlps, name + " of int64");
  }
  // erfcx's gradient, at x = 0 and on both sides.
  const ember::Tensor leaf =
      ember::cat({ember::rand({40}, ember::kDouble) * 20 - 10, ember::zeros({1}, ember::kDouble)})
          .requires_grad_();
  same_forward_backward(
      "erfcx gradient", {leaf},
      [](const std::vector<ember::Tensor>& v) { return ember::special::erfcx(v[0]); },
      [](const std::vector<torch::Tensor>& v) { return torch::special::erfcx(v[0]); }, 1e-12);
}

TEST_CASE("crosscheck: the orthogonal polynomials are libtorch's within a few ulps") {
  using EFn = std::function<ember::Tensor(const ember::Tensor&, const ember::Tensor&)>;
  using TFn = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;
#define EMBER_PAIR(name)                                                                                   \
  {                                                                                                        \
#name, [](const ember::Tensor& x,                                                                      \
              const ember::Tensor&                                                                         \
                  n) { return ember::special::name(x, n); },                                               \
                                                          [](const torch::Tensor& x,                       \
                                                             const torch::Tensor&                          \
                                                                 n) { return torch::special::name(x, n); } \
  }
  const std::vector<std::tuple<std::string, EFn, TFn>> fns{
      EMBER_PAIR(chebyshev_polynomial_t),         EMBER_PAIR(chebyshev_polynomial_u),
      EMBER_PAIR(chebyshev_polynomial_v),         EMBER_PAIR(chebyshev_polynomial_w),
      EMBER_PAIR(shifted_chebyshev_polynomial_t), EMBER_PAIR(shifted_chebyshev_polynomial_u),
      EMBER_PAIR(shifted_chebyshev_polynomial_v), EMBER_PAIR(shifted_chebyshev_polynomial_w),
      EMBER_PAIR(hermite_polynomial_h),           EMBER_PAIR(hermite_polynomial_he),
      EMBER_PAIR(laguerre_polynomial_l),          EMBER_PAIR(legendre_polynomial_p),
  };
#undef EMBER_PAIR
  // x inside and outside the orthogonality intervals, x = +-1 (closed forms), n from negative
  // through the recurrences to the large degrees where libtorch switches method, fractional n.
  const ember::Tensor x =
      ember::cat({ember::linspace(-3, 3, 121, ember::kDouble),
                  ember::tensor({-1.0, 1.0, 0.0, 0.5, 1e-9, 10.0, -7.5, std::nan("")}, ember::kDouble)})
          .reshape({-1, 1});
  const ember::Tensor n = ember::tensor({-2.0, -1.0, 0.0,  1.0,  2.0, 3.0,  4.0,  5.0,   6.0,    7.0, 8.0,
                                         9.0,  10.0, 11.0, 12.0, 2.5, 16.0, 30.0, 100.0, 1000.0, 7.9},
                                        ember::kDouble)
                              .reshape({1, -1});
  for (const auto& [name, ours, theirs] : fns) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      const ember::Tensor xs = x.to(dt), ns = n.to(dt);
      check_ulps(ours(xs, ns), theirs(as_torch(xs), as_torch(ns)), kUlps, name + dtype_name(dt));
    }
  }
  // The Scalar overloads and integer degrees.
  check_ulps(ember::special::chebyshev_polynomial_t(0.3, ember::arange(8)),
             torch::special::chebyshev_polynomial_t(0.3, torch::arange(8)), kUlps, "Scalar x");
  check_ulps(ember::special::legendre_polynomial_p(x.to(ember::kFloat), 5),
             torch::special::legendre_polynomial_p(as_torch(x.to(ember::kFloat)), 5), kUlps, "Scalar n");
}

TEST_CASE("crosscheck: igamma and igammac are libtorch's within a few ulps, with its gradient") {
  // a from tiny through the asymptotic regime, x around a (where the methods switch) and far.
  const ember::Tensor a =
      ember::cat({ember::logspace(-3, 2.5, 40, 10.0, ember::kDouble),
                  ember::tensor({0.0, 0.5, 1.0, 20.0, 200.0, -1.0, std::nan("")}, ember::kDouble)})
          .reshape({-1, 1});
  const ember::Tensor x =
      ember::cat({ember::logspace(-3, 2.7, 40, 10.0, ember::kDouble),
                  ember::tensor({0.0, 0.5, 1.0, 19.5, 210.0, -1.0, std::numeric_limits<double>::infinity()},
                                ember::kDouble)})
          .reshape({1, -1});
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    const ember::Tensor as = a.to(dt), xs = x.to(dt);
    check_ulps(ember::igamma(as, xs), torch::igamma(as_torch(as), as_torch(xs)), kUlps,
               "igamma" + dtype_name(dt));
    check_ulps(ember::igammac(as, xs), torch::igammac(as_torch(as), as_torch(xs)), kUlps,
               "igammac" + dtype_name(dt));
  }
  // Half precision computes in float and rounds once.
  const ember::Tensor ah = a.abs().clamp(0.1, 50).to(ember::kBFloat16),
                      xh = x.abs().clamp(0, 60).to(ember::kBFloat16);
  check_ulps(ember::special::gammainc(ah, xh), torch::special::gammainc(as_torch(ah), as_torch(xh)), 1,
             "bfloat16");
  // The gradient in x (libtorch has none in a).
  const ember::Tensor shape = ember::tensor({0.6, 1.0, 2.5, 7.0}, ember::kDouble);
  for (bool lower : {true, false}) {
    const ember::Tensor leaf = (ember::rand({4}, ember::kDouble) * 6 + 0.1).requires_grad_();
    same_forward_backward(
        lower ? "igamma gradient" : "igammac gradient", {leaf},
        [&](const std::vector<ember::Tensor>& v) {
          return lower ? ember::igamma(shape, v[0]) : ember::igammac(shape, v[0]);
        },
        [&](const std::vector<torch::Tensor>& v) {
          return lower ? torch::igamma(as_torch(shape), v[0]) : torch::igammac(as_torch(shape), v[0]);
        },
        1e-12);
  }
}
