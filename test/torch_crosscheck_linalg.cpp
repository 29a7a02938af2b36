// Square-matrix linear algebra, norms, matrix_exp, the scatters into views and
// torch::special's functions against libtorch 1.13: values, gradients and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::Case;
using crosscheck::check_close;
using crosscheck::fresh_seed;
using crosscheck::same_error;
using crosscheck::same_forward_backward;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

}  // namespace

TEST_CASE("linalg crosscheck: det, slogdet, logdet, inverse, cholesky, solve, matrix_power") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  // Well-conditioned inputs: random matrices plus a multiple of the identity; symmetric
  // positive-definite ones as B B^T + n I.
  const auto conditioned = [](const ember::Tensor& a) { return a + 4 * ember::eye(a.size(-1), a.options()); };
  const auto spd = [](const ember::Tensor& b) {
    return ember::matmul(b, b.mT()) + b.size(-1) * ember::eye(b.size(-1), b.options());
  };
  const auto tconditioned = [](const torch::Tensor& a) {
    return a + 4 * torch::eye(a.size(-1), a.options());
  };
  const auto tspd = [](const torch::Tensor& b) {
    return torch::matmul(b, b.mT()) + b.size(-1) * torch::eye(b.size(-1), b.options());
  };
  std::vector<Case> cases = {
      {"det",
       {{2, 4, 4}},
       [&](const EInputs& x) { return conditioned(x[0]).det(); },
       [&](const TInputs& x) { return tconditioned(x[0]).det(); }},
      {"det with negative determinants",
       {{3, 3}},
       [&](const EInputs& x) { return ember::linalg::det(x[0] * 3); },
       [&](const TInputs& x) { return torch::linalg::det(x[0] * 3); }},
      {"slogdet",
       {{2, 3, 3}},
       [&](const EInputs& x) {
         auto [s, l] = ember::slogdet(x[0] * 2);
         return l * s;
       },
       [&](const TInputs& x) {
         auto [s, l] = torch::slogdet(x[0] * 2);
         return l * s;
       }},
      {"logdet",
       {{4, 4}},
       [&](const EInputs& x) { return spd(x[0]).logdet(); },
       [&](const TInputs& x) { return tspd(x[0]).logdet(); }},
      {"inverse",
       {{2, 3, 3}},
       [&](const EInputs& x) { return conditioned(x[0]).inverse(); },
       [&](const TInputs& x) { return tconditioned(x[0]).inverse(); }},
      {"linalg::inv",
       {{5, 5}},
       [&](const EInputs& x) { return ember::linalg::inv(conditioned(x[0])); },
       [&](const TInputs& x) { return torch::linalg::inv(tconditioned(x[0])); }},
      {"cholesky",
       {{2, 4, 4}},
       [&](const EInputs& x) { return spd(x[0]).cholesky(); },
       [&](const TInputs& x) { return tspd(x[0]).cholesky(); }},
      {"cholesky upper",
       {{3, 3}},
       [&](const EInputs& x) { return ember::cholesky(spd(x[0]), true); },
       [&](const TInputs& x) { return torch::cholesky(tspd(x[0]), true); }},
      {"linalg::cholesky",
       {{4, 4}},
       [&](const EInputs& x) { return ember::linalg::cholesky(spd(x[0])); },
       [&](const TInputs& x) { return torch::linalg::cholesky(tspd(x[0])); }},
      {
          "solve",
          {{2, 3, 3}, {2, 3, 2}},
          [&](const EInputs& x) { return ember::linalg::solve(conditioned(x[0]), x[1]); },
          [&](const TInputs& x) { return torch::linalg::solve(tconditioned(x[0]), x[1], true); },
      },
      {"solve a vector",
       {{3, 3}, {3}},
       [&](const EInputs& x) { return ember::linalg_solve(conditioned(x[0]), x[1]); },
       [&](const TInputs& x) { return torch::linalg_solve(tconditioned(x[0]), x[1]); }},
      {"solve from the right",
       {{3, 3}, {2, 3}},
       [&](const EInputs& x) { return ember::linalg::solve(conditioned(x[0]), x[1], false); },
       [&](const TInputs& x) { return torch::linalg::solve(tconditioned(x[0]), x[1], false); }},
      {"matrix_power",
       {{2, 3, 3}},
       [&](const EInputs& x) { return x[0].matrix_power(5) + x[0].matrix_power(0) + x[0].matrix_power(1); },
       [&](const TInputs& x) { return x[0].matrix_power(5) + x[0].matrix_power(0) + x[0].matrix_power(1); }},
      {"matrix_power negative",
       {{3, 3}},
       [&](const EInputs& x) { return conditioned(x[0]).matrix_power(-3); },
       [&](const TInputs& x) { return tconditioned(x[0]).matrix_power(-3); }},
  };
  // ember factors in float64 on the host, libtorch in float32: their float32 results differ
  // by rounding scaled by the condition number (float64 is held to 1e-10).
  for (Case& c : cases) c.f32_tol = std::max(c.f32_tol, 2e-4);
  crosscheck::run_cases(cases);
  // Singular and empty matrices.
  const ember::Tensor singular = ember::tensor({{1.0, 2.0}, {2.0, 4.0}}, ember::kDouble);
  const torch::Tensor tsingular = as_torch(singular);
  check_close(singular.det(), tsingular.det(), 1e-15, "det of a singular matrix");
  auto [ss, sl] = ember::slogdet(singular);
  auto [tss, tsl] = torch::slogdet(tsingular);
  CHECK(ss.item<double>() == tss.item<double>());
  CHECK(sl.item<double>() == tsl.item<double>());
  const ember::Tensor swap = ember::tensor({{0.0, 1.0}, {1.0, 0.0}}, ember::kDouble);
  CHECK(std::isnan(swap.logdet().item<double>()));
  CHECK(std::isnan(torch::logdet(as_torch(swap)).item<double>()));
  check_close(ember::det(ember::zeros({0, 0})), torch::det(torch::zeros({0, 0})), 0, "det of 0 x 0");
  check_close(ember::inverse(ember::zeros({2, 0, 0})), torch::inverse(torch::zeros({2, 0, 0})), 0,
              "inverse of 0 x 0");
  // Errors.
  same_error([&] { ember::inverse(singular); }, [&] { torch::inverse(tsingular); });
  same_error(
      [&] {
        ember::inverse(ember::zeros({2, 2, 2}));
      },
      [&] {
        torch::inverse(torch::zeros({2, 2, 2}));
      });
  same_error(
      [&] {
        ember::linalg::cholesky(ember::tensor({{1.0, 2.0}, {2.0, 1.0}}));
      },
      [&] {
        torch::linalg::cholesky(torch::tensor({{1.0, 2.0}, {2.0, 1.0}}));
      });
  same_error(
      [&] {
        ember::cholesky(ember::tensor({{1.0, 2.0}, {2.0, 1.0}}));
      },
      [&] {
        torch::cholesky(torch::tensor({{1.0, 2.0}, {2.0, 1.0}}));
      });
  same_error([&] { ember::det(ember::ones({2, 3})); }, [&] { torch::det(torch::ones({2, 3})); });
  same_error([&] { ember::det(ember::ones({3})); }, [&] { torch::det(torch::ones({3})); });
  same_error(
      [&] {
        ember::det(ember::ones({2, 2}, ember::kLong));
      },
      [&] {
        torch::det(torch::ones({2, 2}, torch::kLong));
      });
  same_error([&] { ember::inverse(ember::ones({2, 3})); }, [&] { torch::inverse(torch::ones({2, 3})); });
  same_error(
      [&] {
        ember::linalg::solve(ember::ones({2, 2}), ember::ones({3}));
      },
      [&] {
        torch::linalg::solve(torch::ones({2, 2}), torch::ones({3}), true);
      });
  same_error(
      [&] {
        ember::matrix_power(ember::ones({2, 3}), 2);
      },
      [&] {
        torch::matrix_power(torch::ones({2, 3}), 2);
      });
}

