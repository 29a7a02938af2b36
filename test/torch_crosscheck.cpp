// Cross-checks a broad sample of ember calls against libtorch's own results: same
// inputs, then the same dtype, shape and values (built only where libtorch is found).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <optional>

#include "torch_crosscheck_util.h"

namespace {

const ember::ScalarType kTypes[] = {ember::kBool, ember::kUInt8, ember::kInt8, ember::kInt16, ember::kInt32,
                                    ember::kInt64, ember::kHalf, ember::kBFloat16, ember::kFloat, ember::kDouble};
const torch::ScalarType kTorchTypes[] = {torch::kBool, torch::kUInt8, torch::kInt8, torch::kInt16, torch::kInt32,
                                         torch::kInt64, torch::kHalf, torch::kBFloat16, torch::kFloat, torch::kDouble};

torch::ScalarType to_torch(ember::ScalarType t) { return kTorchTypes[static_cast<int>(t)]; }

// The same values in both libraries: made in ember, copied into torch via float64.
struct Pair {
  ember::Tensor e;
  torch::Tensor t;
};
Pair make(std::vector<int64_t> sizes, ember::ScalarType dtype, double lo = -3, double hi = 3) {
  ember::Tensor v = (ember::rand(sizes, ember::kDouble) * (hi - lo) + lo);
  if (ember::is_integral(dtype, true)) v = v.round();
  ember::Tensor e = v.to(dtype);
  ember::Tensor d = e.to(ember::kDouble).contiguous();
  torch::Tensor t = torch::from_blob(d.data_ptr(), sizes, torch::kDouble).clone().to(to_torch(dtype));
  return {e, t};
}

void check_same(const ember::Tensor& e, const torch::Tensor& t, double tol = 1e-5) {
  REQUIRE(to_torch(e.dtype()) == t.scalar_type());
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  ember::Tensor ed = e.to(ember::kDouble).contiguous();
  torch::Tensor td = t.to(torch::kDouble).contiguous();
  const double* a = ed.data_ptr<double>();
  const double* b = td.data_ptr<double>();
  for (int64_t i = 0; i < ed.numel(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      REQUIRE(std::isnan(a[i]) == std::isnan(b[i]));
      continue;
    }
    if (a[i] == b[i]) continue;  // also equal infinities
    INFO("element " << i << ": ember " << a[i] << ", torch " << b[i]);
    REQUIRE(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i])));
  }
}

double tol_for(ember::ScalarType t) { return t == ember::kHalf ? 2e-3 : t == ember::kBFloat16 ? 2e-2 : 1e-5; }

}  // namespace

TEST_CASE("crosscheck: binary ops with type promotion over every dtype pair") {
  ember::manual_seed(11);
  for (ember::ScalarType x : kTypes)
    for (ember::ScalarType y : kTypes) {
      INFO(ember::name(x) << " with " << ember::name(y));
      Pair a = make({3, 4}, x), b = make({4}, y, 1, 3);
      check_same(ember::mul(a.e, b.e), torch::mul(a.t, b.t), tol_for(ember::promote_types(x, y)) * 4);
      check_same(ember::eq(a.e, b.e), torch::eq(a.t, b.t));
      check_same(ember::maximum(a.e, b.e), torch::maximum(a.t, b.t));
      if (x != ember::kBool || y != ember::kBool) {
        check_same(ember::div(a.e, b.e), torch::div(a.t, b.t), 2e-2);
      }
      check_same(ember::add(a.e, 2.5), torch::add(a.t, 2.5), tol_for(ember::add(a.e, 2.5).dtype()));
      check_same(ember::add(a.e, 3), torch::add(a.t, 3), tol_for(x));
    }
}

TEST_CASE("crosscheck: unary ops and rounding") {
  ember::manual_seed(12);
  // (libtorch 1.13 has no CPU exp/sqrt for Half, so Half is covered by the binary test.)
  for (ember::ScalarType x : {ember::kFloat, ember::kDouble, ember::kInt32}) {
    Pair a = make({5, 3}, x, 0.1, 4);
    check_same(ember::exp(a.e), torch::exp(a.t), tol_for(ember::exp(a.e).dtype()));
    check_same(ember::sqrt(a.e), torch::sqrt(a.t), tol_for(ember::sqrt(a.e).dtype()));
    check_same(ember::abs(a.e), torch::abs(a.t));
    check_same(ember::neg(a.e), torch::neg(a.t));
  }
  Pair r = make({8}, ember::kFloat);
  r.e = ember::tensor({0.5, 1.5, 2.5, -0.5, -2.5, 3.7, -3.2, 0.0});
  r.t = torch::tensor({0.5, 1.5, 2.5, -0.5, -2.5, 3.7, -3.2, 0.0}, torch::kFloat);
  check_same(ember::round(r.e), torch::round(r.t));
  check_same(ember::remainder(r.e, -2), torch::remainder(r.t, -2));
  check_same(r.e.to(ember::kInt32), r.t.to(torch::kInt32));
}

