// The integer ops (bitwise, shifts, gcd, lcm, nextafter, frexp, ...), indexed writes
// (index_fill, masked_scatter, put, scatter_reduce), distinct values, statistics, windows
// and matrices built from pieces, against libtorch 1.13: values, gradients, result dtypes
// and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::Case;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::same_error;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

const ember::ScalarType kIntTypes[] = {ember::kUInt8, ember::kInt8, ember::kInt16, ember::kInt32,
                                       ember::kInt64};

// Random integers of dtype in [lo, hi).
ember::Tensor ints(std::vector<int64_t> shape, ember::ScalarType t, int64_t lo, int64_t hi) {
  return ember::randint(lo, hi, shape, ember::TensorOptions(ember::kInt64)).to(t);
}

}  // namespace

TEST_CASE("integer crosscheck: bitwise ops, shifts, gcd and lcm on every integer dtype and bool") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (ember::ScalarType t : kIntTypes) {
    INFO(ember::name(t));
    const bool is_unsigned = t == ember::kUInt8;
    const ember::Tensor a = ints({4, 7}, t, is_unsigned ? 0 : -100, 100),
                        b = ints({7}, t, is_unsigned ? 0 : -100, 100);
    const torch::Tensor ta = as_torch(a), tb = as_torch(b);
    check_close(a & b, ta & tb, 0, "&");
    check_close(a | b, ta | tb, 0, "|");
    check_close(a ^ b, ta ^ tb, 0, "^");
    check_close(~a, ~ta, 0, "~");
    check_close(ember::bitwise_and(a, 6), torch::bitwise_and(ta, 6), 0, "bitwise_and with a number");
    check_close(a.bitwise_or(b.t().contiguous()), ta.bitwise_or(tb.t().contiguous()), 0, "bitwise_or method");
    check_close(ember::bitwise_xor(a.t(), 3), torch::bitwise_xor(ta.t(), 3), 0, "bitwise_xor of a transpose");
    check_close(5 & a, 5 & ta, 0, "number & tensor");
    // Shift counts inside the type's width, where 1.13's shifts are defined.
    const int64_t width = int64_t(ember::element_size(t)) * 8;
    const ember::Tensor s = ints({7}, t, 0, width - 1);
    check_close(a.bitwise_left_shift(s), as_torch(a).bitwise_left_shift(as_torch(s)), 0, "left shift");
    check_close(ember::bitwise_right_shift(a, s), torch::bitwise_right_shift(ta, as_torch(s)), 0,
                "right shift");
    check_close(ember::bitwise_right_shift(a, 2), torch::bitwise_right_shift(ta, 2), 0,
                "right shift by a number");
    check_close(ember::gcd(a, b), torch::gcd(ta, tb), 0, "gcd");
    if (!is_unsigned)
      check_close(ember::lcm(a.clamp(-10, 10), b.clamp(-10, 10)),
                  torch::lcm(ta.clamp(-10, 10), tb.clamp(-10, 10)), 0, "lcm");
    else
      check_close(ember::lcm(a % 16, b % 16), torch::lcm(ta % 16, tb % 16), 0, "lcm");
    // In place through the operators, and a wider operand cast back.
    ember::Tensor ia = a.clone();
    torch::Tensor tia = ta.clone();
    ia &= b;
    tia &= tb;
    ia |= 9;
    tia.bitwise_or_(9);
    ia ^= ember::ones({7}, ember::kInt64);
    tia ^= torch::ones({7}, torch::kInt64);
    check_close(ia, tia, 0, "in-place &=, |=, ^=");
    check_close(a.clone().gcd_(b), ta.clone().gcd_(tb), 0, "gcd_");
    check_close(a.clone().bitwise_not_(), ta.clone().bitwise_not_(), 0, "bitwise_not_");
  }
  // bool: the logical forms; with an integer, the integer type.
  const ember::Tensor p = ember::randint(0, 2, {9}, ember::kInt64).to(ember::kBool),
                      q = ember::randint(0, 2, {9}, ember::kInt64).to(ember::kBool);
  check_close(p & q, as_torch(p) & as_torch(q), 0, "bool &");
  check_close(p | q, as_torch(p) | as_torch(q), 0, "bool |");
  check_close(p ^ q, as_torch(p) ^ as_torch(q), 0, "bool ^");
  check_close(~p, ~as_torch(p), 0, "bool ~");
  check_close(p & ember::tensor({3}), as_torch(p) & torch::tensor({3}), 0, "bool & int64");
  check_close(p | true, as_torch(p) | true, 0, "bool | true");
  // A number promotes as libtorch's: uint8 & 300 wraps.
  check_close(ember::tensor({3, 7}, ember::kUInt8) & 300, torch::tensor({3, 7}, torch::kUInt8) & 300, 0,
              "uint8 & 300");
  // Edge values: gcd of zeros and of negatives, shifts of the sign bit.
  const ember::Tensor z = ember::tensor(std::vector<int64_t>{0, -12, 7, 0, std::numeric_limits<int64_t>::min()}),
                      w = ember::tensor({0, 18, -21, -5, 4});
  check_close(ember::gcd(z, w), torch::gcd(as_torch(z), as_torch(w)), 0, "gcd of zeros and negatives");
  check_close(ember::lcm(z.slice(0, 0, 4), w.slice(0, 0, 4)),
              torch::lcm(as_torch(z).slice(0, 0, 4), as_torch(w).slice(0, 0, 4)), 0, "lcm of zeros");
  check_close(ember::tensor({1, 2}, ember::kInt8).bitwise_left_shift(7),
              torch::tensor({1, 2}, torch::kInt8).bitwise_left_shift(7), 0, "int8 << 7 wraps");
  check_close(ember::tensor({-5}, ember::kInt32).bitwise_right_shift(40),
              torch::tensor({-5}, torch::kInt32).bitwise_right_shift(40), 0, "negative >> 40 is -1");
  check_close(ember::tensor({-5}).bitwise_right_shift(-1), torch::tensor({-5}).bitwise_right_shift(-1), 0,
              "a negative count shifts everything out");
}

