// Elementwise ops against float64 references on fresh random inputs: contiguous,
// transposed, broadcast, scalar operands, every floating dtype; errors by type and message.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "test_util.h"

#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace ember;
using ember_test::dvalues;
using ember_test::fresh_seed;

namespace {


double tolerance(ScalarType t) { return t == kHalf ? 2e-3 : t == kBFloat16 ? 1.6e-2 : t == kFloat ? 2e-6 : 1e-12; }

void check_close(const Tensor& got, const std::vector<double>& want, ScalarType dtype) {
  auto g = dvalues(got);
  REQUIRE(g.size() == want.size());
  const double tol = tolerance(dtype);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i])) {
      REQUIRE(std::isnan(g[i]));
      continue;
    }
    INFO("element " << i << ": got " << g[i] << ", want " << want[i]);
    REQUIRE(std::abs(g[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

// The reference applies f to the values the op actually received (rounded to dtype).
void check_unary(const char* what, const std::function<Tensor(const Tensor&)>& op,
                 const std::function<double(double)>& f, double lo, double hi) {
  const uint64_t seed = fresh_seed();
  INFO(what << ", seed " << seed);
  manual_seed(seed);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    INFO("dtype " << name(dt));
    Tensor x = (rand({7, 5}, kDouble) * (hi - lo) + lo).to(dt);
    for (const Tensor& in : {x, x.t(), x.slice(1, 0, 5, 2)}) {
      Tensor y = op(in);
      CHECK(y.dtype() == dt);
      CHECK(y.sizes() == in.sizes());
      std::vector<double> want;
      for (double v : dvalues(in)) want.push_back(f(v));
      check_close(y, want, dt);
    }
  }
}

}  // namespace

TEST_CASE("elementwise: floating unary ops match float64 references") {
  check_unary("exp", [](const Tensor& x) { return exp(x); }, [](double v) { return std::exp(v); }, -3, 3);
  check_unary("log", [](const Tensor& x) { return log(x); }, [](double v) { return std::log(v); }, 0.1, 5);
  check_unary("log1p", [](const Tensor& x) { return x.log1p(); }, [](double v) { return std::log1p(v); }, 0, 5);
  check_unary("expm1", [](const Tensor& x) { return expm1(x); }, [](double v) { return std::expm1(v); }, -2, 2);
  check_unary("sqrt", [](const Tensor& x) { return sqrt(x); }, [](double v) { return std::sqrt(v); }, 0, 9);
  check_unary("rsqrt", [](const Tensor& x) { return rsqrt(x); }, [](double v) { return 1 / std::sqrt(v); }, 0.5, 9);
  check_unary("sin", [](const Tensor& x) { return sin(x); }, [](double v) { return std::sin(v); }, -3, 3);
  check_unary("cos", [](const Tensor& x) { return cos(x); }, [](double v) { return std::cos(v); }, -3, 3);
  check_unary("tan", [](const Tensor& x) { return tan(x); }, [](double v) { return std::tan(v); }, -1, 1);
  check_unary("tanh", [](const Tensor& x) { return tanh(x); }, [](double v) { return std::tanh(v); }, -3, 3);
  check_unary("sigmoid", [](const Tensor& x) { return sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -5, 5);
  check_unary("gelu", [](const Tensor& x) { return gelu(x); },
              [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, -3, 3);
  check_unary("reciprocal", [](const Tensor& x) { return reciprocal(x); }, [](double v) { return 1 / v; }, 0.5, 4);
  check_unary("neg", [](const Tensor& x) { return -x; }, [](double v) { return -v; }, -3, 3);
  check_unary("abs", [](const Tensor& x) { return abs(x); }, [](double v) { return std::abs(v); }, -3, 3);
  check_unary("square", [](const Tensor& x) { return square(x); }, [](double v) { return v * v; }, -3, 3);
  check_unary("relu", [](const Tensor& x) { return relu(x); }, [](double v) { return v < 0 ? 0 : v; }, -3, 3);
  check_unary("floor", [](const Tensor& x) { return floor(x); }, [](double v) { return std::floor(v); }, -3, 3);
  check_unary("ceil", [](const Tensor& x) { return ceil(x); }, [](double v) { return std::ceil(v); }, -3, 3);
  check_unary("trunc", [](const Tensor& x) { return trunc(x); }, [](double v) { return std::trunc(v); }, -3, 3);
  check_unary("sign", [](const Tensor& x) { return sign(x); }, [](double v) { return double((0 < v) - (v < 0)); }, -3, 3);
  check_unary("clamp", [](const Tensor& x) { return clamp(x, -1, 0.5); },
              [](double v) { return std::min(std::max(v, -1.0), 0.5); }, -3, 3);
}

TEST_CASE("elementwise: round is half to even and integer ops keep their dtype") {
  CHECK(dvalues(round(tensor({0.5, 1.5, 2.5, -0.5, -1.5, 2.4}))) == std::vector<double>{0, 2, 2, -0, -2, 2});
  Tensor i = tensor({-3, 0, 4}, kInt32);
  CHECK(abs(i).dtype() == kInt32);
  CHECK(dvalues(abs(i)) == std::vector<double>{3, 0, 4});
  CHECK(dvalues(sign(i)) == std::vector<double>{-1, 0, 1});
  CHECK(dvalues(relu(i)) == std::vector<double>{0, 0, 4});
  CHECK(dvalues(square(i)) == std::vector<double>{9, 0, 16});
  CHECK(dvalues(floor(i)) == std::vector<double>{-3, 0, 4});
  CHECK(exp(i).dtype() == kFloat);
  CHECK(dvalues(clamp(i, 1.5)) == std::vector<double>{1.5, 1.5, 4});
  CHECK(clamp(i, 1.5).dtype() == kFloat);
  CHECK(dvalues(clamp(i, std::nullopt, 1)) == std::vector<double>{-3, 0, 1});
  CHECK(dvalues(isnan(tensor({1.0, double(NAN)}))) == std::vector<double>{0, 1});
  CHECK(dvalues(isinf(tensor({double(INFINITY), 1.0}))) == std::vector<double>{1, 0});
  CHECK(dvalues(logical_not(tensor({0, 3}))) == std::vector<double>{1, 0});
  CHECK(std::isnan(dvalues(relu(tensor({double(NAN)})))[0]));
  CHECK(std::isnan(dvalues(clamp(tensor({double(NAN)}), 0, 1))[0]));
}

TEST_CASE("elementwise: binary ops broadcast and match references") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  manual_seed(seed);
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&, const Tensor&)> op;
    std::function<double(double, double)> f;
  };
  std::vector<Case> cases = {
      {"add", [](auto& a, auto& b) { return a + b; }, [](double x, double y) { return x + y; }},
      {"add alpha", [](auto& a, auto& b) { return add(a, b, 2.5); }, [](double x, double y) { return x + 2.5 * y; }},
      {"sub", [](auto& a, auto& b) { return a - b; }, [](double x, double y) { return x - y; }},
      {"mul", [](auto& a, auto& b) { return a * b; }, [](double x, double y) { return x * y; }},
      {"div", [](auto& a, auto& b) { return a / b; }, [](double x, double y) { return x / y; }},
      {"maximum", [](auto& a, auto& b) { return maximum(a, b); }, [](double x, double y) { return std::max(x, y); }},
      {"minimum", [](auto& a, auto& b) { return minimum(a, b); }, [](double x, double y) { return std::min(x, y); }},
      {"atan2", [](auto& a, auto& b) { return atan2(a, b); }, [](double x, double y) { return std::atan2(x, y); }},
      {"pow", [](auto& a, auto& b) { return pow(abs(a), b); }, [](double x, double y) { return std::pow(std::abs(x), y); }},
      {"remainder", [](auto& a, auto& b) { return remainder(a, b); },
       [](double x, double y) { double r = std::fmod(x, y); return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; }},
  };
  for (ScalarType dt : {kFloat, kDouble}) {
    Tensor a = (randn({4, 1, 6}, kDouble) * 3).to(dt);
    Tensor b = (rand({5, 1}, kDouble) + 0.5).to(dt);
    for (auto& c : cases) {
      INFO(c.name << " " << name(dt));
      Tensor y = c.op(a, b);
      REQUIRE(y.sizes() == std::vector<int64_t>{4, 5, 6});
      Tensor ae = a.expand({4, 5, 6}).contiguous(), be = b.expand({4, 5, 6}).contiguous();
      auto av = dvalues(ae), bv = dvalues(be);
      std::vector<double> want;
      for (size_t i = 0; i < av.size(); ++i) want.push_back(c.f(av[i], bv[i]));
      check_close(y, want, dt);
      // the same through transposed operands
      Tensor yt = c.op(ae.transpose(0, 2).contiguous().transpose(0, 2), be);
      check_close(yt, want, dt);
    }
  }
}

