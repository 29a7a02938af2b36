// Square-matrix linear algebra (det, slogdet, logdet, inverse, cholesky, solve,
// matrix_power and torch::linalg's spellings): known values, float64 gradcheck including
// second derivatives, batches, empty matrices and the errors.
// torch_crosscheck_integer_sets.cpp compares the same ops with libtorch.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::check_close;
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
  // matrix_power(a, 1) is a copy, as libtorch's: writing into it leaves a alone.
  Tensor once = a.matrix_power(1);
  once.fill_(0);
  CHECK(dvalues(a) == std::vector<double>{4, 3, 6, 3});
  // upper reads the upper triangle (libtorch's): the 99 below the diagonal is ignored.
  CHECK_THAT(dvalues(cholesky(tensor({{4.0, 2.0}, {99.0, 5.0}}, kDouble), true)),
             Catch::Matchers::Approx(std::vector<double>{2, 1, 0, 2}));
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
  CHECK_THROWS_WITH(inverse(ones({2, 2}, kHalf)),
                    Catch::Contains("linalg.inv: Low precision dtypes not supported. Got Half"));
  CHECK_THROWS_WITH(
      linalg::solve(eye(2), ones({2}, kDouble)),
      Catch::Contains(
          "Expected A and B to have the same dtype, but found A of type Float and B of type Double"));
}

