// The CPU kernels' instruction set (Note [CPU capability]): which one runs, the
// EMBER_CPU_CAPABILITY override, and the vector kernels' values wherever a value sits.
// CTest runs this file and the kernel tests once per capability the machine has.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace ember;
using ember_test::dvalues;
using ember_test::fresh_seed;

TEST_CASE("cpu capability: the chosen one is available, and EMBER_CPU_CAPABILITY picks it") {
  const std::vector<std::string> available = available_cpu_capabilities();
  REQUIRE(!available.empty());
  CHECK(available.front() == "default");
  const std::string chosen = cpu_capability();
  CHECK(std::find(available.begin(), available.end(), chosen) != available.end());
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (env == nullptr || *env == '\0') {
    CHECK(chosen == available.back());  // the widest the build and the CPU have
  } else if (std::find(available.begin(), available.end(), std::string(env)) != available.end()) {
    CHECK(chosen == env);
  } else {
    WARN("EMBER_CPU_CAPABILITY=" << env << " is not available here; " << chosen << " runs");
    CHECK(chosen == available.back());
  }
}

TEST_CASE("cpu capability: exp, tanh, sigmoid, sqrt and relu give a value the same result wherever it sits") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  // 37 x 45: rows that end inside a vector, lanes of every width, and a transposed walk.
  Tensor base = randn({37, 45}, kDouble) * 6;
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    INFO("dtype " << name(dt));
    Tensor x = base.to(dt);
    Tensor xt = x.t().contiguous().t();  // the same values, column-major
    Tensor pos = x.abs();
    for (auto op : {+[](const Tensor& t) { return exp(t); }, +[](const Tensor& t) { return tanh(t); },
                    +[](const Tensor& t) { return sigmoid(t); }, +[](const Tensor& t) { return relu(t); }}) {
      const std::vector<double> contiguous = dvalues(op(x));
      CHECK(dvalues(op(xt)) == contiguous);                           // strided input
      CHECK(dvalues(op(x.reshape({-1})).view({37, 45})) == contiguous);  // one long row
      // Each element alone (the padded tail of a vector) agrees too.
      const std::vector<double> xs = dvalues(x);
      for (size_t i = 0; i < xs.size(); i += 97) {
        INFO("element " << i << " = " << xs[i]);
        CHECK(dvalues(op(x.reshape({-1}).slice(0, int64_t(i), int64_t(i) + 1)))[0] == contiguous[i]);
      }
    }
    CHECK(dvalues(sqrt(pos.t().contiguous().t())) == dvalues(sqrt(pos)));
  }
}

TEST_CASE("cpu capability: float16 and bfloat16 exp, tanh and sigmoid round float32's result") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  for (ScalarType dt : {kHalf, kBFloat16}) {
    INFO("dtype " << name(dt));
    Tensor x = (randn({1000}, kDouble) * 4).to(dt);
    Tensor xf = x.to(kFloat);
    CHECK(dvalues(exp(x)) == dvalues(exp(xf).to(dt)));
    CHECK(dvalues(tanh(x)) == dvalues(tanh(xf).to(dt)));
    CHECK(dvalues(sigmoid(x)) == dvalues(sigmoid(xf).to(dt)));
    CHECK(dvalues(sqrt(x.abs())) == dvalues(sqrt(xf.abs()).to(dt)));
  }
}