TEST_CASE("integer crosscheck: nextafter, heaviside, ldexp and frexp") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (ember::ScalarType t : {ember::kFloat, ember::kDouble}) {
    const ember::Tensor a = ember::randn({5, 6}, t), b = ember::randn({6}, t);
    check_close(ember::nextafter(a, b), torch::nextafter(as_torch(a), as_torch(b)), 0, "nextafter");
    const ember::Tensor special = ember::tensor({0.0, -0.0, 1.0, 1e-40, 3e38, -2.5}).to(t);
    const ember::Tensor towards = ember::tensor({1.0, -1.0, 0.0, 0.0, 1e39, -2.5}).to(t);
    check_close(ember::nextafter(special, towards), torch::nextafter(as_torch(special), as_torch(towards)), 0,
                "nextafter at zeros, subnormals, the top and equal values");
    // frexp: every value reassembles; zeros, infinities and NaN give (x, 0).
    const double inf = std::numeric_limits<double>::infinity(),
                 nan = std::numeric_limits<double>::quiet_NaN();
    const ember::Tensor f = ember::cat(
        {ember::randn({50}, t) * 1e6, ember::randn({50}, t) * 1e-30,
         ember::tensor({0.0, -0.0, 1.0, 0.5, 0.75, 1e-45, 3.4e38, inf, -inf, nan}, ember::kDouble).to(t)});
    auto [m, e] = ember::frexp(f);
    auto [tm, te] = torch::frexp(as_torch(f));
    check_close(m.nan_to_num(), tm.nan_to_num(), 0, "frexp mantissa");
    check_close(e, te, 0, "frexp exponent");
    check_close(ember::ldexp(m, e).nan_to_num(), torch::ldexp(tm, te).nan_to_num(), 0,
                "ldexp(frexp(x)) is x");
    check_close(ember::heaviside(a, b), torch::heaviside(as_torch(a), as_torch(b)), 0, "heaviside");
  }
  check_close(ember::heaviside(ember::tensor({0, 3, -2}), ember::tensor({7})),
              torch::heaviside(torch::tensor({0, 3, -2}), torch::tensor({7})), 0, "heaviside of int64");
  check_close(ember::ldexp(ember::tensor({1, 2}, ember::kInt32), ember::tensor({3, -1})),
              torch::ldexp(torch::tensor({1, 2}, torch::kInt32), torch::tensor({3, -1})), 0,
              "ldexp of int32 gives float");
  // Gradients: ldexp scales, frexp's mantissa is x / 2^e.
  crosscheck::run_cases({{"ldexp",
                          {{4, 3}},
                          [](const EInputs& x) {
                            return ember::ldexp(x[0], ember::tensor({2, -1, 0}));
                          },
                          [](const TInputs& x) {
                            return torch::ldexp(x[0], torch::tensor({2, -1, 0}));
                          }},
                         {"frexp mantissa",
                          {{4, 3}},
                          [](const EInputs& x) { return std::get<0>(ember::frexp(x[0] * 10)); },
                          [](const TInputs& x) { return std::get<0>(torch::frexp(x[0] * 10)); }}});
}

