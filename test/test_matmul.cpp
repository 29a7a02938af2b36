// Matmul family: torch.matmul's shape rules and values against a float64 reference.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "test_util.h"
#include "cpu/blas_library.h"

#include <cmath>
#include <cstdlib>
#include <random>

using namespace ember;
using ember_test::dvalues;
using ember_test::fresh_seed;

namespace {
// Reference product of [m,k] and [k,n] row-major double matrices.
std::vector<double> ref_mm(const std::vector<double>& a, const std::vector<double>& b, int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) c[size_t(i * n + j)] += a[size_t(i * k + p)] * b[size_t(p * n + j)];
  return c;
}
void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}
// Within the GEMM error bound: |c - c^| <= k u sum_p |a_ip| |b_pj| for unit roundoff u (twice
// that, for the blocking and FMA differences between libraries). A bound relative to |c|
// alone fails where the sum cancels.
void check_gemm_bound(const std::vector<double>& got, const std::vector<double>& want,
                      const std::vector<double>& abs_product, int64_t k, double unit_roundoff) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i] << ", sum |a||b| " << abs_product[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= 2 * double(k) * unit_roundoff * abs_product[i]);
  }
}
std::vector<double> abs_of(std::vector<double> v) {
  for (double& x : v) x = std::abs(x);
  return v;
}
}  // namespace

TEST_CASE("matmul: ones({2,3}) @ ones({3,2}) is all threes") {
  Tensor c = matmul(ones({2, 3}), ones({3, 2}));
  CHECK(c.sizes() == std::vector<int64_t>{2, 2});
  CHECK(dvalues(c) == std::vector<double>{3, 3, 3, 3});
}

TEST_CASE("matmul: 2-D products of every dtype and layout match the reference") {
  std::random_device rd;
  const uint64_t seed = rd();
  INFO("seed " << seed);
  manual_seed(seed);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt32, kInt64}) {
    INFO("dtype " << name(dt));
    const int64_t m = 17, k = 33, n = 9;
    Tensor a = (randn({m, k}, kDouble) * 3).to(dt), b = (randn({k, n}, kDouble) * 3).to(dt);
    auto want = ref_mm(dvalues(a), dvalues(b), m, k, n);
    if (dt == kFloat || dt == kDouble) {
      const auto abs_product = ref_mm(abs_of(dvalues(a)), abs_of(dvalues(b)), m, k, n);
      const double u = dt == kFloat ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
      check_gemm_bound(dvalues(mm(a, b)), want, abs_product, k, u);
      check_gemm_bound(dvalues(matmul(a.t().contiguous().t(), b)), want, abs_product, k, u);  // column-major A
      check_gemm_bound(dvalues(matmul(a, b.t().contiguous().t())), want, abs_product, k, u);  // column-major B
      check_gemm_bound(dvalues(matmul(a.contiguous(), b)), want, abs_product, k, u);
      continue;
    }
    // Integers are exact; half and bfloat16 round their float results once.
    const double tol = dt == kHalf ? 5e-3 : dt == kBFloat16 ? 3e-2 : 0;
    check_close(dvalues(mm(a, b)), want, tol);
    check_close(dvalues(matmul(a.t().contiguous().t(), b)), want, tol);  // column-major A
    check_close(dvalues(matmul(a, b.t().contiguous().t())), want, tol);  // column-major B
    check_close(dvalues(matmul(a.contiguous(), b)), want, tol);
  }
}

