// Gradients of the selection ops: sort and topk values, scatter_ of a tensor or a value,
// scatter_add_ (values by hand, gradcheck in float64, libtorch's grad_fn names and errors).
#include <catch2/catch.hpp>

#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember::autograd::variable_list;

namespace {

bool check_grad(const std::function<Tensor(const variable_list&)>& f, const variable_list& inputs) {
  return autograd::gradcheck([&](const variable_list& v) -> variable_list { return {f(v)}; }, inputs, 1e-6, 1e-5, 1e-3);
}

Tensor leaf(std::vector<double> v, std::vector<int64_t> shape) {
  return tensor(v, kDouble).reshape(shape).detach().requires_grad_();
}

}  // namespace

TEST_CASE("autograd select: sort and topk send each value's gradient back to its position") {
  Tensor x = leaf({3, 1, 2}, {3});
  auto [values, indices] = sort(x);
  REQUIRE(values.grad_fn());
  CHECK(values.grad_fn()->name() == "SortBackward0");
  CHECK_FALSE(indices.requires_grad());
  (values * tensor({10.0, 20.0, 30.0}, kDouble)).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{30, 10, 20});

  Tensor y = leaf({1, 5, 3, 4, 2, 6}, {2, 3});
  auto [top, top_idx] = topk(y, 2, 1);
  (top * tensor({1.0, 2.0}, kDouble)).sum().backward();
  CHECK(dvalues(y.grad()) == std::vector<double>{0, 1, 2, 2, 0, 1});

  Tensor r = rand({4, 5}, kDouble).requires_grad_();
  CHECK(check_grad([](const variable_list& v) { return std::get<0>(sort(v[0], 0, true)); }, {r}));
  CHECK(check_grad([](const variable_list& v) { return std::get<0>(topk(v[0], 3, 1)); }, {r}));
}

TEST_CASE("autograd select: scatter gives self the unwritten positions' gradient and src the gathered one") {
  Tensor a = leaf({1, 2, 3, 4, 5, 6}, {2, 3}), b = leaf({10, 20, 30, 40}, {2, 2});
  Tensor index = tensor({int64_t(2), int64_t(0), int64_t(1), int64_t(2)}, kInt64).reshape({2, 2});
  Tensor out = scatter(a, 1, index, b);
  REQUIRE(out.grad_fn());
  CHECK(out.grad_fn()->name() == "ScatterBackward0");
  CHECK(dvalues(out) == std::vector<double>{20, 2, 10, 4, 30, 40});
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, kDouble).reshape({2, 3});
  (out * w).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{0, 2, 0, 4, 0, 0});
  CHECK(dvalues(b.grad()) == std::vector<double>{3, 1, 5, 6});

  Tensor c = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor filled = scatter(c, 1, index, 7.0);
  CHECK(filled.grad_fn()->name() == "ScatterBackward1");
  filled.sum().backward();
  CHECK(dvalues(c.grad()) == std::vector<double>{0, 1, 0, 1, 0, 0});

  Tensor s = rand({3, 4}, kDouble).requires_grad_(), src = rand({2, 4}, kDouble).requires_grad_();
  Tensor idx = tensor({int64_t(2), int64_t(0), int64_t(1), int64_t(1), int64_t(0), int64_t(1), int64_t(2), int64_t(0)},
                      kInt64)
                   .reshape({2, 4});
  CHECK(check_grad([&](const variable_list& v) { return scatter(v[0], 0, idx, v[1]); }, {s, src}));
  CHECK(check_grad([&](const variable_list& v) { return scatter(v[0], 0, idx, -1.5); }, {s}));
}