TEST_CASE("elementwise: scalar operands on either side") {
  Tensor x = tensor({1.0, 2.0, 4.0});
  CHECK(dvalues(x + 1) == std::vector<double>{2, 3, 5});
  CHECK(dvalues(1 + x) == std::vector<double>{2, 3, 5});
  CHECK(dvalues(10 - x) == std::vector<double>{9, 8, 6});
  CHECK(dvalues(x - 1) == std::vector<double>{0, 1, 3});
  CHECK(dvalues(8 / x) == std::vector<double>{8, 4, 2});
  CHECK(dvalues(x * 0.5) == std::vector<double>{0.5, 1, 2});
  CHECK(dvalues(pow(x, 2)) == std::vector<double>{1, 4, 16});
  CHECK(dvalues(pow(2, x)) == std::vector<double>{2, 4, 16});
  CHECK(dvalues(x > 1.5) == std::vector<double>{0, 1, 1});
  CHECK(dvalues(x == 2) == std::vector<double>{0, 1, 0});
  CHECK((x > 1.5).dtype() == kBool);
  CHECK(dvalues(add(x, 1, 3)) == std::vector<double>{4, 5, 7});
}

TEST_CASE("elementwise: integer semantics follow torch") {
  Tensor a = tensor({7, -7, 7, -7}), b = tensor({2, 2, -2, -2});
  CHECK(dvalues(a / b) == std::vector<double>{3.5, -3.5, -3.5, 3.5});
  CHECK((a / b).dtype() == kFloat);
  CHECK(dvalues(remainder(a, b)) == std::vector<double>{1, 1, -1, -1});
  CHECK(dvalues(a % 3) == std::vector<double>{1, 2, 1, 2});
  CHECK(dvalues(pow(tensor({2, 3}), 3)) == std::vector<double>{8, 27});
  CHECK(pow(tensor({2, 3}), 3).dtype() == kInt64);
  CHECK_THROWS_WITH(pow(tensor({2}), -1), Catch::Contains("negative integer powers"));
  CHECK_THROWS_WITH(remainder(a, tensor({0})), Catch::Contains("division by zero"));
  CHECK(dvalues(a) == std::vector<double>{7, -7, 7, -7});
  Tensor u = tensor({250}, kUInt8);
  CHECK(dvalues(u + tensor({10}, kUInt8)) == std::vector<double>{4});  // wraps like torch
  CHECK(dvalues(tensor({true, false}) + tensor({true, true})) == std::vector<double>{1, 1});
  CHECK(dvalues(logical_xor(tensor({1, 0, 2}), tensor({0.0, 0.0, 1.0}))) == std::vector<double>{1, 0, 0});
  CHECK(dvalues(tensor({1, 0}) && tensor({1, 1})) == std::vector<double>{1, 0});
  CHECK(dvalues(tensor({1, 0}) || tensor({0, 0})) == std::vector<double>{1, 0});
  CHECK(dvalues(!tensor({true, false})) == std::vector<double>{0, 1});
}