TEST_CASE("matmul: shape rules for 1-D, batched and broadcast operands") {
  Tensor v = arange(3, kFloat), m = arange(6, kFloat).reshape({2, 3});
  CHECK(matmul(v, v).dim() == 0);
  CHECK(matmul(v, v).item<float>() == 5);
  CHECK(matmul(m, v).sizes() == std::vector<int64_t>{2});
  CHECK(dvalues(matmul(m, v)) == std::vector<double>{5, 14});
  CHECK(dvalues(matmul(tensor({1.0, 1.0}), m)) == std::vector<double>{3, 5, 7});
  Tensor batch = randn({4, 2, 3});
  CHECK(matmul(batch, randn({3, 5})).sizes() == std::vector<int64_t>{4, 2, 5});
  CHECK(matmul(randn({2, 1, 2, 3}), randn({5, 3, 4})).sizes() == std::vector<int64_t>{2, 5, 2, 4});
  CHECK(matmul(batch, v).sizes() == std::vector<int64_t>{4, 2});
  CHECK(matmul(v.unsqueeze(0).squeeze(0), randn({4, 3, 2})).sizes() == std::vector<int64_t>{4, 2});
  // batched values against per-batch mm
  Tensor a = randn({3, 4, 5}), b = randn({5, 2});
  Tensor c = matmul(a, b);
  for (int64_t i = 0; i < 3; ++i) check_close(dvalues(c.select(0, i)), dvalues(mm(a.select(0, i), b)), 1e-6);
  Tensor bb = randn({3, 5, 2});
  Tensor d = bmm(a, bb);
  for (int64_t i = 0; i < 3; ++i) check_close(dvalues(d.select(0, i)), dvalues(mm(a.select(0, i), bb.select(0, i))), 1e-6);
  CHECK(dvalues(dot(tensor({1.0, 2.0}), tensor({3.0, 4.0}))) == std::vector<double>{11});
  CHECK(dvalues(mv(m, v)) == std::vector<double>{5, 14});
  CHECK(dvalues(outer(tensor({1.0, 2.0}), tensor({1.0, 10.0}))) == std::vector<double>{1, 10, 2, 20});
  CHECK(dvalues(addmm(ones({2, 2}), ones({2, 3}), ones({3, 2}), 2, 3)) == std::vector<double>{11, 11, 11, 11});
  CHECK(dvalues(linear(ones({1, 3}), ones({2, 3}), tensor({1.0, -1.0}))) == std::vector<double>{4, 2});
  Tensor out = empty({2, 2});
  matmul_out(out, ones({2, 3}), ones({3, 2}));
  CHECK(dvalues(out) == std::vector<double>{3, 3, 3, 3});
  // An output with no elements takes the result's shape (2-D, batched, vector).
  for (auto [a, b] : std::vector<std::pair<Tensor, Tensor>>{{ones({2, 3}), ones({3, 2})},
                                                           {ones({4, 2, 3}), ones({3, 5})},
                                                           {ones({3}), ones({3, 2})}}) {
    Tensor e = empty({0});
    matmul_out(e, a, b);
    CHECK(e.sizes() == matmul(a, b).sizes());
    CHECK(dvalues(e) == std::vector<double>(size_t(e.numel()), 3.0));
  }
  Tensor wrong = empty({3, 3});
  CHECK_THROWS_WITH(matmul_out(wrong, ones({4, 2, 3}), ones({3, 5})), Catch::Contains("does not match the result's shape"));
  CHECK(matmul(zeros({2, 0}), zeros({0, 3})).sizes() == std::vector<int64_t>{2, 3});
  CHECK(dvalues(matmul(zeros({2, 0}), zeros({0, 3}))) == std::vector<double>(6, 0.0));
}

TEST_CASE("matmul: batches of small products, one per thread or one after another, match each product") {
  // Batches of 2, 3, 8 and 9 small products (even, odd and long batches take different
  // schedules), transposed operands and a large product for contrast, float and double.
  manual_seed(11);
  for (ScalarType dt : {kFloat, kDouble}) {
    for (int64_t batch : {2, 3, 8, 9}) {
      INFO("dtype " << name(dt) << ", batch " << batch);
      const Tensor a = randn({batch, 33, 17}, dt), b = randn({batch, 12, 17}, dt).transpose(1, 2);
      const Tensor c = bmm(a, b);
      for (int64_t i = 0; i < batch; ++i) {
        const Tensor ai = a.select(0, i), bi = b.select(0, i);
        CHECK(ember_test::within_gemm_bound(c.select(0, i), mm(ai.to(kDouble), bi.to(kDouble)), ai, bi));
      }
      const Tensor acc = randn({batch, 33, 12}, dt);
      const Tensor d = baddbmm(acc, a, b, 0.5, 2.0);
      CHECK(
          ember_test::within_gemm_bound(d, acc.to(kDouble) * 0.5 + bmm(a, b).to(kDouble) * 2.0, a, b * 2.0));
    }
  }
  const Tensor big_a = randn({4, 200, 160}), big_b = randn({4, 160, 150});
  const Tensor big = bmm(big_a, big_b);
  for (int64_t i = 0; i < 4; ++i)
    CHECK(ember_test::within_gemm_bound(big.select(0, i),
                                        mm(big_a.select(0, i).to(kDouble), big_b.select(0, i).to(kDouble)),
                                        big_a.select(0, i), big_b.select(0, i)));
}

