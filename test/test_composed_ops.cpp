// The composed ops of ember/shape_ops.h, math_ops.h and linalg_ops.h with known values,
// float64 gradcheck and second derivatives (torch_crosscheck_composed.cpp compares them
// with libtorch where it is installed; these run everywhere).
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::check_close;
using ember_test::dvalues;
using namespace ember_test::grad;

namespace {


}  // namespace

TEST_CASE("composed ops: triangles, diagonals, flips and rolls have the expected values") {
  const Tensor m = arange(12, kDouble).reshape({3, 4});
  CHECK(dvalues(tril(m)) == std::vector<double>{0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0});
  CHECK(dvalues(m.triu(1)) == std::vector<double>{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
  CHECK(dvalues(m.tril(-1)) == std::vector<double>{0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
  CHECK(tril(m > 4).dtype() == kBool);
  CHECK(dvalues(tril_indices(3, 3)) == std::vector<double>{0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2});
  CHECK(dvalues(triu_indices(2, 3, 1)) == std::vector<double>{0, 0, 1, 1, 2, 2});

  // diagonal is a view: a write through it reaches the base.
  Tensor base = zeros({3, 3});
  Tensor d = base.diagonal();
  CHECK(d.is_view());
  d.fill_(7);
  CHECK(dvalues(base) == std::vector<double>{7, 0, 0, 0, 7, 0, 0, 0, 7});
  CHECK(dvalues(m.diagonal(1)) == std::vector<double>{1, 6, 11});
  CHECK(dvalues(m.diagonal(-1)) == std::vector<double>{4, 9});
  CHECK(m.diagonal(5).numel() == 0);
  CHECK(dvalues(diag(tensor({1.0, 2.0}), -1)) == std::vector<double>{0, 0, 0, 1, 0, 0, 0, 2, 0});
  CHECK(dvalues(diag(m)) == std::vector<double>{0, 5, 10});
  CHECK(diag_embed(ones({2, 3})).sizes() == std::vector<int64_t>{2, 3, 3});
  CHECK(trace(m).item<double>() == 15);

  CHECK(dvalues(m.flip({1}).select(0, 0)) == std::vector<double>{3, 2, 1, 0});
  CHECK(dvalues(flip(m, {0, 1}).select(0, 0)) == std::vector<double>{11, 10, 9, 8});
  CHECK(dvalues(roll(arange(5), {2})) == std::vector<double>{3, 4, 0, 1, 2});
  CHECK(dvalues(roll(arange(5), {-7})) == std::vector<double>{2, 3, 4, 0, 1});
  CHECK(dvalues(rot90(arange(4).reshape({2, 2}))) == std::vector<double>{1, 3, 0, 2});
  CHECK(dvalues(rot90(arange(4).reshape({2, 2}), -1)) == std::vector<double>{2, 0, 3, 1});
  CHECK(movedim(zeros({2, 3, 4}), 0, -1).sizes() == std::vector<int64_t>{3, 4, 2});
  CHECK(m.unflatten(1, {2, -1}).sizes() == std::vector<int64_t>{3, 2, 2});
  CHECK(dvalues(repeat_interleave(tensor({1, 2}), 2)) == std::vector<double>{1, 1, 2, 2});
  CHECK(dvalues(repeat_interleave(tensor({2, 0, 1}))) == std::vector<double>{0, 0, 2});
  CHECK(tile(ones({2}), {3, 2}).sizes() == std::vector<int64_t>{3, 4});
  CHECK(dvalues(diff(tensor({1.0, 4.0, 9.0, 16.0}), 2)) == std::vector<double>{2, 2});
  CHECK(dvalues(hstack({tensor({1.0}), tensor({2.0, 3.0})})) == std::vector<double>{1, 2, 3});
  CHECK(vstack({tensor({1.0, 2.0}), tensor({3.0, 4.0})}).sizes() == std::vector<int64_t>{2, 2});
  const auto grid = meshgrid({tensor({1.0, 2.0}), tensor({3.0, 4.0, 5.0})}, "xy");
  CHECK(grid[0].sizes() == std::vector<int64_t>{3, 2});
  CHECK(dvalues(grid[0].select(0, 0)) == std::vector<double>{1, 2});

  CHECK_THROWS_AS(tril(ones({3})), InvalidArgument);
  CHECK_THROWS_WITH(flip(m, {1, -1}), "dim 1 appears multiple times in the list of dims");
  CHECK_THROWS_WITH(roll(m, {1, 2}, {0}), "shifts and dimensions must align. shifts: 2, dims:1");
  CHECK_THROWS_WITH(unflatten(m, 1, {3, 3}), Catch::Contains("don't multiply up to the size of dim 1 (4)"));
  CHECK_THROWS_WITH(meshgrid({ones({2, 2})}), Catch::Contains("Expected 0D or 1D tensor"));
  CHECK_THROWS_AS(repeat_interleave(tensor({-1})), InvalidArgument);
}

TEST_CASE("composed ops: pointwise functions and reductions have the expected values") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor({-0.9, -0.3, 0.0, 0.4, 0.8});
  const std::vector<double> xv = dvalues(x);
  const std::vector<std::pair<Tensor (*)(const Tensor&), double (*)(double)>> unary = {
      {asin, std::asin}, {acos, std::acos},   {atan, std::atan},   {sinh, std::sinh},
      {cosh, std::cosh}, {asinh, std::asinh}, {atanh, std::atanh},
  };
  for (const auto& [ours, want] : unary) {
    const std::vector<double> got = dvalues(ours(x));
    for (size_t i = 0; i < xv.size(); ++i) CHECK(got[i] == Approx(want(xv[i])).margin(1e-15));
  }
  const std::vector<double> ac = dvalues(acosh(tensor({1.0, 2.0, 1e10}, kDouble)));
  CHECK(ac[0] == 0);
  CHECK(ac[1] == Approx(std::acosh(2.0)).epsilon(1e-15));
  CHECK(ac[2] == Approx(std::acosh(1e10)).epsilon(1e-15));
  CHECK(dvalues(log2(tensor({8.0f, 0.5f}))) == std::vector<double>{3, -1});
  CHECK(dvalues(log10(tensor({1000.0}))) == std::vector<double>{3});
  CHECK(dvalues(exp2(tensor({3, -1}))) == std::vector<double>{8, 0.5});
  CHECK(exp2(tensor({3})).dtype() == kFloat);
  CHECK(dvalues(sinh(tensor({100.0f}))) == std::vector<double>{double(std::sinh(100.0f))});
  CHECK(dvalues(logaddexp(tensor({inf, -inf, 0.0}), tensor({inf, -inf, 0.0})))[0] == inf);
  CHECK(dvalues(logaddexp(tensor({-inf}), tensor({-inf})))[0] == -inf);
  CHECK(dvalues(logaddexp(tensor({0.0}), tensor({0.0})))[0] == Approx(std::log(2.0)));
  CHECK(dvalues(xlogy(tensor({0.0, 2.0}, kDouble), tensor({0.0, std::exp(1.0)}, kDouble))) ==
        std::vector<double>{0, 2});
  CHECK(std::isnan(dvalues(xlogy(tensor({0.0}), tensor({std::nan("")})))[0]));
  CHECK(dvalues(sinc(tensor({0.0, 0.5})))[0] == 1);
  CHECK(dvalues(sinc(tensor({0.5})))[0] == Approx(2 / M_PI));
  CHECK(dvalues(frac(tensor({-1.25, 2.5}))) == std::vector<double>{-0.25, 0.5});
  CHECK(dvalues(fmax(tensor({1.0, std::nan(""), 3.0}), tensor({std::nan(""), 2.0, 4.0}))) ==
        std::vector<double>{1, 2, 4});
  CHECK(dvalues(nansum(tensor({1.0, std::nan(""), 2.0}))) == std::vector<double>{3});
  CHECK(dvalues(nanmean(tensor({{1.0, std::nan("")}, {2.0, 4.0}}), {1})) == std::vector<double>{1, 3});
  CHECK(dvalues(count_nonzero(tensor({{0, 1}, {2, 3}}), 1)) == std::vector<double>{1, 2});
  CHECK(dvalues(cumprod(tensor({1.0, 2.0, 0.0, 3.0, 4.0}), 0)) == std::vector<double>{1, 2, 0, 0, 0});
  CHECK(cumprod(tensor({1, 2, 3}), 0).dtype() == kLong);
  auto [med, at] = median(tensor({{5.0, 1.0, 3.0, 2.0}, {4.0, std::nan(""), 0.0, 1.0}}), 1);
  CHECK(dvalues(med)[0] == 2);
  CHECK(std::isnan(dvalues(med)[1]));
  CHECK(dvalues(at) == std::vector<double>{3, 1});
  CHECK(dvalues(median(tensor({4, 1, 3, 2}))) == std::vector<double>{2});
  auto [third, where_third] = kthvalue(tensor({5.0, 1.0, 4.0, 2.0}), 3);
  CHECK(third.item<double>() == 4);
  CHECK(where_third.item<int64_t>() == 2);
  auto [lo, hi] = aminmax(tensor({{3.0, -1.0}, {2.0, 8.0}}));
  CHECK(lo.item<double>() == -1);
  CHECK(hi.item<double>() == 8);
  CHECK_THROWS_AS(frac(tensor({1, 2})), NotImplemented);
  CHECK_THROWS_WITH(kthvalue(ones({3}), 4), "kthvalue(): selected number k out of range for dimension 0");
  CHECK(std::isnan(median(zeros({0})).item<double>()));
  // sinc's gradient near 0 against its series (no cancellation): pi * (-z/3 + z^3/30), z = pi x.
  Tensor sx = tensor({1e-3, -1e-4, 1e-6, 1e-20, 0.0}, kDouble).requires_grad_();
  sinc(sx).sum().backward();
  const std::vector<double> sg = dvalues(sx.grad()), sxv = dvalues(sx);
  for (size_t i = 0; i < sg.size(); ++i) {
    const double z = M_PI * sxv[i];
    CHECK(sg[i] == Approx(M_PI * (-z / 3 + z * z * z / 30)).epsilon(1e-12).margin(1e-300));
  }
  // Ties share the gradient evenly (libtorch's median()), fmax gives a tie's to its first operand.
  Tensor tie = tensor({2.0, 1.0, 2.0, 2.0, 1.0}, kDouble).requires_grad_();
  median(tie).backward();
  CHECK(dvalues(tie.grad()) == std::vector<double>{1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0});
  Tensor fa = tensor({1.0}, kDouble).requires_grad_(), fb = tensor({1.0}, kDouble).requires_grad_();
  fmax(fa, fb).backward();
  CHECK(fa.grad().item<double>() == 1);
  CHECK(fb.grad().item<double>() == 0);
}

TEST_CASE("composed ops: products and einsum match their matmul forms") {
  manual_seed(5);
  const Tensor a = randn({2, 3, 4}, kDouble), b = randn({2, 4, 5}, kDouble), m = randn({4, 5}, kDouble);
  CHECK(allclose(einsum("bij,bjk->bik", {a, b}), bmm(a, b)));
  CHECK(allclose(einsum("...ij,jk", {a, m}), matmul(a, m)));
  CHECK(allclose(einsum("bij->", {a}), a.sum()));
  CHECK(allclose(einsum("ii->i", {m.narrow(1, 0, 4)}), m.narrow(1, 0, 4).diagonal()));
  CHECK(allclose(einsum("ij,kj->ik", {a[0], a[1]}), mm(a[0], a[1].t())));
  CHECK(allclose(einsum("i,j->ij", {a[0][0], m[0]}), outer(a[0][0], m[0])));
  CHECK(einsum("bij,bjk->bki", {a, b}).sizes() == std::vector<int64_t>{2, 5, 3});
  CHECK(allclose(baddbmm(ones({2, 3, 5}, kDouble), a, b, 0.5, 2), bmm(a, b) * 2 + 0.5));
  CHECK(allclose(addbmm(zeros({3, 5}, kDouble), a, b), bmm(a, b).sum({0})));
  CHECK(allclose(addmv(ones({4}, kDouble), m, ones({5}, kDouble)), m.sum({1}) + 1));
  CHECK(allclose(addr(zeros({4, 5}, kDouble), m.select(1, 0), m.select(0, 0)),
                 outer(m.select(1, 0), m.select(0, 0))));
  // beta 0 ignores self, NaN included.
  CHECK(!isnan(baddbmm(full({2, 3, 5}, std::nan(""), kDouble), a, b, 0)).any().item<bool>());
  CHECK(dvalues(kron(tensor({1.0, 2.0}), tensor({1.0, 10.0}))) == std::vector<double>{1, 10, 2, 20});
  CHECK(tensordot(a, b, {2}, {1}).sizes() == std::vector<int64_t>{2, 3, 2, 5});
  CHECK(allclose(tensordot(a, m, 1), matmul(a, m)));
  CHECK(allclose(inner(a, a), tensordot(a, a, {-1}, {-1})));
  CHECK(allclose(chain_matmul({m.t(), m, m.t()}), mm(mm(m.t(), m), m.t())));
  const Tensor p = tensor({{0.0, 0.0}, {3.0, 4.0}});
  CHECK(dvalues(cdist(p, p)) == std::vector<double>{0, 5, 5, 0});
  CHECK(dvalues(cdist(p, p, 1)) == std::vector<double>{0, 7, 7, 0});
  CHECK_THROWS_WITH(einsum("ij,jk", {a[0]}),
                    "einsum(): fewer operands were provided than specified in the equation");
  CHECK_THROWS_WITH(einsum("ij->j", {a[0], a[1]}),
                    "einsum(): more operands were provided than specified in the equation");
  CHECK_THROWS_WITH(einsum("ij->q", {a[0]}), Catch::Contains("output subscript q does not appear"));
  CHECK_THROWS_WITH(einsum("i$->i", {a[0]}), Catch::Contains("invalid subscript given at index 1"));
  CHECK_THROWS_WITH(einsum("ij,ij->ij", {a[0], m}),
                    Catch::Contains("does not broadcast with previously seen size 3"));
  CHECK_THROWS_AS(baddbmm(ones({1}), ones({2, 3}), ones({3, 2})), InvalidArgument);
  CHECK_THROWS_AS(cdist(ones({2, 3}), ones({2, 4})), InvalidArgument);
}

TEST_CASE("composed ops: gradients pass gradcheck, second derivatives where differentiable") {
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> one_input = {
      {"tril", [](const variable_list& v) { return tril(v[0], 1); }},
      {"diagonal", [](const variable_list& v) { return v[0].diagonal(-1); }},
      {"diag_embed", [](const variable_list& v) { return diag_embed(v[0].narrow(0, 0, 2), 1); }},
      {"flip roll rot90",
       [](const variable_list& v) {
         return flip(v[0], {0}) + roll(v[0], {1, 2}, {0, 1}) * 2 + rot90(v[0], 2);
       }},
      {"cumprod", [](const variable_list& v) { return cumprod(v[0], 1); }},
      {"median", [](const variable_list& v) { return std::get<0>(median(v[0], 0)); }},
      {"asin acos atan",
       [](const variable_list& v) { return asin(v[0] * 0.9) + acos(v[0] * 0.9) * 2 + atan(v[0] * 3); }},
      {"sinh cosh asinh atanh",
       [](const variable_list& v) {
         return sinh(v[0]) + cosh(v[0] * 2) + asinh(v[0] * 5) + atanh(v[0] * 0.9);
       }},
      {"log2 log10 exp2 logit",
       [](const variable_list& v) {
         return log2(v[0] + 2) + log10(v[0] + 2) + exp2(v[0]) + logit(v[0] * 0.4 + 0.5);
       }},
      {"sinc", [](const variable_list& v) { return sinc(v[0] * 2); }},
      {"trace", [](const variable_list& v) { return trace(v[0]); }},
      {"einsum diagonal", [](const variable_list& v) { return einsum("ii->i", {v[0].narrow(1, 0, 3)}); }},
  };
  for (const auto& [name, f] : one_input) {
    INFO(name);
    const variable_list in = {input({3, 4})};
    CHECK(check(f, in));
    if (std::string(name) != "median") CHECK(check_second(f, in));
  }
  const std::vector<std::pair<const char*, Fn>> two_inputs = {
      {"einsum",
       [](const variable_list& v) {
         return einsum("ij,kj->ik", {v[0], v[1]});
       }},
      {"einsum three-way",
       [](const variable_list& v) {
         return einsum("ij,kj,k->i", {v[0], v[1], v[1].sum({1})});
       }},
      {"tensordot", [](const variable_list& v) { return tensordot(v[0], v[1], {1}, {1}); }},
      {"kron", [](const variable_list& v) { return kron(v[0], v[1]); }},
      {"logaddexp",
       [](const variable_list& v) { return logaddexp(v[0], v[1][0]) + logaddexp2(v[0], v[1][1]); }},
      {"xlogy hypot", [](const variable_list& v) { return xlogy(v[0], v[1][0] + 2) + hypot(v[0], v[1][1]); }},
      {"cdist", [](const variable_list& v) { return cdist(v[0], v[1]); }},
  };
  for (const auto& [name, f] : two_inputs) {
    INFO(name);
    const variable_list in = {input({3, 4}), input({2, 4})};
    CHECK(check(f, in));
    CHECK(check_second(f, in));
  }
}

TEST_CASE("special functions: erf, erfc, erfinv, lgamma, digamma and polygamma(1) values and gradients") {
  const Tensor x = tensor({-2.5, -0.7, 0.0, 0.3, 1.9}, kDouble);
  const std::vector<double> xv = dvalues(x);
  const std::vector<double> e = dvalues(erf(x)), ec = dvalues(erfc(x)), back = dvalues(erfinv(erf(x)));
  for (size_t i = 0; i < xv.size(); ++i) {
    CHECK(e[i] == Approx(std::erf(xv[i])).epsilon(1e-15));
    CHECK(ec[i] == Approx(std::erfc(xv[i])).epsilon(1e-15));
    CHECK(back[i] == Approx(xv[i]).margin(1e-12));
  }
  const std::vector<double> ends = dvalues(erfinv(tensor({-1.0, 1.0, 1.5}, kDouble)));
  CHECK(ends[0] == -std::numeric_limits<double>::infinity());
  CHECK(ends[1] == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(ends[2]));
  const std::vector<double> lg = dvalues(lgamma(tensor({0.5, 4.0, -1.5}, kDouble)));
  CHECK(lg[0] == Approx(std::lgamma(0.5)).epsilon(1e-14));
  CHECK(lg[1] == Approx(std::log(6.0)).epsilon(1e-14));
  CHECK(lg[2] == Approx(std::lgamma(-1.5)).epsilon(1e-14));
  const double euler = 0.57721566490153286061;
  const std::vector<double> psi = dvalues(digamma(tensor({1.0, 0.5, 10.0, -0.5, -2.0}, kDouble)));
  CHECK(psi[0] == Approx(-euler).epsilon(1e-14));
  CHECK(psi[1] == Approx(-euler - 2 * std::log(2.0)).epsilon(1e-14));
  CHECK(psi[2] == Approx(2.25175258906672110764).epsilon(1e-14));
  CHECK(psi[3] == Approx(2 - euler - 2 * std::log(2.0)).epsilon(1e-13));  // psi(1/2) + 2
  CHECK(std::isnan(psi[4]));
  CHECK(polygamma(1, tensor({1.0}, kDouble)).item<double>() ==
        Approx(M_PI * M_PI / 6).epsilon(1e-9));  // libtorch's series
  CHECK(polygamma(0, tensor({1.0}, kDouble)).item<double>() == Approx(-euler).epsilon(1e-14));
  CHECK(erf(tensor({1, 2})).dtype() == kFloat);
  CHECK_THROWS_AS(polygamma(-1, x), InvalidArgument);

  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"erf erfc", [](const variable_list& v) { return erf(v[0] * 2) + erfc(v[0]) * 3; }},
      {"erfinv", [](const variable_list& v) { return erfinv(v[0] * 0.95); }},
      {"lgamma", [](const variable_list& v) { return lgamma(v[0] * 3 + 3.5); }},
      {"gelu", [](const variable_list& v) { return gelu(v[0] * 2); }},
  };
  for (const auto& [name, f] : fns) {
    INFO(name);
    const variable_list in = {input({3, 4})};
    CHECK(check(f, in));
    CHECK(check_second(f, in));
  }
  const variable_list in = {input({3, 4}, 0.2, 5)};
  CHECK(check([](const variable_list& v) { return digamma(v[0]); }, in));
  CHECK(check_second([](const variable_list& v) { return digamma(v[0]); }, in));
}

TEST_CASE("special functions: zeta, polygamma of every order and mvlgamma, values and gradients") {
  // zeta(2, 1) = pi^2 / 6, zeta(4, 1) = pi^4 / 90, zeta(2, 1/2) = pi^2 / 2, zeta(3, 2) = zeta(3) - 1.
  const double zeta3 = 1.2020569031595942854;
  const std::vector<double> z =
      dvalues(special::zeta(tensor({2.0, 4.0, 2.0, 3.0, 1.0, 0.5, 2.0, 2.0}, kDouble),
                            tensor({1.0, 1.0, 0.5, 2.0, 1.0, 1.0, -2.0, -1.5}, kDouble)));
  CHECK(z[0] == Approx(M_PI * M_PI / 6).epsilon(1e-15));
  CHECK(z[1] == Approx(std::pow(M_PI, 4) / 90).epsilon(1e-15));
  CHECK(z[2] == Approx(M_PI * M_PI / 2).epsilon(1e-15));
  CHECK(z[3] == Approx(zeta3 - 1).epsilon(1e-15));
  CHECK(z[4] == std::numeric_limits<double>::infinity());  // the pole at x = 1
  CHECK(std::isnan(z[5]));                                 // x < 1
  CHECK(z[6] == std::numeric_limits<double>::infinity());  // q a non-positive integer
  // q = -1.5: (-1.5)^-2 + (-0.5)^-2 + zeta(2, 1/2)
  CHECK(z[7] == Approx(1 / 2.25 + 4 + M_PI * M_PI / 2).epsilon(1e-14));
  CHECK(special::zeta(2.0, tensor({1.0f})).dtype() == kFloat);
  CHECK(special::zeta(tensor({2, 3}), 1.0).dtype() == kFloat);  // integers compute in the default dtype
  CHECK(special::zeta(tensor({4.0}, kDouble), 1.0).item<double>() ==
        Approx(std::pow(M_PI, 4) / 90).epsilon(1e-15));
  // polygamma(n, 1) = (-1)^(n+1) n! zeta(n + 1); polygamma(2, 1/2) = -14 zeta(3).
  CHECK(polygamma(2, tensor({1.0}, kDouble)).item<double>() == Approx(-2 * zeta3).epsilon(1e-15));
  CHECK(polygamma(3, tensor({1.0}, kDouble)).item<double>() == Approx(std::pow(M_PI, 4) / 15).epsilon(1e-14));
  CHECK(polygamma(2, tensor({0.5}, kDouble)).item<double>() == Approx(-14 * zeta3).epsilon(1e-14));
  CHECK(tensor({1.0}, kDouble).polygamma(4).item<double>() ==
        Approx(-24 * 1.0369277551433699263).epsilon(1e-14));
  Tensor inplace = tensor({1.0, 0.5}, kDouble);
  inplace.polygamma_(2);
  CHECK(dvalues(inplace)[1] == Approx(-14 * zeta3).epsilon(1e-14));
  CHECK_THROWS_WITH(tensor({1, 2}).polygamma_(2),
                    Catch::Contains("result type Float can't be cast to the desired output type Long"));
  // mvlgamma(x, p) = p(p-1)/4 log(pi) + sum_j lgamma(x - j/2); multigammaln is its special:: name.
  const std::vector<double> mv = dvalues(mvlgamma(tensor({2.5, 4.0}, kDouble), 3));
  for (size_t i = 0; i < mv.size(); ++i) {
    const double x = i == 0 ? 2.5 : 4.0;
    CHECK(mv[i] == Approx(1.5 * std::log(M_PI) + std::lgamma(x) + std::lgamma(x - 0.5) + std::lgamma(x - 1))
                       .epsilon(1e-14));
  }
  CHECK(special::multigammaln(tensor({3.0}, kDouble), 1).item<double>() ==
        Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(mvlgamma(tensor({2, 3}), 2).dtype() == kFloat);
  CHECK_THROWS_WITH(mvlgamma(tensor({0.9, 3.0}), 3), "All elements must be greater than (p-1)/2");
  CHECK_THROWS_WITH(mvlgamma(tensor({2.0}), 0), "p has to be greater than or equal to 1");
  CHECK_THROWS_WITH(mvlgamma(tensor({true}), 1), "The input tensor may not be a boolean tensor.");
  Tensor mv_inplace = tensor({2.5, 4.0}, kDouble);
  mv_inplace.mvlgamma_(3);
  CHECK(dvalues(mv_inplace)[0] == Approx(mv[0]).epsilon(1e-15));

  // Gradients: d/dq zeta(x, q) = -x zeta(x + 1, q); polygamma(n)' = polygamma(n + 1); none in x.
  manual_seed(ember_test::fresh_seed());
  const variable_list q = {input({3, 4}, 0.3, 4)};
  CHECK(check([](const variable_list& v) { return special::zeta(3.0, v[0]); }, q));
  CHECK(check([](const variable_list& v) { return special::zeta(full({3, 4}, 2.5, kDouble), v[0]); }, q));
  CHECK(check([](const variable_list& v) { return polygamma(1, v[0]); }, q));
  CHECK(check([](const variable_list& v) { return polygamma(2, v[0]); }, q));
  CHECK(check_second([](const variable_list& v) { return polygamma(3, v[0]); }, q));
  CHECK(check([](const variable_list& v) { return mvlgamma(v[0] + 2, 4); }, q));
  Tensor y = polygamma(2, q[0]);
  CHECK(y.grad_fn()->name() == "PolygammaBackward0");
  CHECK(special::zeta(2.0, q[0]).grad_fn()->name() == "SpecialZetaBackward1");
  Tensor xs = full({2}, 3.0, kDouble).requires_grad_();
  Tensor zx = special::zeta(xs, 2.0);
  CHECK(zx.grad_fn()->name() == "SpecialZetaBackward2");
  CHECK_THROWS_WITH(zx.sum().backward(), "the derivative for 'zeta' is not implemented.");
  Tensor leaf = q[0].detach().clone().requires_grad_();
  Tensor through = leaf * 1;  // in place on a non-leaf: the gradient follows the old values
  through.polygamma_(2);
  through.sum().backward();
  check_close(leaf.grad(), polygamma(3, leaf.detach()), 1e-12, "polygamma_ gradient");
}

TEST_CASE("special functions: the modified Bessel functions i0, i0e, i1, i1e and the Kaiser window") {
  // libtorch 1.13's float64 values at -9, -1.5, 0, 0.5, 8 (the pieces' boundary) and 12.
  const Tensor x = tensor({-9.0, -1.5, 0.0, 0.5, 8.0, 12.0}, kDouble);
  auto near = [](const Tensor& got, const std::vector<double>& want, const char* what) {
    check_close(got, tensor(want, kDouble), 1e-15, what);
  };
  near(i0(x),
       {1093.5883545113745, 1.6467231897728907, 1.0, 1.0634833707413236, 427.56411572180474,
        18948.92534929631},
       "i0");
  near(special::i0e(x),
       {0.134959524581723, 0.36743360905415834, 1.0, 0.6450352704491501, 0.1434317818568503,
        0.11642622121344044},
       "i0e");
  near(special::i1(x),
       {-1030.9147225169565, -0.9816664285779075, 0.0, 0.25789430539089636, 399.8731367825599,
        18141.348781638833},
       "i1");
  near(special::i1e(x),
       {-0.1272249839358912, -0.21903938742092566, 0.0, 0.15642080318487173, 0.13414249329269812,
        0.111464299290181},
       "i1e");
  CHECK(x.i0().equal(special::i0(x)));
  CHECK(i0(tensor({1, 2})).dtype() == kFloat);  // integers compute in the default dtype
  CHECK(special::i0e(ones({2}, kBFloat16)).dtype() == kBFloat16);
  Tensor y = x.clone();
  CHECK(y.i0_().is_same(y));
  CHECK(y.equal(i0(x)));
  // Gradients: I0' = I1, and libtorch's 0.5 at 0 for I1 and its scaled form.
  for (auto f :
       {+[](const Tensor& v) { return i0(v); }, +[](const Tensor& v) { return special::i0e(v); },
        +[](const Tensor& v) { return special::i1(v); }, +[](const Tensor& v) { return special::i1e(v); }}) {
    CHECK(check([f](const variable_list& v) { return f(v[0]); }, {input({3, 4}, -10, 10)}));
    CHECK(check_second([f](const variable_list& v) { return f(v[0]); }, {input({5}, 0.5, 3)}));
  }
  const Tensor at_zero = zeros({1}, kDouble).requires_grad_();
  special::i1(at_zero).sum().backward();
  CHECK(at_zero.grad().item<double>() == 0.5);
  CHECK(i0(x.requires_grad_()).grad_fn()->name() == "I0Backward0");
  CHECK(special::i1e(x).grad_fn()->name() == "SpecialI1EBackward0");
  CHECK_THROWS_WITH(i0(ones({2}, kHalf)), "\"i0_vml_cpu\" not implemented for 'Half'");
  CHECK_THROWS_WITH(special::i1(ones({2}, kBFloat16)), "\"i1_cpu\" not implemented for 'BFloat16'");
  CHECK_THROWS_WITH(tensor({1, 2}).i0_(), "result type Float can't be cast to the desired output type Long");

  // kaiser_window: libtorch 1.13's float64 values, periodic by default.
  near(kaiser_window(5, kDouble),
       {5.2773441320097665e-05, 0.10171968770956323, 0.7929398341014605, 0.7929398341014605,
        0.10171968770956323},
       "kaiser periodic");
  near(kaiser_window(4, false, 5.0, kDouble),
       {0.036710892271286676, 0.7753221044454067, 0.7753221044454067, 0.036710892271286676},
       "kaiser symmetric");
  CHECK(kaiser_window(1).equal(ones({1})));
  CHECK(kaiser_window(0).numel() == 0);
  CHECK_THROWS_WITH(kaiser_window(3, kLong),
                    Catch::Contains("kaiser_window expects floating point dtypes, got: Long"));
  CHECK_THROWS_WITH(kaiser_window(-2), Catch::Contains("non-negative window_length"));
}

TEST_CASE("composed ops: remainders, signs, scans, quantiles, searching, counting and splits") {
  const double nan = std::nan("");
  CHECK(dvalues(fmod(tensor({-7, 7, -6}), tensor({3, -3, 3}))) == std::vector<double>{-1, 1, 0});
  CHECK(dvalues(fmod(tensor({-7.5, 7.5}, kDouble), 2.0)) == std::vector<double>{-1.5, 1.5});
  CHECK(dvalues(floor_divide(tensor({-7, 7}), tensor({2, -2}))) == std::vector<double>{-4, -4});
  CHECK(floor_divide(tensor({-7, 7}), 2).dtype() == kLong);
  CHECK(dvalues(copysign(tensor({1.0, 2.0}, kDouble), tensor({-0.0, 0.0}, kDouble))) ==
        std::vector<double>{-1, 2});
  CHECK(dvalues(signbit(tensor({-0.0, 0.0, -2.0}, kDouble))) == std::vector<double>{1, 0, 1});
  CHECK(dvalues(rsub(tensor({1.0, 2.0}), 10.0, 2)) == std::vector<double>{8, 6});
  auto [mx, at] = cummax(tensor({1.0, 3.0, nan, 2.0, nan, 5.0}, kDouble), 0);
  CHECK(dvalues(at) == std::vector<double>{0, 1, 2, 2, 4, 4});
  CHECK(std::isnan(dvalues(mx)[5]));
  CHECK(dvalues(std::get<1>(cummin(tensor({3, 1, 1, 2, 0}), 0))) == std::vector<double>{0, 1, 2, 2, 4});
  const std::vector<double> lse = dvalues(logcumsumexp(tensor({0.0, 0.0, std::log(2.0)}, kDouble), 0));
  CHECK(lse[1] == Approx(std::log(2.0)));
  CHECK(lse[2] == Approx(std::log(4.0)));
  const Tensor q = tensor({0.0, 1.0, 2.0, 3.0}, kDouble);
  CHECK(quantile(q, 0.5).item<double>() == 1.5);
  CHECK(quantile(q, 0.5, {}, false, "lower").item<double>() == 1);
  CHECK(quantile(q, 0.5, {}, false, "higher").item<double>() == 2);
  CHECK(quantile(q, tensor({0.0, 1.0}, kDouble)).sizes() == std::vector<int64_t>{2});
  CHECK(std::isnan(quantile(tensor({1.0, nan}, kDouble), 0.5).item<double>()));
  CHECK(nanquantile(tensor({1.0, nan, 3.0}, kDouble), 0.5).item<double>() == 2);
  CHECK(nanmedian(tensor({nan, 4.0, 1.0, 2.0}, kDouble)).item<double>() == 2);
  CHECK(dvalues(isin(tensor({1, 2, 3}), tensor({2, 5}))) == std::vector<double>{0, 1, 0});
  CHECK(dvalues(searchsorted(tensor({1, 3, 5}), tensor({0, 3, 6}))) == std::vector<double>{0, 1, 3});
  CHECK(dvalues(searchsorted(tensor({1, 3, 5}), tensor({0, 3, 6}), false, true)) ==
        std::vector<double>{0, 2, 3});
  CHECK(dvalues(bucketize(tensor({0.5, 3.0}), tensor({1.0, 3.0}))) == std::vector<double>{0, 1});
  CHECK(dvalues(bincount(tensor({0, 1, 1, 3}))) == std::vector<double>{1, 2, 0, 1});
  CHECK(dvalues(histc(tensor({1.0, 2.0, 1.0, 3.0}), 3, 1, 3)) == std::vector<double>{2, 1, 1});
  const auto parts = tensor_split(arange(7), 3);
  CHECK(parts.size() == 3);
  CHECK(dvalues(parts[2]) == std::vector<double>{5, 6});
  CHECK(dvalues(take_along_dim(tensor({{10, 30, 20}}), tensor({{2, 0}}), 1)) == std::vector<double>{20, 10});
  CHECK_THROWS_WITH(fmod(tensor({1}), tensor({0})), "ZeroDivisionError");
  CHECK_THROWS_AS(quantile(q, 2.0), InvalidArgument);
  CHECK_THROWS_AS(bincount(tensor({-1})), InvalidArgument);
  CHECK_THROWS_AS(split_with_sizes(arange(5), {2, 2}), InvalidArgument);
  // Gradients through the scans and quantiles.
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"logcumsumexp", [](const variable_list& v) { return logcumsumexp(v[0] * 4, 1); }},
      {"cummax", [](const variable_list& v) { return std::get<0>(cummax(v[0], 1)); }},
      {"quantile", [](const variable_list& v) { return quantile(v[0], 0.3, 1); }},
      {"fmod copysign",
       [](const variable_list& v) { return fmod(v[0] * 3, 0.7) + copysign(v[0], v[0].flip({1})); }},
  };
  for (const auto& [name, f] : fns) {
    INFO(name);
    CHECK(check(f, {input({3, 4})}));
  }
}

