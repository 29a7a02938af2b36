// Integer ops (bitwise, shifts, gcd, lcm, nextafter, heaviside, ldexp, frexp), writes at
// indexed positions, distinct values, statistics, windows and matrices from pieces: known
// values (libtorch 1.13's, from Python), float64 gradcheck and the errors. The same ops are
// compared with libtorch on random inputs in torch_crosscheck_integer_sets.cpp.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

namespace {

std::vector<double> close_to(const Tensor& t) { return dvalues(t); }

}  // namespace

TEST_CASE("integer ops: bitwise, shifts, gcd and lcm give libtorch's values") {
  const Tensor a = tensor({5, -3, 12}), b = tensor({3, 6, 10});
  CHECK(dvalues(a & b) == std::vector<double>{1, 4, 8});
  CHECK(dvalues(a | b) == std::vector<double>{7, -1, 14});
  CHECK(dvalues(a ^ b) == std::vector<double>{6, -5, 6});
  CHECK(dvalues(~a) == std::vector<double>{-6, 2, -13});
  CHECK(dvalues(a.bitwise_left_shift(2)) == std::vector<double>{20, -12, 48});
  CHECK(dvalues(bitwise_right_shift(a, 1)) == std::vector<double>{2, -2, 6});
  CHECK(dvalues(bitwise_left_shift(a, b)) == std::vector<double>{40, -192, 12288});
  CHECK(dvalues(bitwise_right_shift(a, tensor({1, 70, -1}))) == std::vector<double>{2, -1, 0});
  // Wrapping in narrow types; counts past the width.
  CHECK(dvalues(tensor({1, 2}, kUInt8).bitwise_left_shift(7)) == std::vector<double>{128, 0});
  CHECK(dvalues(tensor({1, 2}, kInt8).bitwise_left_shift(7)) == std::vector<double>{-128, 0});
  CHECK(dvalues(tensor({5, -5}, kInt32).bitwise_right_shift(40)) == std::vector<double>{0, -1});
  CHECK(dvalues(tensor({5}, kUInt8).bitwise_right_shift(9)) == std::vector<double>{0});
  CHECK(dvalues(tensor({5, 5}).bitwise_left_shift(tensor({64, -1}))) == std::vector<double>{0, 0});
  CHECK(dvalues(~tensor({0, 255}, kUInt8)) == std::vector<double>{255, 0});
  // bool: logical results in bool; with an integer, the integer type.
  const Tensor p = tensor({true, false}), q = tensor({true, true});
  CHECK((p & q).dtype() == kBool);
  CHECK(dvalues(p ^ q) == std::vector<double>{0, 1});
  CHECK(dvalues(~p) == std::vector<double>{0, 1});
  CHECK(dvalues(p & tensor({1, 3})) == std::vector<double>{1, 0});
  CHECK((p & tensor({1, 3})).dtype() == kLong);
  CHECK(dvalues(p | 1) == std::vector<double>{1, 1});
  CHECK(dvalues(tensor({3}, kUInt8) & 300) == std::vector<double>{0});
  // gcd is non-negative, lcm is 0 when either is.
  CHECK(dvalues(gcd(tensor({0, -12, 7, 0}), tensor({0, 18, -21, -5}))) == std::vector<double>{0, 6, 7, 5});
  CHECK(dvalues(lcm(tensor({0, -12, 7, 4}), tensor({5, 18, -21, -6}))) == std::vector<double>{0, 36, 21, 12});
  // In place, through the operators, writing into the left operand.
  Tensor x = tensor({12, 10}, kInt32);
  Tensor& same = (x &= tensor({10, 6}, kInt32));
  CHECK(&same == &x);
  x |= 1;
  x ^= tensor({3, 3}, kInt32);
  CHECK(dvalues(x) == std::vector<double>{10, 0});
  CHECK(x.dtype() == kInt32);
  CHECK(dvalues(x.gcd_(tensor({4, 6}, kInt32))) == std::vector<double>{2, 6});
  CHECK(dvalues(x.bitwise_not_()) == std::vector<double>{-3, -7});
}