TEST_CASE("integer crosscheck: index_fill, masked_scatter, put and scatter_reduce, values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const ember::Tensor idx = ember::tensor({0, -1, 2, 0});
  const ember::Tensor mask = ember::rand({3, 4}) > 0.5;
  const ember::Tensor flat = ember::tensor({0, -1, 5, 0, 7});
  const ember::Tensor scatter_index = ember::randint(0, 3, {5, 4}, ember::kInt64);
  std::vector<Case> cases = {
      {"index_fill dim 1",
       {{3, 5}},
       [&](const EInputs& x) { return x[0].index_fill(1, idx, -2.5); },
       [&](const TInputs& x) { return x[0].index_fill(1, as_torch(idx), -2.5); }},
      // Distinct indices: libtorch's backward counts a repeated index twice in value's
      // gradient (and fails on a negative one); ember counts each filled element once.
      {"index_fill with a tensor value",
       {{4, 3}, {}},
       [&](const EInputs& x) {
         return ember::index_fill(x[0], 0, ember::tensor({3, 0}), x[1]);
       },
       [&](const TInputs& x) {
         return torch::index_fill(x[0], 0, torch::tensor({3, 0}), x[1]);
       }},
      {"masked_scatter",
       {{3, 4}, {12}},
       [&](const EInputs& x) { return x[0].masked_scatter(mask, x[1]); },
       [&](const TInputs& x) { return x[0].masked_scatter(as_torch(mask), x[1]); }},
      {"masked_scatter broadcast mask",
       {{3, 4}, {3, 5}},
       [&](const EInputs& x) { return ember::masked_scatter(x[0], mask.select(0, 1), x[1]); },
       [&](const TInputs& x) { return torch::masked_scatter(x[0], as_torch(mask).select(0, 1), x[1]); }},
      {"put",
       {{2, 4}, {5}},
       [&](const EInputs& x) { return x[0].put(flat, x[1]); },
       [&](const TInputs& x) { return x[0].put(as_torch(flat), x[1]); }},
      {"put accumulate",
       {{2, 4}, {5}},
       [&](const EInputs& x) { return x[0].put(flat, x[1], true); },
       [&](const TInputs& x) { return x[0].put(as_torch(flat), x[1], true); }},
  };
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (bool include_self : {true, false})
      cases.push_back({std::string("scatter_reduce ") + reduce + (include_self ? "" : " without self"),
                       {{3, 4}, {5, 4}},
                       [=](const EInputs& x) {
                         return x[0].scatter_reduce(0, scatter_index, x[1], reduce, include_self);
                       },
                       [=](const TInputs& x) {
                         return x[0].scatter_reduce(0, as_torch(scatter_index), x[1], reduce, include_self);
                       }});
  crosscheck::run_cases(cases);
  // Ties share amax's gradient, zeros take prod's product of the others.
  for (const char* reduce : {"amax", "amin", "prod"}) {
    INFO(reduce);
    const ember::Tensor self = ember::tensor({1.0, 5.0, 0.0, 2.0}).requires_grad_();
    const ember::Tensor src = ember::tensor({5.0, 5.0, 0.5, 1.0, 0.0, 3.0}).requires_grad_();
    const ember::Tensor index = ember::tensor({1, 1, 0, 0, 2, 2});
    const torch::Tensor tself = as_torch(self.detach()).requires_grad_(),
                        tsrc = as_torch(src.detach()).requires_grad_();
    const ember::Tensor y = self.scatter_reduce(0, index, src, reduce);
    const torch::Tensor ty = tself.scatter_reduce(0, as_torch(index), tsrc, reduce);
    check_close(y, ty, 1e-12, "value with ties and zeros");
    y.backward(ember::tensor({1.0, 2.0, 3.0, 4.0}));
    ty.backward(torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble));
    check_close(self.grad(), tself.grad(), 1e-12, "self's gradient with ties and zeros");
    check_close(src.grad(), tsrc.grad(), 1e-12, "src's gradient with ties and zeros");
  }
  // Integer scatter_reduce: mean rounds down, as libtorch's.
  const ember::Tensor base = ember::tensor({4, 3, 2, 1}), isrc = ember::tensor({1, 5, 2, 8, 3});
  const ember::Tensor iidx = ember::tensor({0, 1, 0, 1, 2});
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (bool include_self : {true, false})
      check_close(base.scatter_reduce(0, iidx, isrc, reduce, include_self),
                  as_torch(base).scatter_reduce(0, as_torch(iidx), as_torch(isrc), reduce, include_self), 0,
                  std::string("int64 scatter_reduce ") + reduce);
  // In place.
  ember::Tensor e = ember::arange(12.0, ember::kDouble).reshape({3, 4});
  torch::Tensor t = torch::arange(12.0, torch::kDouble).reshape({3, 4});
  e.index_fill_(1, ember::tensor({1}), 9);
  t.index_fill_(1, torch::tensor({1}), 9);
  e.masked_scatter_(ember::tensor({true, false, false, true}), ember::arange(6.0, ember::kDouble) * -1);
  t.masked_scatter_(torch::tensor({true, false, false, true}), torch::arange(6.0, torch::kDouble) * -1);
  e.put_(ember::tensor({11, 0}), ember::tensor({100.0, 200.0}, ember::kDouble), true);
  t.put_(torch::tensor({11, 0}), torch::tensor({100.0, 200.0}, torch::kDouble), true);
  e.scatter_reduce_(1, ember::tensor({{0, 0}, {1, 1}, {3, 2}}), ember::ones({3, 2}, ember::kDouble), "sum",
                    false);
  t.scatter_reduce_(1, torch::tensor({{0, 0}, {1, 1}, {3, 2}}), torch::ones({3, 2}, torch::kDouble), "sum",
                    false);
  check_close(e, t, 0, "index_fill_, masked_scatter_, put_, scatter_reduce_ in place");
}