TEST_CASE("autograd select: scatter_add sums duplicates forward and passes gradients through") {
  Tensor a = leaf({1, 2, 3}, {3}), b = leaf({10, 20, 30, 40}, {4});
  Tensor index = tensor({int64_t(0), int64_t(2), int64_t(0), int64_t(1)}, kInt64);
  Tensor out = scatter_add(a, 0, index, b);
  CHECK(out.grad_fn()->name() == "ScatterAddBackward0");
  CHECK(dvalues(out) == std::vector<double>{41, 42, 23});
  (out * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{1, 2, 3});
  CHECK(dvalues(b.grad()) == std::vector<double>{1, 3, 1, 2});
  Tensor s = rand({3, 4}, kDouble).requires_grad_(), src = rand({5, 4}, kDouble).requires_grad_();
  Tensor idx = randint(0, 3, {5, 4}, kInt64);
  CHECK(check_grad([&](const variable_list& v) { return scatter_add(v[0], 0, idx, v[1]); }, {s, src}));
}

TEST_CASE("autograd select: errors of scatter under autograd") {
  Tensor a = leaf({1, 2, 3}, {3}), b = leaf({1, 1}, {2});
  Tensor index = tensor({int64_t(0), int64_t(0)}, kInt64);
  CHECK_THROWS_AS(scatter(a, 0, index, b, "add"), NotImplemented);
  CHECK_THROWS_WITH(scatter(a, 0, index, b, "multiply"),
                    "scatter: the derivative of scatter with reduce='multiply' is not implemented");
  CHECK_THROWS_WITH(a.scatter_(0, index, b), "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK(dvalues(a) == std::vector<double>{1, 2, 3});
  // Without grad mode, reduce works on tensors that require grad.
  NoGradGuard no_grad;
  CHECK(dvalues(scatter(a, 0, index, b, "add")) == std::vector<double>{3, 2, 3});
}

TEST_CASE("autograd select: advanced indexing accumulates the gradient at the read positions") {
  Tensor x = rand({3, 4}, kDouble).requires_grad_();
  Tensor rows = tensor({int64_t(2), int64_t(0), int64_t(2)}, kInt64);
  Tensor y = x.index({rows});
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name() == "IndexBackward0");
  Tensor w = arange(12, kDouble).reshape({3, 4});
  (y * w).sum().backward();
  const auto g = dvalues(x.grad());
  for (int64_t j = 0; j < 4; ++j) {
    CHECK(g[size_t(j)] == double(4 + j));               // row 0 read once, by w's row 1
    CHECK(g[size_t(4 + j)] == 0);                       // row 1 never read
    CHECK(g[size_t(8 + j)] == double(j) + double(8 + j));  // row 2 read twice
  }
  Tensor cols = tensor({int64_t(3), int64_t(-4)}, kInt64);
  CHECK(check_grad([&](const variable_list& v) { return v[0].index({indexing::Slice(), cols}); }, {x}));
  CHECK(check_grad([&](const variable_list& v) { return v[0].index({v[0].detach() > 0.5}); }, {x}));
  CHECK(check_grad([&](const variable_list& v) { return v[0].index({rows, cols.index({indexing::Slice(0, 1)})}); }, {x}));
}