TEST_CASE("integer ops: nextafter, heaviside, ldexp and frexp") {
  const Tensor n = nextafter(tensor({1.0f, 0.0f}), tensor({2.0f, -1.0f}));
  CHECK(n[0].item<float>() == std::nextafter(1.0f, 2.0f));
  CHECK(n[1].item<float>() == -std::numeric_limits<float>::denorm_min());
  CHECK(nextafter(tensor({1.0}, kDouble), tensor({0.0}, kDouble)).item<double>() == std::nextafter(1.0, 0.0));
  CHECK(dvalues(heaviside(tensor({-1.0, 0.0, 2.0}), tensor({0.5}))) == std::vector<double>{0, 0.5, 1});
  CHECK(dvalues(heaviside(tensor({0, 3, -2}), tensor({7}))) == std::vector<double>{7, 1, 0});
  CHECK(dvalues(ldexp(tensor({1.0, 2.0}), tensor({3, -1}))) == std::vector<double>{8, 1});
  CHECK(ldexp(tensor({1, 2}, kInt32), tensor({3, -1})).dtype() == kFloat);

  auto [m, e] = frexp(tensor({8.0f, 0.3f, 0.0f, -5.0f, INFINITY, -0.0f, 1e-45f, 3.4e38f}));
  CHECK(e.dtype() == kInt32);
  CHECK(dvalues(e) == std::vector<double>{4, -1, 0, 3, 0, 0, -148, 128});
  const std::vector<double> mv = dvalues(m);
  CHECK(mv[0] == 0.5);
  CHECK(mv[1] == Approx(0.6).epsilon(1e-6));
  CHECK(mv[2] == 0);
  CHECK(mv[3] == -0.625);
  CHECK(std::isinf(mv[4]));
  CHECK(std::signbit(mv[5]));
  CHECK(mv[6] == 0.5);
  CHECK(mv[7] == Approx(0.99915).epsilon(1e-4));
  auto [dm, de] = frexp(tensor({1e-320, 1.7e308, std::numeric_limits<double>::quiet_NaN()}, kDouble));
  CHECK(dvalues(de) == std::vector<double>{-1063, 1024, 0});
  CHECK(std::ldexp(dvalues(dm)[0], -1063) == 1e-320);
  CHECK(std::isnan(dvalues(dm)[2]));
  // Every mantissa is in [0.5, 1) and puts the value back together exactly.
  const Tensor r = randn({2000}, kDouble) * pow(10.0, randint(-30, 30, {2000}, kInt64).to(kDouble));
  auto [rm, re] = frexp(r);
  CHECK(((rm.abs() >= 0.5).logical_and(rm.abs() < 1)).all().item<bool>());
  CHECK(equal(ldexp(rm, re), r));
  // The mantissa's gradient is 1 / 2^e; the exponent has none.
  CHECK(check([](const variable_list& v) { return std::get<0>(frexp(v[0] * 7)); }, {input({6})}));
  CHECK(check([](const variable_list& v) { return ldexp(v[0], tensor({2, -3, 0})); }, {input({3})}));
}