TEST_CASE("integer crosscheck: unique, unique_consecutive and unique_dim") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (ember::ScalarType t : {ember::kInt64, ember::kFloat, ember::kUInt8, ember::kBool}) {
    INFO(ember::name(t));
    const ember::Tensor x =
        (t == ember::kBool ? ints({4, 6}, ember::kInt64, 0, 2) : ints({4, 6}, ember::kInt64, 0, 7)).to(t);
    const torch::Tensor tx = as_torch(x);
    auto [v, inv, cnt] = ember::_unique2(x, true, true, true);
    auto [tv, tinv, tcnt] = torch::_unique2(tx, true, true, true);
    check_close(v, tv, 0, "_unique2 values");
    check_close(inv, tinv, 0, "_unique2 inverse");
    check_close(cnt, tcnt, 0, "_unique2 counts");
    auto [v2, inv2] = ember::_unique(x, true, false);
    check_close(v2, std::get<0>(torch::_unique(tx, true, false)), 0, "_unique values");
    CHECK(inv2.numel() == 0);
    auto [cv, cinv, ccnt] = ember::unique_consecutive(x, true, true);
    auto [tcv, tcinv, tccnt] = torch::unique_consecutive(tx, true, true);
    check_close(cv, tcv, 0, "unique_consecutive values");
    check_close(cinv, tcinv, 0, "unique_consecutive inverse");
    check_close(ccnt, tccnt, 0, "unique_consecutive counts");
    // Slices: repeat some rows so that there are duplicates to find.
    const ember::Tensor rows = ember::cat({x, x.slice(0, 1, 3), x.slice(0, 0, 1)}, 0);
    for (int64_t dim : {0, 1}) {
      auto [dv, dinv, dcnt] = ember::unique_dim(rows, dim, true, true, true);
      auto [tdv, tdinv, tdcnt] = torch::unique_dim(as_torch(rows), dim, true, true, true);
      check_close(dv, tdv, 0, "unique_dim values");
      check_close(dinv, tdinv, 0, "unique_dim inverse");
      check_close(dcnt, tdcnt, 0, "unique_dim counts");
      auto [qv, qinv, qcnt] = ember::unique_consecutive(rows, true, true, dim);
      auto [tqv, tqinv, tqcnt] = torch::unique_consecutive(as_torch(rows), true, true, dim);
      check_close(qv, tqv, 0, "unique_consecutive along a dim, values");
      check_close(qinv, tqinv, 0, "unique_consecutive along a dim, inverse");
      check_close(qcnt, tqcnt, 0, "unique_consecutive along a dim, counts");
    }
  }
  auto [sv, sinv, scnt] = ember::_unique2(ember::tensor(5), true, true, true);
  auto [tsv, tsinv, tscnt] = torch::_unique2(torch::tensor(5), true, true, true);
  check_close(sinv, tsinv, 0, "0-d inverse");
  check_close(scnt, tscnt, 0, "0-d counts");
  auto [ev, einv, ecnt] = ember::_unique2(ember::empty({0}), true, true, true);
  CHECK(ev.numel() == 0);
  CHECK(ecnt.numel() == 0);
}