TEST_CASE("linalg: norms, singular values, matrix_exp, cross, multi_dot and vander") {
  const Tensor x = arange(12.0, kDouble).reshape({3, 4});
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(linalg::vector_norm(x).item<double>() == Approx(22.4944382));
  CHECK(linalg::vector_norm(x, 0).item<double>() == 11);
  CHECK(dvalues(linalg::vector_norm(x, inf, IntArrayRef{1})) == std::vector<double>{3, 7, 11});
  CHECK(linalg::matrix_norm(x).item<double>() == Approx(22.4944382));
  CHECK(linalg::matrix_norm(x, 1).item<double>() == 21);
  CHECK(linalg::matrix_norm(x, -inf).item<double>() == 6);
  CHECK(linalg::matrix_norm(x, 2).item<double>() == Approx(22.4092982));
  CHECK(linalg::matrix_norm(x, "nuc").item<double>() == Approx(24.3646214));
  CHECK(linalg::norm(x, 1).item<double>() == 21);
  CHECK(linalg::norm(ones({3}, kDouble), 1).item<double>() == 3);
  CHECK(linalg::norm(ones({2, 2, 2}, kDouble)).item<double>() == Approx(std::sqrt(8.0)));
  CHECK(dist(x, zeros({4}, kDouble), 3).item<double>() == Approx(16.3316));
  CHECK(frobenius_norm(x).item<double>() == Approx(22.4944382));
  // Singular values of a diagonal matrix, a rank-1 one and a wide one.
  CHECK(dvalues(linalg::svdvals(tensor({{0.0, 3.0}, {-2.0, 0.0}}, kDouble))) == std::vector<double>{3, 2});
  CHECK_THAT(dvalues(linalg::svdvals(ones({3, 2}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{std::sqrt(6.0), 0}).margin(1e-12));
  CHECK_THAT(dvalues(linalg::svdvals(x.t())), Catch::Matchers::Approx(dvalues(linalg::svdvals(x))));
  CHECK_THAT(
      dvalues(x.renorm(2, 0, 5)),
      Catch::Matchers::Approx(std::vector<double>{0, 1, 2, 3, 1.7817416, 2.2271770, 2.6726124, 3.1180478,
                                                  2.0908334, 2.3521876, 2.6135418, 2.8748960})
          .epsilon(1e-6));
  CHECK(dvalues(linalg::cross(ones({2, 3}, kDouble), arange(6.0, kDouble).reshape({2, 3}))) ==
        std::vector<double>{1, -2, 1, 1, -2, 1});
  CHECK(dvalues(cross(ones({3, 3}, kDouble), arange(9.0, kDouble).reshape({3, 3}))) ==
        std::vector<double>{3, 3, 3, -6, -6, -6, 3, 3, 3});
  CHECK(dvalues(linalg::vecdot(x, x)) == std::vector<double>{14, 126, 366});
  CHECK(linalg::multi_dot({ones({3}), ones({3, 2}), ones({2})}).item<float>() == 6);
  CHECK(dvalues(linalg::multi_dot({ones({2, 3}), ones({3})})) == std::vector<double>{3, 3});
  CHECK(dvalues(vander(tensor({1, 2, 3}))) == std::vector<double>{1, 1, 1, 4, 2, 1, 9, 3, 1});
  CHECK(dvalues(vander(tensor({1.0, 2.0, 3.0}), 2, true)) == std::vector<double>{1, 1, 1, 2, 1, 3});
  const Tensor rotation = matrix_exp(tensor({{0.0, 1.0}, {-1.0, 0.0}}, kDouble));
  CHECK_THAT(dvalues(rotation), Catch::Matchers::Approx(std::vector<double>{std::cos(1.0), std::sin(1.0),
                                                                            -std::sin(1.0), std::cos(1.0)})
                                    .margin(1e-14));
  CHECK_THAT(dvalues(matrix_exp(tensor({{3.0}}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{std::exp(3.0)}).epsilon(1e-14));
  CHECK(check([](const variable_list& v) { return linalg::svdvals(v[0]); }, {input({4, 3})}));
  CHECK(check(
      [](const variable_list& v) { return linalg::matrix_norm(v[0], "nuc") + linalg::matrix_norm(v[0], 2); },
      {input({2, 3, 4})}));
  CHECK(check([](const variable_list& v) { return linalg::vector_norm(v[0], 3, IntArrayRef{0}); },
              {input({3, 4})}));
  CHECK(check([](const variable_list& v) { return v[0].renorm(2, 1, 0.5); }, {input({3, 4})}));
  CHECK(check([](const variable_list& v) { return matrix_exp(v[0]); }, {input({3, 3})}));
  CHECK(check([](const variable_list& v) { return linalg::cross(v[0], v[1]); },
              {input({2, 3}), input({2, 3})}));
  CHECK_THROWS_WITH(linalg::matrix_norm(x, 3), Catch::Contains("linalg.matrix_norm: Order 3 not supported."));
  CHECK_THROWS_WITH(linalg::vector_norm(tensor({1, 2})),
                    Catch::Contains("Expected a floating point or complex tensor as input. Got Long"));
  CHECK_THROWS_WITH(linalg::norm(ones({2, 2, 2}), 1), Catch::Contains("the input must be 1D or 2D. Got 3D."));
  CHECK_THROWS_WITH(linalg::cross(ones({2, 4}), ones({2, 4})),
                    Catch::Contains("must have length 3. Got 4 and 4"));
  CHECK_THROWS_WITH(linalg::multi_dot({ones({2, 2})}),
                    Catch::Contains("expected at least 2 tensors but got 1"));
  CHECK_THROWS_WITH(vander(ones({2, 2})), Catch::Contains("x must be a one-dimensional tensor."));
  CHECK_THROWS_WITH(matrix_exp(ones({2, 3})), Catch::Contains("A must be batches of square matrices"));
}

namespace {

double max_error(const Tensor& a, const Tensor& b) { return (a - b).abs().max().item<double>(); }
Tensor eye_like(const Tensor& a) { return eye(a.size(-1), a.options()); }

}  // namespace

TEST_CASE("linalg: eigh, svd, qr, pinv and triangular solves have the expected values") {
  // eigh: ascending values, orthonormal vectors, one triangle read.
  const Tensor s = tensor({{2.0, 1.0}, {1.0, 2.0}}, kDouble);
  auto [l, v] = linalg::eigh(s);
  CHECK_THAT(dvalues(l), Catch::Matchers::Approx(std::vector<double>{1, 3}));
  CHECK_THAT(dvalues(v.abs()), Catch::Matchers::Approx(std::vector<double>(4, std::sqrt(0.5))));
  CHECK_THAT(dvalues(linalg::eigvalsh(tensor({{2.0, 99.0}, {1.0, 2.0}}, kDouble))),
             Catch::Matchers::Approx(std::vector<double>{1, 3}));
  CHECK_THAT(dvalues(linalg::eigvalsh(tensor({{2.0, 1.0}, {99.0, 2.0}}, kDouble), "U")),
             Catch::Matchers::Approx(std::vector<double>{1, 3}));
  const Tensor b = rand({3, 5, 5}, kDouble), sym = b + b.mT();
  auto [bl, bv] = linalg::eigh(sym);
  CHECK(max_error(matmul(bv * bl.unsqueeze(-2), bv.mT()), sym) < 1e-12);
  CHECK(max_error(matmul(bv.mT(), bv), eye(5, kDouble)) < 1e-12);
  CHECK(bool((bl.narrow(-1, 1, 4) >= bl.narrow(-1, 0, 4)).all().item<bool>()));

  // svd: U S Vh rebuilds A in every shape; U and Vh are orthonormal, also when A is singular.
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 5, 3}, {2, 3, 5}, {4, 4}})
    for (bool full : {true, false}) {
      INFO("shape " << shape[0] << "x" << shape[1] << ", full_matrices " << full);
      const Tensor a = randn(shape, kDouble);
      auto [u, sv, vh] = linalg::svd(a, full);
      const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
      CHECK(u.size(-1) == (full ? m : k));
      CHECK(vh.size(-2) == (full ? n : k));
      CHECK(max_error(matmul(u.narrow(-1, 0, k) * sv.unsqueeze(-2), vh.narrow(-2, 0, k)), a) < 1e-12);
      CHECK(max_error(matmul(u.mT(), u), eye_like(u)) < 1e-12);
      CHECK(max_error(matmul(vh, vh.mT()), eye(vh.size(-2), kDouble)) < 1e-12);
      CHECK(max_error(sv, linalg::svdvals(a)) < 1e-12);
    }
  const Tensor singular = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble);
  auto [su, ss, sv] = svd(singular);  // torch::svd: V, not Vh
  CHECK_THAT(dvalues(ss), Catch::Matchers::Approx(std::vector<double>{5, 0}).margin(1e-12));
  CHECK(max_error(matmul(su.mT(), su), eye(2, kDouble)) < 1e-12);
  CHECK(max_error(matmul(su * ss.unsqueeze(-2), sv.mT()), singular) < 1e-12);
  auto [zu, zs, zv] = svd(randn({3, 2}, kDouble), true, false);
  CHECK(zu.sizes() == IntArrayRef{3, 3});
  CHECK(zv.sizes() == IntArrayRef{2, 2});
  CHECK(zu.abs().sum().item<double>() == 0);

  // qr: LAPACK's signs (numpy.linalg.qr of the same matrix).
  auto [q, r] = linalg::qr(tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble));
  CHECK_THAT(dvalues(q),
             Catch::Matchers::Approx(std::vector<double>{-0.31622776601683794, -0.9486832980505138,
                                                         -0.9486832980505138, 0.31622776601683794}));
  CHECK_THAT(dvalues(r), Catch::Matchers::Approx(std::vector<double>{-3.1622776601683795, -4.427188724235731,
                                                                     0, -0.6324555320336759})
                             .margin(1e-15));
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 5, 3}, {3, 5}})
    for (const char* mode : {"reduced", "complete"}) {
      INFO(mode << " " << shape[shape.size() - 2] << "x" << shape.back());
      const Tensor a = randn(shape, kDouble);
      auto [qq, rr] = linalg::qr(a, mode);
      CHECK(max_error(matmul(qq, rr), a) < 1e-12);
      CHECK(max_error(matmul(qq.mT(), qq), eye_like(qq)) < 1e-12);
      CHECK(max_error(rr, rr.triu()) == 0);
    }
  auto [rq, rr] = linalg::qr(ones({3, 2}), "r");
  CHECK(rq.numel() == 0);
  CHECK(rr.sizes() == IntArrayRef{2, 2});

  // pinv: a rank-1 matrix's pseudo-inverse is A / |A|_F^2; a full-rank tall one's (A^T A)^-1 A^T.
  CHECK(max_error(linalg::pinv(singular), singular / 25) < 1e-12);
  CHECK(max_error(singular.pinverse(), singular / 25) < 1e-12);
  CHECK(max_error(linalg::pinv(singular, 1e-15, true), singular / 25) < 1e-12);
  const Tensor tall = randn({5, 3}, kDouble);
  CHECK(max_error(linalg::pinv(tall), matmul(inverse(matmul(tall.mT(), tall)), tall.mT())) < 1e-12);
  // A cutoff above the largest singular value leaves zeros.
  CHECK(linalg::pinv(singular, std::optional<double>{}, std::optional<double>{1.5})
            .abs()
            .max()
            .item<double>() == 0);

  // Triangular systems.
  const Tensor u2 = tensor({{2.0, 1.0}, {0.0, 4.0}}, kDouble);
  CHECK_THAT(dvalues(linalg::solve_triangular(u2, tensor({{4.0}, {8.0}}, kDouble), true)),
             Catch::Matchers::Approx(std::vector<double>{1, 2}));
  // Only the triangle is read; unitriangular takes ones on the diagonal.
  CHECK_THAT(dvalues(linalg::solve_triangular(u2 + tensor({{0.0, 0.0}, {99.0, 0.0}}, kDouble),
                                              tensor({{4.0}, {8.0}}, kDouble), true, true, true)),
             Catch::Matchers::Approx(std::vector<double>{-4, 8}));
  const Tensor lower = randn({2, 4, 4}, kDouble).tril() + 4 * eye(4, kDouble), rhs = randn({4, 3}, kDouble);
  CHECK(max_error(matmul(lower, linalg::solve_triangular(lower, rhs, false)), rhs.expand({2, 4, 3})) < 1e-12);
  const Tensor right = randn({3, 4}, kDouble);
  CHECK(max_error(matmul(linalg::solve_triangular(lower, right, false, false), lower),
                  right.expand({2, 3, 4})) < 1e-12);
  auto [x, a_copy] = rhs.triangular_solve(lower[0].mT(), true, true);  // (L^T)^T X = L X = B
  CHECK(max_error(matmul(lower[0], x), rhs) < 1e-12);
  CHECK(max_error(a_copy, lower[0].mT()) == 0);
  CHECK(a_copy.data_ptr() != lower.data_ptr());
  // Cholesky solves from the factor.
  const Tensor spd_m = matmul(lower[0], lower[0].mT());
  CHECK(max_error(cholesky_solve(rhs, lower[0]), linalg::solve(spd_m, rhs)) < 1e-12);
  CHECK(max_error(rhs.cholesky_solve(lower[0].mT(), true), linalg::solve(spd_m, rhs)) < 1e-12);
  CHECK(max_error(cholesky_inverse(lower[0]), inverse(spd_m)) < 1e-12);
  // float32 in, float32 out.
  CHECK(linalg::eigvalsh(eye(3)).dtype() == kFloat);
  CHECK(std::get<1>(linalg::svd(ones({2, 3}))).dtype() == kFloat);
}