TEST_CASE("cpu capability: sums, extremes and softmax of float32 rows of every length against float64") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  for (int64_t n : {1, 7, 8, 15, 16, 17, 63, 64, 65, 129, 1000, 4099}) {
    INFO("n = " << n);
    Tensor xd = randn({3, n}, kDouble);
    Tensor x = xd.to(kFloat);
    Tensor xr = x.to(kDouble);  // the values the float kernels see
    const std::vector<double> s = dvalues(x.sum(1)), sd = dvalues(xr.sum(1));
    const std::vector<double> mx = dvalues(x.amax(1)), mxd = dvalues(xr.amax(1));
    const std::vector<double> mn = dvalues(x.amin(1)), mnd = dvalues(xr.amin(1));
    const std::vector<double> sa = dvalues(xr.abs().sum(1));
    for (int r = 0; r < 3; ++r) {
      CHECK(std::abs(s[size_t(r)] - sd[size_t(r)]) <= 1e-6 * sa[size_t(r)] + 1e-30);
      CHECK(mx[size_t(r)] == mxd[size_t(r)]);
      CHECK(mn[size_t(r)] == mnd[size_t(r)]);
    }
    const std::vector<double> sm = dvalues(x.softmax(1)), smd = dvalues(xr.softmax(1));
    const std::vector<double> lsm = dvalues(x.log_softmax(1)), lsmd = dvalues(xr.log_softmax(1));
    for (size_t i = 0; i < sm.size(); ++i) {
      CHECK(std::abs(sm[i] - smd[i]) <= 1e-6 * smd[i] + 1e-12);
      CHECK(std::abs(lsm[i] - lsmd[i]) <= 1e-5 * (1 + std::abs(lsmd[i])));
    }
    // A NaN anywhere in a row makes its max, min and sum NaN.
    Tensor xn = x.clone();
    xn.index_put_({1, n - 1}, std::nan(""));
    CHECK(std::isnan(dvalues(xn.amax(1))[1]));
    CHECK(std::isnan(dvalues(xn.amin(1))[1]));
    CHECK(std::isnan(dvalues(xn.sum(1))[1]));
    CHECK(!std::isnan(dvalues(xn.amax(1))[0]));
  }
  // Sums over an outer dim (two rows at a time) against float64, and one that overflows float.
  Tensor m = randn({101, 67}, kDouble).to(kFloat);
  const std::vector<double> cs = dvalues(m.sum(0)), csd = dvalues(m.to(kDouble).sum(0));
  for (size_t i = 0; i < cs.size(); ++i) CHECK(std::abs(cs[i] - csd[i]) <= 1e-5);
  // bfloat16 and float64 row sums against a long double loop over the same values.
  for (int64_t n : {5, 16, 33, 129, 1000, 4099}) {
    INFO("n = " << n);
    for (ScalarType dt : {kBFloat16, kDouble}) {
      INFO("dtype " << name(dt));
      Tensor x = randn({2, n}, kDouble).to(dt);
      const std::vector<double> xv = dvalues(x), got = dvalues(x.sum(1).to(kDouble));
      for (int r = 0; r < 2; ++r) {
        long double want = 0, mag = 0;
        for (int64_t j = 0; j < n; ++j) {
          want += xv[size_t(r * n + j)];
          mag += std::abs(xv[size_t(r * n + j)]);
        }
        // The bfloat16 result is rounded to bfloat16 (8 bits); float64 keeps 1e-15 of the magnitude.
        const double tol = dt == kBFloat16 ? 4e-3 * std::abs(double(want)) + 1e-6 * double(mag) : 1e-15 * double(mag);
        CHECK(std::abs(got[size_t(r)] - double(want)) <= tol);
      }
    }
  }
  // Groups added in float first overflow here (3e38 + 3e38); the result must not.
  Tensor big = tensor(std::vector<double>{3e38, 3e38, -3e38, -3e38}).to(kFloat);
  Tensor rows = big.view({4, 1}).expand({4, 33}).contiguous();
  for (double v : dvalues(rows.sum(0))) CHECK(v == 0.0);
  Tensor runs = big.repeat({64});
  CHECK(dvalues(runs.sum())[0] == 0.0);
  CHECK(dvalues(runs.to(kBFloat16).sum())[0] == 0.0);
}

