// Gradients of gather, index_select and index_add: node names as libtorch, known values
// (repeated indices accumulate), gradcheck in float64 on random inputs.

#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using Catch::Matchers::Equals;
using ember_test::dvalues;

namespace {

Tensor leaf(IntArrayRef sizes) { return rand(sizes, kDouble).requires_grad_(); }

template <class F>
bool check(F f, const variable_list& inputs) {
  return autograd::gradcheck([&](const variable_list& v) -> variable_list { return {f(v)}; }, inputs);
}

}  // namespace

TEST_CASE("autograd index: gather's gradient scatters back and adds repeated indices") {
  Tensor x = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, kDouble).requires_grad_();
  Tensor idx = tensor({{0, 0}, {2, 1}});
  Tensor y = gather(x, 1, idx);
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name() == "GatherBackward0");
  CHECK(dvalues(y) == std::vector<double>{1, 1, 6, 5});
  y.backward(tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble));
  CHECK(dvalues(x.grad()) == std::vector<double>{3, 0, 0, 0, 4, 3});
}

TEST_CASE("autograd index: gather gradcheck along every dim, index smaller than self") {
  Tensor x = leaf({3, 4, 2});
  for (int64_t d = -3; d < 3; ++d) {
    INFO("dim " << d);
    const int64_t n = x.size(d < 0 ? d + 3 : d);
    Tensor idx = randint(0, n, {2, 3, 2});
    CHECK(check([&](const variable_list& v) { return gather(v[0], d, idx); }, {x}));
  }
  // a 0-dim input gathers with a 0-dim index
  Tensor s = tensor(2.5, kDouble).requires_grad_();
  Tensor ys = gather(s, 0, tensor(int64_t(0)));
  ys.backward();
  CHECK(dvalues(s.grad()) == std::vector<double>{1});
}

TEST_CASE("autograd index: gather of a non-float input or an index out of range records nothing") {
  Tensor xi = tensor({1, 2, 3});
  CHECK_FALSE(gather(xi, 0, tensor({int64_t(1)})).requires_grad());
  Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  CHECK_THROWS_WITH(gather(x, 0, tensor({int64_t(2)})),
                    Equals("gather: index 2 is out of bounds for dimension 0 with size 2"));
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd index: index_select's gradient adds rows back, duplicates accumulate") {
  Tensor x = tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kDouble).requires_grad_();
  Tensor y = x.index_select(0, tensor({2, 0, 2}));
  CHECK(y.grad_fn()->name() == "IndexSelectBackward0");
  CHECK(dvalues(y) == std::vector<double>{5, 6, 1, 2, 5, 6});
  y.backward(tensor({{1.0, 10.0}, {2.0, 20.0}, {3.0, 30.0}}, kDouble));
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 20, 0, 0, 4, 40});
}

TEST_CASE("autograd index: index_select gradcheck on each dim, an int32 index and a transposed input") {
  Tensor x = leaf({4, 3});
  CHECK(check([](const variable_list& v) { return v[0].index_select(0, tensor({3, 1, 1, 0})); }, {x}));
  CHECK(check([](const variable_list& v) { return v[0].index_select(-1, tensor({2, 2}, kInt32)); }, {x}));
  Tensor xt = rand({3, 4}, kDouble).t().requires_grad_();
  CHECK(check([](const variable_list& v) { return v[0].index_select(1, tensor({0, 2})); }, {xt}));
  // double backward: index_select's gradient is index_add, itself differentiable in its source
  Tensor a = leaf({4, 3});
  Tensor gy = rand({2, 3}, kDouble);
  auto g = autograd::grad({a.index_select(0, tensor({1, 1})) * a.index_select(0, tensor({1, 1}))}, {a}, {gy},
                          {}, true);
  Tensor gg = autograd::grad({g[0].sum()}, {a})[0];
  // g = index_add(zeros, 0, [1,1], 2*a[[1,1]]*gy): d sum(g) / da is 2 * (gy[0] + gy[1]) at row 1
  std::vector<double> want(12, 0.0), gv = dvalues(gy);
  for (int c = 0; c < 3; ++c) want[size_t(3 + c)] = 2 * (gv[size_t(c)] + gv[size_t(3 + c)]);
  auto got = dvalues(gg);
  for (size_t i = 0; i < 12; ++i) CHECK(got[i] == Approx(want[i]));
}

TEST_CASE("autograd index: index_add's gradient passes to self and selects rows, times alpha, for source") {
  Tensor self = zeros({3, 2}, kDouble).requires_grad_();
  Tensor src = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble).requires_grad_();
  Tensor y = self.index_add(0, tensor({2, 0}), src, 3);
  CHECK(y.grad_fn()->name() == "IndexAddBackward0");
  CHECK(dvalues(y) == std::vector<double>{9, 12, 0, 0, 3, 6});
  y.backward(tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kDouble));
  CHECK(dvalues(self.grad()) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(dvalues(src.grad()) == std::vector<double>{15, 18, 3, 6});

  Tensor a = leaf({4, 3}), b = leaf({4, 3, 2});
  Tensor s = leaf({4, 2, 2});
  CHECK(check(
      [](const variable_list& v) {
        return v[0].index_add(1, tensor({2, 0}), v[1], -0.5);
      },
      {b.detach().requires_grad_(), s}));
  CHECK(check(
      [](const variable_list& v) {
        return v[0].index_add(0, tensor({1, 1}), v[1]);
      },
      {a, leaf({2, 3})}));
}

TEST_CASE("autograd index: index_add_ on a leaf that requires grad is refused and changes nothing") {
  Tensor self = zeros({2}, kDouble).requires_grad_();
  CHECK_THROWS_WITH(self.index_add_(0, tensor({0}), ones({1}, kDouble)),
                    Equals("a leaf Variable that requires grad is being used in an in-place operation."));
  CHECK(dvalues(self) == std::vector<double>{0, 0});
  // on a non-leaf, in place, the history becomes IndexAddBackward0
  Tensor base = ones({2}, kDouble).requires_grad_();
  Tensor t = base * 2;
  t.index_add_(0, tensor({1}), tensor({5.0}, kDouble));
  CHECK(t.grad_fn()->name() == "IndexAddBackward0");
  t.sum().backward();
  CHECK(dvalues(base.grad()) == std::vector<double>{2, 2});
}