TEST_CASE("linalg: gradients of eigh, svd, qr, pinv and triangular solves pass gradcheck") {
  // Vectors are compared squared (their sign is arbitrary); symmetric inputs as X + X^T.
  CHECK(check(
      [](const variable_list& v) {
        auto [l, vec] = linalg::eigh(v[0] + v[0].mT());
        return cat({l.unsqueeze(-2), vec * vec}, -2);
      },
      {input({2, 4, 4})}));
  CHECK(
      check([](const variable_list& v) { return linalg::eigvalsh(v[0] + v[0].mT(), "U"); }, {input({3, 3})}));
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{5, 3}, {3, 5}, {2, 4, 4}}) {
    INFO("svd of " << shape[shape.size() - 2] << "x" << shape.back());
    CHECK(check(
        [](const variable_list& v) {
          auto [u, s, vh] = linalg::svd(v[0], false);
          return cat({(u * u).flatten(-2), s, (vh * vh).flatten(-2)}, -1);
        },
        {input(shape)}));
    CHECK(check([](const variable_list& v) { return std::get<1>(linalg::svd(v[0])); }, {input(shape)}));
    CHECK(check(
        [](const variable_list& v) {
          auto [q, r] = linalg::qr(v[0]);
          return cat({q.flatten(-2), r.flatten(-2)}, -1);
        },
        {input(shape)}));
    CHECK(check([](const variable_list& v) { return linalg::pinv(v[0]); }, {input(shape)}));
  }
  CHECK(check([](const variable_list& v) { return std::get<1>(linalg::qr(v[0], "complete")); },
              {input({3, 5})}));
  CHECK(check([](const variable_list& v) { return linalg::pinv(v[0] + v[0].mT(), 1e-15, true); },
              {input({3, 3})}));
  const auto tri = [](const Tensor& a, bool upper) {
    return (upper ? a.triu() : a.tril()) + 3 * eye_like(a);
  };
  for (bool upper : {true, false})
    for (bool left : {true, false})
      for (bool unit : {false, true}) {
        INFO("upper " << upper << ", left " << left << ", unitriangular " << unit);
        CHECK(check(
            [&](const variable_list& v) {
              return linalg::solve_triangular(tri(v[0], upper), v[1], upper, left, unit);
            },
            {input({2, 3, 3}), input(left ? std::vector<int64_t>{3, 2} : std::vector<int64_t>{2, 3})}));
      }
  CHECK(check([&](const variable_list& v) { return cholesky_solve(v[0], tri(v[1], false)); },
              {input({3, 2}), input({2, 3, 3})}));
  CHECK(check([&](const variable_list& v) { return cholesky_solve(v[0], tri(v[1], true), true); },
              {input({3, 2}), input({3, 3})}));
  CHECK(check([&](const variable_list& v) { return cholesky_inverse(tri(v[0], false)); }, {input({3, 3})}));
  CHECK(check_second(
      [&](const variable_list& v) { return linalg::solve_triangular(tri(v[0], true), v[1], true); },
      {input({3, 3}), input({3, 2})}));
  CHECK(check_second([](const variable_list& v) { return linalg::pinv(v[0]); }, {input({4, 3})}));
  CHECK(check_second([](const variable_list& v) { return linalg::eigvalsh(v[0] + v[0].mT()); },
                     {input({3, 3})}));
  CHECK(check_second(
      [](const variable_list& v) {
        auto [q, r] = linalg::qr(v[0]);
        return r;
      },
      {input({4, 3})}));
}