TEST_CASE("crosscheck: reductions") {
  ember::manual_seed(13);
  for (ember::ScalarType x : {ember::kFloat, ember::kDouble, ember::kInt64, ember::kBool}) {
    Pair a = make({4, 5, 6}, x);
    check_same(a.e.sum(), a.t.sum());
    check_same(a.e.sum({0, 2}), a.t.sum(std::vector<int64_t>{0, 2}));
    check_same(a.e.sum(1, true), a.t.sum(1, true));
    check_same(a.e.amax(-1), a.t.amax(-1));
    if (x != ember::kBool) check_same(a.e.argmax(1), a.t.argmax(1));  // libtorch 1.13: no bool argmax
    check_same(a.e.all(), a.t.all());
    check_same(a.e.any(1), a.t.any(1));
    if (ember::is_floating_point(x)) {
      check_same(a.e.mean(), a.t.mean());
      check_same(a.e.var(1), a.t.var(1));
      check_same(a.e.std({0, 1}, false), a.t.std(std::vector<int64_t>{0, 1}, false));
      check_same(a.e.norm(), a.t.norm());
      check_same(a.e.logsumexp({2}), a.t.logsumexp({2}));
      check_same(a.e.softmax(1), a.t.softmax(1));
      check_same(a.e.log_softmax(-1), a.t.log_softmax(-1));
      check_same(a.e.cumsum(0), a.t.cumsum(0));
      auto [ev, ei] = a.e.max(1);
      auto [tv, ti] = a.t.max(1);
      check_same(ev, tv);
      check_same(ei, ti);
    }
  }
}

TEST_CASE("crosscheck: matmul rules, views and joins") {
  ember::manual_seed(14);
  const std::vector<std::vector<int64_t>> shapes[] = {{{3}, {3}}, {{2, 3}, {3}}, {{3}, {3, 4}}, {{2, 3}, {3, 4}},
                                                      {{5, 2, 3}, {3, 4}}, {{2, 1, 2, 3}, {5, 3, 4}}, {{3}, {2, 3, 4}}};
  for (const auto& s : shapes) {
    Pair a = make(s[0], ember::kFloat), b = make(s[1], ember::kFloat);
    check_same(ember::matmul(a.e, b.e), torch::matmul(a.t, b.t), 1e-4);
  }
  Pair m = make({4, 6}, ember::kFloat);
  check_same(m.e.t().contiguous(), m.t.t().contiguous());
  check_same(m.e.view({2, 12}), m.t.view({2, 12}));
  check_same(m.e.slice(1, 1, 5, 2), m.t.slice(1, 1, 5, 2));
  check_same(m.e.unsqueeze(1).expand({4, 3, 6}), m.t.unsqueeze(1).expand({4, 3, 6}));
  check_same(ember::cat({m.e, m.e}, 1), torch::cat({m.t, m.t}, 1));
  check_same(ember::stack({m.e, m.e}, -1), torch::stack({m.t, m.t}, -1));
  auto ec = m.e.chunk(4, 1);
  auto tc = m.t.chunk(4, 1);
  REQUIRE(ec.size() == tc.size());
  for (size_t i = 0; i < ec.size(); ++i) check_same(ec[i], tc[i]);
  check_same(ember::where(m.e > 0, m.e, 0.0), torch::where(m.t > 0, m.t, torch::zeros_like(m.t)));
  check_same(ember::clamp(m.e, -1, 1), torch::clamp(m.t, -1, 1));
  check_same(ember::lerp(m.e, m.e * 2, 0.3), torch::lerp(m.t, m.t * 2, 0.3));
  check_same(ember::addcmul(m.e, m.e, m.e, 0.5), torch::addcmul(m.t, m.t, m.t, 0.5));
}

