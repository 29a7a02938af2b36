// The composed ops (ember/shape_ops.h, math_ops.h, linalg_ops.h) against libtorch 1.13 on
// the same random values: forward values and gradients in float64 and float32, result
// dtypes for integer inputs, and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::same_error;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
using EInputs = std::vector<ember::Tensor>;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
using TInputs = std::vector<torch::Tensor>;

struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // one leaf per shape
  std::function<ember::Tensor(const EInputs&)> ours;
  std::function<torch::Tensor(const TInputs&)> theirs;
  double lo = -3, hi = 3;  // leaves uniform in [lo, hi)
  // float32 results within this of libtorch's, relative to |libtorch's| + 1 (looser where
  // both libraries evaluate an ill-conditioned formula in float: near lgamma's poles, sinc's
  // cancelling gradient).
  double f32_tol = 2e-5;
};

void run(const std::vector<Case>& cases) {
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    for (const Case& c : cases) {
      const double tol = dt == ember::kDouble ? 1e-10 : c.f32_tol;
      INFO(c.name);
      EInputs leaves;
      for (const auto& s : c.shapes)
        leaves.push_back((ember::rand(s, ember::kDouble) * (c.hi - c.lo) + c.lo).to(dt).requires_grad_());
      same_forward_backward(c.name + (dt == ember::kDouble ? " (float64)" : " (float32)"), leaves, c.ours,
                            c.theirs, tol);
    }
  }
}

}  // namespace