TEST_CASE("linalg: eigh, svd, qr and triangular solve errors name what was received") {
  CHECK_THROWS_WITH(
      linalg::eigh(ones({2, 3})),
      Catch::Contains("linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices"));
  CHECK_THROWS_WITH(linalg::eigh(ones({3, 3}), "X"),
                    Catch::Contains("Expected UPLO argument to be 'L' or 'U', but got X"));
  CHECK_THROWS_WITH(linalg::svd(ones({3})),
                    Catch::Contains("linalg.svd: The input tensor A must have at least 2 dimensions."));
  CHECK_THROWS_WITH(linalg::svd(ones({2, 2}, kHalf)),
                    Catch::Contains("Low precision dtypes not supported. Got Half"));
  CHECK_THROWS_WITH(linalg::qr(ones({3, 3}), "bogus"),
                    Catch::Contains("qr received unrecognized mode 'bogus'"));
  CHECK_THROWS_WITH(linalg::solve_triangular(ones({3, 3}), ones({2, 2}), true),
                    Catch::Contains("Incompatible shapes of A and B for the equation AX = B (3x3 and 2x2)"));
  CHECK(linalg::solve_triangular(eye(3), ones({3, 2}, kDouble), true).dtype() == kFloat);  // A's dtype
  CHECK_THROWS_WITH(linalg::solve_triangular(ones({2, 3, 3}), ones({4, 3, 2}), true),
                    Catch::Contains("linalg.solve_triangular"));
  // Differentiating through mode "r" needs Q; "complete" with more rows than columns is not differentiable.
  const Tensor a = rand({4, 3}, kDouble).requires_grad_();
  CHECK_THROWS_WITH(std::get<1>(linalg::qr(a, "r")).sum().backward(),
                    Catch::Contains("The derivative of linalg.qr depends on Q"));
  CHECK_THROWS_WITH(std::get<1>(linalg::qr(a, "complete")).sum().backward(),
                    Catch::Contains("not differentiable when mode='complete' and nrows > ncols"));
  CHECK(a.grad().defined() == false);
}