TEST_CASE("matmul: errors say what shapes were received") {
  CHECK_THROWS_AS(mm(ones({2, 3}), ones({2, 3})), InvalidArgument);
  CHECK_THROWS_WITH(mm(ones({2, 3}), ones({2, 3})), Catch::Contains("cannot be multiplied (2x3 and 2x3)"));
  CHECK_THROWS_WITH(matmul(ones({3}), ones({4})), Catch::Contains("inconsistent tensor size"));
  CHECK_THROWS_WITH(matmul(zeros({}), ones({2})), Catch::Contains("at least 1D"));
  CHECK_THROWS_WITH(mm(ones({2, 2}), ones({2, 2}, kDouble)), "mm: expected scalar type Float but found Double");
  CHECK_THROWS_WITH(dot(ones({2}), ones({2}, kDouble)),
                    "dot: expected both vectors to have same dtype, but found Float and Double");
  CHECK_THROWS_AS(bmm(ones({2, 2}), ones({2, 2})), InvalidArgument);
  CHECK_THROWS_AS(matmul(ones({2, 2, 3}), ones({3, 3, 2})), InvalidArgument);
  // A batched input times a matrix folds into one product (as libtorch): the error names it.
  CHECK_THROWS_WITH(matmul(ones({4, 2, 3}), ones({5, 2})), Catch::Contains("cannot be multiplied (8x3 and 5x2)"));
  CHECK_THROWS_WITH(matmul(ones({4, 2, 3}), ones({5})), Catch::Contains("cannot be multiplied (8x3 and 5x1)"));
  CHECK_THROWS_AS(mm(ones({2, 2}, kBool), ones({2, 2}, kBool)), NotImplemented);
}

#if defined(EMBER_OPENBLAS_OPENMP)
extern "C" int openblas_get_parallel(void);

TEST_CASE("matmul: the process runs OpenBLAS's OpenMP build that ember linked (Note [One thread pool])") {
  // 0: single-threaded build, 1: pthreads, 2: OpenMP. Both builds are libopenblas.so.0.
  CHECK(openblas_get_parallel() == 2);
  ember::Tensor a = ember::ones({64, 64}), b = ember::full({64, 64}, 2.0);
  CHECK(ember::matmul(a, b).sum().item<double>() == 64.0 * 64 * 64 * 2);
  CHECK(ember::detail::blas_library_parallel_mode() == 2);
}

// Run by CTest with OpenBLAS's pthread build preloaded (test/CMakeLists.txt), as in a
// process that loaded libtorch or numpy first: ember loads its own OpenMP build and says nothing.
TEST_CASE("matmul: with OpenBLAS's pthread build loaded first, GEMMs run on ember's OpenMP build",
          "[.blas_load_order]") {
  struct Collect : ember::WarningHandler {
    std::vector<std::string> seen;
    void process(const ember::Warning& w) override { seen.push_back(w.msg()); }
  } collect;
  ember::WarningUtils::WarningHandlerGuard guard(&collect);
  if (std::getenv("EMBER_TEST_PTHREAD_OPENBLAS_PRELOADED") == nullptr) {
    WARN("skipped: CTest runs this case with OpenBLAS's pthread build preloaded");
    return;
  }
  REQUIRE(openblas_get_parallel() == 1);  // the process's libopenblas.so.0 is the pthread build
  ember::manual_seed(ember_test::fresh_seed());
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
    ember::Tensor a = ember::randn({70, 50}, dt), b = ember::randn({50, 30}, dt);
    const std::vector<double> c = dvalues(ember::matmul(a, b)), av = dvalues(a), bv = dvalues(b);
    for (int i = 0; i < 70; ++i)
      for (int j = 0; j < 30; ++j) {
        double want = 0;
        for (int k = 0; k < 50; ++k) want += av[size_t(i * 50 + k)] * bv[size_t(k * 30 + j)];
        REQUIRE(std::abs(c[size_t(i * 30 + j)] - want) <= 1e-4 * (1 + std::abs(want)));
      }
  }
  CHECK(ember::detail::blas_library_parallel_mode() == 2);
  CHECK(collect.seen.empty());
}
#endif