TEST_CASE("cpu capability: float64 exp, sigmoid and tanh are within a few ulp over the whole range") {
  const int64_t n = 300007;
  Tensor x = arange(n, kDouble) * (1470.0 / double(n - 1)) - 755.0;  // -755 .. 715
  const std::vector<double> xv = dvalues(x), ev = dvalues(exp(x)), sv = dvalues(sigmoid(x));
  auto ulp = [](double v) { return std::nextafter(std::abs(v), INFINITY) - std::abs(v); };
  for (size_t i = 0; i < xv.size(); ++i) {
    INFO("x = " << xv[i]);
    const double e = std::exp(xv[i]);
    if (std::isinf(e)) REQUIRE(std::isinf(ev[i]));
    else REQUIRE(std::abs(ev[i] - e) <= 2 * ulp(e));
    const double s = 1 / (1 + std::exp(-xv[i]));
    REQUIRE(std::abs(sv[i] - s) <= 3 * ulp(s));
  }
  // tanh: both of its forms and the switch between them at |x| = 0.625, densely near 0.
  for (double scale : {25.0, 1.0, 1e-3, 1e-9}) {
    Tensor u = arange(100003, kDouble) * (2 * scale / 100002.0) - scale;
    const std::vector<double> uv = dvalues(u), hv = dvalues(tanh(u));
    for (size_t i = 0; i < uv.size(); ++i) {
      INFO("x = " << uv[i]);
      const double h = std::tanh(uv[i]);
      REQUIRE(std::abs(hv[i] - h) <= 3 * ulp(h));
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> hs = dvalues(tanh(tensor({-inf, inf, std::nan(""), 0.0, -0.0, 1e-300, -800.0}, kDouble)));
  CHECK(hs[0] == -1.0);
  CHECK(hs[1] == 1.0);
  CHECK(std::isnan(hs[2]));
  CHECK((hs[3] == 0.0 && !std::signbit(hs[3])));
  CHECK((hs[4] == 0.0 && std::signbit(hs[4])));
  CHECK(hs[5] == 1e-300);
  CHECK(hs[6] == -1.0);
  const std::vector<double> sp = {-inf, inf, std::nan(""), 0.0, -0.0, 709.78, 709.79, -745.0, -745.2, 1e-300};
  const std::vector<double> es = dvalues(exp(tensor(sp, kDouble)));
  CHECK(es[0] == 0.0);
  CHECK(std::isinf(es[1]));
  CHECK(std::isnan(es[2]));
  CHECK(es[3] == 1.0);
  CHECK(es[4] == 1.0);
  CHECK(es[5] == Approx(std::exp(709.78)).epsilon(1e-15));
  CHECK(std::isinf(es[6]));
  CHECK(es[7] == std::exp(-745.0));  // the smallest subnormal
  CHECK(es[8] == 0.0);
  CHECK(es[9] == 1.0);
  // float64 softmax rows against the formula.
  manual_seed(fresh_seed());
  Tensor z = randn({5, 77}, kDouble) * 10;
  const std::vector<double> sm = dvalues(z.softmax(1)), lsm = dvalues(z.log_softmax(1)), zv = dvalues(z);
  for (int r = 0; r < 5; ++r) {
    double mx = -inf, sum = 0;
    for (int j = 0; j < 77; ++j) mx = std::max(mx, zv[size_t(r * 77 + j)]);
    for (int j = 0; j < 77; ++j) sum += std::exp(zv[size_t(r * 77 + j)] - mx);
    for (int j = 0; j < 77; ++j) {
      const size_t k = size_t(r * 77 + j);
      CHECK(std::abs(sm[k] - std::exp(zv[k] - mx) / sum) <= 4e-15 * (std::exp(zv[k] - mx) / sum));
      CHECK(std::abs(lsm[k] - ((zv[k] - mx) - std::log(sum))) <= 1e-13 * (1 + std::abs(lsm[k])));
    }
  }
}

TEST_CASE("cpu capability: the vector float32 to bfloat16 cast rounds as the scalar one, specials included") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  // Random values of every magnitude, then ties, subnormals, signed zeros, infinities, NaNs.
  Tensor x = (randn({4000}, kDouble) * (rand({4000}, kDouble) * 80 - 40).exp()).to(kFloat);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<double> special = {1.0 + 1.0 / 256, 1.0 + 3.0 / 256, -(1.0 + 1.0 / 256), 1e-40, -1e-41, 0.0, -0.0,
                                 double(inf), -double(inf), std::nan(""), 3.3895314e38, -3.39e38, 1.17549435e-38};
  while (special.size() % 40 != 0) special.push_back(0.5);
  Tensor all = cat({x, tensor(special, kDouble).to(kFloat)});
  Tensor contiguous = all.to(kBFloat16);
  // Every other element (input stride 2) takes the scalar loop: the same values, interleaved back.
  Tensor pairs = all.view({-1, 2});
  Tensor strided = stack({pairs.select(1, 0).to(kBFloat16), pairs.select(1, 1).to(kBFloat16)}, 1).reshape({-1});
  // bfloat16 -> float64 is exact: equal values and signs mean equal bits (NaN is always 0x7fc0).
  const std::vector<double> av = dvalues(contiguous), bv = dvalues(strided);
  REQUIRE(av.size() == bv.size());
  for (size_t i = 0; i < av.size(); ++i) {
    INFO("element " << i << ": " << av[i] << " vs " << bv[i]);
    if (std::isnan(bv[i])) {
      CHECK(std::isnan(av[i]));
    } else {
      CHECK(av[i] == bv[i]);
      CHECK(std::signbit(av[i]) == std::signbit(bv[i]));
    }
  }
  CHECK(dvalues(contiguous.to(kFloat))[4000] == 1.0);  // 1 + 2^-8 ties to even: 1
  CHECK(std::isnan(dvalues(contiguous.to(kFloat))[4009]));
}

TEST_CASE("cpu capability: bfloat16 and float16 add, sub, mul and div on the vector path round as the scalar loop") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  for (ScalarType dt : {kBFloat16, kHalf}) {
  INFO("dtype " << name(dt));
  // Magnitudes from 1e-6 to 1e4: float16 results overflow, underflow to subnormals and round.
  Tensor x = (randn({2, 1001}, kDouble) * (rand({2, 1001}, kDouble) * 23 - 14).exp()).to(dt);
  Tensor y = (randn({2, 1001}, kDouble) * (rand({2, 1001}, kDouble) * 23 - 14).exp()).to(dt);
  // The strided operands (every other element) take the scalar loop; the results interleave back.
  auto strided = [](const Tensor& a, const Tensor& b, Tensor (*op)(const Tensor&, const Tensor&)) {
    Tensor pa = a.reshape({-1, 2}), pb = b.reshape({-1, 2});
    return stack({op(pa.select(1, 0), pb.select(1, 0)), op(pa.select(1, 1), pb.select(1, 1))}, 1).reshape(a.sizes());
  };
  using BinaryOp = Tensor (*)(const Tensor&, const Tensor&);
  // Equal values, NaN equal to NaN (0 / 0 may occur among the smallest values).
  auto same = [](const Tensor& a, const Tensor& b) {
    const std::vector<double> av = dvalues(a), bv = dvalues(b);
    if (av.size() != bv.size()) return false;
    for (size_t i = 0; i < av.size(); ++i)
      if (!(av[i] == bv[i] || (std::isnan(av[i]) && std::isnan(bv[i])))) return false;
    return true;
  };
  const std::vector<std::pair<const char*, BinaryOp>> ops = {
      {"add", +[](const Tensor& a, const Tensor& b) { return a + b; }},
      {"sub", +[](const Tensor& a, const Tensor& b) { return a - b; }},
      {"mul", +[](const Tensor& a, const Tensor& b) { return a * b; }},
      {"div", +[](const Tensor& a, const Tensor& b) { return a / b; }}};
  for (const auto& [what, op] : ops) {
    INFO(what);
    CHECK(same(op(x, y), strided(x, y, op)));
    // A one-element operand, and the same in place.
    Tensor s = full({1}, 1.7, dt);
    CHECK(same(op(x, s), strided(x, s.expand({2, 1001}).contiguous(), op)));
  }
  Tensor z = x.clone();
  z.add_(y);
  CHECK(same(z, x + y));
  z = x.clone();
  z.mul_(2.5);
  CHECK(same(z, strided(x, full({2, 1001}, 2.5, dt), ops[2].second)));
  }
}