TEST_CASE("integer crosscheck: cov, corrcoef, trapezoid, windows and matrices from pieces") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const ember::Tensor fw = ember::tensor({1, 2, 1, 3, 1}), aw = ember::tensor({0.5, 1.0, 2.0, 0.25, 1.5});
  const ember::Tensor xs = ember::tensor({0.0, 0.5, 1.5, 1.75, 3.0});
  crosscheck::run_cases({
      {"cov",
       {{3, 5}},
       [](const EInputs& x) { return x[0].cov(); },
       [](const TInputs& x) { return x[0].cov(); }},
      {"cov of one variable",
       {{5}},
       [](const EInputs& x) { return ember::cov(x[0], 0); },
       [](const TInputs& x) { return torch::cov(x[0], 0); }},
      {"cov weighted",
       {{3, 5}},
       [&](const EInputs& x) { return ember::cov(x[0], 1, fw, aw.to(x[0].dtype())); },
       [&](const TInputs& x) {
         return torch::cov(x[0], 1, as_torch(fw), as_torch(aw).to(x[0].scalar_type()));
       }},
      {"corrcoef",
       {{3, 5}},
       [](const EInputs& x) { return x[0].corrcoef(); },
       [](const TInputs& x) { return x[0].corrcoef(); }},
      {"trapezoid dx",
       {{3, 5}},
       [](const EInputs& x) { return ember::trapezoid(x[0], 0.5); },
       [](const TInputs& x) { return torch::trapezoid(x[0], 0.5); }},
      {"trapz along dim 0 at points",
       {{5, 3}},
       [&](const EInputs& x) { return ember::trapz(x[0], xs.to(x[0].dtype()), 0); },
       [&](const TInputs& x) { return torch::trapz(x[0], as_torch(xs).to(x[0].scalar_type()), 0); }},
      {"trapezoid at broadcast points",
       {{2, 5}, {2, 5}},
       [](const EInputs& x) { return ember::trapezoid(x[0], x[1].cumsum(1)); },
       [](const TInputs& x) { return torch::trapezoid(x[0], x[1].cumsum(1)); }},
      {"cumulative_trapezoid",
       {{3, 5}},
       [&](const EInputs& x) {
         return ember::cumulative_trapezoid(x[0], xs.to(x[0].dtype())) + ember::cumulative_trapezoid(x[0], 2);
       },
       [&](const TInputs& x) {
         return torch::cumulative_trapezoid(x[0], as_torch(xs).to(x[0].scalar_type())) +
                torch::cumulative_trapezoid(x[0], 2);
       }},
      {"mT and adjoint",
       {{2, 3, 4}},
       [](const EInputs& x) { return x[0].mT() * 2 + x[0].mH() + ember::adjoint(x[0]); },
       [](const TInputs& x) { return x[0].mT() * 2 + x[0].mH() + torch::adjoint(x[0]); }},
      {"diagflat",
       {{2, 3}},
       [](const EInputs& x) { return x[0].diagflat(-1); },
       [](const TInputs& x) { return x[0].diagflat(-1); }},
      {"block_diag",
       {{}, {3}, {2, 2}},
       [](const EInputs& x) {
         return ember::block_diag({x[0], x[1], x[2]});
       },
       [](const TInputs& x) {
         return torch::block_diag({x[0], x[1], x[2]});
       }},
      {"cartesian_prod",
       {{2}, {3}, {2}},
       [](const EInputs& x) {
         return ember::cartesian_prod({x[0], x[1], x[2]});
       },
       [](const TInputs& x) {
         return torch::cartesian_prod({x[0], x[1], x[2]});
       }},
      {"combinations",
       {{5}},
       [](const EInputs& x) {
         return ember::combinations(x[0], 3) + ember::combinations(x[0], 3, true).sum();
       },
       [](const TInputs& x) {
         return torch::combinations(x[0], 3) + torch::combinations(x[0], 3, true).sum();
       }},
  });
  check_close(ember::cov(ember::tensor({1, 2, 4})), torch::cov(torch::tensor({1, 2, 4})), 1e-7,
              "cov of int64 is float");
  check_close(ember::trapezoid(ember::tensor({1, 2, 4})), torch::trapezoid(torch::tensor({1, 2, 4})), 0,
              "trapezoid of int64");
  check_close(ember::combinations(ember::tensor({1, 2, 3}), 4),
              torch::combinations(torch::tensor({1, 2, 3}), 4), 0, "more than there are");
  check_close(ember::combinations(ember::tensor({1, 2, 3}), 0),
              torch::combinations(torch::tensor({1, 2, 3}), 0), 0, "r = 0");
  check_close(ember::block_diag({}), torch::block_diag({}), 0, "block_diag of nothing");
  check_close(ember::block_diag({ember::tensor({1, 2}), ember::ones({1, 2}, ember::kFloat)}),
              torch::block_diag({torch::tensor({1, 2}), torch::ones({1, 2})}), 0, "block_diag promotes");
  for (int64_t n : {0, 1, 2, 5, 8}) {
    for (bool periodic : {true, false}) {
      INFO("window " << n << (periodic ? " periodic" : " symmetric"));
      check_close(ember::hann_window(n, periodic), torch::hann_window(n, periodic), 1e-7, "hann");
      check_close(ember::hamming_window(n, periodic, 0.6, 0.3, ember::kDouble),
                  torch::hamming_window(n, periodic, 0.6, 0.3, torch::kDouble), 1e-15, "hamming");
      check_close(ember::blackman_window(n, periodic), torch::blackman_window(n, periodic), 1e-7, "blackman");
      check_close(ember::bartlett_window(n, periodic), torch::bartlett_window(n, periodic), 1e-7, "bartlett");
    }
  }
  check_close(ember::hann_window(6, ember::kDouble), torch::hann_window(6, torch::kDouble), 1e-15,
              "options only");
  CHECK(ember::result_type(ember::tensor({1}), 2.5) == ember::kFloat);
  CHECK(ember::result_type(ember::tensor({1}, ember::kInt8), ember::tensor(300)) == ember::kInt8);
  CHECK(ember::result_type(ember::tensor({true}), ember::tensor({1}, ember::kUInt8)) == ember::kUInt8);
  CHECK_FALSE(ember::can_cast(ember::kFloat, ember::kInt32));
  CHECK_FALSE(ember::can_cast(ember::kInt32, ember::kBool));
  CHECK(ember::can_cast(ember::kBool, ember::kBool));
  CHECK(ember::can_cast(ember::kInt64, ember::kInt8));
  CHECK(torch::can_cast(torch::kInt64, torch::kInt8));
}