TEST_CASE("linalg: LU factors, unpacking and LU solves") {
  // LAPACK's getrf (numpy/scipy give the same): the first largest pivot in each column.
  const Tensor a = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 10.0}}, kDouble);
  auto [lu, piv] = linalg::lu_factor(a);
  CHECK(piv.dtype() == kInt);
  CHECK(dvalues(piv) == std::vector<double>{3, 3, 3});
  CHECK_THAT(dvalues(lu), Catch::Matchers::Approx(
                              std::vector<double>{7, 8, 10, 1.0 / 7, 6.0 / 7, 11.0 / 7, 4.0 / 7, 0.5, -0.5}));
  auto [p, l, u] = linalg::lu(a);
  CHECK(dvalues(p) == std::vector<double>{0, 1, 0, 0, 0, 1, 1, 0, 0});
  CHECK(max_error(matmul(p, matmul(l, u)), a) < 1e-14);
  auto [up, ul, uu] = lu_unpack(lu, piv);
  CHECK(max_error(up, p) == 0);
  CHECK(max_error(ul, l) == 0);
  CHECK(max_error(uu, u) == 0);
  // Rectangular, batched.
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 5, 3}, {2, 3, 5}}) {
    const Tensor r = randn(shape, kDouble);
    auto [rp, rl, ru] = linalg::lu(r);
    CHECK(max_error(matmul(rp, matmul(rl, ru)), r) < 1e-13);
    CHECK(rl.size(-1) == std::min(shape[1], shape[2]));
  }
  // Solves in all four forms.
  const Tensor b = randn({3, 2}, kDouble), bt = randn({2, 3}, kDouble);
  CHECK(max_error(linalg::lu_solve(lu, piv, b), linalg::solve(a, b)) < 1e-13);
  CHECK(max_error(linalg::lu_solve(lu, piv, b, true, true), linalg::solve(a.mT(), b)) < 1e-13);
  CHECK(max_error(linalg::lu_solve(lu, piv, bt, false), linalg::solve(a, bt, false)) < 1e-13);
  CHECK(max_error(linalg::lu_solve(lu, piv, bt, false, true), linalg::solve(a.mT(), bt, false)) < 1e-13);
  CHECK(max_error(lu_solve(b, lu, piv), linalg::solve(a, b)) < 1e-13);
  // Gradients: lu (square, wide, tall), lu_factor and lu_solve.
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 3}, {3, 5}, {5, 3}}) {
    INFO("lu of " << shape[0] << "x" << shape[1]);
    CHECK(check(
        [](const variable_list& v) {
          auto [pp, ll, uu2] = linalg::lu(v[0]);
          return cat({ll.flatten(), uu2.flatten()});
        },
        {input(shape)}));
    CHECK(check([](const variable_list& v) { return std::get<0>(linalg::lu_factor(v[0])); }, {input(shape)}));
  }
  CHECK(check(
      [](const variable_list& v) {
        auto [f, pv] = linalg::lu_factor(v[0] + 3 * eye(3, kDouble));
        return linalg::lu_solve(f, pv, v[1]);
      },
      {input({2, 3, 3}), input({3, 2})}));
  CHECK(check_second([](const variable_list& v) { return std::get<2>(linalg::lu(v[0])); }, {input({3, 3})}));
  // Errors.
  CHECK_THROWS_WITH(
      linalg::lu_factor(tensor({{1.0, 2.0}, {2.0, 4.0}})),
      Catch::Contains("torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result "
                      "in a division by zero."));
  CHECK_THROWS_WITH(linalg::lu_factor(zeros({2, 2, 2})),
                    Catch::Contains("(Batch element 0): U[1,1] is zero"));
  CHECK_THROWS_AS(linalg::lu(a, false), NotImplemented);
  CHECK_THROWS_WITH(linalg::lu_solve(lu, piv, ones({2, 2}, kDouble)),
                    Catch::Contains("Incompatible shapes of A and B for the equation AX = B (3x3 and 2x2)"));
  // linalg.lu does not check: a singular matrix factors.
  auto [sp, sl, su] = linalg::lu(tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble));
  CHECK(su[1][1].item<double>() == 0);
}

