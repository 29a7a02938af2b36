// Integer ops (bitwise, shifts, gcd, lcm) and nextafter, heaviside, ldexp, frexp: known
// values (libtorch 1.13's, from Python), gradients and the errors. The same ops are compared
// with libtorch on random inputs in torch_crosscheck_integer_sets.cpp.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

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
  // The product and its absolute value are taken wide, then narrowed (libtorch's -68).
  CHECK(dvalues(lcm(tensor({-100}, kInt8), tensor({7}, kInt8))) == std::vector<double>{-68});
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

TEST_CASE("integer ops: errors name what was received, inputs untouched") {
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
}