TEST_CASE("elementwise: where, lerp, addcmul, addcdiv") {
  Tensor c = tensor({true, false, true});
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({10, 20, 30});
  CHECK(dvalues(where(c, a, b)) == std::vector<double>{1, 20, 3});
  CHECK(where(c, a, b).dtype() == kFloat);
  CHECK(dvalues(where(c, a, 0.0)) == std::vector<double>{1, 0, 3});
  CHECK(dvalues(where(c, -1, b)) == std::vector<double>{-1, 20, -1});
  CHECK(dvalues(where(c.unsqueeze(1), a, b.to(kFloat))).size() == 9);
  CHECK_THROWS_WITH(where(tensor({1, 0}), a, a),
                    "where: expected condition to be a boolean tensor, but got a tensor with dtype Long");
  CHECK(dvalues(lerp(a, b.to(kFloat), 0.5)) == std::vector<double>{5.5, 11, 16.5});
  CHECK(dvalues(lerp(a, b.to(kFloat), tensor({0.0, 1.0, 0.5}))) == std::vector<double>{1, 20, 16.5});
  CHECK(dvalues(addcmul(a, a, a, 2)) == std::vector<double>{3, 10, 21});
  CHECK(dvalues(addcdiv(a, a, tensor({2.0, 4.0, 6.0}), 2)) == std::vector<double>{2, 3, 4});
}