TEST_CASE("autograd select: index_put_ routes gradients to self's other positions and to the values") {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {3, 2}), v = leaf({10, 20}, {2});
  Tensor rows = tensor({int64_t(2), int64_t(0)}, kInt64);
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, kDouble).reshape({3, 2});
  Tensor base = x * 1;
  base.index_put_({rows}, v);  // v broadcasts over both rows
  CHECK(dvalues(base) == std::vector<double>{10, 20, 3, 4, 10, 20});
  (base * w).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{0, 0, 3, 4, 0, 0});
  CHECK(dvalues(v.grad()) == std::vector<double>{1 + 5, 2 + 6});

  Tensor x2 = leaf({1, 2, 3, 4, 5, 6}, {3, 2}), v2 = leaf({10, 20, 30, 40}, {2, 2});
  Tensor acc = x2 * 1;
  acc.index_put_({rows}, v2, true);
  (acc * w).sum().backward();
  CHECK(dvalues(x2.grad()) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(dvalues(v2.grad()) == std::vector<double>{5, 6, 1, 2});

  Tensor s = rand({4, 3}, kDouble).requires_grad_(), val = rand({2, 3}, kDouble).requires_grad_();
  Tensor pos = tensor({int64_t(3), int64_t(1)}, kInt64);
  CHECK(check_grad([&](const variable_list& in) { return in[0].clone().index_put_({pos}, in[1]); }, {s, val}));
  CHECK(check_grad([&](const variable_list& in) { return in[0].clone().index_put_({pos}, in[1], true); }, {s, val}));

  CHECK_THROWS_WITH(x.index_put_({rows}, v), "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK(dvalues(x) == std::vector<double>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("autograd select: masked_select puts each gradient back at its selected position") {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mask = tensor({true, false, true}, kBool);  // broadcast over the rows
  Tensor sel = masked_select(x, mask);
  REQUIRE(sel.grad_fn());
  CHECK(sel.grad_fn()->name() == "MaskedSelectBackward0");
  CHECK(dvalues(sel) == std::vector<double>{1, 3, 4, 6});
  (sel * tensor({1.0, 2.0, 3.0, 4.0}, kDouble)).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{1, 0, 2, 3, 0, 4});
  // self broadcast by a larger mask: its gradient is summed over the broadcast rows
  Tensor r = leaf({1, 2, 3}, {3});
  Tensor rows_mask = tensor({true, true, false, false, true, true}, kBool).reshape({2, 3});
  masked_select(r, rows_mask).sum().backward();
  CHECK(dvalues(r.grad()) == std::vector<double>{1, 2, 1});
  // integer input: no gradient; float64 gradcheck with a strided input
  CHECK_FALSE(masked_select(tensor({int64_t(1), int64_t(2)}, kInt64), tensor({true, false}, kBool)).requires_grad());
  Tensor m = tensor({true, false, false, true, true, false, true, false, false, true, false, true}, kBool).reshape({4, 3});
  CHECK(check_grad([&](const variable_list& v) { return masked_select(v[0].t(), m); },
                   {rand({3, 4}, kDouble).requires_grad_()}));
}

TEST_CASE("autograd select: masked_fill zeroes the filled positions' gradient, a tensor value gets their sum") {
  Tensor mask = tensor({true, false, false, true}, kBool).reshape({2, 2});
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0}, kDouble).reshape({2, 2});
  Tensor y = leaf({1, 2, 3, 4}, {2, 2});
  Tensor filled = y.masked_fill(mask, 9.0);
  REQUIRE(filled.grad_fn());
  CHECK(filled.grad_fn()->name() == "MaskedFillBackward0");
  CHECK(dvalues(filled) == std::vector<double>{9, 2, 3, 9});
  (filled * w).sum().backward();
  CHECK(dvalues(y.grad()) == std::vector<double>{0, 2, 3, 0});

  Tensor z = leaf({1, 2, 3, 4}, {2, 2}), value = leaf({5}, {});
  Tensor by_tensor = masked_fill(z, mask, value);
  CHECK(by_tensor.grad_fn()->name() == "MaskedFillBackward1");
  CHECK(dvalues(by_tensor) == std::vector<double>{5, 2, 3, 5});
  (by_tensor * w).sum().backward();
  CHECK(dvalues(z.grad()) == std::vector<double>{0, 2, 3, 0});
  CHECK(dvalues(value.grad()) == std::vector<double>{5});  // w[0] + w[3]

  // in place on a non-leaf, and on a view of one (the base's history becomes CopySlices)
  Tensor p = leaf({1, 2, 3, 4}, {2, 2});
  Tensor q = p * 2;
  q.masked_fill_(mask, 0.0);
  CHECK(q.grad_fn()->name() == "MaskedFillBackward0");
  (q * w).sum().backward();
  CHECK(dvalues(p.grad()) == std::vector<double>{0, 4, 6, 0});
  Tensor p2 = leaf({1, 2, 3, 4}, {2, 2}), v2 = leaf({-1}, {});
  Tensor q2 = p2 * 1;
  q2.select(0, 1).masked_fill_(tensor({true, false}, kBool), v2);
  CHECK(q2.grad_fn()->name() == "CopySlices");
  CHECK(dvalues(q2) == std::vector<double>{1, 2, -1, 4});
  (q2 * w).sum().backward();
  CHECK(dvalues(p2.grad()) == std::vector<double>{1, 2, 0, 4});
  CHECK(dvalues(v2.grad()) == std::vector<double>{3});

  // a mask larger than self: self's gradient is summed over the broadcast, the value's over all
  Tensor row = leaf({1, 2}, {2}), v3 = leaf({4}, {});
  Tensor wide = tensor({true, false, true, true}, kBool).reshape({2, 2});
  Tensor spread = row.masked_fill(wide, v3);
  CHECK(spread.sizes().vec() == std::vector<int64_t>{2, 2});
  CHECK(dvalues(spread) == std::vector<double>{4, 2, 4, 4});
  (spread * w).sum().backward();
  CHECK(dvalues(row.grad()) == std::vector<double>{0, 2});    // only w[1] was not filled
  CHECK(dvalues(v3.grad()) == std::vector<double>{8});        // w[0] + w[2] + w[3]
  // a float32 value filling a float64 tensor gets a float32 gradient
  Tensor d = leaf({1, 2}, {2}), f32 = tensor({0.5}, kFloat).reshape({}).requires_grad_();
  masked_fill(d, tensor({true, true}, kBool), f32).sum().backward();
  CHECK(f32.grad().dtype() == kFloat);
  CHECK(f32.grad().item<float>() == 2.0f);
  CHECK(dvalues(d.grad()) == std::vector<double>{0, 0});

  Tensor g = rand({3, 4}, kDouble).requires_grad_();
  Tensor m = tensor({true, false, true, true}, kBool);
  CHECK(check_grad([&](const variable_list& v) { return v[0].masked_fill(m, 0.5) * v[0]; }, {g}));
  CHECK(check_grad([&](const variable_list& v) { return masked_fill(v[0], m, v[1]); },
                   {g, leaf({0.25}, {})}));
}