TEST_CASE("indexed writes: index_fill, masked_scatter, put and scatter_reduce values") {
  const Tensor x = arange(12.0, kDouble).reshape({3, 4});
  CHECK(dvalues(x.index_fill(1, tensor({0, -1}), -1.0)) ==
        std::vector<double>{-1, 1, 2, -1, -1, 5, 6, -1, -1, 9, 10, -1});
  CHECK(dvalues(index_fill(x, 0, tensor(1), full({}, 7.0, kDouble))) ==
        std::vector<double>{0, 1, 2, 3, 7, 7, 7, 7, 8, 9, 10, 11});
  const Tensor mask = tensor({true, false, true});
  CHECK(dvalues(zeros({2, 3}).masked_scatter(mask, arange(4.0))) == std::vector<double>{0, 0, 1, 2, 0, 3});
  CHECK(dvalues(zeros({2, 3}).masked_scatter(tensor({{true, false, true}, {false, true, false}}),
                                             arange(6.0))) == std::vector<double>{0, 0, 1, 0, 2, 0});
  CHECK(dvalues(zeros({3}).put(tensor({0, -1, 0}), tensor({1.0f, 2.0f, 3.0f}), true)) ==
        std::vector<double>{4, 0, 2});
  CHECK(dvalues(zeros({2, 2}).put(tensor({3, 0}), tensor({1.0f, 2.0f}))) == std::vector<double>{2, 0, 0, 1});

  const Tensor s = tensor({1.0, 5.0, 2.0, 8.0, 3.0}), i = tensor({0, 1, 0, 1, 2}),
               b = tensor({4.0, 3.0, 2.0, 1.0});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "sum")) == std::vector<double>{7, 16, 5, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "sum", false)) == std::vector<double>{3, 13, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "prod")) == std::vector<double>{8, 120, 6, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "prod", false)) == std::vector<double>{2, 40, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "mean", false)) == std::vector<double>{1.5, 6.5, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amax")) == std::vector<double>{4, 8, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amax", false)) == std::vector<double>{2, 8, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amin")) == std::vector<double>{1, 3, 2, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amin", false)) == std::vector<double>{1, 5, 3, 1});
  const std::vector<double> mean = dvalues(b.scatter_reduce(0, i, s, "mean"));
  CHECK(mean[0] == Approx(7.0 / 3));
  CHECK(mean[1] == Approx(16.0 / 3));
  // Integer mean rounds down; NaN wins amax.
  CHECK(dvalues(tensor({4, 3, 2, 1}).scatter_reduce(0, i, tensor({1, 5, 2, 8, 3}), "mean")) ==
        std::vector<double>{2, 5, 2, 1});
  CHECK(std::isnan(dvalues(b.scatter_reduce(0, tensor({0}), tensor({NAN}), "amax"))[0]));
  // In place.
  Tensor y = b.clone();
  y.scatter_reduce_(0, i, s, "amax", false);
  CHECK(dvalues(y) == std::vector<double>{2, 8, 3, 1});
  Tensor z = x.clone();
  z.index_fill_(0, tensor({2}), 0.5)
      .masked_scatter_(tensor({false, true, false, false}), tensor({-1.0, -2.0, -3.0}, kDouble));
  CHECK(dvalues(z) == std::vector<double>{0, -1, 2, 3, 4, -2, 6, 7, 0.5, -3, 0.5, 0.5});
}

TEST_CASE("indexed writes: gradients pass float64 gradcheck, ties and zeros included") {
  const Tensor idx = randint(0, 3, {5, 4}, kInt64);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      INFO(reduce << (include_self ? "" : " without self"));
      CHECK(check(
          [&](const variable_list& v) { return v[0].scatter_reduce(0, idx, v[1], reduce, include_self); },
          {input({3, 4}), input({5, 4})}));
    }
  }
  // Ties share the gradient evenly (self's 5 and both 5s of src); prod's zeros take the
  // product of the others (libtorch's values).
  const Tensor self = tensor({1.0, 5.0, 0.0, 2.0}).requires_grad_();
  const Tensor src = tensor({5.0, 5.0, 0.5, 1.0, 0.0, 3.0}).requires_grad_();
  const Tensor index = tensor({1, 1, 0, 0, 2, 2});
  self.scatter_reduce(0, index, src, "amax").backward(tensor({1.0, 3.0, 1.0, 1.0}));
  CHECK(dvalues(self.grad()) == std::vector<double>{0.5, 1, 0, 1});
  CHECK(dvalues(src.grad()) == std::vector<double>{1, 1, 0, 0.5, 0, 1});
  self.mutable_grad() = Tensor();
  src.mutable_grad() = Tensor();
  self.scatter_reduce(0, index, src, "prod").backward(ones({4}, kDouble));
  CHECK(dvalues(self.grad()) == std::vector<double>{0.5, 25, 0, 1});
  CHECK(dvalues(src.grad()) == std::vector<double>{25, 25, 1, 0.5, 0, 0});

  CHECK(check(
      [](const variable_list& v) {
        return v[0].index_fill(1, tensor({0, 2, 0}), v[1]);
      },
      {input({3, 4}), input({})}));
  CHECK(check(
      [](const variable_list& v) {
        return v[0].masked_scatter(tensor({true, false, true, true}), v[1]);
      },
      {input({3, 4}), input({10})}));
  CHECK(check(
      [](const variable_list& v) {
        return v[0].put(tensor({0, 5, -1, 5}), v[1], true);
      },
      {input({3, 4}), input({4})}));
  // A mask with no trues still gives source a (zero) gradient, as libtorch's.
  const Tensor source = input({3});
  zeros({2}, kDouble).masked_scatter(zeros({2}, kBool), source).sum().backward();
  REQUIRE(source.grad().defined());
  CHECK(dvalues(source.grad()) == std::vector<double>{0, 0, 0});
}