TEST_CASE("composed crosscheck: rearranging ops, values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  using E = ember::Tensor;
  using T = torch::Tensor;
  run({
      {"tril",
       {{2, 4, 5}},
       [](const EInputs& x) { return x[0].tril(); },
       [](const TInputs& x) { return x[0].tril(); }},
      {"tril -1",
       {{4, 5}},
       [](const EInputs& x) { return ember::tril(x[0], -1); },
       [](const TInputs& x) { return torch::tril(x[0], -1); }},
      {"triu 2 of a transpose",
       {{5, 4}},
       [](const EInputs& x) { return ember::triu(x[0].t(), 2); },
       [](const TInputs& x) { return torch::triu(x[0].t(), 2); }},
      {"diagonal",
       {{3, 4, 5}},
       [](const EInputs& x) { return ember::diagonal(x[0], 1, 2, 0); },
       [](const TInputs& x) { return torch::diagonal(x[0], 1, 2, 0); }},
      {"diagonal below",
       {{4, 5}},
       [](const EInputs& x) { return x[0].diagonal(-2); },
       [](const TInputs& x) { return x[0].diagonal(-2); }},
      {"diag of a vector",
       {{4}},
       [](const EInputs& x) { return ember::diag(x[0], 1); },
       [](const TInputs& x) { return torch::diag(x[0], 1); }},
      {"diag of a matrix",
       {{4, 3}},
       [](const EInputs& x) { return x[0].diag(-1); },
       [](const TInputs& x) { return x[0].diag(-1); }},
      {"diag_embed",
       {{2, 3}},
       [](const EInputs& x) { return ember::diag_embed(x[0], -1, 0, 2); },
       [](const TInputs& x) { return torch::diag_embed(x[0], -1, 0, 2); }},
      {"flip",
       {{3, 4, 5}},
       [](const EInputs& x) {
         return x[0].flip({0, -1});
       },
       [](const TInputs& x) {
         return x[0].flip({0, -1});
       }},
      {"fliplr flipud",
       {{3, 4}},
       [](const EInputs& x) { return ember::fliplr(x[0]) + ember::flipud(x[0]); },
       [](const TInputs& x) { return torch::fliplr(x[0]) + torch::flipud(x[0]); }},
      {"roll flat",
       {{3, 4}},
       [](const EInputs& x) { return x[0].roll({5}); },
       [](const TInputs& x) { return x[0].roll({5}); }},
      {"roll dims",
       {{3, 4}},
       [](const EInputs& x) {
         return ember::roll(x[0], {-1, 6}, {0, 1});
       },
       [](const TInputs& x) {
         return torch::roll(x[0], {-1, 6}, {0, 1});
       }},
      {"rot90",
       {{2, 3, 4}},
       [](const EInputs& x) {
         return ember::rot90(x[0], 1, {1, 2}) * 2 + ember::rot90(x[0], -1, {2, 1});
       },
       [](const TInputs& x) {
         return torch::rot90(x[0], 1, {1, 2}) * 2 + torch::rot90(x[0], -1, {2, 1});
       }},
      {"rot90 twice",
       {{3, 4}},
       [](const EInputs& x) { return x[0].rot90(2); },
       [](const TInputs& x) { return x[0].rot90(2); }},
      {"movedim",
       {{2, 3, 4, 5}},
       [](const EInputs& x) {
         return ember::movedim(x[0], {0, 3}, {2, 0});
       },
       [](const TInputs& x) {
         return torch::movedim(x[0], {0, 3}, {2, 0});
       }},
      {"moveaxis swapaxes",
       {{2, 3, 4}},
       [](const EInputs& x) { return x[0].moveaxis(0, -1).swapaxes(0, 1); },
       [](const TInputs& x) { return x[0].moveaxis(0, -1).swapaxes(0, 1); }},
      {"unflatten",
       {{2, 12}},
       [](const EInputs& x) {
         return x[0].unflatten(1, {3, -1});
       },
       [](const TInputs& x) {
         return x[0].unflatten(1, {3, -1});
       }},
      {"broadcast_to",
       {{3, 1}},
       [](const EInputs& x) {
         return x[0].broadcast_to({2, 3, 4});
       },
       [](const TInputs& x) {
         return x[0].broadcast_to({2, 3, 4});
       }},
      {"broadcast_tensors",
       {{3, 1}, {4}},
       [](const EInputs& x) {
         auto b = ember::broadcast_tensors(x);
         return b[0] * 2 + b[1];
       },
       [](const TInputs& x) {
         auto b = torch::broadcast_tensors(x);
         return b[0] * 2 + b[1];
       }},
      {"stacks",
       {{3}, {3}},
       [](const EInputs& x) {
         return ember::cat({ember::hstack(x).reshape({2, 3}), ember::vstack(x), ember::row_stack(x),
                            ember::column_stack(x).t(), ember::dstack(x).squeeze(0).t()},
                           0);
       },
       [](const TInputs& x) {
         return torch::cat({torch::hstack(x).reshape({2, 3}), torch::vstack(x), torch::row_stack(x),
                            torch::column_stack(x).t(), torch::dstack(x).squeeze(0).t()},
                           0);
       }},
      {"atleast",
       {{}},
       [](const EInputs& x) {
         return ember::atleast_3d(x[0]) + ember::atleast_2d(x[0]) + ember::atleast_1d(x[0]);
       },
       [](const TInputs& x) {
         return torch::atleast_3d(x[0]) + torch::atleast_2d(x[0]) + torch::atleast_1d(x[0]);
       }},
      {"meshgrid ij and xy",
       {{3}, {4}},
       [](const EInputs& x) {
         auto ij = ember::meshgrid(x, "ij");
         auto xy = ember::meshgrid(x, "xy");
         return ij[0] * 2 + ij[1] + (xy[0] * 3 + xy[1]).t();
       },
       [](const TInputs& x) {
         auto ij = torch::meshgrid(x, "ij");
         auto xy = torch::meshgrid(x, "xy");
         return ij[0] * 2 + ij[1] + (xy[0] * 3 + xy[1]).t();
       }},
      {"tile",
       {{2, 3}},
       [](const EInputs& x) {
         return x[0].tile({2}) + 0 * ember::tile(x[0], {1, 1}).sum();
       },
       [](const TInputs& x) {
         return x[0].tile({2}) + 0 * torch::tile(x[0], {1, 1}).sum();
       }},
      {"tile more dims",
       {{2, 3}},
       [](const EInputs& x) {
         return ember::tile(x[0], {2, 1, 2});
       },
       [](const TInputs& x) {
         return torch::tile(x[0], {2, 1, 2});
       }},
      {"repeat_interleave",
       {{2, 3}},
       [](const EInputs& x) { return x[0].repeat_interleave(2, 1); },
       [](const TInputs& x) { return x[0].repeat_interleave(2, 1); }},
      {"repeat_interleave flat",
       {{2, 3}},
       [](const EInputs& x) { return ember::repeat_interleave(x[0], 3); },
       [](const TInputs& x) { return torch::repeat_interleave(x[0], 3); }},
      {"repeat_interleave counts",
       {{3, 2}},
       [](const EInputs& x) {
         return x[0].repeat_interleave(ember::tensor({2, 0, 3}), 0);
       },
       [](const TInputs& x) {
         return x[0].repeat_interleave(torch::tensor({2, 0, 3}), 0);
       }},
      {"diff",
       {{3, 6}},
       [](const EInputs& x) { return x[0].diff(2); },
       [](const TInputs& x) { return x[0].diff(2); }},
      {"diff prepend append",
       {{3, 4}, {1, 4}, {2, 4}},
       [](const EInputs& x) { return ember::diff(x[0], 1, 0, x[1], x[2]); },
       [](const TInputs& x) { return torch::diff(x[0], 1, 0, x[1], x[2]); }},
  });
  // Integer results and index factories.
  check_close(ember::tril_indices(4, 3, 1), torch::tril_indices(4, 3, 1), 0, "tril_indices");
  check_close(ember::triu_indices(3, 5, -1), torch::triu_indices(3, 5, -1), 0, "triu_indices");
  check_close(ember::repeat_interleave(ember::tensor({1, 0, 2})),
              torch::repeat_interleave(torch::tensor({1, 0, 2})), 0, "repeat_interleave of counts");
  const ember::Tensor b = ember::tensor({true, false, true, true});
  check_close(b.diff(), as_torch(b).diff(), 0, "diff of bool");
  const ember::Tensor i = ember::arange(12).reshape({3, 4});
  check_close(i.tril(1), as_torch(i).tril(1), 0, "tril of int64");
  check_close(i.flip({1}), as_torch(i).flip({1}), 0, "flip of int64");
  CHECK(i.diagonal().is_view());
  CHECK(i.diagonal().data_ptr() == i.data_ptr());

  same_error([&] { ember::tril(ember::ones({3})); }, [] { torch::tril(torch::ones({3})); });
  same_error(
      [&] {
        ember::flip(ember::ones({2, 2}), {0, 0});
      },
      [] {
        torch::flip(torch::ones({2, 2}), {0, 0});
      });
  same_error(
      [&] {
        ember::roll(ember::ones({2, 2}), {1, 1}, {0});
      },
      [] {
        torch::roll(torch::ones({2, 2}), {1, 1}, {0});
      });
  same_error(
      [&] {
        ember::rot90(ember::ones({2, 2}), 1, {0, 0});
      },
      [] {
        torch::rot90(torch::ones({2, 2}), 1, {0, 0});
      });
  same_error(
      [&] {
        ember::rot90(ember::ones({2, 2}), 1, {0});
      },
      [] {
        torch::rot90(torch::ones({2, 2}), 1, {0});
      });
  same_error(
      [&] {
        ember::diagonal(ember::ones({2, 2}), 0, 1, 1);
      },
      [] {
        torch::diagonal(torch::ones({2, 2}), 0, 1, 1);
      });
  same_error([&] { ember::diag(ember::ones({2, 2, 2})); }, [] { torch::diag(torch::ones({2, 2, 2})); });
  same_error(
      [&] {
        ember::unflatten(ember::ones({2, 5}), 1, {2, 2});
      },
      [] {
        torch::ones({2, 5}).unflatten(1, {2, 2});
      });
  same_error(
      [&] {
        ember::movedim(ember::ones({2, 2}), {0, 1}, {0});
      },
      [] {
        torch::movedim(torch::ones({2, 2}), {0, 1}, {0});
      });
  same_error(
      [&] {
        ember::movedim(ember::ones({2, 2}), {0, 0}, {0, 1});
      },
      [] {
        torch::movedim(torch::ones({2, 2}), {0, 0}, {0, 1});
      });
  const ember::Tensor d = ember::tensor({1.0, 3.0, 6.0});
  check_close(d.diff(-1), as_torch(d).diff(-1), 0, "diff of order -1");
  check_close(d.diff(0), as_torch(d).diff(0), 0, "diff of order 0");
  check_close(d.diff(5), as_torch(d).diff(5), 0, "diff of a larger order than the size");
  same_error([&] { ember::tril_indices(-1, 2); }, [] { torch::tril_indices(-1, 2); });
  same_error([&] { ember::fliplr(ember::ones({2})); }, [] { torch::fliplr(torch::ones({2})); });
}