TEST_CASE("autograd select: masked_fill_ errors under autograd") {
  Tensor mask = tensor({true, false}, kBool);
  Tensor x = leaf({1, 2}, {2});
  CHECK_THROWS_AS(x.masked_fill_(mask, 0.0), InvalidArgument);
  CHECK_THROWS_WITH(x.masked_fill_(mask, 0.0),
                    Catch::Contains("a leaf Variable that requires grad is being used in an in-place operation."));
  CHECK(dvalues(x) == std::vector<double>{1, 2});  // unchanged
  Tensor y = x * 1;
  CHECK_THROWS_AS(y.masked_fill_(mask, leaf({1, 2}, {2})), InvalidArgument);
  CHECK_THROWS_WITH(y.masked_fill_(mask, leaf({1, 2}, {2})),
                    Catch::Contains("only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)"));
  CHECK_THROWS_AS(y.masked_fill_(tensor({1.0, 0.0}, kFloat), 0.0), InvalidArgument);
  CHECK_THROWS_WITH(y.masked_fill_(tensor({1.0, 0.0}, kFloat), 0.0),
                    Catch::Contains("masked_fill_: only supports boolean masks, but got mask with dtype Float"));
  Tensor wide = tensor({true, false, false, true}, kBool).reshape({2, 2});
  CHECK_THROWS_AS(y.masked_fill_(wide, leaf({3}, {})), InvalidArgument);
  CHECK_THROWS_WITH(y.masked_fill_(wide, leaf({3}, {})),
                    Catch::Contains("masked_fill_: output with shape [2] doesn't match the broadcast shape [2, 2]"));
  CHECK(dvalues(y) == std::vector<double>{1, 2});
  CHECK(y.grad_fn()->name() == "MulBackward1");  // no history was recorded by the failed calls
}

TEST_CASE("autograd select: an all-false mask selects nothing and passes back zeros") {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor none = tensor({false, false, false}, kBool);
  Tensor sel = masked_select(x, none);
  CHECK(sel.numel() == 0);
  REQUIRE(sel.grad_fn());
  (sel.sum() + (x * 0).sum()).backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{0, 0, 0});
  Tensor y = leaf({1, 2, 3}, {3});
  Tensor same = y.masked_fill(none, 5.0);
  CHECK(dvalues(same) == std::vector<double>{1, 2, 3});
  same.sum().backward();
  CHECK(dvalues(y.grad()) == std::vector<double>{1, 1, 1});
}