TEST_CASE("linalg crosscheck: norms, svdvals, matrix_exp, cross and friends") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const double inf = std::numeric_limits<double>::infinity();
  crosscheck::run_cases({
      {"vector_norm 2",
       {{3, 4}},
       [](const EInputs& x) { return ember::linalg::vector_norm(x[0]); },
       [](const TInputs& x) {
         return torch::linalg::vector_norm(x[0], 2, c10::nullopt, false, c10::nullopt);
       }},
      {"vector_norm 3 over dim 1 keepdim",
       {{3, 4}},
       [](const EInputs& x) { return ember::linalg::vector_norm(x[0], 3, ember::IntArrayRef{1}, true); },
       [](const TInputs& x) {
         return torch::linalg::vector_norm(x[0], 3, torch::IntArrayRef{1}, true, c10::nullopt);
       }},
      {"vector_norm inf and -inf",
       {{3, 4}},
       [&](const EInputs& x) {
         return ember::linalg_vector_norm(x[0], inf, ember::IntArrayRef{0}) +
                ember::linalg_vector_norm(x[0], -inf, ember::IntArrayRef{0});
       },
       [&](const TInputs& x) {
         return torch::linalg_vector_norm(x[0], inf, torch::IntArrayRef{0}, false, c10::nullopt) +
                torch::linalg_vector_norm(x[0], -inf, torch::IntArrayRef{0}, false, c10::nullopt);
       }},
      {"matrix_norm fro",
       {{2, 3, 4}},
       [](const EInputs& x) { return ember::linalg::matrix_norm(x[0]); },
       [](const TInputs& x) {
         return torch::linalg::matrix_norm(x[0], "fro", {-2, -1}, false, c10::nullopt);
       }},
      {"matrix_norm 1, -1, inf, -inf",
       {{2, 3, 4}},
       [&](const EInputs& x) {
         return ember::linalg::matrix_norm(x[0], 1) + ember::linalg::matrix_norm(x[0], -1) * 2 +
                ember::linalg::matrix_norm(x[0], inf) * 3 +
                ember::linalg::matrix_norm(x[0], -inf, {0, 2}, true).sum();
       },
       [&](const TInputs& x) {
         return torch::linalg::matrix_norm(x[0], 1, {-2, -1}, false, c10::nullopt) +
                torch::linalg::matrix_norm(x[0], -1, {-2, -1}, false, c10::nullopt) * 2 +
                torch::linalg::matrix_norm(x[0], inf, {-2, -1}, false, c10::nullopt) * 3 +
                torch::linalg::matrix_norm(x[0], -inf, {0, 2}, true, c10::nullopt).sum();
       }},
      {"matrix_norm 2, -2 and nuc",
       {{2, 4, 3}},
       [](const EInputs& x) {
         return ember::linalg::matrix_norm(x[0], 2) + ember::linalg::matrix_norm(x[0], -2) +
                ember::linalg::matrix_norm(x[0], "nuc");
       },
       [](const TInputs& x) {
         return torch::linalg::matrix_norm(x[0], 2, {-2, -1}, false, c10::nullopt) +
                torch::linalg::matrix_norm(x[0], -2, {-2, -1}, false, c10::nullopt) +
                torch::linalg::matrix_norm(x[0], "nuc", {-2, -1}, false, c10::nullopt);
       }},
      {"svdvals of a wide matrix",
       {{3, 5}},
       [](const EInputs& x) { return ember::linalg::svdvals(x[0]); },
       [](const TInputs& x) { return torch::linalg::svdvals(x[0], c10::nullopt); }},
      {"norm",
       {{3, 4}},
       [](const EInputs& x) {
         return ember::linalg::norm(x[0]) + ember::linalg::norm(x[0], 1) + ember::linalg::norm(x[0], "nuc");
       },
       [](const TInputs& x) {
         return torch::linalg::norm(x[0], c10::nullopt, c10::nullopt, false, c10::nullopt) +
                torch::linalg::norm(x[0], 1, c10::nullopt, false, c10::nullopt) +
                torch::linalg::norm(x[0], "nuc", c10::nullopt, false, c10::nullopt);
       }},
      {"frobenius and nuclear norm",
       {{3, 4}},
       [](const EInputs& x) { return ember::frobenius_norm(x[0]) + ember::nuclear_norm(x[0]); },
       [](const TInputs& x) { return torch::frobenius_norm(x[0]) + torch::nuclear_norm(x[0]); }},
      {"dist",
       {{3, 4}, {4}},
       [](const EInputs& x) { return x[0].dist(x[1], 3); },
       [](const TInputs& x) { return x[0].dist(x[1], 3); }},
      {"renorm",
       {{3, 4}},
       [](const EInputs& x) { return x[0].renorm(2, 0, 2.5); },
       [](const TInputs& x) { return x[0].renorm(2, 0, 2.5); }},
      {"cross",
       {{4, 3}, {4, 3}},
       [](const EInputs& x) { return ember::linalg::cross(x[0], x[1]) + x[0].t().cross(x[1].t()).t(); },
       [](const TInputs& x) { return torch::linalg_cross(x[0], x[1]) + x[0].t().cross(x[1].t()).t(); }},
      {"vecdot and multi_dot",
       {{3}, {3, 4}, {4, 2}, {2}},
       [](const EInputs& x) {
         return ember::linalg::multi_dot({x[0], x[1], x[2], x[3]}) + ember::linalg::vecdot(x[1], x[1]).sum();
       },
       [](const TInputs& x) {
         return torch::linalg::multi_dot({x[0], x[1], x[2], x[3]}) + torch::linalg_vecdot(x[1], x[1]).sum();
       }},
      {"matrix_exp",
       {{2, 3, 3}},
       [](const EInputs& x) { return x[0].matrix_exp(); },
       [](const TInputs& x) { return x[0].matrix_exp(); },
       1e-4},
      {"slice, select and diagonal scatters",
       {{4, 4}, {2, 4}, {4}, {3}},
       [](const EInputs& x) {
         return x[0].slice_scatter(x[1], 0, 1, 4, 2) + x[0].select_scatter(x[2], 1, -1) +
                x[0].diagonal_scatter(x[3], -1);
       },
       [](const TInputs& x) {
         return x[0].slice_scatter(x[1], 0, 1, 4, 2) + x[0].select_scatter(x[2], 1, -1) +
                x[0].diagonal_scatter(x[3], -1);
       }},
      {"special",
       {{5}},
       [](const EInputs& x) {
         return ember::special::ndtr(x[0]) + ember::special::log_ndtr(x[0]) +
                ember::special::ndtri(ember::special::expit(x[0])) + ember::special::entr(x[0].abs()) +
                ember::special::xlog1py(x[0], x[0].abs()) + ember::special::gammaln(x[0].abs() + 1);
       },
       [](const TInputs& x) {
         return torch::special::ndtr(x[0]) + torch::special::log_ndtr(x[0]) +
                torch::special::ndtri(torch::special::expit(x[0])) + torch::special::entr(x[0].abs()) +
                torch::special::xlog1py(x[0], x[0].abs()) + torch::special::gammaln(x[0].abs() + 1);
       },
       1e-4},
  });
  ember::Tensor e = ember::zeros({7, 3});
  torch::Tensor t = torch::zeros({7, 3});
  check_close(e.fill_diagonal_(5, true), t.fill_diagonal_(5, true), 0, "fill_diagonal_ wrapping");
  check_close(ember::zeros({3, 4}).fill_diagonal_(2), torch::zeros({3, 4}).fill_diagonal_(2), 0,
              "fill_diagonal_ wide");
  check_close(ember::zeros({3, 3, 3}).fill_diagonal_(1), torch::zeros({3, 3, 3}).fill_diagonal_(1), 0,
              "fill_diagonal_ 3-D");
  check_close(ember::logspace(0, 2, 5), torch::logspace(0, 2, 5), 1e-7, "logspace");
  check_close(ember::logspace(-1, 3, 4, 2.0, ember::kDouble), torch::logspace(-1, 3, 4, 2.0, torch::kDouble),
              1e-15, "logspace base 2");
  check_close(ember::arange(6.0).reshape({2, 3}).sum_to_size({1, 3}),
              torch::arange(6.0).reshape({2, 3}).sum_to_size({1, 3}), 0, "sum_to_size");
  check_close(ember::argwhere(ember::tensor({{0, 1}, {2, 0}})),
              torch::argwhere(torch::tensor({{0, 1}, {2, 0}})), 0, "argwhere");
  check_close(ember::vander(ember::tensor({1, 2, 3})), torch::vander(torch::tensor({1, 2, 3})), 0,
              "vander of int64");
  // Values only: libtorch 1.13's vander backward fails (an in-place cumprod on a saved view).
  const ember::Tensor points = ember::randn({5}, ember::kDouble);
  check_close(ember::vander(points, 4) + ember::linalg::vander(points, 4),
              torch::vander(as_torch(points), 4) + torch::linalg_vander(as_torch(points), 4), 1e-12,
              "vander");
  CHECK(ember::empty_strided({2, 3}, {1, 2}).strides().vec() == std::vector<int64_t>{1, 2});
  same_error(
      [&] {
        ember::linalg::matrix_norm(ember::ones({3, 3}), 3);
      },
      [&] {
        torch::linalg::matrix_norm(torch::ones({3, 3}), 3, {-2, -1}, false, c10::nullopt);
      });
  same_error([&] { ember::linalg::matrix_norm(ember::ones({3})); },
             [&] {
               torch::linalg::matrix_norm(torch::ones({3}), "fro", {-2, -1}, false, c10::nullopt);
             });
  same_error(
      [&] {
        ember::linalg::vector_norm(ember::tensor({1, 2}));
      },
      [&] {
        torch::linalg::vector_norm(torch::tensor({1, 2}), 2, c10::nullopt, false, c10::nullopt);
      });
  same_error(
      [&] {
        ember::linalg::norm(ember::ones({2, 2, 2}), 1);
      },
      [&] {
        torch::linalg::norm(torch::ones({2, 2, 2}), 1, c10::nullopt, false, c10::nullopt);
      });
  same_error(
      [&] {
        ember::linalg::cross(ember::ones({2, 4}), ember::ones({2, 4}));
      },
      [&] {
        torch::linalg_cross(torch::ones({2, 4}), torch::ones({2, 4}));
      });
  same_error(
      [&] {
        ember::zeros({3, 3, 4}).fill_diagonal_(1);
      },
      [&] {
        torch::zeros({3, 3, 4}).fill_diagonal_(1);
      });
  same_error([&] { ember::zeros({3}).fill_diagonal_(1); }, [&] { torch::zeros({3}).fill_diagonal_(1); });
  same_error(
      [&] {
        ember::zeros({4, 3}).slice_scatter(ember::ones({3, 3}), 0, 1, 4, 2);
      },
      [&] {
        torch::zeros({4, 3}).slice_scatter(torch::ones({3, 3}), 0, 1, 4, 2);
      });
  same_error(
      [&] {
        (void)ember::tensor({1.5, 2.0}).is_nonzero();
      },
      [&] {
        (void)torch::tensor({1.5, 2.0}).is_nonzero();
      });
  same_error(
      [&] {
        ember::arange(6.0).reshape({2, 3}).sum_to_size({3, 3});
      },
      [&] {
        torch::arange(6.0).reshape({2, 3}).sum_to_size({3, 3});
      });
  same_error([&] { ember::vander(ember::ones({2, 2})); }, [&] { torch::vander(torch::ones({2, 2})); });
}