TEST_CASE("elementwise: slices of wider rows, row and column broadcasts, scalar and bool operands") {
  // Rows of unit step inside wider rows (an LSTM's gate chunks), a column broadcast (step
  // 0 along the row) and bool operands each take a typed loop; the values must not care.
  manual_seed(fresh_seed());
  for (ScalarType dt : {kFloat, kDouble}) {
    INFO("dtype " << name(dt));
    const Tensor wide = randn({6, 20}, dt);
    const Tensor a = wide.narrow(1, 2, 5), b = wide.narrow(1, 11, 5);  // [6, 5], row step 20
    const Tensor col = randn({6, 1}, dt), row = randn({5}, dt);
    const Tensor mask_wide = randn({6, 9}) > 0;
    const Tensor mask = mask_wide.narrow(1, 3, 5);
    const std::vector<double> va = dvalues(a), vb = dvalues(b), vc = dvalues(col), vr = dvalues(row);
    const std::vector<double> vm = dvalues(mask);
    std::vector<double> sum, by_col, by_row, pick, pick_zero, zero_pick, fma, sig;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 5; ++j) {
        const size_t k = size_t(i * 5 + j);
        sum.push_back(va[k] + vb[k]);
        by_col.push_back(va[k] * vc[size_t(i)]);
        by_row.push_back(va[k] - vr[size_t(j)]);
        pick.push_back(vm[k] != 0 ? va[k] : vb[k]);
        pick_zero.push_back(vm[k] != 0 ? va[k] : 0.0);
        zero_pick.push_back(vm[k] != 0 ? -1.5 : vb[k]);
        fma.push_back(va[k] + 0.5 * vb[k] * va[k]);
        sig.push_back(1 / (1 + std::exp(-va[k])));
      }
    check_close(a + b, sum, dt);
    check_close(a * col, by_col, dt);
    check_close(a - row, by_row, dt);
    check_close(where(mask, a, b), pick, dt);
    check_close(where(mask, a, 0.0), pick_zero, dt);
    check_close(where(mask, -1.5, b), zero_pick, dt);
    check_close(where(mask.contiguous(), a.contiguous(), 0.0), pick_zero, dt);
    check_close(addcmul(a, b, a, 0.5), fma, dt);
    check_close(sigmoid(a), sig, dt);
    // A bool operand read as its byte keeps bool semantics: not, and a bool-to-float copy.
    std::vector<double> negated, as_float;
    for (double m : vm) {
      negated.push_back(m != 0 ? 0.0 : 1.0);
      as_float.push_back(m);
    }
    CHECK(dvalues(logical_not(mask)) == negated);
    CHECK(dvalues(mask.to(dt)) == as_float);
  }
}

TEST_CASE("elementwise: in-place and out variants write into the tensor") {
  Tensor x = tensor({1.0, 2.0});
  Tensor* addr = &x.add_(1);
  CHECK(addr == &x);
  CHECK(dvalues(x) == std::vector<double>{2, 3});
  x.mul_(tensor({2.0, 3.0})).sub_(1).div_(2);
  CHECK(dvalues(x) == std::vector<double>{1.5, 4});
  x += 1;
  x *= 2;
  CHECK(dvalues(x) == std::vector<double>{5, 10});
  x.clamp_(6, 8).relu_();
  CHECK(dvalues(x) == std::vector<double>{6, 8});
  x.zero_();
  CHECK(dvalues(x) == std::vector<double>{0, 0});
  Tensor h = ones({2}, kHalf);
  h.add_(ones({2}));  // float result cast into half
  CHECK(dvalues(h) == std::vector<double>{2, 2});
  Tensor out = empty({2, 2});
  const void* ptr = out.data_ptr();
  add_out(out, ones({2, 2}), tensor({1.0, 2.0}));
  CHECK(out.data_ptr() == ptr);
  CHECK(dvalues(out) == std::vector<double>{2, 3, 2, 3});
  mul_out(out, out, full({2, 2}, 2.0));
  CHECK(dvalues(out) == std::vector<double>{4, 6, 4, 6});
  // transposed in-place
  Tensor m = arange(6, kFloat).reshape({2, 3});
  m.t().add_(tensor({1.0, 2.0}));
  CHECK(dvalues(m) == std::vector<double>{1, 2, 3, 5, 6, 7});
}

namespace {
// ulp(v): the spacing of float32 at |v| (2^-149 among the subnormals).
double float_ulp(double v) {
  const float f = float(std::abs(v));
  return double(std::nextafter(f, std::numeric_limits<float>::infinity())) - double(f);
}
}  // namespace