TEST_CASE("linalg: lstsq solves least squares, minimum norm when rank deficient, with gradients") {
  // Normal equations of [[1, 0], [0, 1], [1, 1]] x = [1, 2, 4]: x = [4/3, 7/3], residual 1/3.
  const Tensor a = tensor({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}, kDouble),
               b = tensor({1.0, 2.0, 4.0}, kDouble);
  auto [x, residuals, rank, sv] = linalg::lstsq(a, b, {}, "gelsd");
  check_close(x, tensor({4.0 / 3, 7.0 / 3}, kDouble), 1e-14, "solution");
  check_close(residuals, tensor({1.0 / 3}, kDouble), 1e-14, "residual");
  CHECK(rank.item<int64_t>() == 2);
  CHECK(rank.dtype() == kLong);
  check_close(sv, tensor({std::sqrt(3.0), 1.0}, kDouble), 1e-14, "singular values");
  // gelsy (the CPU default) returns the rank only; gels the residuals only.
  auto [x1, r1, rank1, sv1] = linalg::lstsq(a, b);
  CHECK(r1.numel() == 0);
  CHECK(sv1.numel() == 0);
  CHECK(rank1.item<int64_t>() == 2);
  auto [x2, r2, rank2, sv2] = linalg::lstsq(a, b, {}, "gels");
  CHECK(rank2.numel() == 0);
  check_close(r2, tensor({1.0 / 3}, kDouble), 1e-14, "gels residual");
  // Rank 1: the minimum-norm solution, no residuals even for gelsd.
  auto [xm, rm, rankm, svm] = linalg::lstsq(tensor({{1.0, 1.0}, {1.0, 1.0}, {2.0, 2.0}}, kDouble),
                                            tensor({{2.0}, {2.0}, {4.0}}, kDouble), {}, "gelsd");
  check_close(xm, tensor({{1.0}, {1.0}}, kDouble), 1e-14, "minimum norm");
  CHECK(rankm.item<int64_t>() == 1);
  CHECK(rm.numel() == 0);
  // Batches broadcast; a wide system gives the minimum-norm solution.
  auto [xb, rb, rankb, svb] = linalg::lstsq(randn({4, 3, 5}, kDouble), randn({1, 3, 2}, kDouble));
  CHECK(xb.sizes() == std::vector<int64_t>{4, 5, 2});
  CHECK(rankb.sizes() == std::vector<int64_t>{4});
  // The rank follows A's own batch dims; a negative rcond means machine precision; the driver's
  // name is read in lower case (libtorch 1.13's values).
  auto [xs, rs, ranks, svs] =
      linalg::lstsq(randn({1, 5, 3}, kDouble), randn({4, 5, 2}, kDouble), {}, "GELSD");
  CHECK(xs.sizes() == std::vector<int64_t>{4, 3, 2});
  CHECK(ranks.sizes() == std::vector<int64_t>{1});
  CHECK(svs.sizes() == std::vector<int64_t>{1, 3});
  const Tensor rank_one = tensor({{1.0, 2.0}, {2.0, 4.0}, {3.0, 6.0}}, kDouble);
  auto [xn, rn, rankn, svn] = linalg::lstsq(rank_one, tensor({1.0, 2.0, 3.0}, kDouble), -1.0, "gelsd");
  CHECK(rankn.item<int64_t>() == 1);
  check_close(xn, tensor({0.2, 0.4}, kDouble), 1e-12, "minimum norm with rcond -1");
  CHECK(std::get<0>(linalg::lstsq(a.requires_grad_(), b)).grad_fn()->name() == "LinalgLstsqBackward0");
  for (auto shapes :
       {std::vector<std::vector<int64_t>>{{5, 3}, {5, 2}}, {{3, 5}, {3, 2}}, {{2, 4, 3}, {2, 4}}}) {
    CHECK(check([](const variable_list& v) { return std::get<0>(linalg::lstsq(v[0], v[1])); },
                {input(shapes[0]), input(shapes[1])}));
  }
  // Errors name what was received.
  CHECK_THROWS_WITH(linalg::lstsq(a, b.slice(0, 0, 2)),
                    "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  CHECK_THROWS_WITH(linalg::lstsq(a, ones({2, 1}, kDouble)),
                    "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  CHECK_THROWS_WITH(linalg::lstsq(a, b, {}, "foo"),
                    "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  CHECK_THROWS_WITH(
      linalg::lstsq(a, b.to(kFloat)),
      "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
      "Double and other's dtype Float");
  CHECK_THROWS_WITH(linalg::lstsq(b, b), "torch.linalg.lstsq: input must have at least 2 dimensions.");
  CHECK_THROWS_WITH(linalg::lstsq(ones({3, 2}, kInt), ones({3}, kInt)),
                    "This function doesn't handle types other than float and double");
}