TEST_CASE("crosscheck: gradients and grad_fn names of a sample of graphs") {
  ember::manual_seed(12);
  using EFn = std::function<ember::Tensor(const std::vector<ember::Tensor>&)>;
  using TFn = std::function<torch::Tensor(const std::vector<torch::Tensor>&)>;
  struct Case {
    const char* name;
    std::vector<std::vector<int64_t>> shapes;
    EFn e;
    TFn t;
  };
  const std::vector<Case> cases = {
      {"broadcast mul add", {{3, 1}, {4}},
       [](auto& v) { return (v[0] * v[1] + v[1]).tanh(); }, [](auto& v) { return (v[0] * v[1] + v[1]).tanh(); }},
      {"pow div", {{2, 3}, {3}},
       [](auto& v) { return v[0].abs().add(0.5).pow(v[1]) / (v[1].abs() + 1); },
       [](auto& v) { return v[0].abs().add(0.5).pow(v[1]) / (v[1].abs() + 1); }},
      {"softmax log_softmax", {{3, 4}},
       [](auto& v) { return v[0].softmax(1) * v[0].log_softmax(0); },
       [](auto& v) { return v[0].softmax(1) * v[0].log_softmax(0); }},
      {"reductions", {{3, 4}},
       [](auto& v) { return v[0].var(1).view({3, 1}) + v[0].amax(0) + v[0].logsumexp({1}, true) + v[0].norm(); },
       [](auto& v) { return v[0].var(1).view({3, 1}) + v[0].amax(0) + v[0].logsumexp({1}, true) + v[0].norm(); }},
      {"matmul batched", {{2, 3, 4}, {4, 2}},
       [](auto& v) { return ember::matmul(v[0], v[1]).sigmoid(); },
       [](auto& v) { return torch::matmul(v[0], v[1]).sigmoid(); }},
      {"views and joins", {{4, 3}},
       [](auto& v) { return ember::cat({v[0].t().slice(1, 0, 4, 2), v[0].narrow(0, 1, 3)}, 1).cumsum(0); },
       [](auto& v) { return torch::cat({v[0].t().slice(1, 0, 4, 2), v[0].narrow(0, 1, 3)}, 1).cumsum(0); }},
      {"linear", {{2, 3}, {4, 3}, {4}},
       [](auto& v) { return ember::linear(v[0], v[1], v[2]).relu(); },
       [](auto& v) { return torch::nn::functional::linear(v[0], v[1], v[2]).relu(); }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<ember::Tensor> ein;
    std::vector<torch::Tensor> tin;
    for (const auto& s : c.shapes) {
      Pair p = make(s, ember::kDouble, -1, 1);
      ein.push_back(p.e.requires_grad_());
      tin.push_back(p.t.requires_grad_());
    }
    ember::Tensor ey = c.e(ein);
    torch::Tensor ty = c.t(tin);
    CHECK(ey.grad_fn()->name() == ty.grad_fn()->name());
    Pair w = make(ey.sizes().vec(), ember::kDouble);
    (ey * w.e).sum().backward();
    (ty * w.t).sum().backward();
    for (size_t i = 0; i < ein.size(); ++i) check_same(ein[i].grad(), tin[i].grad(), 1e-9);
  }
}

TEST_CASE("crosscheck: var / std / var_mean / std_mean overloads and corrections") {
  ember::manual_seed(15);
  Pair x = make({3, 4, 5}, ember::kFloat);
  const ember::Tensor& e = x.e;
  const torch::Tensor& t = x.t;
  // The same spellings resolve to the same overloads (a literal 0 is a dim, true is unbiased).
  check_same(std::get<0>(ember::var_mean(e, 0)), std::get<0>(torch::var_mean(t, 0)));
  check_same(std::get<1>(ember::var_mean(e, 0)), std::get<1>(torch::var_mean(t, 0)));
  check_same(std::get<0>(ember::std_mean(e, 1)), std::get<0>(torch::std_mean(t, 1)));
  check_same(std::get<0>(ember::var_mean(e, true)), std::get<0>(torch::var_mean(t, true)));
  check_same(std::get<0>(ember::var_mean(e, false)), std::get<0>(torch::var_mean(t, false)));
  check_same(std::get<0>(ember::var_mean(e, 1, false, true)),
             std::get<0>(torch::var_mean(t, 1, false, true)));
  check_same(std::get<1>(ember::std_mean(e, 2, true, true)), std::get<1>(torch::std_mean(t, 2, true, true)));
  // libtorch finds {0, 1} ambiguous (IntArrayRef or DimnameList); ember has no Dimname.
  check_same(std::get<0>(ember::var_mean(e, {0, 1})),
             std::get<0>(torch::var_mean(t, at::IntArrayRef{0, 1})));
  check_same(e.var(0), t.var(0));
  check_same(e.std({0}), t.std({0}));
  check_same(ember::var(e, {1}, 2, true), torch::var(t, {1}, 2, true));
  for (int64_t c : {0, 1, 2, 4, -1}) {
    INFO("correction " << c);
    check_same(ember::var(e, {1}, std::optional<int64_t>(c)), torch::var(t, {1}, c10::optional<int64_t>(c)));
    check_same(e.std({0, 2}, std::optional<int64_t>(c), true),
               t.std(at::IntArrayRef{0, 2}, c10::optional<int64_t>(c), true));  // {0, 2}: ambiguous there
    auto [ev, em] = ember::var_mean(e, {2}, std::optional<int64_t>(c));
    auto [tv, tm] = torch::var_mean(t, {2}, c10::optional<int64_t>(c));
    check_same(ev, tv);
    check_same(em, tm);
    check_same(std::get<0>(ember::std_mean(e, {0}, std::optional<int64_t>(c), true)),
               std::get<0>(torch::std_mean(t, {0}, c10::optional<int64_t>(c), true)));
  }
}

TEST_CASE("crosscheck: isclose rounds its tolerance as libtorch in every dtype") {
  ember::manual_seed(16);
  const double tols[][2] = {{1e-5, 1e-8}, {1.1, 0.1}, {1e-2, 0}, {0, 0.5}, {0, 0}, {1e-3, 1e-3}, {0.3, 2.0}};
  const double kInf = INFINITY, kNan = NAN;
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    for (const auto& tol : tols) {
      INFO("rtol " << tol[0] << ", atol " << tol[1]);
      // b near a, so that many pairs sit at the edge of the tolerance in dt.
      ember::Tensor scale = ember::pow(10.0, ember::randint(-4, 4, {4000}).to(ember::kDouble));
      ember::Tensor a = ember::randn({4000}, ember::kDouble) * scale;
      ember::Tensor noise = ember::randn({4000}, ember::kDouble);
      ember::Tensor b = a * (1 + noise * tol[0]) + noise * tol[1];
      if (ember::is_integral(dt, true)) {
        a = (a * 10).round().clamp(0, 100);
        b = (a - (noise * 3).round().abs()).clamp(0, 100);  // b <= a: libtorch's uint8 difference wraps
      } else {
        // Edge values: 0.1 against 0, infinities, NaN, differences that overflow float16 / float32.
        const ember::indexing::Slice head(0, 8);
        a.index_put_({head}, ember::tensor({0.0, 0.1, kInf, -kInf, kNan, kNan, 6e4, 3e38}, ember::kDouble));
        b.index_put_({head}, ember::tensor({0.1, 0.0, kInf, kInf, kNan, 1.0, -6e4, -3e38}, ember::kDouble));
      }
      ember::Tensor ea = a.to(dt), eb = b.to(dt);
      torch::Tensor ta = crosscheck::as_torch(ea), tb = crosscheck::as_torch(eb);
      for (bool equal_nan : {false, true}) {
        ember::Tensor got = ember::isclose(ea, eb, tol[0], tol[1], equal_nan).to(ember::kInt64);
        torch::Tensor want = torch::isclose(ta, tb, tol[0], tol[1], equal_nan).to(torch::kLong);
        const int64_t* g = got.data_ptr<int64_t>();
        const int64_t* w = want.contiguous().data_ptr<int64_t>();
        int64_t bad = 0;
        for (int64_t i = 0; i < got.numel(); ++i) bad += g[i] != w[i];
        CHECK(bad == 0);
        CHECK(ember::allclose(ea, eb, tol[0], tol[1], equal_nan) ==
              torch::allclose(ta, tb, tol[0], tol[1], equal_nan));
      }
    }
  }
  ember::Tensor x = ember::zeros({3});
  torch::Tensor tx = torch::zeros({3});
  CHECK(ember::allclose(0.99 * x + 0.1, 1.0 * x, 1.1, 0.1));
  CHECK(torch::allclose(0.99 * tx + 0.1, 1.0 * tx, 1.1, 0.1));
}