TEST_CASE("elementwise: float32 exp, sigmoid and tanh are within a few ulp over the whole range") {
  // Every 8-lane block and the tail: a sweep of 200003 points from -110 to 95.
  const int64_t n = 200003;
  Tensor x = (arange(n, kDouble) * (205.0 / double(n - 1)) - 110.0).to(kFloat);
  auto xv = dvalues(x), ev = dvalues(exp(x)), sv = dvalues(sigmoid(x));
  for (size_t i = 0; i < xv.size(); ++i) {
    INFO("x = " << xv[i]);
    const double e = std::exp(xv[i]);
    if (e > 3.41e38)
      REQUIRE(std::isinf(ev[i]));  // overflow
    else if (e < 3.39e38)
      REQUIRE(std::abs(ev[i] - e) <= 2 * float_ulp(e));
    if (xv[i] > -80 && xv[i] < 80) {
      const double s = 1 / (1 + std::exp(-xv[i]));
      REQUIRE(std::abs(sv[i] - s) <= 4 * float_ulp(s));
    }
  }
  // tanh: both of its forms and the switch between them at |x| = 0.625, densely near 0.
  for (double scale : {20.0, 1.0, 1e-3}) {
    Tensor u = (arange(n, kDouble) * (2 * scale / double(n - 1)) - scale).to(kFloat);
    auto uv = dvalues(u), hv = dvalues(tanh(u));
    for (size_t i = 0; i < uv.size(); ++i) {
      INFO("x = " << uv[i]);
      const double h = std::tanh(uv[i]);
      REQUIRE(std::abs(hv[i] - h) <= 3 * float_ulp(h));
    }
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Specials, padded to 16 elements so that they land in the vector loop.
  std::vector<double> sp = {-inf,   inf,    nan,     0.0,    -0.0,  88.72283f, 88.7229f, -87.33654f,
                            -103.0, -104.5, -1000.0, 1000.0, 1e-30, -1e-30,    0.5,      -0.5};
  auto es = dvalues(exp(tensor(sp).to(kFloat))), ss = dvalues(sigmoid(tensor(sp).to(kFloat)));
  CHECK(es[0] == 0.0);
  CHECK(std::isinf(es[1]));
  CHECK(std::isnan(es[2]));
  CHECK(es[3] == 1.0);
  CHECK(es[4] == 1.0);
  CHECK(std::isfinite(es[5]));
  CHECK(std::abs(es[5] - std::exp(double(88.72283f))) <= 2 * float_ulp(std::exp(double(88.72283f))));
  CHECK(std::isinf(es[6]));
  CHECK(std::abs(es[7] - std::exp(double(-87.33654f))) <= 2 * float_ulp(std::exp(double(-87.33654f))));
  CHECK(std::abs(es[8] - std::exp(-103.0)) <= 2 * float_ulp(std::exp(-103.0)));  // subnormal
  CHECK(es[9] == 0.0);
  CHECK(es[10] == 0.0);
  CHECK(std::isinf(es[11]));
  CHECK(es[12] == 1.0);
  CHECK(ss[0] == 0.0);
  CHECK(ss[1] == 1.0);
  CHECK(std::isnan(ss[2]));
  CHECK(ss[3] == 0.5);
  CHECK(ss[10] == 0.0);
  CHECK(ss[11] == 1.0);
  auto hs = dvalues(tanh(tensor(sp).to(kFloat)));
  CHECK(hs[0] == -1.0);
  CHECK(hs[1] == 1.0);
  CHECK(std::isnan(hs[2]));
  CHECK(hs[3] == 0.0);
  CHECK((hs[4] == 0.0 && std::signbit(hs[4])));
  CHECK(hs[10] == -1.0);
  CHECK(hs[11] == 1.0);
  CHECK(hs[12] == double(1e-30f));
  // A value gets the same result in the vector body and in the tail (9 = 8 + 1 elements).
  for (const Tensor& r : {exp(full({9}, 26.688921)), tanh(full({9}, 0.3)), sigmoid(full({9}, -2.9955)),
                          exp(full({9}, -2.9955))}) {
    auto rv = dvalues(r);
    for (double v : rv) CHECK(v == rv[0]);
  }
  // In place on a contiguous tensor writes the same values.
  Tensor y = x.clone();
  y.exp_();
  CHECK(dvalues(y) == ev);
}

TEST_CASE("elementwise: errors are typed, say what was received, and change nothing") {
  Tensor a = tensor({1.0, 2.0, 3.0}), b = tensor({1.0, 2.0});
  CHECK_THROWS_AS(a + b, InvalidArgument);
  CHECK_THROWS_WITH(a + b, Catch::Contains("size of tensor a (3) must match the size of tensor b (2)"));
  Tensor i = tensor({1, 2});
  CHECK_THROWS_WITH(i.add_(1.5), Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK(dvalues(i) == std::vector<double>{1, 2});
  Tensor small = ones({3});
  CHECK_THROWS_WITH(small.add_(ones({2, 3})), Catch::Contains("doesn't match the broadcast shape"));
  CHECK(dvalues(small) == std::vector<double>{1, 1, 1});
  Tensor e = ones({1}).expand({3});
  CHECK_THROWS_WITH(e.add_(1), Catch::Contains("more than one element of the written-to tensor"));
  CHECK_THROWS_WITH(-tensor({true}), Catch::Contains("on a bool tensor is not supported"));
  CHECK_THROWS_AS(exp(Tensor()), InvalidArgument);
  CHECK_THROWS_AS(clamp(a, std::nullopt, std::nullopt), InvalidArgument);
  CHECK_THROWS_AS(sub(tensor({true}), tensor({true})), InvalidArgument);
  Tensor out = empty({5});
  CHECK_THROWS_AS(add_out(out, a, a), InvalidArgument);
  CHECK(dvalues(a) == std::vector<double>{1, 2, 3});
}

TEST_CASE("elementwise: large tensors take the parallel path with the same results") {
  manual_seed(fresh_seed());
  Tensor a = rand({1 << 20}), b = rand({1 << 20});
  Tensor y = a + b;
  auto av = dvalues(a), bv = dvalues(b), yv = dvalues(y);
  for (size_t i = 0; i < yv.size(); i += 4099) REQUIRE(yv[i] == float(av[i] + bv[i]));
  // Every element of float add, sub, mul and in-place add over an odd size split across
  // threads (the AVX2 loop of each thread ends in a scalar tail).
  const int64_t odd = 100003;
  Tensor p = rand({odd}), q = rand({odd});
  auto pv = dvalues(p), qv = dvalues(q);
  auto sum = dvalues(p + q), diff = dvalues(p - q), prod = dvalues(p * q);
  Tensor acc = p.clone();
  acc.add_(q);
  auto accv = dvalues(acc);
  // A Scalar or one-element second operand, and relu (NaN stays NaN, -0 stays -0).
  auto plus_s = dvalues(p + 2.5), times_s = dvalues(p * 3.0), minus_b = dvalues(p - q.narrow(0, 5, 1));
  auto quot = dvalues(p / q), root = dvalues(sqrt(p));
  Tensor r = (p - 0.5);
  r.index_put_({7}, std::numeric_limits<double>::quiet_NaN());
  r.index_put_({9}, -0.0);
  auto rv = dvalues(r), relu_v = dvalues(relu(r));
  for (size_t i = 0; i < pv.size(); ++i) {
    REQUIRE(plus_s[i] == float(pv[i] + 2.5));
    REQUIRE(times_s[i] == float(pv[i] * 3.0));
    REQUIRE(minus_b[i] == float(pv[i] - qv[5]));
    REQUIRE(quot[i] == double(float(pv[i]) / float(qv[i])));
    REQUIRE(root[i] == double(std::sqrt(float(pv[i]))));
    if (std::isnan(rv[i]))
      REQUIRE(std::isnan(relu_v[i]));
    else
      REQUIRE(relu_v[i] == (rv[i] < 0 ? 0.0 : rv[i]));
  }
  CHECK(std::signbit(relu_v[9]));
  for (size_t i = 0; i < pv.size(); ++i) {
    REQUIRE(sum[i] == float(pv[i] + qv[i]));
    REQUIRE(diff[i] == float(pv[i] - qv[i]));
    REQUIRE(prod[i] == float(pv[i] * qv[i]));
    REQUIRE(accv[i] == sum[i]);
  }
  // 16 MiB of output and more takes the streaming stores; an unaligned output runs a head loop
  const int64_t n = (int64_t(1) << 22) + 7;
  Tensor c = rand({n}), d = rand({n}), buf = zeros({n + 1});
  Tensor z = buf.narrow(0, 1, n);
  add_out(z, c, d);
  auto cv = dvalues(c), dv = dvalues(d), zv = dvalues(z);
  auto same_at = [&](size_t i) { return zv[i] == float(cv[i] + dv[i]); };
  for (size_t i = 0; i < 64; ++i) REQUIRE(same_at(i));                        // the unaligned head
  for (size_t i = 64; i < zv.size(); i += 4099) REQUIRE(same_at(i));
  for (size_t i = zv.size() - 64; i < zv.size(); ++i) REQUIRE(same_at(i));    // the last chunk's tail
  CHECK(buf.index({0}).item<float>() == 0.0f);  // nothing written before the view
  Tensor big = rand({512, 2048});
  Tensor s = big.t() * 2;
  CHECK(s.sizes() == std::vector<int64_t>{2048, 512});
  CHECK(s.index({7, 9}).item<float>() == big.index({9, 7}).item<float>() * 2);
}

TEST_CASE("elementwise: transposed and permuted copies (tile by tile) keep every value") {
  manual_seed(fresh_seed());
  // Sizes that are not multiples of the 8 x 64 tile, every element checked.
  Tensor m = rand({1003, 1037});
  Tensor t = m.t().contiguous();
  REQUIRE(t.sizes() == std::vector<int64_t>{1037, 1003});
  auto mv = dvalues(m), tv = dvalues(t);
  for (int64_t i = 0; i < 1037; ++i)
    for (int64_t j = 0; j < 1003; ++j) REQUIRE(tv[size_t(i * 1003 + j)] == mv[size_t(j * 1037 + i)]);
  // A batch of planes (the outer dim walks the planes), in several dtypes.
  for (ScalarType dt : {kFloat, kDouble, kLong, kBool, kHalf}) {
    INFO(name(dt));
    Tensor b = dt == kBool ? rand({3, 70, 45}) < 0.5 : (rand({3, 70, 45}) * 100).to(dt);
    Tensor p = b.permute({0, 2, 1}).contiguous();
    auto bv = dvalues(b), pv = dvalues(p);
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t i = 0; i < 45; ++i)
        for (int64_t j = 0; j < 70; ++j)
          REQUIRE(pv[size_t((k * 45 + i) * 70 + j)] == bv[size_t((k * 70 + j) * 45 + i)]);
  }
  // A transposed slice copied into a destination whose rows are 80 apart (not 64).
  Tensor src = rand({64, 130}).narrow(1, 0, 65).t();  // 65 x 64, strides (1, 130)
  Tensor dst_base = zeros({65, 80});
  Tensor dst = dst_base.narrow(1, 8, 64);
  dst.copy_(src);
  auto sv = dvalues(src), dv = dvalues(dst);
  CHECK(dv == sv);
  CHECK(dst_base.narrow(1, 0, 8).abs().sum().item<double>() == 0.0);  // nothing outside the view
}

TEST_CASE("elementwise: a NaN clamp bound gives NaN; maximum and minimum propagate NaN") {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    INFO(name(dt));
    Tensor x = tensor({-20.0, 0.0, 5.0, double(NAN), double(INFINITY)}).to(dt);
    for (const Tensor& r : {clamp_max(x, NAN), clamp_min(x, NAN), clamp(x, -10, NAN), clamp(x, NAN, 10), x.clone().clamp_(NAN)}) {
      CHECK(r.dtype() == dt);
      for (double v : dvalues(r)) CHECK(std::isnan(v));
    }
    auto c = dvalues(clamp(x, -10, 10));
    CHECK(c[0] == -10);
    CHECK(c[2] == 5);
    CHECK(std::isnan(c[3]));  // a NaN element stays NaN
    CHECK(c[4] == 10);
    CHECK(dvalues(clamp(x.slice(0, 0, 3), 10, -10)) == std::vector<double>{-10, -10, -10});  // min > max: max wins
    Tensor y = tensor({double(NAN), 1.0, 3.0, 2.0, double(NAN)}).to(dt);
    auto mx = dvalues(maximum(x, y)), mn = dvalues(minimum(x, y));
    CHECK((std::isnan(mx[0]) && mx[1] == 1 && mx[2] == 5 && std::isnan(mx[3]) && std::isnan(mx[4])));
    CHECK((std::isnan(mn[0]) && mn[1] == 0 && mn[2] == 3 && std::isnan(mn[3]) && std::isnan(mn[4])));
  }
  // An integer tensor with a NaN bound promotes to float32, then gives NaN.
  Tensor r = clamp_max(tensor({1, 2}), NAN);
  CHECK(r.dtype() == kFloat);
  CHECK((std::isnan(dvalues(r)[0]) && std::isnan(dvalues(r)[1])));
}