TEST_CASE("distinct values: unique, unique_consecutive and unique_dim") {
  const Tensor x = tensor({{3, 1, 3}, {2, 1, 2}});
  auto [v, inv, cnt] = _unique2(x, true, true, true);
  CHECK(dvalues(v) == std::vector<double>{1, 2, 3});
  CHECK(inv.sizes() == x.sizes());
  CHECK(dvalues(inv) == std::vector<double>{2, 0, 2, 1, 0, 1});
  CHECK(dvalues(cnt) == std::vector<double>{2, 2, 2});
  auto [v2, inv2, cnt2] = _unique2(x);
  CHECK(inv2.numel() == 0);
  CHECK(cnt2.numel() == 0);
  auto [cv, cinv, ccnt] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1}), true, true);
  CHECK(dvalues(cv) == std::vector<double>{1, 2, 3, 1});
  CHECK(dvalues(cinv) == std::vector<double>{0, 0, 1, 1, 2, 3, 3});
  CHECK(dvalues(ccnt) == std::vector<double>{2, 2, 1, 2});
  const Tensor rows = tensor({{1, 2}, {0, 5}, {1, 2}});
  auto [dv, dinv, dcnt] = unique_dim(rows, 0, true, true, true);
  CHECK(dvalues(dv) == std::vector<double>{0, 5, 1, 2});
  CHECK(dvalues(dinv) == std::vector<double>{1, 0, 1});
  CHECK(dvalues(dcnt) == std::vector<double>{1, 2});
  auto [qv, qinv, qcnt] = tensor({{1, 2}, {1, 2}, {0, 5}, {1, 2}}).unique_consecutive(true, true, 0);
  CHECK(dvalues(qv) == std::vector<double>{1, 2, 0, 5, 1, 2});
  CHECK(dvalues(qinv) == std::vector<double>{0, 0, 1, 2});
  CHECK(dvalues(qcnt) == std::vector<double>{2, 1, 1});
  // Each NaN is a value of its own (libtorch 1.13 gives wrong inverse and counts here).
  auto [nv, ninv, ncnt] = _unique2(tensor({NAN, 1.0f, NAN}), true, true, true);
  CHECK(nv.numel() == 3);
  CHECK(dvalues(ninv) == std::vector<double>{1, 0, 2});
  CHECK(dvalues(ncnt) == std::vector<double>{1, 1, 1});
  auto [bv, binv, bcnt] = _unique2(tensor({true, false, true}), true, true, true);
  CHECK(bv.dtype() == kBool);
  CHECK(dvalues(bcnt) == std::vector<double>{1, 2});
  auto [sv, sinv, scnt] = _unique2(scalar_tensor(5, kLong), true, true, true);
  CHECK(sinv.dim() == 0);
  CHECK(dvalues(scnt) == std::vector<double>{1});
  auto [ev, einv, ecnt] = _unique2(empty({0}), true, true, true);
  CHECK(ev.numel() == 0);
  CHECK(ecnt.numel() == 0);
}

