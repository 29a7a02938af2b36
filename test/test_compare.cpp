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
  CHECK_THROWS_WITH(isclose(f, d), Catch::StartsWith("isclose: float32 did not match float64"));
  CHECK_THROWS_WITH(allclose(i, f), Catch::StartsWith("isclose: int64 did not match float32"));
  CHECK_THROWS_WITH(isclose(f, f, -1, 0), Catch::Contains("rtol must be greater than or equal to zero, but got -1"));
  CHECK_THROWS_WITH(isclose(f, f, 0, -0.5), Catch::Contains("atol must be greater than or equal to zero, but got -0.5"));
  CHECK_THROWS_WITH(isclose(f, f, kNan, 0), Catch::Contains("rtol must be greater than or equal to zero, but got nan"));
  CHECK_THROWS_WITH(allclose(ones({2}), ones({3})), Catch::Contains("must match the size of tensor b (3)"));
  CHECK_THROWS_AS(isclose(Tensor(), f), InvalidArgument);
}
