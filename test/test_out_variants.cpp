// libtorch's out= variants (ember/out_ops.h): values written into the given tensor,
// libtorch's resize, dtype, autograd checks and error texts, and an output left as it
// was when the op fails.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

namespace {
struct Warnings : WarningHandler {
  std::vector<std::string> seen;
  void process(const SourceLocation&, const std::string& msg, bool) override { seen.push_back(msg); }
};
}  // namespace

TEST_CASE("out variants: the result lands in out, converted to out's dtype") {
  const Tensor x = tensor({0.0f, 1.0f});
  Tensor out = empty({0}, kDouble);
  Tensor& same = exp_out(out, x);
  CHECK(&same == &out);
  CHECK(out.dtype() == kDouble);
  ember_test::check_close(out, tensor({1.0, 2.7182817459106445}, kDouble), 1e-6, "exp in float, then widened");
  Tensor sums = empty({0});
  sum_out(sums, tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}), {1});
  CHECK(dvalues(sums) == std::vector<double>{3, 7});
  sum_out(sums, tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}), {1}, /*keepdim=*/true);
  CHECK(sums.sizes() == IntArrayRef({2, 1}));
  Tensor product = empty({0});
  mm_out(product, tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}), tensor({{1.0f}, {1.0f}}));
  CHECK(dvalues(product) == std::vector<double>{3, 7});
  Tensor joined = empty({0});
  cat_out(joined, {tensor({1.0f}), tensor({2.0f, 3.0f})}, 0);
  CHECK(dvalues(joined) == std::vector<double>{1, 2, 3});
  stack_out(joined, {tensor({1.0f}), tensor({2.0f})}, 1);
  CHECK(joined.sizes() == IntArrayRef({1, 2}));
  Tensor difference = empty({0});
  sub_out(difference, tensor({5.0f, 5.0f}), tensor({1.0f, 2.0f}), 2);
  CHECK(dvalues(difference) == std::vector<double>{3, 1});
  Tensor flags = empty({0});
  eq_out(flags, tensor({1, 2}), tensor({1, 3}));  // bool results into a float tensor
  CHECK(dvalues(flags) == std::vector<double>{1, 0});
  Tensor clamped = empty({0}, kLong);
  clamp_out(clamped, tensor({-3, 0, 9}), 0, 5);
  CHECK(dvalues(clamped) == std::vector<double>{0, 0, 5});
  Tensor squares = empty({0});
  pow_out(squares, tensor({1.5f, -2.0f}), 2);
  CHECK(dvalues(squares) == std::vector<double>{2.25, 4});
}

TEST_CASE("out variants: the matrix products take out's dtype from the inputs; reductions compute in it") {
  const Tensor a = ones({2, 2});
  Tensor doubles = empty({0}, kDouble);
  const std::string wrong = "Expected out tensor to have dtype float, but got double instead";
  ember_test::expect_throw<InvalidArgument>([&] { mm_out(doubles, a, a); }, wrong);
  ember_test::expect_throw<InvalidArgument>([&] { bmm_out(doubles, a.unsqueeze(0), a.unsqueeze(0)); }, wrong);
  ember_test::expect_throw<InvalidArgument>([&] { mv_out(doubles, a, a[0]); }, wrong);
  ember_test::expect_throw<InvalidArgument>([&] { addmm_out(doubles, a, a, a); }, wrong);
  ember_test::expect_throw<InvalidArgument>([&] { dot_out(doubles, a[0], a[0]); },
                                            "result dtype Double does not match input dtype Float");
  CHECK(doubles.numel() == 0);
  outer_out(doubles, a[0], a[0]);  // outer casts, as libtorch's
  CHECK(dvalues(doubles) == std::vector<double>{1, 1, 1, 1});
  sum_out(doubles, tensor({1, 2}, kInt), {0});  // summed in out's dtype
  CHECK((doubles.dtype() == kDouble && doubles.item<double>() == 3));
  ember_test::expect_throw<InvalidArgument>([&] { sum_out(doubles, a, {0}, false, kFloat); }, wrong);
  Tensor floats = empty({0});
  prod_out(floats, tensor({3, 4}), 0);
  CHECK((floats.dtype() == kFloat && floats.item<float>() == 12));
  Tensor longs = empty({0}, kLong);
  ember_test::expect_throw<InvalidArgument>([&] { mean_out(longs, a, {0}); },
                                            "result type Float can't be cast to the desired output type Long");
}