TEST_CASE("composed crosscheck: pointwise functions and reductions, values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  auto unary = [](const char* name, ember::Tensor (*ours)(const ember::Tensor&),
                  torch::Tensor (*theirs)(const torch::Tensor&), double lo, double hi,
                  double f32_tol = 2e-5) {
    return Case{name,
                {{4, 5}},
                [ours](const EInputs& x) { return ours(x[0]); },
                [theirs](const TInputs& x) { return theirs(x[0]); },
                lo,
                hi,
                f32_tol};
  };
  run({
      unary("asin", ember::asin, torch::asin, -0.99, 0.99),
      unary("acos", ember::acos, torch::acos, -0.99, 0.99),
      unary("atan", ember::atan, torch::atan, -20, 20),
      unary("sinh", ember::sinh, torch::sinh, -5, 5),
      unary("cosh", ember::cosh, torch::cosh, -5, 5),
      unary("asinh", ember::asinh, torch::asinh, -30, 30),
      unary("acosh", ember::acosh, torch::acosh, 1.01, 40),
      unary("atanh", ember::atanh, torch::atanh, -0.99, 0.99),
      unary("log2", ember::log2, torch::log2, 0.01, 50),
      unary("log10", ember::log10, torch::log10, 0.01, 50),
      unary("exp2", ember::exp2, torch::exp2, -8, 8),
      unary("sinc", ember::sinc, torch::sinc, -4, 4, 2e-4),
      unary("deg2rad", ember::deg2rad, torch::deg2rad, -400, 400),
      unary("rad2deg", ember::rad2deg, torch::rad2deg, -7, 7),
      unary("frac", ember::frac, torch::frac, -9, 9),
      unary("erf", ember::erf, torch::erf, -3, 3),
      unary("erfc", ember::erfc, torch::erfc, -3, 3),
      unary("erfinv", ember::erfinv, torch::erfinv, -0.99, 0.99),
      unary("lgamma", ember::lgamma, torch::lgamma, -4.5, 9, 2e-4),
      unary("digamma", ember::digamma, torch::digamma, 0.05, 9, 2e-4),
      {"logit",
       {{4, 5}},
       [](const EInputs& x) { return ember::logit(x[0]); },
       [](const TInputs& x) { return torch::logit(x[0]); },
       0.01,
       0.99},
      {"logit eps",
       {{4, 5}},
       [](const EInputs& x) { return x[0].logit(0.2); },
       [](const TInputs& x) { return x[0].logit(0.2); },
       0.01,
       0.99},
      {"logaddexp",
       {{4, 5}, {5}},
       [](const EInputs& x) { return ember::logaddexp(x[0], x[1]); },
       [](const TInputs& x) { return torch::logaddexp(x[0], x[1]); },
       -30,
       30},
      {"logaddexp2",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return x[0].logaddexp2(x[1]); },
       [](const TInputs& x) { return x[0].logaddexp2(x[1]); },
       -30,
       30},
      {"xlogy",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return ember::xlogy(x[0], x[1]); },
       [](const TInputs& x) { return torch::xlogy(x[0], x[1]); },
       0.01,
       5},
      {"hypot",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return ember::hypot(x[0], x[1]); },
       [](const TInputs& x) { return torch::hypot(x[0], x[1]); }},
      {"fmax fmin",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return ember::fmax(x[0], x[1]) * 2 + ember::fmin(x[0], x[1]); },
       [](const TInputs& x) { return torch::fmax(x[0], x[1]) * 2 + torch::fmin(x[0], x[1]); }},
      {"float_power",
       {{4, 5}},
       [](const EInputs& x) { return ember::float_power(x[0], 3); },
       [](const TInputs& x) { return torch::float_power(x[0], 3); }},
      {"nansum nanmean",
       {{4, 5}},
       [](const EInputs& x) { return x[0].nansum({1}) + ember::nanmean(x[0], {1}); },
       [](const TInputs& x) { return x[0].nansum({1}) + torch::nanmean(x[0], {1}); }},
      {"cumprod",
       {{3, 9}},
       [](const EInputs& x) { return x[0].cumprod(1); },
       [](const TInputs& x) { return x[0].cumprod(1); }},
      {"cumprod dim 0",
       {{5, 2}},
       [](const EInputs& x) { return ember::cumprod(x[0], 0); },
       [](const TInputs& x) { return torch::cumprod(x[0], 0); }},
      {"median",
       {{5, 3}},
       [](const EInputs& x) { return std::get<0>(x[0].median(0)) + x[0].median(); },
       [](const TInputs& x) { return std::get<0>(x[0].median(0)) + x[0].median(); }},
      {"kthvalue",
       {{4, 6}},
       [](const EInputs& x) { return std::get<0>(x[0].kthvalue(2, 1, true)); },
       [](const TInputs& x) { return std::get<0>(x[0].kthvalue(2, 1, true)); }},
  });
  // Special values, integer inputs and indices.
  const ember::Tensor special = ember::tensor({0.0, 1.0, -1.0, 2.0, kInf, -kInf, kNan});
  for (auto [name, ours, theirs] :
       std::vector<std::tuple<std::string, std::function<ember::Tensor(const ember::Tensor&)>,
                              std::function<torch::Tensor(const torch::Tensor&)>>>{
           {"asin", [](const ember::Tensor& x) { return ember::asin(x); },
            [](const torch::Tensor& x) { return torch::asin(x); }},
           {"acosh", [](const ember::Tensor& x) { return ember::acosh(x); },
            [](const torch::Tensor& x) { return torch::acosh(x); }},
           {"sinh", [](const ember::Tensor& x) { return ember::sinh(x); },
            [](const torch::Tensor& x) { return torch::sinh(x); }},
           {"cosh", [](const ember::Tensor& x) { return ember::cosh(x); },
            [](const torch::Tensor& x) { return torch::cosh(x); }},
           {"log2", [](const ember::Tensor& x) { return ember::log2(x); },
            [](const torch::Tensor& x) { return torch::log2(x); }},
           {"sinc", [](const ember::Tensor& x) { return ember::sinc(x); },
            [](const torch::Tensor& x) { return torch::sinc(x); }},
           {"erfinv", [](const ember::Tensor& x) { return ember::erfinv(x); },
            [](const torch::Tensor& x) { return torch::erfinv(x); }},
           {"lgamma", [](const ember::Tensor& x) { return ember::lgamma(x - 0.5) + ember::lgamma(x); },
            [](const torch::Tensor& x) { return torch::lgamma(x - 0.5) + torch::lgamma(x); }},
           {"digamma", [](const ember::Tensor& x) { return ember::digamma(x) + ember::digamma(x - 2.5); },
            [](const torch::Tensor& x) { return torch::digamma(x) + torch::digamma(x - 2.5); }},
           {"polygamma 1", [](const ember::Tensor& x) { return ember::polygamma(1, x * 3.7 + 0.2); },
            [](const torch::Tensor& x) { return torch::polygamma(1, x * 3.7 + 0.2); }},
           {"polygamma 2 and 5",
            [](const ember::Tensor& x) {
              return ember::polygamma(2, x * 3.7 - 2.2) + ember::polygamma(5, x + 0.6);
            },
            [](const torch::Tensor& x) {
              return torch::polygamma(2, x * 3.7 - 2.2) + torch::polygamma(5, x + 0.6);
            }},
           {"zeta", [](const ember::Tensor& x) { return ember::special::zeta(x.abs() + 1.5, x * 4 + 0.3); },
            [](const torch::Tensor& x) { return torch::special::zeta(x.abs() + 1.5, x * 4 + 0.3); }},
           {"logaddexp", [](const ember::Tensor& x) { return ember::logaddexp(x, x); },
            [](const torch::Tensor& x) { return torch::logaddexp(x, x); }},
           {"xlogy", [](const ember::Tensor& x) { return ember::xlogy(x, x); },
            [](const torch::Tensor& x) { return torch::xlogy(x, x); }},
           {"fmax", [](const ember::Tensor& x) { return ember::fmax(x, x.flip({0})); },
            [](const torch::Tensor& x) { return torch::fmax(x, x.flip({0})); }},
       }) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      const ember::Tensor x = special.to(dt);
      const torch::Tensor e = as_torch(ours(x)), t = theirs(as_torch(x));
      INFO(name << " of " << e << " vs " << t);
      CHECK(torch::allclose(e, t, 1e-6, 1e-12, true));
    }
  }
  CHECK(ember::log2(ember::tensor({8.0f, 1024.0f})).equal(ember::tensor({3.0f, 10.0f})));
  CHECK(ember::log10(ember::tensor({1000.0f})).equal(ember::tensor({3.0f})));
  const ember::Tensor ints = ember::tensor({1, 2, 3, 4});
  for (const auto& [got, want] : std::vector<std::pair<ember::Tensor, torch::Tensor>>{
           {ember::asin(ints / 8), torch::asin(torch::tensor({1, 2, 3, 4}) / 8)},
           {ember::log2(ints), torch::log2(torch::tensor({1, 2, 3, 4}))},
           {ember::exp2(ints), torch::exp2(torch::tensor({1, 2, 3, 4}))},
           {ember::sinc(ints), torch::sinc(torch::tensor({1, 2, 3, 4}))},
           {ember::deg2rad(ints), torch::deg2rad(torch::tensor({1, 2, 3, 4}))},
           {ember::cumprod(ints, 0), torch::cumprod(torch::tensor({1, 2, 3, 4}), 0)},
           {ember::count_nonzero(ember::tensor({{0, 1}, {2, 0}}), 0),
            torch::count_nonzero(torch::tensor({{0, 1}, {2, 0}}), c10::optional<int64_t>(0))},
           {ember::count_nonzero(ember::tensor({{0, 1}, {2, 3}})),
            torch::count_nonzero(torch::tensor({{0, 1}, {2, 3}}))},
           {ember::nansum(ember::tensor({1.0, kNan, 2.0})), torch::nansum(torch::tensor({1.0, kNan, 2.0}))},
           {ember::nanmean(ember::tensor({1.0, kNan, 2.0})), torch::nanmean(torch::tensor({1.0, kNan, 2.0}))},
           {ember::float_power(ints, 2), torch::float_power(torch::tensor({1, 2, 3, 4}), 2)},
           {std::get<1>(ember::median(ember::tensor({{3.0, kNan, 1.0}, {2.0, 5.0, 4.0}}), 1)),
            std::get<1>(torch::median(torch::tensor({{3.0, kNan, 1.0}, {2.0, 5.0, 4.0}}), 1))},
           {std::get<0>(ember::median(ember::tensor({{3.0, kNan, 1.0}, {2.0, 5.0, 4.0}}), 1)),
            std::get<0>(torch::median(torch::tensor({{3.0, kNan, 1.0}, {2.0, 5.0, 4.0}}), 1))},
           {std::get<1>(ember::kthvalue(ember::tensor({5, 1, 4, 2}), 3)),
            std::get<1>(torch::kthvalue(torch::tensor({5, 1, 4, 2}), 3))},
           {ember::median(ember::tensor({5, 1, 4, 2})), torch::median(torch::tensor({5, 1, 4, 2}))},
       }) {
    INFO(got << " vs " << want);
    REQUIRE(got.sizes().vec() == want.sizes().vec());
    CHECK(crosscheck::to_torch(got.dtype()) == want.scalar_type());
    CHECK(torch::allclose(as_torch(got).to(torch::kDouble), want.to(torch::kDouble), 1e-6, 1e-12, true));
  }
  // libtorch 1.13 has no aminmax gradient: values only.
  const ember::Tensor mm_in = ember::randn({4, 6});
  auto [lo, hi] = mm_in.aminmax(1, true);
  auto [tlo, thi] = as_torch(mm_in).aminmax(1, true);
  check_close(lo, tlo, 0, "aminmax min");
  check_close(hi, thi, 0, "aminmax max");
  auto [all_lo, all_hi] = ember::aminmax(mm_in);
  check_close(all_lo, std::get<0>(torch::aminmax(as_torch(mm_in))), 0, "aminmax of all");
  check_close(all_hi, std::get<1>(torch::aminmax(as_torch(mm_in))), 0, "aminmax of all");
  // polygamma(1, x): values over both signs (its own derivative needs polygamma(2, x)).
  const ember::Tensor pg = ember::linspace(-4.7, 9.3, 57, ember::kDouble);
  check_close(ember::polygamma(1, pg), torch::polygamma(1, as_torch(pg)), 1e-12, "polygamma(1, x)");
  check_close(pg.polygamma(0), as_torch(pg).polygamma(0), 1e-12, "polygamma(0, x)");
  check_close(ember::digamma(-pg), torch::digamma(-as_torch(pg)), 1e-12, "digamma of negatives");
  same_error([] { ember::frac(ember::tensor({1, 2})); }, [] { torch::frac(torch::tensor({1, 2})); });
  same_error([] { ember::nanmean(ember::tensor({1, 2})); }, [] { torch::nanmean(torch::tensor({1, 2})); });
  same_error([] { ember::kthvalue(ember::ones({3}), 4); }, [] { torch::kthvalue(torch::ones({3}), 4); });
}