TEST_CASE("linalg crosscheck: eigh, svd, qr, pinv and triangular solves") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  // Eigen- and singular vectors are unique up to sign: the cases compare v * v, which is
  // not. Triangular factors get a diagonal away from zero.
  const auto sym = [](const ember::Tensor& a) { return a + a.mT(); };
  const auto tsym = [](const torch::Tensor& a) { return a + a.mT(); };
  const auto tri = [](const ember::Tensor& a, bool upper) {
    const ember::Tensor t = upper ? a.triu() : a.tril();
    return t + 7 * ember::eye(a.size(-1), a.options());  // inputs are in [-3, 3): a diagonal in [4, 10)
  };
  const auto ttri = [](const torch::Tensor& a, bool upper) {
    const torch::Tensor t = upper ? a.triu() : a.tril();
    return t + 7 * torch::eye(a.size(-1), a.options());
  };
  std::vector<Case> cases = {
      {"eigvalsh",
       {{2, 4, 4}},
       [&](const EInputs& x) { return ember::linalg::eigvalsh(sym(x[0])); },
       [&](const TInputs& x) { return torch::linalg::eigvalsh(tsym(x[0]), "L"); }},
      {"eigvalsh of the upper triangle",
       {{3, 3}},
       [&](const EInputs& x) { return ember::linalg::eigvalsh(x[0], "U"); },
       [&](const TInputs& x) { return torch::linalg::eigvalsh(x[0], "U"); }},
      {"eigh values and squared vectors",
       {{2, 3, 3}},
       [&](const EInputs& x) {
         auto [l, v] = ember::linalg::eigh(sym(x[0]));
         return ember::cat({l.unsqueeze(-2), v * v}, -2);
       },
       [&](const TInputs& x) {
         auto [l, v] = torch::linalg::eigh(tsym(x[0]), "L");
         return torch::cat({l.unsqueeze(-2), v * v}, -2);
       }},
      {"svd values and squared vectors, tall",
       {{2, 5, 3}},
       [&](const EInputs& x) {
         auto [u, s, vh] = ember::linalg::svd(x[0], false);
         return ember::cat({(u * u).flatten(-2), s, (vh * vh).flatten(-2)}, -1);
       },
       [&](const TInputs& x) {
         auto [u, s, vh] = torch::linalg::svd(x[0], false, c10::nullopt);
         return torch::cat({(u * u).flatten(-2), s, (vh * vh).flatten(-2)}, -1);
       }},
      {"torch::svd, wide",
       {{3, 5}},
       [&](const EInputs& x) {
         auto [u, s, v] = ember::svd(x[0]);
         return ember::cat({(u * u).flatten(), s, (v * v).flatten()});
       },
       [&](const TInputs& x) {
         auto [u, s, v] = torch::svd(x[0]);
         return torch::cat({(u * u).flatten(), s, (v * v).flatten()});
       }},
      {"qr reduced, tall",
       {{2, 5, 3}},
       [&](const EInputs& x) {
         auto [q, r] = ember::linalg::qr(x[0]);
         return ember::cat({q.flatten(-2), r.flatten(-2)}, -1);
       },
       [&](const TInputs& x) {
         auto [q, r] = torch::linalg::qr(x[0], "reduced");
         return torch::cat({q.flatten(-2), r.flatten(-2)}, -1);
       }},
      {"qr wide",
       {{3, 5}},
       [&](const EInputs& x) {
         auto [q, r] = ember::qr(x[0]);
         return ember::cat({q.flatten(), r.flatten()});
       },
       [&](const TInputs& x) {
         auto [q, r] = torch::qr(x[0]);
         return torch::cat({q.flatten(), r.flatten()});
       }},
      {"qr complete, square",
       {{4, 4}},
       [&](const EInputs& x) {
         auto [q, r] = ember::linalg::qr(x[0], "complete");
         return ember::cat({q.flatten(), r.flatten()});
       },
       [&](const TInputs& x) {
         auto [q, r] = torch::linalg::qr(x[0], "complete");
         return torch::cat({q.flatten(), r.flatten()});
       }},
      {"pinv, tall",
       {{2, 5, 3}},
       [&](const EInputs& x) { return ember::linalg::pinv(x[0]); },
       [&](const TInputs& x) { return torch::linalg::pinv(x[0]); }},
      {"pinverse, wide",
       {{3, 4}},
       [&](const EInputs& x) { return ember::pinverse(x[0]); },
       [&](const TInputs& x) { return torch::pinverse(x[0]); }},
      {"pinv hermitian",
       {{4, 4}},
       [&](const EInputs& x) { return ember::linalg::pinv(sym(x[0]), 1e-15, true); },
       [&](const TInputs& x) { return torch::linalg::pinv(tsym(x[0]), 1e-15, true); },
       // A random symmetric matrix may have an eigenvalue near 0: libtorch's float32
       // eigendecomposition (ember's is float64) then moves the gradient by up to ~1e-3.
       1e-2},
      {"solve_triangular upper, broadcast batch",
       {{2, 3, 3}, {3, 2}},
       [&](const EInputs& x) { return ember::linalg::solve_triangular(tri(x[0], true), x[1], true); },
       [&](const TInputs& x) {
         return torch::linalg::solve_triangular(ttri(x[0], true), x[1], true, true, false);
       }},
      {"solve_triangular lower from the right, unitriangular",
       {{3, 3}, {2, 3}},
       [&](const EInputs& x) {
         return ember::linalg::solve_triangular(tri(x[0], false), x[1], false, false, true);
       },
       [&](const TInputs& x) {
         return torch::linalg::solve_triangular(ttri(x[0], false), x[1], false, false, true);
       }},
      {"triangular_solve transposed",
       {{3, 2}, {3, 3}},
       [&](const EInputs& x) {
         return std::get<0>(ember::triangular_solve(x[0], tri(x[1], true), true, true));
       },
       [&](const TInputs& x) {
         return std::get<0>(torch::triangular_solve(x[0], ttri(x[1], true), true, true));
       }},
      {"cholesky_solve",
       {{2, 3, 2}, {2, 3, 3}},
       [&](const EInputs& x) { return ember::cholesky_solve(x[0], tri(x[1], false)); },
       [&](const TInputs& x) { return torch::cholesky_solve(x[0], ttri(x[1], false)); }},
      {"cholesky_solve upper",
       {{3, 2}, {3, 3}},
       [&](const EInputs& x) { return x[0].cholesky_solve(tri(x[1], true), true); },
       [&](const TInputs& x) { return x[0].cholesky_solve(ttri(x[1], true), true); }},
      {"cholesky_inverse",
       {{3, 3}},
       [&](const EInputs& x) { return ember::cholesky_inverse(tri(x[0], false)); },
       [&](const TInputs& x) { return torch::cholesky_inverse(ttri(x[0], false)); }},
  };
  for (Case& c : cases) c.f32_tol = std::max(c.f32_tol, 2e-4);  // as above: float64 against float32 factors
  crosscheck::run_cases(cases);
  // Errors.
  same_error(
      [&] {
        ember::linalg::eigh(ember::ones({2, 3}));
      },
      [&] {
        torch::linalg::eigh(torch::ones({2, 3}), "L");
      });
  same_error(
      [&] {
        ember::linalg::eigh(ember::ones({3, 3}), "X");
      },
      [&] {
        torch::linalg::eigh(torch::ones({3, 3}), "X");
      });
  same_error(
      [&] {
        ember::linalg::qr(ember::ones({3, 3}), "bogus");
      },
      [&] {
        torch::linalg::qr(torch::ones({3, 3}), "bogus");
      });
  same_error([&] { ember::linalg::svd(ember::ones({3})); },
             [&] { torch::linalg::svd(torch::ones({3}), true, c10::nullopt); });
  same_error(
      [&] {
        ember::linalg::solve_triangular(ember::ones({3, 3}), ember::ones({2, 2}), true);
      },
      [&] {
        torch::linalg::solve_triangular(torch::ones({3, 3}), torch::ones({2, 2}), true, true, false);
      });
  // Mixed dtypes: B takes A's dtype (libtorch 1.13).
  check_close(ember::linalg::solve_triangular(ember::eye(3) * 2, ember::ones({3, 2}, ember::kDouble), true),
              torch::linalg::solve_triangular(torch::eye(3) * 2, torch::ones({3, 2}, torch::kDouble), true,
                                              true, false),
              0, "solve_triangular of float32 and float64");
  // Differentiating R alone needs Q.
  const ember::Tensor a = ember::rand({3, 3}, ember::kDouble).requires_grad_();
  const torch::Tensor ta = as_torch(a.detach()).requires_grad_();
  same_error([&] { std::get<1>(ember::linalg::qr(a, "r")).sum().backward(); },
             [&] { std::get<1>(torch::linalg::qr(ta, "r")).sum().backward(); });
}