TEST_CASE("statistics: cov, corrcoef, trapezoid and windows give libtorch's values") {
  const Tensor obs = tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.5}});
  CHECK(cov(obs).dtype() == kFloat);  // a literal of doubles is float, as libtorch's
  CHECK_THAT(close_to(cov(obs)),
             Catch::Matchers::Approx(std::vector<double>{1.0, -0.75, -0.75, 0.583333333333}).epsilon(1e-6));
  CHECK_THAT(
      close_to(cov(obs, 0, tensor({1, 2, 1}), tensor({0.5, 1.0, 2.0}))),
      Catch::Matchers::Approx(std::vector<double>{0.444444444, -0.296296296, -0.296296296, 0.209876543})
          .epsilon(1e-6));
  CHECK(cov(tensor({0.0, 1.0, 2.0})).item<double>() == Approx(1.0));
  CHECK(cov(tensor({1, 2, 4})).dtype() == kFloat);
  CHECK(cov(tensor({1, 2, 4})).item<float>() == Approx(2.33333f));
  CHECK_THAT(close_to(corrcoef(obs)),
             Catch::Matchers::Approx(std::vector<double>{1, -0.981980506, -0.981980506, 1}).epsilon(1e-6));
  CHECK(trapz(tensor({1.0, 2.0, 4.0}), tensor({0.0, 1.0, 3.0})).item<double>() == 7.5);
  CHECK(trapz(tensor({1.0, 2.0, 4.0}), 0.5).item<double>() == 2.25);
  CHECK(trapezoid(tensor({1, 2, 4})).item<float>() == 4.5f);
  CHECK(dvalues(cumulative_trapezoid(tensor({1.0, 2.0, 4.0}))) == std::vector<double>{1.5, 4.5});
  CHECK(dvalues(cumulative_trapezoid(tensor({{1.0, 2.0, 4.0}}), tensor({0.0, 1.0, 3.0}))) ==
        std::vector<double>{1.5, 7.5});
  CHECK(check([](const variable_list& v) { return cov(v[0]); }, {input({3, 5})}));
  CHECK(check([](const variable_list& v) { return corrcoef(v[0]); }, {input({3, 5})}));
  CHECK(check([](const variable_list& v) { return trapezoid(v[0], v[1].cumsum(1), 1); },
              {input({2, 5}), input({2, 5}, 0.1, 1)}));

  CHECK_THAT(
      close_to(hann_window(5)),
      Catch::Matchers::Approx(std::vector<double>{0, 0.345491502, 0.904508497, 0.904508497, 0.345491502})
          .margin(1e-7));
  CHECK_THAT(close_to(hann_window(5, false)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5, 0}).margin(1e-7));
  CHECK_THAT(close_to(hamming_window(4, true, 0.5, 0.5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5}).margin(1e-7));
  CHECK_THAT(close_to(blackman_window(5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.20077014, 0.84922986, 0.84922986, 0.20077014})
                 .margin(1e-7));
  CHECK_THAT(close_to(bartlett_window(5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.4, 0.8, 0.8, 0.4}).margin(1e-7));
  CHECK(dvalues(hann_window(1)) == std::vector<double>{1});
  CHECK(hann_window(0).numel() == 0);
  CHECK(hann_window(4, kDouble).dtype() == kDouble);
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