TEST_CASE("elementwise: unary ops on bool and integer inputs take libtorch's dtypes") {
  Tensor b = tensor({true, false, true});
  CHECK(square(b).dtype() == kInt64);
  CHECK(dvalues(square(b)) == std::vector<double>{1, 0, 1});
  CHECK(square(tensor({3}).to(kInt8)).dtype() == kInt8);
  CHECK(sign(b).dtype() == kBool);
  CHECK(exp(b).dtype() == kFloat);
  CHECK(sqrt(tensor({4}).to(kUInt8)).dtype() == kFloat);
  CHECK(reciprocal(tensor({4}, kInt32)).dtype() == kFloat);
  CHECK(clamp(b, 0, 1).dtype() == kInt64);
  CHECK(clamp(tensor({1}, kInt16), 0.5).dtype() == kFloat);
  CHECK(isnan(tensor({1}, kInt32)).dtype() == kBool);
  CHECK(floor(tensor({-3}, kInt32)).dtype() == kInt32);
  // No integer gelu, no bool abs / relu / floor (as libtorch).
  CHECK_THROWS_AS(gelu(tensor({1, 2})), NotImplemented);
  CHECK_THROWS_WITH(gelu(tensor({1, 2})), Catch::StartsWith("gelu: not implemented for 'Long'"));
  CHECK_THROWS_AS(abs(b), NotImplemented);
  CHECK_THROWS_AS(relu(b), NotImplemented);
  CHECK_THROWS_AS(floor(b), NotImplemented);
}