TEST_CASE("composed crosscheck: products, einsum, values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  run({
      {"addmv",
       {{3}, {3, 4}, {4}},
       [](const EInputs& x) { return ember::addmv(x[0], x[1], x[2], 0.5, 2); },
       [](const TInputs& x) { return torch::addmv(x[0], x[1], x[2], 0.5, 2); }},
      {"addr",
       {{3, 4}, {3}, {4}},
       [](const EInputs& x) { return x[0].addr(x[1], x[2], 2, -1); },
       [](const TInputs& x) { return x[0].addr(x[1], x[2], 2, -1); }},
      {"baddbmm",
       {{2, 3, 5}, {2, 3, 4}, {2, 4, 5}},
       [](const EInputs& x) { return ember::baddbmm(x[0], x[1], x[2], 1, 0.5); },
       [](const TInputs& x) { return torch::baddbmm(x[0], x[1], x[2], 1, 0.5); }},
      {"baddbmm broadcast self",
       {{5}, {2, 3, 4}, {2, 4, 5}},
       [](const EInputs& x) { return x[0].baddbmm(x[1], x[2], 3); },
       [](const TInputs& x) { return x[0].baddbmm(x[1], x[2], 3); }},
      {"addbmm",
       {{3, 5}, {2, 3, 4}, {2, 4, 5}},
       [](const EInputs& x) { return ember::addbmm(x[0], x[1], x[2], 0.25, 1); },
       [](const TInputs& x) { return torch::addbmm(x[0], x[1], x[2], 0.25, 1); }},
      {"trace",
       {{4, 3}},
       [](const EInputs& x) { return x[0].trace(); },
       [](const TInputs& x) { return x[0].trace(); }},
      {"kron",
       {{2, 3}, {4, 1, 2}},
       [](const EInputs& x) { return ember::kron(x[0], x[1]); },
       [](const TInputs& x) { return torch::kron(x[0], x[1]); }},
      {"tensordot",
       {{2, 3, 4}, {4, 3, 5}},
       [](const EInputs& x) {
         return ember::tensordot(x[0], x[1], {1, 2}, {1, 0});
       },
       [](const TInputs& x) {
         return torch::tensordot(x[0], x[1], {1, 2}, {1, 0});
       }},
      {"tensordot int",
       {{2, 3, 4}, {3, 4, 5}},
       [](const EInputs& x) { return ember::tensordot(x[0], x[1], 2); },
       [](const TInputs& x) {
         return torch::tensordot(x[0], x[1], {1, 2}, {0, 1});
       }},
      {"vdot inner",
       {{4}, {4}},
       [](const EInputs& x) { return ember::vdot(x[0], x[1]) + x[0].inner(x[1]); },
       [](const TInputs& x) { return torch::vdot(x[0], x[1]) + x[0].inner(x[1]); }},
      {"inner of matrices",
       {{2, 4}, {3, 4}},
       [](const EInputs& x) { return ember::inner(x[0], x[1]); },
       [](const TInputs& x) { return torch::inner(x[0], x[1]); }},
      {"chain_matmul",
       {{2, 3}, {3, 4}, {4, 2}},
       [](const EInputs& x) { return ember::chain_matmul(x); },
       [](const TInputs& x) { return torch::chain_matmul(x); }},
      {"cdist",
       {{2, 4, 3}, {2, 5, 3}},
       [](const EInputs& x) { return ember::cdist(x[0], x[1]); },
       [](const TInputs& x) { return torch::cdist(x[0], x[1]); }},
      {"cdist p=1",
       {{4, 3}, {5, 3}},
       [](const EInputs& x) { return ember::cdist(x[0], x[1], 1.0); },
       [](const TInputs& x) { return torch::cdist(x[0], x[1], 1.0); }},
  });
  struct Einsum {
    std::string equation;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Einsum> einsums = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}},
      {"ij,jk", {{3, 4}, {4, 5}}},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"bhqd,bhkd->bhqk", {{2, 3, 4, 5}, {2, 3, 6, 5}}},
      {"ii->i", {{4, 4}}},
      {"ii", {{4, 4}}},
      {"iji->j", {{3, 2, 3}}},
      {"ij->ji", {{3, 4}}},
      {"ij->", {{3, 4}}},
      {"i,j->ij", {{3}, {4}}},
      {"i,i->", {{5}, {5}}},
      {"...ij,...jk->...ik", {{2, 3, 4}, {4, 5}}},
      {"b...,b->...", {{3, 2, 4}, {3}}},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
      {"abc,cd,bd->ad", {{2, 3, 4}, {4, 5}, {3, 5}}},
      {"ba,ca->bc", {{3, 4}, {5, 4}}},
      {"Ab,bC->AC", {{2, 3}, {3, 4}}},
      {"i,j,k->ijk", {{2}, {3}, {4}}},
      {"ij,ij->i", {{3, 4}, {1, 4}}},
      {"...", {{2, 3}}},
  };
  for (const Einsum& e : einsums) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      EInputs leaves;
      for (const auto& s : e.shapes) leaves.push_back(ember::randn(s, dt).requires_grad_());
      same_forward_backward(
          "einsum " + e.equation, leaves, [&](const EInputs& x) { return ember::einsum(e.equation, x); },
          [&](const TInputs& x) { return torch::einsum(e.equation, x); },
          dt == ember::kDouble ? 1e-10 : 2e-5);
    }
  }
  same_error(
      [] {
        ember::einsum("ij,jk->ik", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ij,jk->ik", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("ij->ik", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ij->ik", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("ijk->i", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ijk->i", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("ij->ii", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ij->ii", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("i1->i", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("i1->i", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("ii->i", {ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ii->i", {torch::ones({2, 3})});
      });
  same_error(
      [] {
        ember::einsum("i,i->i", {ember::ones({2}), ember::ones({2}), ember::ones({2})});
      },
      [] {
        torch::einsum("i,i->i", {torch::ones({2}), torch::ones({2}), torch::ones({2})});
      });
  same_error(
      [] {
        ember::addr(ember::ones({2, 2}), ember::ones({2, 2}), ember::ones({2}));
      },
      [] {
        torch::addr(torch::ones({2, 2}), torch::ones({2, 2}), torch::ones({2}));
      });
  same_error([] { ember::trace(ember::ones({2})); }, [] { torch::trace(torch::ones({2})); });
  same_error(
      [] {
        ember::tensordot(ember::ones({2, 3}), ember::ones({2, 3}), {0}, {1});
      },
      [] {
        torch::tensordot(torch::ones({2, 3}), torch::ones({2, 3}), {0}, {1});
      });
  same_error(
      [] {
        ember::cdist(ember::ones({2, 3}), ember::ones({2, 4}));
      },
      [] {
        torch::cdist(torch::ones({2, 3}), torch::ones({2, 4}));
      });
  same_error(
      [] {
        ember::vdot(ember::ones({2, 2}), ember::ones({2}));
      },
      [] {
        torch::vdot(torch::ones({2, 2}), torch::ones({2}));
      });
}

TEST_CASE("composed crosscheck: edge cases (empty dims, 0-d tensors, zeros, ties, extremes, dtypes)") {
  using ember::kDouble;
  // einsum over dims of size 0.
  for (const auto& [eq, shapes] :
       std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>>{{"ij,jk->ik", {{2, 0}, {0, 3}}},
                                                                              {"ij,jk->ik", {{0, 2}, {2, 3}}},
                                                                              {"ij->i", {{2, 0}}},
                                                                              {"i->", {{0}}}}) {
    EInputs ours;
    TInputs theirs;
    for (const auto& s : shapes) {
      ours.push_back(ember::ones(s, kDouble));
      theirs.push_back(torch::ones(s, torch::kDouble));
    }
    check_close(ember::einsum(eq, ours), torch::einsum(eq, theirs), 0, "einsum " + eq + " with an empty dim");
  }
  same_error(
      [] {
        ember::einsum("ij,jk->ik", {ember::ones({2, 0}), ember::ones({2, 3})});
      },
      [] {
        torch::einsum("ij,jk->ik", {torch::ones({2, 0}), torch::ones({2, 3})});
      });
  // 0-d tensors.
  const ember::Tensor s = ember::tensor(2.5, kDouble);
  check_close(ember::movedim(s, 0, 0), torch::movedim(as_torch(s), 0, 0), 0, "movedim of a 0-d tensor");
  check_close(ember::flip(s, {0}), torch::flip(as_torch(s), {0}), 0, "flip of a 0-d tensor");
  // Gradients at exact zeros, at ties, and near 0.
  same_forward_backward(
      "asinh and xlogy at zeros",
      {ember::tensor({0.0, -0.0, 1e-300, 0.0, 0.0}, kDouble).requires_grad_(),
       ember::tensor({0.5, 2.0, 3.0, 0.0, -1.0}, kDouble).requires_grad_()},
      [](const EInputs& x) { return ember::asinh(x[0]) + ember::xlogy(x[0], x[1].abs() + 0.5); },
      [](const TInputs& x) { return torch::asinh(x[0]) + torch::xlogy(x[0], x[1].abs() + 0.5); }, 1e-12);
  same_forward_backward(
      "xlogy x gradient where x == 0", {ember::tensor({0.0, 0.0, 1.0}, kDouble).requires_grad_()},
      [](const EInputs& x) {
        return ember::xlogy(x[0], ember::tensor({0.5, 2.0, 3.0}, kDouble));
      },
      [](const TInputs& x) {
        return torch::xlogy(x[0], torch::tensor({0.5, 2.0, 3.0}, torch::kDouble));
      },
      1e-12);
  // sinc near 0: values against libtorch; gradients where libtorch's own formula does not
  // cancel (test_composed_ops.cpp checks the small ones against the series).
  for (ember::ScalarType dt : {ember::kFloat, kDouble}) {
    const ember::Tensor small = ember::tensor({1e-3, -1e-4, 1e-6, 1e-20, 0.05, 0.2}, dt);
    check_close(ember::sinc(small), torch::sinc(as_torch(small)), dt == kDouble ? 1e-15 : 1e-7,
                "sinc near 0");
    same_forward_backward(
        "sinc around the series' edge", {ember::tensor({0.02, -0.035, 0.05, 0.2}, dt).requires_grad_()},
        [](const EInputs& x) { return ember::sinc(x[0]); },
        [](const TInputs& x) { return torch::sinc(x[0]); }, dt == kDouble ? 1e-10 : 2e-5);
  }
  same_forward_backward(
      "median ties", {ember::tensor({2.0, 1.0, 2.0, 2.0, 1.0}, kDouble).requires_grad_()},
      [](const EInputs& x) { return ember::median(x[0]); },
      [](const TInputs& x) { return torch::median(x[0]); }, 1e-15);
  same_forward_backward(
      "fmax fmin ties",
      {ember::tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_(),
       ember::tensor({1.0, 5.0, 3.0}, kDouble).requires_grad_()},
      [](const EInputs& x) { return ember::fmax(x[0], x[1]) + ember::fmin(x[0], x[1]) * 3; },
      [](const TInputs& x) { return torch::fmax(x[0], x[1]) + torch::fmin(x[0], x[1]) * 3; }, 1e-15);
  const ember::Tensor big = ember::tensor({1e20f, 3e-30f, 0.0f, 1e20f, -4e-30f});
  const ember::Tensor other =
      ember::tensor({1e20f, 4e-30f, 0.0f, std::numeric_limits<float>::infinity(), 0.0f});
  const torch::Tensor h = as_torch(ember::hypot(big, other)),
                      th = torch::hypot(as_torch(big), as_torch(other));
  INFO("hypot " << h << " vs " << th);
  CHECK(torch::allclose(h, th, 1e-6, 0, true));
  // Result dtypes of the add*mm family.
  const ember::Tensor li = ember::tensor({1, 1}), lm = ember::tensor({{1, 2}, {3, 4}}),
                      lv = ember::tensor({1, 1});
  check_close(ember::addmv(li, lm, lv, 1, 0.5),
              torch::addmv(as_torch(li), as_torch(lm), as_torch(lv), 1, 0.5), 0,
              "addmv of int64 with a fractional alpha");
  const ember::Tensor fm = ember::randn({2, 3}), fv = ember::randn({3});
  check_close(ember::addmv(ember::ones({2}, kDouble), fm, fv),
              torch::addmv(torch::ones({2}, torch::kDouble), as_torch(fm), as_torch(fv)), 1e-6,
              "addmv of a float64 self and float32 operands");
  // cdist through matmul (more than 25 rows) and its errors.
  for (int64_t mode : {0, 1, 2}) {
    same_forward_backward(
        "cdist of 30 rows, compute_mode " + std::to_string(mode),
        {ember::randn({30, 3}, kDouble).requires_grad_(), ember::randn({27, 3}, kDouble).requires_grad_()},
        [mode](const EInputs& x) { return ember::cdist(x[0], x[1], 2.0, mode); },
        [mode](const TInputs& x) { return torch::cdist(x[0], x[1], 2.0, mode); }, 1e-10);
  }
  same_error(
      [] {
        ember::cdist(ember::ones({2, 3}), ember::ones({2, 3}, kDouble));
      },
      [] {
        torch::cdist(torch::ones({2, 3}), torch::ones({2, 3}, torch::kDouble));
      });
  same_error(
      [] {
        ember::trace(ember::ones({2, 2}, ember::kBool));
      },
      [] {
        torch::trace(torch::ones({2, 2}, torch::kBool));
      });
  same_error(
      [] {
        ember::tensordot(ember::ones({2, 2}), ember::ones({2, 2}), {0, 0}, {0, 1});
      },
      [] {
        torch::tensordot(torch::ones({2, 2}), torch::ones({2, 2}), {0, 0}, {0, 1});
      });
  same_error(
      [] {
        ember::rot90(ember::ones({2, 2}), 1, {1, -1});
      },
      [] {
        torch::rot90(torch::ones({2, 2}), 1, {1, -1});
      });
  same_error([] { ember::hypot(ember::tensor({3}), ember::tensor({4})); },
             [] { torch::hypot(torch::tensor({3}), torch::tensor({4})); });
  same_error([] { ember::logaddexp(ember::tensor({3}), ember::tensor({4})); },
             [] { torch::logaddexp(torch::tensor({3}), torch::tensor({4})); });
}

TEST_CASE("composed crosscheck: remainders, signs, scans, quantiles, searching, counting and splits") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  using ember::kDouble;
  run({
      {"fmod",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return ember::fmod(x[0] * 3, x[1].abs() + 0.5); },
       [](const TInputs& x) { return torch::fmod(x[0] * 3, x[1].abs() + 0.5); }},
      {"fmod by a negative scalar",
       {{4, 5}},
       [](const EInputs& x) { return x[0].fmod(-1.25); },
       [](const TInputs& x) { return x[0].fmod(-1.25); }},
      {"copysign (the sign's gradient is zeros)",
       {{4, 5}, {4, 5}},
       [](const EInputs& x) { return ember::copysign(x[0], x[1]); },
       [](const TInputs& x) { return torch::copysign(x[0], x[1]); }},
      {"rsub",
       {{4, 5}, {5}},
       [](const EInputs& x) { return ember::rsub(x[0], x[1], 2); },
       [](const TInputs& x) { return torch::rsub(x[0], x[1], 2); }},
      {"logcumsumexp",
       {{3, 9}},
       [](const EInputs& x) { return x[0].logcumsumexp(1); },
       [](const TInputs& x) { return x[0].logcumsumexp(1); },
       -30,
       30},
      {"cummax cummin",
       {{5, 4}},
       [](const EInputs& x) { return std::get<0>(x[0].cummax(0)) * 2 + std::get<0>(ember::cummin(x[0], 1)); },
       [](const TInputs& x) {
         return std::get<0>(x[0].cummax(0)) * 2 + std::get<0>(torch::cummin(x[0], 1));
       }},
      {"quantile",
       {{3, 7}},
       [](const EInputs& x) { return ember::quantile(x[0], 0.3, 1); },
       [](const TInputs& x) { return torch::quantile(x[0], 0.3, 1); }},
      {"quantile of all, q tensor, keepdim",
       {{3, 7}},
       [](const EInputs& x) {
         return x[0].quantile(ember::tensor({0.0, 0.25, 1.0}, x[0].dtype()), {}, true);
       },
       [](const TInputs& x) {
         return x[0].quantile(torch::tensor({0.0, 0.25, 1.0}, x[0].dtype()), {}, true);
       }},
      {"nanmedian",
       {{4, 5}},
       [](const EInputs& x) { return std::get<0>(x[0].nanmedian(1)) + x[0].nanmedian(); },
       [](const TInputs& x) { return std::get<0>(x[0].nanmedian(1)) + x[0].nanmedian(); }},
      {"msort",
       {{5, 3}},
       [](const EInputs& x) { return ember::msort(x[0]); },
       [](const TInputs& x) { return torch::msort(x[0]); }},
      {"take_along_dim",
       {{4, 5}},
       [](const EInputs& x) {
         return ember::take_along_dim(x[0], ember::argsort(x[0], 1), 1) +
                x[0].take_along_dim(ember::tensor({3, 0})).sum();
       },
       [](const TInputs& x) {
         return torch::take_along_dim(x[0], torch::argsort(x[0], /*dim=*/1, /*descending=*/false), 1) +
                x[0].take_along_dim(torch::tensor({3, 0})).sum();
       }},
      {"tensor_split and friends",
       {{6, 5, 4}},
       [](const EInputs& x) {
         auto a = x[0].tensor_split(4, 1);
         auto b = ember::tensor_split(x[0], {1, 4, 9}, 0);
         auto c = x[0].split_with_sizes({2, 3}, 1);
         return a[0].sum() + a[3].sum() * 2 + b[1].sum() * 3 + b[2].sum() * 4 + c[1].sum() * 5 +
                ember::hsplit(x[0], 5)[2].sum() + ember::vsplit(x[0], {2})[1].sum() +
                x[0].dsplit(2)[1].sum() * 6 + x[0].ravel().sum() * 7;
       },
       [](const TInputs& x) {
         auto a = x[0].tensor_split(4, 1);
         auto b = torch::tensor_split(x[0], {1, 4, 9}, 0);
         auto c = x[0].split_with_sizes({2, 3}, 1);
         return a[0].sum() + a[3].sum() * 2 + b[1].sum() * 3 + b[2].sum() * 4 + c[1].sum() * 5 +
                torch::hsplit(x[0], 5)[2].sum() + torch::vsplit(x[0], {2})[1].sum() +
                x[0].dsplit(2)[1].sum() * 6 + x[0].ravel().sum() * 7;
       }},
  });
  // Values against libtorch: dtypes, NaN, ties, integers.
  const ember::Tensor nanny = ember::tensor({1.0, 3.0, kNan, 2.0, kNan, 5.0, 3.0}, kDouble);
  const ember::Tensor ints = ember::tensor({-7, 7, -6, 5}), divs = ember::tensor({3, -3, 3, 2});
  const ember::Tensor floats = ember::tensor({-7.5, 7.0, -0.0, 0.0, 2.5}, kDouble);
  const ember::Tensor seq = ember::tensor({1, 3, 5, 7, 9}), vals = ember::tensor({{3, 6, 9}, {0, 10, 5}});
  const ember::Tensor rows = ember::tensor({{1.0, 2.0, 3.0}, {2.0, 4.0, 8.0}}, kDouble);
  for (const auto& [what, got, want] : std::vector<std::tuple<std::string, ember::Tensor, torch::Tensor>>{
           {"fmod ints", ember::fmod(ints, divs), torch::fmod(as_torch(ints), as_torch(divs))},
           {"fmod int by a float", ember::fmod(ints, 2.5), torch::fmod(as_torch(ints), 2.5)},
           {"floor_divide ints", ember::floor_divide(ints, divs),
            torch::floor_divide(as_torch(ints), as_torch(divs))},
           {"floor_divide floats", ember::floor_divide(floats, 2.0),
            torch::floor_divide(as_torch(floats), 2.0)},
           {"floor_divide by a scalar", ints.floor_divide(2), as_torch(ints).floor_divide(2)},
           {"copysign of -0.0", ember::copysign(ember::ones({5}, kDouble), floats),
            torch::copysign(torch::ones({5}, torch::kDouble), as_torch(floats))},
           {"copysign of ints", ember::copysign(ints, -1), torch::copysign(as_torch(ints), -1)},
           {"signbit", ember::signbit(floats), torch::signbit(as_torch(floats))},
           {"signbit of ints", ember::signbit(ints), torch::signbit(as_torch(ints))},
           {"isposinf", ember::isposinf(ember::tensor({kInf, -kInf, 1.0})),
            torch::isposinf(torch::tensor({kInf, -kInf, 1.0}))},
           {"isneginf", ember::isneginf(ember::tensor({kInf, -kInf, 1.0})),
            torch::isneginf(torch::tensor({kInf, -kInf, 1.0}))},
           {"rsub of ints by a float", ember::rsub(ints, 1.5), torch::rsub(as_torch(ints), 1.5)},
           {"cummax values with NaN", std::get<0>(ember::cummax(nanny, 0)),
            std::get<0>(torch::cummax(as_torch(nanny), 0))},
           {"cummax indices with NaN and ties", std::get<1>(ember::cummax(nanny, 0)),
            std::get<1>(torch::cummax(as_torch(nanny), 0))},
           {"cummin indices", std::get<1>(ember::cummin(ember::tensor({3, 1, 1, 2, 0}), 0)),
            std::get<1>(torch::cummin(torch::tensor({3, 1, 1, 2, 0}), 0))},
           {"cummax of ints", std::get<0>(ember::cummax(ints, 0)),
            std::get<0>(torch::cummax(as_torch(ints), 0))},
           {"logcumsumexp of -inf", ember::logcumsumexp(ember::tensor({-kInf, 0.0, -kInf}), 0),
            torch::logcumsumexp(torch::tensor({-kInf, 0.0, -kInf}), 0)},
           {"quantile with NaN", ember::quantile(nanny, 0.5), torch::quantile(as_torch(nanny), 0.5)},
           {"nanquantile", ember::nanquantile(nanny, 0.4), torch::nanquantile(as_torch(nanny), 0.4)},
           {"quantile lower", ember::quantile(rows, 0.6, 1, false, "lower"),
            torch::quantile(as_torch(rows), 0.6, 1, false, "lower")},
           {"quantile higher", ember::quantile(rows, 0.6, 1, false, "higher"),
            torch::quantile(as_torch(rows), 0.6, 1, false, "higher")},
           {"quantile midpoint", ember::quantile(rows, 0.6, 1, false, "midpoint"),
            torch::quantile(as_torch(rows), 0.6, 1, false, "midpoint")},
           {"quantile nearest", ember::quantile(rows, 0.75, 1, false, "nearest"),
            torch::quantile(as_torch(rows), 0.75, 1, false, "nearest")},
           {"quantile q tensor, dim, keepdim",
            ember::quantile(rows, ember::tensor({0.25, 0.5}, kDouble), 1, true),
            torch::quantile(as_torch(rows), torch::tensor({0.25, 0.5}, torch::kDouble), 1, true)},
           {"nanmedian values",
            std::get<0>(ember::nanmedian(ember::tensor({{kNan, 1.0, 2.0}, {kNan, kNan, kNan}}), 1)),
            std::get<0>(torch::nanmedian(torch::tensor({{kNan, 1.0, 2.0}, {kNan, kNan, kNan}}), 1))},
           {"nanmedian indices",
            std::get<1>(ember::nanmedian(ember::tensor({{kNan, 1.0, 2.0}, {kNan, kNan, kNan}}), 1)),
            std::get<1>(torch::nanmedian(torch::tensor({{kNan, 1.0, 2.0}, {kNan, kNan, kNan}}), 1))},
           {"isin", ember::isin(ember::tensor({{1, 2}, {3, 4}}), ember::tensor({2, 5, 4})),
            torch::isin(torch::tensor({{1, 2}, {3, 4}}), torch::tensor({2, 5, 4}))},
           {"isin inverted", ember::isin(ember::tensor({1, 2, 3}), ember::tensor({2}), false, true),
            torch::isin(torch::tensor({1, 2, 3}), torch::tensor({2}), false, true)},
           {"searchsorted", ember::searchsorted(seq, vals),
            torch::searchsorted(as_torch(seq), as_torch(vals))},
           {"searchsorted right int32", ember::searchsorted(seq, vals, true, true),
            torch::searchsorted(as_torch(seq), as_torch(vals), true, true)},
           {"searchsorted side and sorter",
            ember::searchsorted(ember::tensor({5, 1, 9, 3, 7}), vals, false, false, "right",
                                ember::tensor({1, 3, 0, 4, 2})),
            torch::searchsorted(torch::tensor({5, 1, 9, 3, 7}), as_torch(vals), false, false, "right",
                                torch::tensor({1, 3, 0, 4, 2}))},
           {"searchsorted per row",
            ember::searchsorted(ember::tensor({{1, 3, 5}, {2, 4, 6}}), ember::tensor({{3, 0}, {5, 7}})),
            torch::searchsorted(torch::tensor({{1, 3, 5}, {2, 4, 6}}), torch::tensor({{3, 0}, {5, 7}}))},
           {"bucketize", ember::bucketize(vals, seq, false, true),
            torch::bucketize(as_torch(vals), as_torch(seq), false, true)},
           {"bincount", ember::bincount(ember::tensor({0, 1, 1, 3})),
            torch::bincount(torch::tensor({0, 1, 1, 3}))},
           {"bincount weighted, minlength",
            ember::bincount(ember::tensor({0, 1, 1, 3}), ember::tensor({0.5f, 1.0f, 1.0f, 2.0f}), 6),
            torch::bincount(torch::tensor({0, 1, 1, 3}), torch::tensor({0.5f, 1.0f, 1.0f, 2.0f}), 6)},
           {"bincount empty", ember::bincount(ember::zeros({0}, ember::kLong), {}, 3),
            torch::bincount(torch::zeros({0}, torch::kLong), {}, 3)},
           {"histc", ember::histc(ember::tensor({1.0f, 2.0f, 1.0f, 4.0f, 3.0f, 0.0f}), 4, 0, 3),
            torch::histc(torch::tensor({1.0f, 2.0f, 1.0f, 4.0f, 3.0f, 0.0f}), 4, 0, 3)},
           {"histc of the data's range", ember::histc(ember::tensor({1.0, 2.0, 1.0, 4.0}, kDouble), 3),
            torch::histc(torch::tensor({1.0, 2.0, 1.0, 4.0}, torch::kDouble), 3)},
           {"ravel of a transpose", ember::arange(6).view({2, 3}).t().ravel(),
            torch::arange(6).view({2, 3}).t().ravel()},
       }) {
    INFO(what << ": " << got << " vs " << want);
    REQUIRE(got.sizes().vec() == want.sizes().vec());
    CHECK(crosscheck::to_torch(got.dtype()) == want.scalar_type());
    CHECK(torch::allclose(as_torch(got).to(torch::kDouble), want.to(torch::kDouble), 1e-12, 1e-12, true));
  }
  CHECK(ember::tensor_split(ember::arange(7), 3)[0].numel() == 3);
  same_error([] { ember::fmod(ember::tensor({1}), ember::tensor({0})); },
             [] { torch::fmod(torch::tensor({1}), torch::tensor({0})); });
  same_error([] { ember::tensor_split(ember::ones({3}), 0); },
             [] { torch::tensor_split(torch::ones({3}), 0); });
  same_error([] { ember::hsplit(ember::ones({2, 5}), 2); }, [] { torch::hsplit(torch::ones({2, 5}), 2); });
  same_error([] { ember::vsplit(ember::ones({5}), 5); }, [] { torch::vsplit(torch::ones({5}), 5); });
  same_error(
      [] {
        ember::split_with_sizes(ember::ones({5}), {2, 2});
      },
      [] {
        torch::ones({5}).split_with_sizes({2, 2});
      });
  same_error([] { ember::quantile(ember::ones({3}), 1.5); }, [] { torch::quantile(torch::ones({3}), 1.5); });
  same_error([] { ember::quantile(ember::ones({3}), 0.5, {}, false, "cubic"); },
             [] { torch::quantile(torch::ones({3}), 0.5, {}, false, "cubic"); });
  same_error(
      [] {
        ember::quantile(ember::tensor({1, 2}), 0.5);
      },
      [] {
        torch::quantile(torch::tensor({1, 2}), 0.5);
      });
  same_error(
      [] {
        ember::bincount(ember::tensor({-1, 2}));
      },
      [] {
        torch::bincount(torch::tensor({-1, 2}));
      });
  same_error(
      [] {
        ember::bucketize(ember::ones({2}), ember::ones({2, 2}));
      },
      [] {
        torch::bucketize(torch::ones({2}), torch::ones({2, 2}));
      });
  same_error(
      [] {
        ember::searchsorted(ember::ones({2, 3}), ember::ones({3, 3}));
      },
      [] {
        torch::searchsorted(torch::ones({2, 3}), torch::ones({3, 3}));
      });
  same_error([] { ember::histc(ember::tensor({1, 2})); }, [] { torch::histc(torch::tensor({1, 2})); });
  same_error(
      [] {
        ember::take_along_dim(ember::ones({2, 2}), ember::zeros({2}, ember::kLong), 0);
      },
      [] {
        torch::take_along_dim(torch::ones({2, 2}), torch::zeros({2}, torch::kLong), 0);
      });
}