TEST_CASE("integer crosscheck: errors as libtorch's") {
  const ember::Tensor f = ember::ones({3}), i = ember::tensor({1, 2, 3});
  const torch::Tensor tf = torch::ones({3}), ti = torch::tensor({1, 2, 3});
  same_error([&] { ember::bitwise_and(f, f); }, [&] { torch::bitwise_and(tf, tf); });
  same_error([&] { (void)~f; }, [&] { torch::bitwise_not(tf); });
  same_error([&] { (void)(i & 1.5); }, [&] { torch::bitwise_and(ti, 1.5); });
  same_error([&] { ember::bitwise_left_shift(f, 1); }, [&] { torch::bitwise_left_shift(tf, 1); });
  same_error([&] { ember::bitwise_right_shift(ember::tensor({true}), ember::tensor({true})); },
             [&] { torch::bitwise_right_shift(torch::tensor({true}), torch::tensor({true})); });
  same_error([&] { ember::gcd(f, f); }, [&] { torch::gcd(tf, tf); });
  same_error([&] { ember::gcd(ember::tensor({true}), ember::tensor({true})); },
             [&] { torch::gcd(torch::tensor({true}), torch::tensor({true})); });
  same_error([&] { ember::nextafter(i, i); }, [&] { torch::nextafter(ti, ti); });
  same_error([&] { ember::heaviside(i, f); }, [&] { torch::heaviside(ti, tf); });
  same_error([&] { ember::frexp(i); }, [&] { torch::frexp(ti); });
  const ember::Tensor m = ember::zeros({3, 4});
  const torch::Tensor tm = torch::zeros({3, 4});
  same_error([&] { m.index_fill(1, ember::tensor({4}), 1); },
             [&] { tm.index_fill(1, torch::tensor({4}), 1); });
  same_error([&] { m.index_fill(1, ember::tensor({{0}}), 1); },
             [&] { tm.index_fill(1, torch::tensor({{0}}), 1); });
  same_error([&] { m.index_fill(1, ember::tensor({0}), ember::ones({2})); },
             [&] { tm.index_fill(1, torch::tensor({0}), torch::ones({2})); });
  same_error([&] { m.index_fill(1, ember::tensor({0.0}), 1); },
             [&] { tm.index_fill(1, torch::tensor({0.0}), 1); });
  same_error([&] { m.put(ember::tensor({12}), ember::ones({1})); },
             [&] { tm.put(torch::tensor({12}), torch::ones({1})); });
  same_error(
      [&] {
        m.put(ember::tensor({1, 2}), ember::ones({1}));
      },
      [&] {
        tm.put(torch::tensor({1, 2}), torch::ones({1}));
      });
  same_error(
      [&] {
        m.scatter_reduce(0, ember::zeros({1, 4}, ember::kLong), m, "max");
      },
      [&] {
        tm.scatter_reduce(0, torch::zeros({1, 4}, torch::kLong), tm, "max");
      });
  same_error([&] { (void)ember::ones({3}).mT(); }, [&] { (void)torch::ones({3}).mT(); });
  same_error(
      [&] {
        ember::block_diag({ember::ones({2, 2, 2})});
      },
      [&] {
        torch::block_diag({torch::ones({2, 2, 2})});
      });
  same_error([&] { ember::combinations(i, -1); }, [&] { torch::combinations(ti, -1); });
  same_error([&] { ember::cov(ember::ones({2, 2, 2})); }, [&] { torch::cov(torch::ones({2, 2, 2})); });
  same_error([&] { ember::cov(m, 1, ember::ones({4})); }, [&] { torch::cov(tm, 1, torch::ones({4})); });
  same_error(
      [&] {
        ember::cov(m, 1, {}, ember::tensor({1, 1, 1, 1}));
      },
      [&] {
        torch::cov(tm, 1, {}, torch::tensor({1, 1, 1, 1}));
      });
  same_error(
      [&] {
        ember::cov(m, 1, ember::tensor({1, -1, 1, 1}));
      },
      [&] {
        torch::cov(tm, 1, torch::tensor({1, -1, 1, 1}));
      });
  same_error([&] { ember::trapz(m, ember::ones({3})); }, [&] { torch::trapz(tm, torch::ones({3})); });
}