TEST_CASE("linalg crosscheck: lu_factor, lu, lu_unpack and lu_solve") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  // The same getrf: factors and pivots agree exactly in float64.
  std::vector<Case> cases = {
      {"lu_factor",
       {{2, 4, 4}},
       [&](const EInputs& x) { return std::get<0>(ember::linalg::lu_factor(x[0])); },
       [&](const TInputs& x) { return std::get<0>(torch::linalg::lu_factor(x[0])); }},
      {"lu, wide",
       {{3, 5}},
       [&](const EInputs& x) {
         auto [p, l, u] = ember::linalg::lu(x[0]);
         return ember::cat({p.flatten(), l.flatten(), u.flatten()});
       },
       [&](const TInputs& x) {
         auto [p, l, u] = torch::linalg::lu(x[0]);
         return torch::cat({p.flatten(), l.flatten(), u.flatten()});
       }},
      {"lu, tall",
       {{2, 5, 3}},
       [&](const EInputs& x) {
         auto [p, l, u] = ember::linalg::lu(x[0]);
         return ember::cat({l.flatten(-2), u.flatten(-2)}, -1);
       },
       [&](const TInputs& x) {
         auto [p, l, u] = torch::linalg::lu(x[0]);
         return torch::cat({l.flatten(-2), u.flatten(-2)}, -1);
       }},
      {"lu_solve, every form",
       {{3, 3}, {3, 2}},
       [&](const EInputs& x) {
         auto [f, piv] = ember::linalg::lu_factor(x[0] + 7 * ember::eye(3, x[0].options()));
         return ember::cat({ember::linalg::lu_solve(f, piv, x[1]),
                            ember::linalg::lu_solve(f, piv, x[1], true, true),
                            ember::linalg::lu_solve(f, piv, x[1].mT(), false).mT(),
                            ember::linalg::lu_solve(f, piv, x[1].mT(), false, true).mT()});
       },
       [&](const TInputs& x) {
         auto [f, piv] = torch::linalg::lu_factor(x[0] + 7 * torch::eye(3, x[0].options()));
         return torch::cat({at::linalg_lu_solve(f, piv, x[1]), at::linalg_lu_solve(f, piv, x[1], true, true),
                            at::linalg_lu_solve(f, piv, x[1].mT(), false).mT(),
                            at::linalg_lu_solve(f, piv, x[1].mT(), false, true).mT()});
       }},
  };
  for (Case& c : cases) c.f32_tol = std::max(c.f32_tol, 2e-4);  // float64 against float32 factors
  crosscheck::run_cases(cases);
  const ember::Tensor a = ember::randn({3, 3}, ember::kDouble);
  auto [lu, piv] = ember::linalg::lu_factor(a);
  auto [tlu, tpiv] = torch::linalg::lu_factor(as_torch(a));
  CHECK(piv.to(ember::kLong).cpu().data_ptr<int64_t>()[0] == tpiv.to(torch::kLong).data_ptr<int64_t>()[0]);
  auto [p, l, u] = ember::lu_unpack(lu, piv);
  auto [tp, tl, tu] = torch::lu_unpack(tlu, tpiv);
  check_close(p, tp, 0, "lu_unpack P");
  check_close(l, tl, 1e-15, "lu_unpack L");
  check_close(u, tu, 1e-15, "lu_unpack U");
  same_error(
      [&] {
        ember::linalg::lu_factor(ember::tensor({{1.0, 2.0}, {2.0, 4.0}}));
      },
      [&] {
        torch::linalg::lu_factor(torch::tensor({{1.0, 2.0}, {2.0, 4.0}}));
      });
  same_error(
      [&] {
        ember::linalg::lu_factor(ember::zeros({2, 2, 2}));
      },
      [&] {
        torch::linalg::lu_factor(torch::zeros({2, 2, 2}));
      });
  same_error([&] { ember::linalg::lu(ember::ones({3})); }, [&] { torch::linalg::lu(torch::ones({3})); });
}

