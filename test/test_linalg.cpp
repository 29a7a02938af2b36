// Square-matrix linear algebra (det, slogdet, logdet, inverse, cholesky, solve,
// matrix_power and torch::linalg's spellings): known values, float64 gradcheck including
// second derivatives, batches, empty matrices and the errors.
// torch_crosscheck_integer_sets.cpp compares the same ops with libtorch.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

namespace {

Tensor conditioned(const Tensor& a) { return a + 3 * eye(a.size(-1), a.options()); }
Tensor spd(const Tensor& b) { return matmul(b, b.mT()) + b.size(-1) * eye(b.size(-1), b.options()); }

}  // namespace

TEST_CASE("linalg: determinants, inverses and factors have the expected values") {
  const Tensor a = tensor({{4.0, 3.0}, {6.0, 3.0}}, kDouble);
  CHECK(det(a).item<double>() == Approx(-6));
  auto [sign, logabs] = slogdet(a);
  CHECK(sign.item<double>() == -1);
  CHECK(logabs.item<double>() == Approx(std::log(6.0)));
  CHECK(std::isnan(logdet(a).item<double>()));
  CHECK(logdet(a.flip({0})).item<double>() == Approx(std::log(6.0)));  // rows swapped: det +6
  CHECK_THAT(dvalues(inverse(a)), Catch::Matchers::Approx(std::vector<double>{-0.5, 0.5, 1.0, -2.0 / 3}));
  // A batch: each matrix on its own; det of a permutation needs the pivoting's sign.
  const Tensor batch =
      stack({eye(3, kDouble) * 2, tensor({{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}}, kDouble)});
  CHECK(dvalues(det(batch)) == std::vector<double>{8, -1});
  CHECK(det(batch).sizes() == IntArrayRef{2});
  const Tensor s = tensor({{4.0, 2.0}, {2.0, 5.0}}, kDouble);
  CHECK_THAT(dvalues(cholesky(s)), Catch::Matchers::Approx(std::vector<double>{2, 0, 1, 2}));
  CHECK_THAT(dvalues(s.cholesky(true)), Catch::Matchers::Approx(std::vector<double>{2, 1, 0, 2}));
  // Only the lower triangle is read.
  CHECK_THAT(dvalues(linalg::cholesky(tensor({{4.0, 99.0}, {2.0, 5.0}}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{2, 0, 1, 2}));
  CHECK_THAT(dvalues(linalg::solve(a, tensor({1.0, 0.0}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{-0.5, 1.0}));
  CHECK_THAT(dvalues(linalg_solve(a, eye(2, kDouble), false)), Catch::Matchers::Approx(dvalues(inverse(a))));
  CHECK_THAT(dvalues(matrix_power(a, 3)), Catch::Matchers::Approx(dvalues(matmul(a, matmul(a, a)))));
  CHECK_THAT(dvalues(a.matrix_power(-2)), Catch::Matchers::Approx(dvalues(matmul(inverse(a), inverse(a)))));
  CHECK(dvalues(a.matrix_power(0)) == std::vector<double>{1, 0, 0, 1});
  // float32 in, float32 out (computed in float64 on the host).
  const Tensor f = rand({3, 5, 5}) + 2 * eye(5);
  CHECK(f.inverse().dtype() == kFloat);
  CHECK(allclose(matmul(f, f.inverse()), eye(5).expand({3, 5, 5}), 1e-5, 1e-5));
  CHECK(allclose(linalg::det(f), det(f.to(kDouble)).to(kFloat)));
  // Singular and empty matrices.
  const Tensor singular = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble);
  CHECK(det(singular).item<double>() == 0);
  CHECK(std::isinf(std::get<1>(slogdet(singular)).item<double>()));
  CHECK(std::get<0>(slogdet(singular)).item<double>() == 0);
  CHECK(det(zeros({0, 0})).item<float>() == 1);
  CHECK(inverse(zeros({4, 0, 0})).sizes() == IntArrayRef{4, 0, 0});
}

TEST_CASE("linalg: gradients pass float64 gradcheck, second derivatives too") {
  CHECK(check([](const variable_list& v) { return det(conditioned(v[0])); }, {input({2, 3, 3})}));
  CHECK(check([](const variable_list& v) { return std::get<1>(slogdet(v[0] * 3)); }, {input({4, 4})}));
  CHECK(check([](const variable_list& v) { return logdet(spd(v[0])); }, {input({3, 3})}));
  CHECK(check([](const variable_list& v) { return inverse(conditioned(v[0])); }, {input({2, 4, 4})}));
  CHECK(check([](const variable_list& v) { return cholesky(spd(v[0])); }, {input({2, 4, 4})}));
  CHECK(check([](const variable_list& v) { return cholesky(spd(v[0]), true); }, {input({3, 3})}));
  CHECK(check([](const variable_list& v) { return linalg::solve(conditioned(v[0]), v[1]); },
              {input({3, 3}), input({3, 2})}));
  CHECK(check([](const variable_list& v) { return linalg::solve(conditioned(v[0]), v[1]); },
              {input({2, 3, 3}), input({2, 3})}));
  CHECK(check(
      [](const variable_list& v) { return matrix_power(v[0], 4) + matrix_power(conditioned(v[0]), -2); },
      {input({3, 3})}));
  CHECK(check_second([](const variable_list& v) { return det(conditioned(v[0])); }, {input({3, 3})}));
  CHECK(check_second([](const variable_list& v) { return inverse(conditioned(v[0])); }, {input({3, 3})}));
  CHECK(check_second([](const variable_list& v) { return cholesky(spd(v[0])); }, {input({3, 3})}));
  // det's gradient at a singular matrix is not implemented (libtorch goes through an SVD).
  const Tensor s = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble).requires_grad_();
  CHECK_THROWS_AS(det(s).backward(), NotImplemented);
}

TEST_CASE("linalg: errors name the op and what was received, inputs untouched") {
  const Tensor singular = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble);
  const std::vector<double> before = dvalues(singular);
  CHECK_THROWS_WITH(inverse(singular),
                    Catch::Contains("linalg.inv: The diagonal element 2 is zero, the inversion could "
                                    "not be completed because the input matrix is singular."));
  CHECK(dvalues(singular) == before);
  CHECK_THROWS_WITH(inverse(zeros({2, 2, 2})),
                    Catch::Contains("(Batch element 0): The diagonal element 1 is zero"));
  CHECK_THROWS_WITH(linalg::solve(singular, ones({2}, kDouble)),
                    Catch::Contains("linalg.solve: The diagonal element 2 "
                                    "is zero, the solve could not be"));
  CHECK_THROWS_WITH(
      cholesky(tensor({{1.0, 2.0}, {2.0, 1.0}})),
      Catch::Contains("cholesky: The factorization could not be completed because the input is not "
                      "positive-definite (the leading minor of order 2 is not positive-definite)."));
  CHECK_THROWS_WITH(
      det(ones({2, 3})),
      Catch::Contains("linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"));
  CHECK_THROWS_WITH(det(ones({3})),
                    Catch::Contains("linalg.det: The input tensor A must have at least 2 dimensions."));
  CHECK_THROWS_WITH(det(ones({2, 2}, kLong)),
                    Catch::Contains("Expected a floating point or complex tensor as input. Got Long"));
  CHECK_THROWS_WITH(
      linalg::solve(ones({2, 2}), ones({3})),
      Catch::Contains("linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)"));
  CHECK_THROWS_WITH(matrix_power(ones({2, 3}), 2),
                    Catch::Contains("linalg.matrix_power: A must be batches of square matrices"));
}
