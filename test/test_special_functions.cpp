// torch::special's Bessel functions, orthogonal polynomials, erfcx and the incomplete gamma
// functions: values from closed forms and tables, dtypes, errors and gradients.
// (torch_crosscheck_special.cpp compares them with libtorch over wide grids.)
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

using ember::Tensor;
namespace special = ember::special;

namespace {

Tensor doubles(std::vector<double> v) { return ember::tensor(v, ember::kDouble); }

void check_values(const Tensor& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.numel() == int64_t(want.size()));
  const Tensor g = got.to(ember::kDouble).reshape({-1});
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << g[int64_t(i)].item<double>() << " vs " << want[i]);
    CHECK(std::abs(g[int64_t(i)].item<double>() - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

}  // namespace

TEST_CASE("special: Bessel functions match their tabulated values") {
  const Tensor x = doubles({0.0, 1.0, 2.5, 10.0});
  // Reference values from mpmath at 30 digits. libtorch's J and Y series past x = 5 are good to
  // about 1e-9 only (j1(10) is off by 3e-10), and ember computes libtorch's values.
  check_values(special::bessel_j0(x), {1.0, 0.76519768655796661, -0.048383776468197998, -0.24593576445134835},
               1e-9);
  check_values(special::bessel_j1(x), {0.0, 0.4400505857449335, 0.49709410246427405, 0.043472746168861438},
               1e-9);
  const Tensor pos = doubles({1.0, 2.5, 10.0});
  check_values(special::bessel_y0(pos), {0.088256964215676956, 0.49807035961523188, 0.055671167283599395},
               1e-9);
  check_values(special::bessel_y1(pos), {-0.78121282130028868, 0.14591813796678579, 0.24901542420695388},
               1e-9);
  check_values(special::modified_bessel_i0(x),
               {1.0, 1.2660658777520084, 3.2898391440501231, 2815.7166284662544}, 1e-14);
  check_values(special::modified_bessel_i1(x),
               {0.0, 0.56515910399248503, 2.5167162452886984, 2670.9883037012546}, 1e-14);
  check_values(special::modified_bessel_k0(pos),
               {0.42102443824070834, 0.062347553200366189, 1.778006231616765e-05}, 1e-14);
  check_values(special::modified_bessel_k1(pos),
               {0.60190723019723458, 0.073890816347747065, 1.8648773453825585e-05}, 1e-14);
  // The scaled forms are e^x K(x).
  check_values(special::scaled_modified_bessel_k0(pos),
               {1.1444630798068951, 0.75954869032809957, 0.39163193443659866}, 1e-14);
  check_values(special::scaled_modified_bessel_k1(pos),
               {1.6361534862632583, 0.90017442390787805, 0.41076657059578875}, 1e-14);
  // j0(x) = sin(x) / x, 1 at 0.
  check_values(special::spherical_bessel_j0(x),
               {1.0, std::sin(1.0), std::sin(2.5) / 2.5, std::sin(10.0) / 10.0}, 1e-15);
  check_values(special::airy_ai(doubles({-2.0, 0.0, 1.0, 5.0})),
               {0.22740742820168558, 0.35502805388781722, 0.13529241631288141, 0.00010834442813607442},
               1e-13);
  // Symmetries and limits: J0 even, J1 odd, Y0 at 0 is -inf, K0 at 0 is +inf, below 0 NaN.
  CHECK(special::bessel_j0(doubles({-2.5}))[0].item<double>() ==
        special::bessel_j0(doubles({2.5}))[0].item<double>());
  CHECK(special::bessel_j1(doubles({-2.5}))[0].item<double>() ==
        -special::bessel_j1(doubles({2.5}))[0].item<double>());
  CHECK(special::bessel_y0(doubles({0.0}))[0].item<double>() == -INFINITY);
  CHECK(special::modified_bessel_k0(doubles({0.0}))[0].item<double>() == INFINITY);
  CHECK(std::isnan(special::modified_bessel_k0(doubles({-1.0}))[0].item<double>()));
  // The new i0 agrees with the older one.
  const Tensor g = ember::linspace(-30, 30, 121, ember::kDouble);
  CHECK(ember::allclose(special::modified_bessel_i0(g), special::i0(g), 1e-14, 0));
}

TEST_CASE("special: the orthogonal polynomials are their closed forms") {
  const Tensor x = ember::linspace(-1.5, 1.5, 31, ember::kDouble);
  const Tensor theta = ember::linspace(0.1, 3.0, 30, ember::kDouble), c = ember::cos(theta);
  for (int64_t n : {0, 1, 2, 5, 9}) {
    INFO("n = " << n);
    // T_n(cos t) = cos(n t), U_n(cos t) = sin((n+1) t) / sin t.
    CHECK(
        ember::allclose(special::chebyshev_polynomial_t(c, n), ember::cos(theta * double(n)), 1e-12, 1e-12));
    CHECK(ember::allclose(special::chebyshev_polynomial_u(c, n),
                          ember::sin(theta * double(n + 1)) / ember::sin(theta), 1e-11, 1e-11));
    // V_n(cos t) = cos((n+1/2) t) / cos(t/2), W_n(cos t) = sin((n+1/2) t) / sin(t/2).
    CHECK(ember::allclose(special::chebyshev_polynomial_v(c, n),
                          ember::cos(theta * (n + 0.5)) / ember::cos(theta / 2), 1e-11, 1e-11));
    CHECK(ember::allclose(special::chebyshev_polynomial_w(c, n),
                          ember::sin(theta * (n + 0.5)) / ember::sin(theta / 2), 1e-11, 1e-11));
    // The shifted ones are the plain ones at 2x - 1.
    const Tensor u = (c + 1) / 2;
    CHECK(ember::allclose(special::shifted_chebyshev_polynomial_t(u, n),
                          special::chebyshev_polynomial_t(c, n), 1e-11, 1e-11));
    CHECK(ember::allclose(special::shifted_chebyshev_polynomial_u(u, n),
                          special::chebyshev_polynomial_u(c, n), 1e-11, 1e-11));
    CHECK(ember::allclose(special::shifted_chebyshev_polynomial_v(u, n),
                          special::chebyshev_polynomial_v(c, n), 1e-11, 1e-11));
    CHECK(ember::allclose(special::shifted_chebyshev_polynomial_w(u, n),
                          special::chebyshev_polynomial_w(c, n), 1e-11, 1e-11));
  }
  const Tensor x2 = x * x, x3 = x2 * x;
  CHECK(ember::allclose(special::hermite_polynomial_h(x, 3), 8 * x3 - 12 * x, 1e-13, 1e-13));
  CHECK(ember::allclose(special::hermite_polynomial_he(x, 3), x3 - 3 * x, 1e-13, 1e-13));
  CHECK(ember::allclose(special::laguerre_polynomial_l(x, 2), (x2 - 4 * x + 2) / 2, 1e-13, 1e-13));
  CHECK(ember::allclose(special::legendre_polynomial_p(x, 2), (3 * x2 - 1) / 2, 1e-13, 1e-13));
  CHECK(ember::allclose(special::legendre_polynomial_p(x, 3), (5 * x3 - 3 * x) / 2, 1e-13, 1e-13));
  // n is truncated to an integer; n < 0 gives 0; n broadcasts against x.
  check_values(special::chebyshev_polynomial_t(doubles({2.0}), doubles({2.7})), {7.0}, 0);
  check_values(special::hermite_polynomial_h(doubles({0.5}), doubles({-1.0})), {0.0}, 0);
  const Tensor table =
      special::legendre_polynomial_p(doubles({0.5}).reshape({1, 1}), ember::arange(4).reshape({1, 4}));
  CHECK(table.sizes().vec() == std::vector<int64_t>{1, 4});
  check_values(table, {1.0, 0.5, -0.125, -0.4375}, 1e-15);
  // A Scalar x with a tensor of degrees; integer inputs compute in the default dtype.
  check_values(special::chebyshev_polynomial_u(0.5, ember::tensor({0, 1, 2, 3})), {1.0, 1.0, 0.0, -1.0},
               1e-6);
  CHECK(special::chebyshev_polynomial_u(0.5, ember::tensor({0, 1})).dtype() == ember::kFloat);
  CHECK(special::hermite_polynomial_h(ember::tensor({1, 2}), 2).dtype() == ember::kFloat);
}

TEST_CASE("special: erfcx and the incomplete gamma functions, with their gradients") {
  check_values(special::erfcx(doubles({0.0, 1.0, -1.0, 30.0})),
               {1.0, std::exp(1.0) * std::erfc(1.0), std::exp(1.0) * std::erfc(-1.0), 0.018795888861416751},
               1e-14);
  // No overflow where exp(x^2) alone would overflow.
  check_values(special::erfcx(doubles({1e5})), {5.6418958351954685e-06}, 1e-15);
  // P(1, x) = 1 - e^-x, Q(1, x) = e^-x; P(a, 0) = 0; P + Q = 1.
  const Tensor x = doubles({0.0, 0.5, 2.0, 10.0});
  check_values(special::gammainc(ember::ones_like(x), x),
               {0.0, 1 - std::exp(-0.5), 1 - std::exp(-2.0), 1 - std::exp(-10.0)}, 1e-14);
  check_values(ember::igammac(ember::ones_like(x), x), {1.0, std::exp(-0.5), std::exp(-2.0), std::exp(-10.0)},
               1e-14);
  const Tensor a = doubles({0.3, 2.5, 7.0, 40.0}), y = doubles({0.1, 3.0, 6.5, 45.0});
  check_values(special::gammainc(a, y) + special::gammaincc(a, y), {1, 1, 1, 1}, 1e-14);
  // P(1/2, x) = erf(sqrt x).
  check_values(ember::igamma(doubles({0.5, 0.5}), doubles({0.25, 4.0})), {std::erf(0.5), std::erf(2.0)},
               1e-14);
  CHECK(std::isnan(ember::igamma(doubles({-1.0}), doubles({1.0}))[0].item<double>()));
  // Every floating dtype (half precision computes in float), a.igamma(x) and in place.
  const Tensor p_bf16 =
      ember::igamma(ember::ones({2}, ember::kBFloat16), ember::full({2}, 2.0, ember::kBFloat16));
  CHECK(p_bf16.dtype() == ember::kBFloat16);
  check_values(p_bf16, {1 - std::exp(-2.0), 1 - std::exp(-2.0)}, 4e-3);
  check_values(ember::igamma(ember::ones({1}, ember::kHalf), ember::full({1}, 2.0, ember::kHalf)),
               {1 - std::exp(-2.0)}, 1e-3);
  Tensor t = ember::ones({2}, ember::kDouble);
  t.igammac_(doubles({0.5, 2.0}));
  check_values(t, {std::exp(-0.5), std::exp(-2.0)}, 1e-14);
  check_values(doubles({1.0}).igamma(doubles({2.0})), {1 - std::exp(-2.0)}, 1e-14);

  // Gradients: erfcx' = 2 x erfcx(x) - 2/sqrt(pi); d/dx P(a, x) = x^(a-1) e^-x / Gamma(a).
  using ember_test::grad::check;
  const Tensor xe = ember_test::grad::input({6}, -2, 3);
  CHECK(check([](const auto& v) { return special::erfcx(v[0]); }, {xe}));
  const Tensor aa = doubles({0.7, 1.5, 3.0}), xx = ember_test::grad::input({3}, 0.5, 4);
  CHECK(check([&](const auto& v) { return ember::igamma(aa, v[0]); }, {xx}));
  CHECK(check([&](const auto& v) { return ember::igammac(aa, v[0]); }, {xx}));
  // With a = 1 the density is e^-x, and Q's gradient is its negative.
  const Tensor ones3 = ember::ones({3}, ember::kDouble);
  const Tensor dp = ember::autograd::grad({ember::igamma(ones3, xx).sum()}, {xx})[0];
  const Tensor dq = ember::autograd::grad({ember::igammac(ones3, xx).sum()}, {xx})[0];
  CHECK(ember::allclose(dp, ember::exp(-xx.detach()), 1e-14, 0));
  CHECK(ember::allclose(dq, -ember::exp(-xx.detach()), 1e-14, 0));
  // libtorch has no derivative in a: backward refuses, naming the input.
  const Tensor leaf_a = doubles({1.0, 2.0}).requires_grad_();
  const Tensor p = ember::igamma(leaf_a, doubles({1.0, 1.0}));
  CHECK(p.requires_grad());
  CHECK_THROWS_MATCHES(p.sum().backward(), ember::NotImplemented,
                       Catch::Message("the derivative for 'igamma: input' is not implemented."));
}

TEST_CASE("special: the Bessel functions and polynomials are float/double only and not differentiable") {
  const Tensor bf = ember::ones({2}, ember::kBFloat16);
  CHECK_THROWS_MATCHES(special::bessel_j0(bf), ember::NotImplemented,
                       Catch::Message("\"bessel_j0_cpu\" not implemented for 'BFloat16'"));
  CHECK_THROWS_MATCHES(special::chebyshev_polynomial_t(bf.to(ember::kHalf), 2), ember::NotImplemented,
                       Catch::Message("\"chebyshev_polynomial_t_cpu\" not implemented for 'Half'"));
  CHECK_THROWS_MATCHES(special::erfcx(bf), ember::NotImplemented,
                       Catch::Message("\"erfcx_cpu\" not implemented for 'BFloat16'"));
  CHECK_THROWS_MATCHES(ember::igamma(ember::tensor({1, 2}), ember::tensor({1, 2})), ember::NotImplemented,
                       Catch::Message("\"igamma_cpu\" not implemented for 'Long'"));
  CHECK_THROWS_MATCHES(special::bessel_y1(Tensor()), ember::InvalidArgument,
                       Catch::Message("bessel_y1: undefined tensor"));
  CHECK_THROWS_MATCHES(special::legendre_polynomial_p(0.5, Tensor()), ember::InvalidArgument,
                       Catch::Message("legendre_polynomial_p: undefined tensor"));
  CHECK_THROWS_MATCHES(special::hermite_polynomial_h(ember::ones({2}), Tensor()), ember::InvalidArgument,
                       Catch::Message("hermite_polynomial_h: undefined tensor"));
  // Promotion as libtorch: mixed widths take the wider, integers with floats the float.
  CHECK(special::hermite_polynomial_h(ember::ones({2}, ember::kHalf), ember::ones({2})).dtype() ==
        ember::kFloat);
  CHECK(special::laguerre_polynomial_l(ember::ones({2}), ember::ones({2}, ember::kDouble)).dtype() ==
        ember::kDouble);
  CHECK(special::legendre_polynomial_p(0.5, ember::ones({2}, ember::kDouble)).dtype() == ember::kDouble);
  CHECK(ember::igamma(ember::tensor({1, 2}), ember::ones({2})).dtype() == ember::kFloat);
  // In place keeps self's dtype, and refuses a result it cannot hold.
  Tensor f = ember::tensor({1.0f, 2.0f});
  f.igamma_(ember::tensor({1.0, 2.0}, ember::kDouble));
  CHECK(f.dtype() == ember::kFloat);
  check_values(f, {1 - std::exp(-1.0), 0.59399414981}, 1e-6);
  CHECK_THROWS_MATCHES(ember::tensor({1, 2}).igamma_(ember::ones({2})), ember::InvalidArgument,
                       Catch::Message("result type Float can't be cast to the desired output type Long"));
  // Integers compute in the default dtype.
  CHECK(special::bessel_j0(ember::tensor({1, 2})).dtype() == ember::kFloat);
  // As libtorch: the result does not require grad even when the input does.
  const Tensor leaf = ember::ones({3}, ember::kDouble).requires_grad_();
  CHECK_FALSE(special::airy_ai(leaf).requires_grad());
  CHECK_FALSE(special::legendre_polynomial_p(leaf, leaf).requires_grad());
  CHECK(special::erfcx(leaf).requires_grad());
}
