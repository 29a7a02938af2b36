// isclose and allclose: the closeness rule, infinities and NaN, exact integers,
// broadcasting, and libtorch's errors (mixed dtypes, negative tolerances).
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

namespace {
const double kInf = INFINITY, kNan = NAN;
}  // namespace

TEST_CASE("compare: isclose is |a - b| <= atol + rtol * |b|, elementwise, as bool") {
  Tensor a = tensor({1.0, 1.0, 100.0, 100.0, 0.0});
  Tensor b = tensor({1.000001, 1.1, 101.0, 102.0, 1e-9});
  Tensor r = isclose(a, b);
  CHECK(r.dtype() == kBool);
  CHECK(dvalues(r) == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(dvalues(isclose(a, b, 0.01, 0)) == std::vector<double>{1, 0, 1, 0, 0});
  CHECK(dvalues(a.isclose(b, 0, 1.5)) == std::vector<double>{1, 1, 1, 0, 1});
  // The tolerance is relative to the second argument.
  CHECK(dvalues(isclose(tensor({1.0}), tensor({2.0}), 0.5, 0)) == std::vector<double>{1});
  CHECK(dvalues(isclose(tensor({2.0}), tensor({1.0}), 0.5, 0)) == std::vector<double>{0});
  // Broadcasting, and a 0-dim tensor against a vector.
  CHECK(isclose(ones({2, 1}), ones({3})).sizes() == std::vector<int64_t>{2, 3});
  CHECK(dvalues(isclose(full({}, 1.0), tensor({1.0, 2.0}))) == std::vector<double>{1, 0});
  CHECK(isclose(zeros({0}), zeros({0})).numel() == 0);
  CHECK(allclose(zeros({0}), zeros({0})));
}

TEST_CASE("compare: infinities are close only to themselves, NaN only with equal_nan") {
  Tensor a = tensor({kInf, 1.0, kInf, -kInf, kNan, kNan, 1.0});
  Tensor b = tensor({-kInf, kInf, kInf, -kInf, kNan, 1.0, kNan});
  CHECK(dvalues(isclose(a, b)) == std::vector<double>{0, 0, 1, 1, 0, 0, 0});
  CHECK(dvalues(isclose(b, a)) == std::vector<double>{0, 0, 1, 1, 0, 0, 0});
  CHECK(dvalues(isclose(a, b, 1e-5, 1e-8, true)) == std::vector<double>{0, 0, 1, 1, 1, 0, 0});
  // Even an infinite tolerance does not make an infinity close to a finite value.
  CHECK(dvalues(isclose(a, b, 0, kInf)) == std::vector<double>{0, 0, 1, 1, 0, 0, 0});
  CHECK_FALSE(allclose(tensor({kInf}), tensor({-kInf})));
  CHECK_FALSE(allclose(tensor({1.0}), tensor({kInf})));
  CHECK_FALSE(allclose(tensor({kInf}), tensor({1.0})));
  CHECK(allclose(tensor({kInf, -kInf}), tensor({kInf, -kInf})));
  CHECK_FALSE(allclose(tensor({kNan}), tensor({kNan})));
  CHECK(allclose(tensor({kNan}), tensor({kNan}), 1e-5, 1e-8, true));
  for (ScalarType dt : {kHalf, kBFloat16, kDouble}) {
    INFO(name(dt));
    CHECK(dvalues(isclose(a.to(dt), b.to(dt), 1e-5, 1e-8, true)) == std::vector<double>{0, 0, 1, 1, 1, 0, 0});
  }
}

TEST_CASE("compare: integers compare exactly, without rounding through floating point") {
  const int64_t big = int64_t(1) << 53;
  Tensor a = tensor({big + 1, INT64_MAX, INT64_MIN, int64_t(5)});
  Tensor b = tensor({big, INT64_MIN, INT64_MIN, int64_t(7)});
  CHECK(dvalues(isclose(a, b, 0, 0)) == std::vector<double>{0, 0, 1, 0});
  CHECK(dvalues(isclose(a, b, 0, 1)) == std::vector<double>{1, 0, 1, 0});
  CHECK(dvalues(isclose(a, b, 0, 0.5)) == std::vector<double>{0, 0, 1, 0});
  CHECK(dvalues(isclose(a, b, 0, 2)) == std::vector<double>{1, 0, 1, 1});
  CHECK(dvalues(isclose(a, b, 0, kInf)) == std::vector<double>{1, 1, 1, 1});
  CHECK_FALSE(allclose(a, b, 0, 0));
  // The distance is not wrapped in the narrow dtype: 0 and 255 are 255 apart.
  Tensor u = tensor({0, 255}).to(kUInt8), v = tensor({255, 0}).to(kUInt8);
  CHECK(dvalues(isclose(u, v, 0, 254)) == std::vector<double>{0, 0});
  CHECK(dvalues(isclose(u, v, 0, 255)) == std::vector<double>{1, 1});
  Tensor c = tensor({-128, 127}).to(kInt8), d = tensor({127, -128}).to(kInt8);
  CHECK(dvalues(isclose(c, d, 0, 254)) == std::vector<double>{0, 0});
  CHECK(dvalues(isclose(c, d, 0, 255)) == std::vector<double>{1, 1});
  CHECK(dvalues(isclose(tensor({true, false}), tensor({false, false}), 0, 1)) == std::vector<double>{1, 1});
  CHECK(dvalues(isclose(tensor({true, false}), tensor({false, false}), 0, 0.9)) == std::vector<double>{0, 1});
}

TEST_CASE("compare: isclose and allclose reject what libtorch rejects, naming the values") {
  Tensor f = tensor({1.0}), d = tensor({1.0}, kDouble), i = tensor({1});
  CHECK_THROWS_AS(isclose(f, d), InvalidArgument);
  CHECK_THROWS_WITH(isclose(f, d), Catch::StartsWith("isclose: Float did not match Double"));
  CHECK_THROWS_WITH(allclose(i, f), Catch::StartsWith("isclose: Long did not match Float"));
  CHECK_THROWS_WITH(isclose(f, f, -1, 0), Catch::Contains("rtol must be greater than or equal to zero, but got -1"));
  CHECK_THROWS_WITH(isclose(f, f, 0, -0.5), Catch::Contains("atol must be greater than or equal to zero, but got -0.5"));
  CHECK_THROWS_WITH(isclose(f, f, kNan, 0), Catch::Contains("rtol must be greater than or equal to zero, but got nan"));
  CHECK_THROWS_WITH(allclose(ones({2}), ones({3})), Catch::Contains("must match the size of tensor b (3)"));
  CHECK_THROWS_AS(isclose(Tensor(), f), InvalidArgument);
}

TEST_CASE("compare: the tolerance is computed in the operands' dtype, rounded as libtorch rounds it") {
  // float32: 0.1f is within atol = 0.1 of 0, as float32(0.1) is the tolerance (libtorch: true).
  Tensor x = zeros({3});
  CHECK(allclose(0.99 * x + 0.1, 1.0 * x, 1.1, 0.1));
  CHECK(dvalues(isclose(tensor({0.1f}), tensor({0.0f}), 0, 0.1)) == std::vector<double>{1});
  // float64 keeps the exact tolerance: float32's 0.1 is farther than 0.1 from 0.
  Tensor xd = zeros({3}, kDouble);
  CHECK(allclose(0.99 * xd + 0.1, xd, 1.1, 0.1));
  CHECK_FALSE(allclose(tensor({0.1f}).to(kDouble), zeros({1}, kDouble), 0, 0.1));
  // float16 / bfloat16: the tolerances are rounded to the dtype too.
  Tensor h1 = tensor({1.0, 1.0, 2.0, 0.0}).to(kHalf);
  Tensor h2 = tensor({1.0009765625, 1.0009765625, 2.001953125, 1e-4}).to(kHalf);
  CHECK(dvalues(isclose(h2, h1, 1e-5, 1e-4)) == std::vector<double>{0, 0, 0, 1});
  CHECK(dvalues(isclose(h2.to(kDouble), h1.to(kDouble), 1e-5, 1e-4)) == std::vector<double>{0, 0, 0, 0});
  Tensor b1 = tensor({1.0, 256.0}).to(kBFloat16), b2 = tensor({1.0078125, 258.0}).to(kBFloat16);
  CHECK(dvalues(isclose(b1, b2, 0, 7.8e-3)) == std::vector<double>{1, 0});
  CHECK(dvalues(isclose(b1.to(kDouble), b2.to(kDouble), 0, 7.8e-3)) == std::vector<double>{0, 0});
  // A difference that overflows the dtype is never close, whatever the tolerance.
  CHECK_FALSE(allclose(tensor({60000.0}).to(kHalf), tensor({-60000.0}).to(kHalf), 0, kInf));
  CHECK_FALSE(allclose(tensor({3e38f}), tensor({-3e38f}), 0, kInf));
  CHECK(allclose(tensor({3e38}, kDouble), tensor({-3e38}, kDouble), 0, kInf));
  // Integers: the tolerance in the default dtype (float32 here), the difference exact.
  Tensor i1 = tensor({int64_t(16777217), int64_t(100)}), i2 = tensor({int64_t(16777216), int64_t(103)});
  CHECK(dvalues(isclose(i1, i2, 0, 0.99999999)) == std::vector<double>{1, 0});
  CHECK(dvalues(isclose(i1, i2, 0.03, 0)) == std::vector<double>{1, 1});
  set_default_dtype(kDouble);
  Tensor r = isclose(i1, i2, 0, 0.99999999);
  set_default_dtype(kFloat);
  CHECK(dvalues(r) == std::vector<double>{0, 0});
}