TEST_CASE("elementwise: out= ops resize an output with no elements, and reject other shapes") {
  Tensor a = tensor({1.0, 2.0, 3.0}), m = ones({2, 3});
  Tensor out = zeros({0});
  add_out(out, m, a, 2);
  CHECK(out.sizes() == std::vector<int64_t>{2, 3});
  CHECK(out.is_contiguous());
  CHECK(dvalues(out) == std::vector<double>{3, 5, 7, 3, 5, 7});
  Tensor out2 = zeros({3, 0}, kDouble);
  Tensor alias = out2;  // a second handle sees the resize, as in libtorch
  mul_out(out2, a, a);
  CHECK(alias.sizes() == std::vector<int64_t>{3});
  CHECK(dvalues(alias) == std::vector<double>{1, 4, 9});
  CHECK(alias.dtype() == kDouble);
  // An empty view of a larger tensor writes into that tensor's memory, as in libtorch.
  Tensor base = zeros({4});
  Tensor view = base.slice(0, 1, 1);
  add_out(view, tensor({5.0, 6.0}), tensor({1.0, 1.0}));
  CHECK(dvalues(base) == std::vector<double>{0, 6, 7, 0});
  // A failed op leaves the empty output as it was.
  Tensor i = zeros({0}, kInt64);
  CHECK_THROWS_WITH(add_out(i, a, a), Catch::Contains("can't be cast to the desired output type Long"));
  CHECK(i.sizes() == std::vector<int64_t>{0});
  CHECK_THROWS_AS(add_out(i, a, ones({2})), InvalidArgument);
  CHECK(i.sizes() == std::vector<int64_t>{0});
  // A non-empty output of another shape is an error, not a resize.
  Tensor wrong = zeros({2});
  CHECK_THROWS_WITH(add_out(wrong, a, a), Catch::Contains("output with shape [2] doesn't match the broadcast shape [3]"));
  CHECK(wrong.sizes() == std::vector<int64_t>{2});
  // In-place ops never resize.
  Tensor empty_self = zeros({0});
  CHECK_THROWS_AS(empty_self.add_(a), InvalidArgument);
  CHECK(empty_self.sizes() == std::vector<int64_t>{0});
}