TEST_CASE("out variants: special::*_out, with libtorch's values") {
  const Tensor x = tensor({0.0, 1.0}, kDouble);
  Tensor out = empty({2}, kDouble);
  special::i0e_out(out, x);
  ember_test::check_close(out, tensor({1.0, 0.46575960759364043}, kDouble), 1e-15, "i0e");
  special::gammaln_out(out, tensor({1.0, 3.0}, kDouble));
  ember_test::check_close(out, tensor({0.0, 0.69314718055994529}, kDouble), 1e-15, "gammaln");
  special::logit_out(out, tensor({0.5, 0.25}, kDouble));  // logit(0.25) = -log(3)
  ember_test::check_close(out, tensor({0.0, -1.0986122886681098}, kDouble), 1e-15, "logit");
  special::expit_out(out, tensor({0.0, 0.0}, kDouble));
  CHECK(dvalues(out) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("out variants: an output of another shape is resized, with libtorch's warning when it had elements") {
  Warnings warnings;
  WarningUtils::WarningHandlerGuard guard(&warnings);
  Tensor out = zeros({3});
  abs_out(out, tensor({-1.0f, 2.0f}));
  CHECK(dvalues(out) == std::vector<double>{1, 2});
  REQUIRE(warnings.seen.size() == 1);
  CHECK(warnings.seen[0] ==
        "An output with one or more elements was resized since it had shape [3], which does not match the required "
        "output shape [2]. This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
        "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
        "elements with t.resize_(0).");
  Tensor empty_out = empty({0});
  abs_out(empty_out, tensor({-1.0f, 2.0f}));
  CHECK(warnings.seen.size() == 1);  // no elements: resized silently
}

TEST_CASE("out variants: refusals leave the output as it was") {
  Tensor out = full({2}, 7, kLong);
  ember_test::expect_throw<InvalidArgument>([&] { exp_out(out, tensor({0.0f, 1.0f})); },
                                            "result type Float can't be cast to the desired output type Long");
  CHECK(dvalues(out) == std::vector<double>{7, 7});
  const Tensor w = ones({2}, requires_grad());
  Tensor floats = zeros({2});
  ember_test::expect_throw<InvalidArgument>(
      [&] { mul_out(floats, w, w); }, "mul(): functions with out=... arguments don't support automatic differentiation, "
                                      "but one of the arguments requires grad.");
  ember_test::expect_throw<InvalidArgument>(
      [&] { exp_out(floats, w); },
      "exp(): functions with out=... arguments don't support automatic differentiation, but one of the arguments "
      "requires grad.");
  ember_test::expect_throw<InvalidArgument>(
      [&] { special::i0e_out(floats, w); },
      "special_i0e(): functions with out=... arguments don't support automatic differentiation, but one of the "
      "arguments requires grad.");
  CHECK(dvalues(floats) == std::vector<double>{0, 0});
  {
    NoGradGuard no_grad;  // without grad mode the arguments may require grad
    exp_out(floats, w);
    ember_test::check_close(floats, full({2}, std::exp(1.0)), 1e-6, "exp_out without grad mode");
  }
  ember_test::expect_throw<InvalidArgument>([&] { cat_out(floats, {w}, 0); },
                                            "cat(): functions with out=... arguments don't support automatic "
                                            "differentiation, but one of the arguments requires grad.");
  CHECK_THROWS_AS(mm_out(floats, ones({2, 3}), ones({2, 3})), InvalidArgument);
  CHECK(floats.sizes() == IntArrayRef({2}));
}