TEST_CASE("integer ops and indexed writes: errors name what was received, inputs untouched") {
  const Tensor f = ones({3}), i = tensor({1, 2, 3});
  CHECK_THROWS_AS(bitwise_and(f, f), NotImplemented);
  CHECK_THROWS_WITH(bitwise_and(f, f), Catch::Contains("\"bitwise_and_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(~f, Catch::Contains("\"bitwise_not_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(i & 1.5, Catch::Contains("not implemented for 'Float'"));
  CHECK_THROWS_WITH(bitwise_left_shift(tensor({true}), tensor({true})),
                    Catch::Contains("\"lshift_cpu\" not implemented for 'Bool'"));
  CHECK(dvalues(bitwise_left_shift(tensor({true}), 1)) ==
        std::vector<double>{2});  // bool and a number: int64
  CHECK_THROWS_WITH(gcd(f, f), Catch::Contains("\"gcd_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(nextafter(i, i), Catch::Contains("\"nextafter_cpu\" not implemented for 'Long'"));
  CHECK_THROWS_WITH(heaviside(i, f), Catch::Contains("different dtypes"));
  CHECK_THROWS_WITH(frexp(i), Catch::Contains("only supports floating-point dtypes"));
  CHECK_THROWS_AS(nextafter(f.clone().requires_grad_(), f), NotImplemented);
  // In place into a narrower type: the result type must cast (int64 into bool does not).
  Tensor flags = tensor({true, false});
  CHECK_THROWS(flags.bitwise_and_(tensor({1, 1})));
  CHECK(dvalues(flags) == std::vector<double>{1, 0});

  Tensor m = arange(12.0).reshape({3, 4});
  const std::vector<double> before = dvalues(m);
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({4}), 1),
                    Catch::Contains("index 4 is out of bounds for dimension 1 with size 4"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({{0}}), 1), Catch::Contains("Index has to be a vector/scalar"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({0.0}), 1), Catch::Contains("Expected dtype int64 for index"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({0}), ones({2})), Catch::Contains("0-dimensional value tensor"));
  CHECK_THROWS_WITH(m.put_(tensor({12}), ones({1})),
                    Catch::Contains("tried to access index 12 on a tensor of 12 elements"));
  CHECK_THROWS_WITH(m.put_(tensor({1, 2}), ones({1})),
                    Catch::Contains("source.numel() = 1, index.numel() = 2"));
  CHECK_THROWS_WITH(m.put_(tensor({1}), ones({1}, kDouble)), Catch::Contains("same dtype"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({4}), ones({4})), Catch::Contains("only supports boolean masks"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({4}, kBool), ones({4})), Catch::Contains("at least 12 elements"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({2, 3, 4}, kBool), ones({24})),
                    Catch::Contains("does not broadcast"));
  CHECK_THROWS_WITH(
      m.scatter_reduce_(0, zeros({1, 4}, kLong), m, "max"),
      Catch::Contains("reduce argument must be either sum, prod, mean, amax or amin. Got max."));
  CHECK_THROWS_WITH(m.scatter_reduce_(0, full({1, 4}, 3, kLong), m, "sum"), Catch::Contains("out of bounds"));
  CHECK(dvalues(m) == before);

  CHECK_THROWS_WITH(
      ones({3}).mT(),
      Catch::Contains("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."));
  CHECK_THROWS_WITH(block_diag({ones({2, 2, 2})}), Catch::Contains("Input 0 has 3 dimensions"));
  CHECK_THROWS_WITH(cartesian_prod({ones({2, 2})}), Catch::Contains("Expect a 1D vector"));
  CHECK_THROWS_WITH(combinations(i, -1), Catch::Contains("Expect a non-negative number, but got -1"));
  CHECK_THROWS_WITH(cov(ones({2, 2, 2})), Catch::Contains("two or fewer dimensions"));
  CHECK_THROWS_WITH(cov(m, 1, ones({4})), Catch::Contains("fweights to have integral dtype"));
  CHECK_THROWS_WITH(cov(m, 1, tensor({1, 1, 1})), Catch::Contains("same numel as there are observations"));
  CHECK_THROWS_WITH(cov(m, 1, tensor({1, -1, 1, 1})), Catch::Contains("fweights cannot be negative"));
  CHECK_THROWS_WITH(cov(m, 1, {}, tensor({1, 1, 1, 1})),
                    Catch::Contains("aweights to have floating point dtype"));
  CHECK_THROWS_WITH(hann_window(3, kLong),
                    Catch::Contains("hann_window expects floating point dtypes, got: Long"));
  CHECK_THROWS_WITH(hann_window(-1), Catch::Contains("non-negative window_length"));
  CHECK_THROWS_WITH(trapz(m, ones({3})), Catch::Contains("one `x` value for each sample point"));
}