TEST_CASE("elementwise: nan_to_num replaces NaN and the infinities as libtorch, gradient where finite") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor({1.5, std::nan(""), inf, -inf, -2.0})
                       .to(kDouble);  // tensor() of doubles is float32, as libtorch's
  auto vals = [](const Tensor& t) {
    std::vector<double> v;
    const Tensor d = t.to(kDouble);
    for (int64_t i = 0; i < d.numel(); ++i) v.push_back(d[i].item<double>());
    return v;
  };
  CHECK(vals(nan_to_num(x)) == std::vector<double>{1.5, 0, std::numeric_limits<double>::max(),
                                                   std::numeric_limits<double>::lowest(), -2});
  CHECK(vals(nan_to_num(x.to(kFloat))) ==
        std::vector<double>{1.5, 0, double(std::numeric_limits<float>::max()),
                            double(std::numeric_limits<float>::lowest()), -2});
  CHECK(vals(nan_to_num(x.to(kHalf))) == std::vector<double>{1.5, 0, 65504, -65504, -2});
  CHECK(vals(nan_to_num(x.to(kBFloat16))) ==
        std::vector<double>{1.5, 0, 3.3895313892515355e38, -3.3895313892515355e38, -2});
  CHECK(vals(x.nan_to_num(7, 8, -9)) == std::vector<double>{1.5, 7, 8, -9, -2});
  CHECK(nan_to_num(x.to(kFloat)).dtype() == kFloat);
  // Integers are copied; in place and out= write the same values.
  const Tensor ints = tensor({int64_t(3), int64_t(-4)});
  CHECK(equal(nan_to_num(ints), ints));
  Tensor y = x.clone();
  y.nan_to_num_(0, 1, -1);
  CHECK(vals(y) == std::vector<double>{1.5, 0, 1, -1, -2});
  Tensor out = empty({0}, kDouble);
  nan_to_num_out(out, x, 2.0);
  CHECK(vals(out)[1] == 2.0);
  CHECK_THROWS_AS(nan_to_num_out(out, x.to(kFloat)), InvalidArgument);
  // The gradient: 1 where finite, 0 where replaced.
  const Tensor leaf = x.clone().requires_grad_();
  const Tensor replaced = nan_to_num(leaf);
  CHECK(replaced.grad_fn()->name() == "NanToNumBackward0");
  (replaced * 3).sum().backward();
  CHECK(vals(leaf.grad()) == std::vector<double>{3, 0, 0, 0, 3});
}