TEST_CASE("linalg crosscheck: lstsq, every driver, tall, wide, batched, vector and rank deficient") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  // Solutions and their gradients (libtorch differentiates pinv(A) B).
  std::vector<Case> cases = {
      {"lstsq tall",
       {{5, 3}, {5, 2}},
       [](const EInputs& x) { return std::get<0>(ember::linalg::lstsq(x[0], x[1])); },
       [](const TInputs& x) { return std::get<0>(torch::linalg::lstsq(x[0], x[1], {}, {})); }},
      {"lstsq wide, batched against one B",
       {{2, 3, 5}, {3, 2}},
       [](const EInputs& x) {
         return std::get<0>(ember::linalg::lstsq(x[0], x[1].expand({2, 3, 2})));
       },
       [](const TInputs& x) {
         return std::get<0>(torch::linalg::lstsq(x[0], x[1].expand({2, 3, 2}), {}, {}));
       }},
      // (libtorch 1.13's lstsq backward fails for a vector B: its values are compared below.)
      {"lstsq gelsd residuals",
       {{6, 4}, {6, 2}},
       [](const EInputs& x) {
         auto [s, r, rank, sv] = ember::linalg::lstsq(x[0], x[1], {}, "gelsd");
         return ember::cat({s.flatten(), r});
       },
       [](const TInputs& x) {
         auto [s, r, rank, sv] = torch::linalg::lstsq(x[0], x[1], {}, "gelsd");
         return torch::cat({s.flatten(), r});
       }},
  };
  for (Case& c : cases) c.f32_tol = std::max(c.f32_tol, 2e-4);
  crosscheck::run_cases(cases);
  // What each driver fills, for tall, wide and rank-deficient systems (float64).
  const ember::Tensor tall = ember::randn({5, 3}, ember::kDouble),
                      wide = ember::randn({3, 5}, ember::kDouble);
  const ember::Tensor deficient =
      ember::matmul(ember::randn({5, 2}, ember::kDouble), ember::randn({2, 3}, ember::kDouble));
  const ember::Tensor b5 = ember::randn({5, 2}, ember::kDouble), b3 = ember::randn({3, 2}, ember::kDouble);
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    for (const auto& [name, a, b] : std::vector<std::tuple<std::string, ember::Tensor, ember::Tensor>>{
             {"tall", tall, b5}, {"wide", wide, b3}, {"rank 2", deficient, b5}}) {
      if (name == "rank 2" && std::string(driver) == "gels") continue;  // gels assumes full rank
      INFO(driver << " " << name);
      auto [s, r, rank, sv] = ember::linalg::lstsq(a, b, {}, driver);
      auto [ts, tr, trank, tsv] = torch::linalg::lstsq(as_torch(a), as_torch(b), {}, driver);
      check_close(s, ts, 1e-10, "solution");
      check_close(r, tr, 1e-10, "residuals");
      check_close(rank, trank, 0, "rank");
      check_close(sv, tsv, 1e-12, "singular values");
    }
  }
  const ember::Tensor b6 = ember::randn({5}, ember::kDouble);
  check_close(std::get<0>(ember::linalg::lstsq(tall, b6)),
              std::get<0>(torch::linalg::lstsq(as_torch(tall), as_torch(b6), {}, {})), 1e-10, "vector B");
  check_close(std::get<1>(ember::linalg::lstsq(tall, b6, {}, "gelsd")),
              std::get<1>(torch::linalg::lstsq(as_torch(tall), as_torch(b6), {}, "gelsd")), 1e-10,
              "vector B residual");
  auto [s, r, rank, sv] = ember::linalg::lstsq(tall, b5, 0.5, "gelsd");
  auto [ts, tr, trank, tsv] = torch::linalg::lstsq(as_torch(tall), as_torch(b5), 0.5, "gelsd");
  check_close(rank, trank, 0, "rank with rcond 0.5");
  check_close(s, ts, 1e-10, "solution with rcond 0.5");
  check_close(std::get<0>(ember::linalg::lstsq(ember::zeros({0, 3}, ember::kDouble),
                                               ember::zeros({0, 2}, ember::kDouble))),
              std::get<0>(torch::linalg::lstsq(torch::zeros({0, 3}, torch::kDouble),
                                               torch::zeros({0, 2}, torch::kDouble), {}, {})),
              0, "no equations");
  same_error([&] { ember::linalg::lstsq(tall, b5.slice(0, 0, 4)); },
             [&] { torch::linalg::lstsq(as_torch(tall), as_torch(b5).slice(0, 0, 4), {}, {}); });
  same_error([&] { ember::linalg::lstsq(tall, b5.select(1, 0).slice(0, 0, 4)); },
             [&] { torch::linalg::lstsq(as_torch(tall), as_torch(b5).select(1, 0).slice(0, 0, 4), {}, {}); });
  same_error([&] { ember::linalg::lstsq(tall, b5, {}, "foo"); },
             [&] { torch::linalg::lstsq(as_torch(tall), as_torch(b5), {}, "foo"); });
  same_error([&] { ember::linalg::lstsq(tall.to(ember::kFloat), b5); },
             [&] { torch::linalg::lstsq(as_torch(tall).to(torch::kFloat), as_torch(b5), {}, {}); });
  same_error([&] { ember::linalg::lstsq(tall.select(1, 0), b5); },
             [&] { torch::linalg::lstsq(as_torch(tall).select(1, 0), as_torch(b5), {}, {}); });
  same_error(
      [&] { ember::linalg::lstsq(tall.to(ember::kInt), b5.to(ember::kInt)); },
      [&] { torch::linalg::lstsq(as_torch(tall).to(torch::kInt), as_torch(b5).to(torch::kInt), {}, {}); });
}