TEST_CASE("composed ops: aliases, torch::special, queries, scatters into views, fill_diagonal_") {
  const Tensor x = tensor({-1.5, 0.0, 2.5}, kDouble);
  CHECK(dvalues(absolute(x)) == std::vector<double>{1.5, 0, 2.5});
  CHECK(dvalues(x.fix()) == std::vector<double>{-1, 0, 2});
  CHECK(dvalues(subtract(x, ones({3}, kDouble), 2)) == std::vector<double>{-3.5, -2, 0.5});
  CHECK(dvalues(argwhere(tensor({{0, 1}, {2, 0}}))) == std::vector<double>{0, 1, 1, 0});
  CHECK(dvalues(ger(tensor({1.0, 2.0}), tensor({3.0, 4.0}))) == std::vector<double>{3, 4, 6, 8});
  CHECK(x.unsafe_chunk(3).size() == 3);
  CHECK_THAT(dvalues(logspace(0, 2, 3)), Catch::Matchers::Approx(std::vector<double>{1, 10, 100}));
  CHECK(dvalues(logspace(0, 2, 3, 2.0)) == std::vector<double>{1, 2, 4});
  const Tensor strided = empty_strided({2, 3}, {1, 2});
  CHECK(strided.strides() == IntArrayRef{1, 2});
  // With requires_grad the result is a leaf, as libtorch's.
  const Tensor strided_leaf = empty_strided({2, 3}, {1, 2}, TensorOptions(kDouble).requires_grad(true));
  CHECK(strided_leaf.is_leaf());
  CHECK(strided_leaf.requires_grad());
  CHECK(strided_leaf.strides() == IntArrayRef{1, 2});
  CHECK(x.new_empty_strided({2}, {3}).dtype() == kDouble);
  CHECK(x.is_signed());
  CHECK_FALSE(tensor({1}, kUInt8).is_signed());
  CHECK_FALSE(x.is_complex());
  CHECK(tensor({1.5}).is_nonzero());
  CHECK_FALSE(tensor({0}).is_nonzero());
  CHECK_THROWS_WITH(x.is_nonzero(),
                    Catch::Contains("Boolean value of Tensor with more than one value is ambiguous"));
  CHECK_THROWS_WITH(empty({0}).is_nonzero(),
                    Catch::Contains("Boolean value of Tensor with no values is ambiguous"));
  CHECK(x.is_same_size(zeros({3})));
  CHECK(isreal(x).all().item<bool>());
  CHECK(dvalues(arange(6.0).reshape({2, 3}).sum_to_size({1, 3})) == std::vector<double>{3, 5, 7});
  CHECK(dvalues(arange(6.0).reshape({2, 3}).sum_to_size({3})) == std::vector<double>{3, 5, 7});
  CHECK_THROWS_WITH(arange(6.0).reshape({2, 3}).sum_to_size({3, 3}),
                    Catch::Contains("is not expandable to size"));
  CHECK(arange(6.0).reshape({2, 3}).numpy_T().sizes() == IntArrayRef{3, 2});
  // torch::special: the normal CDF and its inverse, entropy terms, xlog1py.
  CHECK_THAT(dvalues(special::ndtr(tensor({0.0, 1.0}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{0.5, 0.841344746}));
  CHECK_THAT(dvalues(special::ndtri(tensor({0.5, 0.841344746068543}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{0, 1}).margin(1e-9));
  const std::vector<double> e = dvalues(special::entr(tensor({-1.0, 0.0, 0.5}, kDouble)));
  CHECK(std::isinf(e[0]));
  CHECK(e[1] == 0);
  CHECK(e[2] == Approx(0.5 * std::log(2.0)));
  CHECK(dvalues(special::xlog1py(tensor({0.0, 2.0}, kDouble), tensor({-1.0, 1.0}, kDouble))) ==
        std::vector<double>{0, 2 * std::log(2.0)});
  CHECK(dvalues(special::expit(zeros({1}))) == std::vector<double>{0.5});
  // Scatters into views (out of place) and fill_diagonal_ (in place).
  CHECK(dvalues(zeros({4, 3}).slice_scatter(ones({2, 3}), 0, 1, 4, 2)) ==
        std::vector<double>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1});
  CHECK(dvalues(select_scatter(zeros({2, 3}), ones({3}), 0, -1)) == std::vector<double>{0, 0, 0, 1, 1, 1});
  CHECK(dvalues(diagonal_scatter(zeros({3, 3}), ones({2}), 1)) ==
        std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 0});
  CHECK_THROWS_WITH(zeros({4, 3}).slice_scatter(ones({3, 3}), 0, 1, 4, 2),
                    Catch::Contains("src size = [3, 3], slice size = [2, 3]"));
  CHECK(dvalues(zeros({7, 3}).fill_diagonal_(5, true)) ==
        std::vector<double>{5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5});
  CHECK(dvalues(zeros({2, 3}).fill_diagonal_(5, true)) == std::vector<double>{5, 0, 0, 0, 5, 0});
  CHECK(zeros({3, 3, 3}).fill_diagonal_(1).sum().item<float>() == 3);
  CHECK_THROWS_WITH(zeros({3, 3, 4}).fill_diagonal_(1),
                    Catch::Contains("all dimensions of input must be of equal length"));
  CHECK_THROWS_WITH(zeros({3}).fill_diagonal_(1), Catch::Contains("dimensions must larger than 1"));
  CHECK(check([](const variable_list& v) { return v[0].slice_scatter(v[1], 1, 0, 4, 2); },
              {input({3, 4}), input({3, 2})}));
  CHECK(
      check([](const variable_list& v) { return v[0].diagonal_scatter(v[1]); }, {input({3, 3}), input({3})}));
  CHECK(check([](const variable_list& v) { return special::ndtr(v[0]) + special::entr(v[0].abs() + 0.1); },
              {input({4})}));
}

TEST_CASE("matrices from pieces: mT, diagflat, block_diag, cartesian_prod, combinations") {
  const Tensor m = arange(6.0).reshape({2, 3});
  CHECK(m.mT().sizes() == IntArrayRef{3, 2});
  CHECK(dvalues(m.mT()) == dvalues(m.t()));
  CHECK(dvalues(diagflat(tensor({{1, 2}, {3, 4}}), 1)) ==
        std::vector<double>{0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0});
  const Tensor bd = block_diag({scalar_tensor(2.0), tensor({1, 2}), ones({2, 2})});
  CHECK(bd.sizes() == IntArrayRef{4, 5});
  CHECK(bd.dtype() == kFloat);
  CHECK(dvalues(bd) == std::vector<double>{2, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1});
  CHECK(block_diag({}).sizes() == IntArrayRef{1, 0});
  CHECK(dvalues(cartesian_prod({tensor({1, 2}), tensor({3, 4, 5})})) ==
        std::vector<double>{1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5});
  CHECK(dvalues(combinations(tensor({1, 2, 3}))) == std::vector<double>{1, 2, 1, 3, 2, 3});
  CHECK(dvalues(combinations(tensor({1, 2, 3}), 2, true)) ==
        std::vector<double>{1, 1, 1, 2, 1, 3, 2, 2, 2, 3, 3, 3});
  CHECK(combinations(tensor({1, 2, 3}), 4).sizes() == IntArrayRef{0, 4});
  CHECK(combinations(tensor({1, 2, 3}), 0).sizes() == IntArrayRef{0});
  CHECK(combinations(tensor({1, 2, 3, 4, 5}), 3).size(0) == 10);
  CHECK(combinations(tensor({1, 2, 3, 4, 5}), 3, true).size(0) == 35);
  CHECK(result_type(tensor({1}), 2.5) == kFloat);
  CHECK(result_type(tensor({1}, kInt8), tensor(300)) == kInt8);
  CHECK_FALSE(can_cast(kFloat, kInt32));
  CHECK(can_cast(kInt64, kInt8));
  CHECK(check([](const variable_list& v) { return block_diag({v[0], v[1]}); }, {input({2, 3}), input({3})}));
  CHECK(check(
      [](const variable_list& v) {
        return combinations(v[0], 2) * cartesian_prod({v[0], v[0]}).sum();
      },
      {input({4})}));
}

TEST_CASE("matrices from pieces: errors") {
  const Tensor i = tensor({1, 2, 3});
  CHECK_THROWS_WITH(
      ones({3}).mT(),
      Catch::Contains("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."));
  CHECK_THROWS_WITH(block_diag({ones({2, 2, 2})}), Catch::Contains("Input 0 has 3 dimensions"));
  CHECK_THROWS_WITH(cartesian_prod({ones({2, 2})}), Catch::Contains("Expect a 1D vector"));
  CHECK_THROWS_WITH(combinations(i, -1), Catch::Contains("Expect a non-negative number, but got -1"));
}

TEST_CASE("composed: mode picks libtorch's value and index") {
  // libtorch 1.13's results: ties go to the smallest value, the index is the last of its run.
  auto [values, indices] = mode(tensor({{1.0, 2.0, 2.0}, {3.0, 3.0, 1.0}, {-1.0, 5.0, 5.0}}), 1);
  CHECK(dvalues(values) == std::vector<double>{2, 3, 5});
  CHECK(dvalues(indices) == std::vector<double>{2, 1, 2});
  auto [tie, tie_index] = mode(tensor({3, 1, 3, 1, 2}));
  CHECK((tie.item<int64_t>() == 1 && tie_index.item<int64_t>() == 3));
  auto [flag, flag_index] = tensor({true, false, true}).mode();
  CHECK((flag.item<bool>() && flag_index.item<int64_t>() == 2));
  auto [kept, kept_index] = mode(tensor({{1.0f, 1.0f, 2.0f, 2.0f}}), 1, true);
  CHECK((kept.sizes() == IntArrayRef({1, 1}) && kept.item<float>() == 1 && kept_index.item<int64_t>() == 1));
  auto [scalar, scalar_index] = mode(tensor(4.0));
  CHECK((scalar.dim() == 0 && scalar.item<double>() == 4 && scalar_index.item<int64_t>() == 0));
  CHECK_THROWS_WITH(mode(empty({0})), "mode(): Expected reduction dim 0 to have non-zero size.");
  // The gradient goes to the element the index names.
  const Tensor x = tensor({1.0, 3.0, 3.0, 2.0}, requires_grad());
  std::get<0>(mode(x, 0)).backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{0, 0, 1, 0});
}

TEST_CASE("composed: angle of real numbers, with a zero gradient") {
  const Tensor a = angle(tensor({-1.0f, 0.0f, 2.0f, std::nanf("")}));
  CHECK(a.dtype() == kFloat);
  const std::vector<double> got = dvalues(a);
  CHECK(got[0] == double(float(M_PI)));
  CHECK((got[1] == 0 && got[2] == 0 && std::isnan(got[3])));
  CHECK(angle(tensor({-1, 2})).dtype() == kFloat);
  CHECK(dvalues(tensor({-1, 2}).angle()) == std::vector<double>{double(float(M_PI)), 0});
  const Tensor x = tensor({-1.0, 2.0}, requires_grad());
  angle(x).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{0, 0});
}
