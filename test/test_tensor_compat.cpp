// libtorch spellings: layout(kStrided), as_strided, resize_, clone(t), var_mean /
// std_mean, to(other); const in-place methods, assignment into views, data / set_data /
// alias / repeat / toType, Scalar's accessors; with real values and libtorch's error texts.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

TEST_CASE("tensor compat: as_strided views the storage and checks its bounds") {
  Tensor x = arange(6).to(kFloat);
  Tensor w = x.as_strided({2, 2}, {1, 2}, 1);
  CHECK(dvalues(w) == std::vector<double>{1, 3, 2, 4});
  CHECK(w.storage().get() == x.storage().get());
  CHECK(dvalues(as_strided(x, {3}, {0})) == std::vector<double>{0, 0, 0});
  CHECK_THROWS_WITH(x.as_strided({2, 2}, {3, 3}),
                    "setStorage: sizes [2, 2], strides [3, 3], storage offset 0, and itemsize 4 requiring a storage "
                    "size of 28 are out of bounds for storage of size 24");
  CHECK_THROWS_WITH(x.as_strided({2}, {1, 1}), "mismatch in length of strides and shape");
}

TEST_CASE("tensor compat: resize_ reshapes in place and grows the storage keeping its bytes") {
  Tensor x = arange(6).to(kFloat);
  x.resize_({2, 2});
  CHECK(dvalues(x) == std::vector<double>{0, 1, 2, 3});
  CHECK(x.is_contiguous());
  x.resize_({3, 4});
  CHECK(x.sizes().vec() == std::vector<int64_t>{3, 4});
  CHECK(dvalues(x.index({0})) == std::vector<double>{0, 1, 2, 3});
  CHECK(dvalues(x.index({1, indexing::Slice(0, 2)})) == std::vector<double>{4, 5});
  CHECK_THROWS_WITH(x.resize_({-1}), "Trying to create tensor with negative dimension -1: [-1]");
  CHECK(x.sizes().vec() == std::vector<int64_t>{3, 4});
}

TEST_CASE("tensor compat: clone(t), to(other), var_mean, std_mean") {
  Tensor x = tensor({1.f, 2.f, 3.f, 6.f});
  Tensor c = clone(x);
  CHECK(c.storage().get() != x.storage().get());
  CHECK(dvalues(c) == dvalues(x));
  Tensor d = x.to(zeros({1}, kDouble));
  CHECK(d.dtype() == kDouble);
  CHECK(dvalues(d) == std::vector<double>{1, 2, 3, 6});
  auto [v, m] = var_mean(x);
  CHECK(v.item<double>() == Approx(14.0 / 3));
  CHECK(m.item<double>() == Approx(3.0));
  auto [s, m2] = std_mean(x.reshape({2, 2}), {1}, false, true);
  CHECK(s.sizes().vec() == std::vector<int64_t>{2, 1});
  CHECK(dvalues(s) == std::vector<double>{0.5, 1.5});
  CHECK(dvalues(m2) == std::vector<double>{1.5, 4.5});
}

TEST_CASE("tensor compat: var_mean / std_mean pick libtorch's overloads (a literal 0 is a dim)") {
  Tensor r = arange(12).to(kFloat);
  Tensor x = (r * r).reshape({3, 4});
  auto [v0, m0] = var_mean(x, 0);  // dim 0, not unbiased = false
  CHECK(v0.sizes().vec() == std::vector<int64_t>{4});
  CHECK(dvalues(v0) == dvalues(x.var({0}, true)));
  CHECK(v0.index({0}).item<double>() == Approx(1109.3334));
  CHECK(dvalues(m0) == dvalues(x.mean({0})));
  auto [s0, sm0] = std_mean(x, 0);
  CHECK(dvalues(s0) == dvalues(x.std({0}, true)));
  CHECK(s0.index({3}).item<double>() == Approx(56.7568));
  CHECK(dvalues(sm0) == dvalues(x.mean({0})));
  CHECK(std::get<0>(var_mean(x, {0, 1})).item<double>() == Approx(1694.3333));
  CHECK(std::get<0>(var_mean(x, true)).item<double>() == Approx(1694.3333));
  CHECK(std::get<0>(var_mean(x, false)).item<double>() == Approx(1553.1389));
  auto [v1, m1] = var_mean(x, 1, false, true);
  CHECK(v1.sizes().vec() == std::vector<int64_t>{3, 1});
  CHECK(dvalues(v1) == std::vector<double>{12.25, 152.25, 452.25});
  CHECK(dvalues(m1) == std::vector<double>{3.5, 31.5, 91.5});
  auto [s1, sm1] = std_mean(x, -1, true, false);
  CHECK(dvalues(s1) == dvalues(x.std({1})));
  CHECK(dvalues(sm1) == std::vector<double>{3.5, 31.5, 91.5});
  auto [vc, mc] = var_mean(x, {1}, std::optional<int64_t>(2));
  CHECK(dvalues(vc) == std::vector<double>{24.5, 304.5, 904.5});
  CHECK(dvalues(mc) == std::vector<double>{3.5, 31.5, 91.5});
  auto [sc, scm] = std_mean(x, {1}, std::optional<int64_t>(0), true);
  CHECK(sc.sizes().vec() == std::vector<int64_t>{3, 1});
  CHECK(dvalues(sc) == dvalues(x.std({1}, false, true)));
  CHECK_THROWS_WITH(var_mean(x, 2), "var(): dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(std_mean(arange(3), 0),
                    "std(): std and var only support floating point and complex dtypes, but the input is Long");
}

TEST_CASE("tensor compat: Storage::data_ptr() is the storage's base, shared by views") {
  Tensor x = arange(6).to(kFloat);
  Tensor v = x.index({indexing::Slice(2)});
  CHECK(x.storage().data_ptr().get() == x.data_ptr());
  CHECK(v.storage().data_ptr().get() == x.data_ptr());
  CHECK(v.storage().data_ptr().device() == Device(kCPU, 0));
  CHECK(v.storage().nbytes() == 24);
  CHECK(static_cast<char*>(v.data_ptr()) - static_cast<char*>(v.storage().data()) == 8);
}

// ---- const-correctness (libtorch 1.13: every method is const; in-place ones return *this)
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().add_(1)), Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().requires_grad_()), const Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().set_requires_grad(true)), const Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().resize_({2})), const Tensor&>);
static_assert(std::is_same_v<decltype(std::declval<const Tensor&>().mutable_grad()), Tensor&>);
// As libtorch: compound assignment needs a non-const Tensor (a temporary is fine); a
// temporary takes a Scalar or a Tensor, a named Tensor only another Tensor.
template <class T, class = void>
struct CanAddAssign : std::false_type {};
template <class T>
struct CanAddAssign<T, std::void_t<decltype(std::declval<T>() += 1)>> : std::true_type {};
static_assert(CanAddAssign<Tensor>::value && CanAddAssign<Tensor&>::value && !CanAddAssign<const Tensor&>::value);
static_assert(std::is_assignable_v<Tensor, double> && !std::is_assignable_v<Tensor&, double>);
static_assert(std::is_assignable_v<Tensor&, const Tensor&> && std::is_assignable_v<Tensor, const Tensor&>);

namespace {
std::vector<double> vals(const Tensor& t) { return dvalues(t); }

// Each in-place method called through a const reference, as functions taking `const Tensor&` do.
void run_inplace_through_const(const Tensor& c) {
  CHECK(&c.add_(1) == &c);
  CHECK(vals(c) == std::vector<double>{2, -1, 4, -3});
  c.add_(tensor({1., 1., 1., 1.}), 2);
  CHECK(vals(c) == std::vector<double>{4, 1, 6, -1});
  c.sub_(1);
  c.sub_(ones({4}, kDouble), 3);
  CHECK(vals(c) == std::vector<double>{0, -3, 2, -5});
  c.mul_(2);
  c.mul_(tensor({1., 0.5, 0.25, 0.1}));
  CHECK(vals(c) == std::vector<double>{0, -3, 1, -1});
  c.div_(2);
  c.div_(tensor({1., -1.5, 0.5, -0.5}));
  CHECK(vals(c) == std::vector<double>{0, 1, 1, 1});
  CHECK(vals(c.fill_(2.5)) == std::vector<double>{2.5, 2.5, 2.5, 2.5});
  CHECK(vals(c.zero_()) == std::vector<double>{0, 0, 0, 0});
  c.copy_(tensor({-1., 4., 9., 0.25}));
  c.clamp_(0, 5);
  CHECK(vals(c) == std::vector<double>{0, 4, 5, 0.25});
  c.sqrt_();
  CHECK(vals(c) == std::vector<double>{0, 2, double(std::sqrt(5.0f)), 0.5});  // float32 elements
  c.neg_();
  CHECK(vals(c)[1] == -2);
  c.abs_();
  CHECK(vals(c)[3] == 0.5);
  c.copy_(tensor({0., 1., -1., 2.}));
  c.exp_();
  CHECK(vals(c)[1] == Approx(std::exp(1.0)));
  c.log_();
  CHECK(vals(c)[2] == Approx(-1.0));
  c.relu_();
  CHECK(vals(c)[2] == 0);
  c.tanh_();
  CHECK(vals(c)[3] == Approx(std::tanh(2.0)));
  c.copy_(tensor({0., 1., -1., 2.}));
  c.sigmoid_();
  CHECK(vals(c)[1] == Approx(1 / (1 + std::exp(-1.0))));
  c.zero_();
  c.index_put_({0}, 7.0);
  c.index_put_({indexing::Slice(1, 3)}, tensor({8., 9.}));
  c.index_put_(std::vector<std::optional<Tensor>>{tensor({3})}, tensor({1.}), true);
  CHECK(vals(c) == std::vector<double>{7, 8, 9, 1});
  c.masked_fill_(tensor({true, false, false, true}), -1.0);
  c.masked_fill_(tensor({false, true, false, false}), tensor(-2.0));
  CHECK(vals(c) == std::vector<double>{-1, -2, 9, -1});
  c.scatter_(0, tensor({2}), 5.0);
  c.scatter_(0, tensor({0}), tensor({6.}));
  c.scatter_add_(0, tensor({3, 3}), tensor({1., 2.}));
  c.index_add_(0, tensor({1}), tensor({10.}));
  CHECK(vals(c) == std::vector<double>{6, 8, 5, 2});
  c.scatter_(0, tensor({1}), tensor({2.}), "multiply");
  c.scatter_(0, tensor({1}), 1.0, "add");
  CHECK(vals(c) == std::vector<double>{6, 17, 5, 2});
  CHECK(c.resize_({2, 2}).sizes().vec() == std::vector<int64_t>{2, 2});
}
}  // namespace

TEST_CASE("tensor compat: every in-place method runs through a const Tensor&, as in libtorch") {
  Tensor x = tensor({1., -2., 3., -4.});
  run_inplace_through_const(x);
  CHECK(x.sizes().vec() == std::vector<int64_t>{2, 2});
  CHECK(vals(x) == std::vector<double>{6, 17, 5, 2});

  // Autograd methods through const references.
  Tensor leaf = tensor({1., 2.});
  const Tensor& w = leaf;
  CHECK(&w.requires_grad_() == &w);
  CHECK(leaf.requires_grad());
  const Tensor& loss = (w * w).sum();
  loss.backward();
  CHECK(vals(w.grad()) == std::vector<double>{2, 4});
  w.mutable_grad() = zeros_like(leaf);
  CHECK(vals(leaf.grad()) == std::vector<double>{0, 0});
  Tensor y = leaf * 3;
  const Tensor& cy = y;
  cy.detach_();
  CHECK(!y.requires_grad());
  CHECK(y.is_leaf());
  w.set_requires_grad(false);
  CHECK(!leaf.requires_grad());
  // A failed in-place op leaves its input unchanged.
  CHECK_THROWS_AS(w.add_(ones({3}, kDouble)), InvalidArgument);
  CHECK(vals(leaf) == std::vector<double>{1, 2});
}

TEST_CASE("tensor compat: compound assignment writes into a temporary view, as libtorch's members") {
  Tensor x = zeros({2, 3});
  x[0] += 1;
  x[1] -= tensor({1.f, 2.f, 3.f});
  x[0][2] *= 4;
  x[1] /= 2;
  CHECK(vals(x) == std::vector<double>{1, 1, 4, -0.5, -1, -1.5});
  Tensor y = x;
  y += 1;  // y shares x's storage: both change
  CHECK(vals(x)[0] == 2);
}

TEST_CASE("tensor compat: assigning to a view writes into it, assigning to a named Tensor rebinds") {
  Tensor x = zeros({2, 3});
  x[0][1] = 2.5;
  x[1][1] = 3;
  x.index({1, indexing::Slice()}) = tensor({7.f, 8.f, 9.f});
  Tensor row = tensor({4.f, 5.f});
  x.index({0, indexing::Slice(0, 2)}) = row;  // const Tensor& overload
  x[0][2] = x[1][0];                          // Tensor&& overload
  CHECK(vals(x) == std::vector<double>{4, 5, 7, 7, 8, 9});
  CHECK(vals(row) == std::vector<double>{4, 5});
  x[1] = 1.5;
  CHECK(vals(x) == std::vector<double>{4, 5, 7, 1.5, 1.5, 1.5});

  // A named Tensor rebinds: the old elements are untouched.
  Tensor a = x;
  Tensor b = ones({4});
  a = b;
  CHECK(a.is_same(b));
  CHECK(vals(x) == std::vector<double>{4, 5, 7, 1.5, 1.5, 1.5});
  a = zeros({1});
  CHECK(a.numel() == 1);
  CHECK(vals(b) == std::vector<double>{1, 1, 1, 1});

  // A value that does not broadcast is an error and changes nothing.
  CHECK_THROWS_AS(x[0] = ones({4}), InvalidArgument);
  CHECK(vals(x) == std::vector<double>{4, 5, 7, 1.5, 1.5, 1.5});
}

TEST_CASE("tensor compat: assigning into a view of a non-leaf records CopySlices") {
  Tensor w = ones({2, 3}, requires_grad());
  ember_test::expect_throw<InvalidArgument>([&] { w[0][1] = 3.0; },
                                            "a view of a leaf Variable that requires grad is being used in an "
                                            "in-place operation.");
  Tensor h = w * 2;
  h[0][1] = 3.0;
  CHECK(h.grad_fn()->name() == "CopySlices");
  h.sum().backward();
  CHECK(vals(w.grad()) == std::vector<double>{2, 0, 2, 2, 2, 2});

  Tensor w2 = ones({2, 3}, requires_grad());
  Tensor s = full({3}, 2.0, requires_grad());
  Tensor h2 = w2 * 1;
  h2[1] = s * 3;
  CHECK(h2.grad_fn()->name() == "CopySlices");
  CHECK(vals(h2) == std::vector<double>{1, 1, 1, 6, 6, 6});
  (h2 * arange(6.).reshape({2, 3})).sum().backward();
  CHECK(vals(w2.grad()) == std::vector<double>{0, 1, 2, 0, 0, 0});
  CHECK(vals(s.grad()) == std::vector<double>{9, 12, 15});
}

TEST_CASE("tensor compat: requires_grad() options, set_requires_grad, data, set_data, alias, toType") {
  Tensor a = ones({3}, requires_grad());
  CHECK(a.requires_grad());
  CHECK(a.is_leaf());
  CHECK(!ones({3}, requires_grad(false)).requires_grad());
  CHECK(zeros({2}, dtype(kDouble).requires_grad(true)).requires_grad());

  // set_requires_grad: as requires_grad_, but false on a non-leaf is a no-op.
  Tensor b = a * 2;
  CHECK(&b.set_requires_grad(false) == &b);
  CHECK(b.requires_grad());
  CHECK_THROWS_WITH(b.requires_grad_(false), Catch::Contains("you can only change requires_grad flags of leaf"));
  CHECK_THROWS_WITH(arange(3).set_requires_grad(true),
                    "Only Tensors of floating point and complex dtype can require gradients");

  // data(): the same elements as a leaf without history.
  Tensor d = b.data();
  CHECK(!d.requires_grad());
  CHECK(d.is_leaf());
  CHECK(d.data_ptr() == b.data_ptr());
  d.add_(1);
  CHECK(vals(b) == std::vector<double>{3, 3, 3});

  // set_data: new storage, sizes and dtype; the autograd state stays.
  Tensor p = ones({2}, requires_grad());
  p.set_data(full({3}, 2.0, kDouble));
  CHECK(p.dtype() == kDouble);
  CHECK(p.sizes().vec() == std::vector<int64_t>{3});
  CHECK(p.requires_grad());
  (p * p).sum().backward();
  CHECK(vals(p.grad()) == std::vector<double>{4, 4, 4});
  CHECK_THROWS_WITH(p.set_data(zeros({3}, kInt)),
                    "data set to a tensor that requires gradients must be floating point or complex dtype");
  CHECK(p.dtype() == kDouble);
  Tensor q = ones({2});
  q.set_data(arange(3).to(kInt));
  CHECK(q.dtype() == kInt);
  CHECK(vals(q) == std::vector<double>{0, 1, 2});
  CHECK_THROWS_WITH(q.set_data(Tensor()), Catch::Contains("have incompatible tensor type"));

  // alias(): a view of everything; AliasBackward0 in autograd.
  Tensor x = arange(6.).reshape({2, 3}).t();
  Tensor al = alias(x);
  CHECK(al.sizes() == x.sizes());
  CHECK(al.strides() == x.strides());
  al[0][1] = 10;
  CHECK(x[0][1].item<float>() == 10);
  Tensor ag = b.alias();
  CHECK(ag.grad_fn()->name() == "AliasBackward0");
  (ag * tensor({1.f, 2.f, 3.f})).sum().backward();
  CHECK(vals(a.grad()) == std::vector<double>{2, 4, 6});

  Tensor ti = tensor({1.5, -2.5}).toType(kInt);
  CHECK(ti.dtype() == kInt);
  CHECK(vals(ti) == std::vector<double>{1, -2});
}

TEST_CASE("tensor compat: repeat tiles as libtorch's, and errors as it does") {
  Tensor x = arange(6.).reshape({2, 3});
  Tensor r = x.repeat({2, 1, 2});
  CHECK(r.sizes().vec() == std::vector<int64_t>{2, 2, 6});
  const std::vector<double> tile{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5};
  std::vector<double> want = tile;
  want.insert(want.end(), tile.begin(), tile.end());
  CHECK(vals(r) == want);
  Tensor ri = arange(3).repeat({2, 2});
  CHECK(ri.dtype() == kLong);
  CHECK(vals(ri) == std::vector<double>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2});
  CHECK(vals(x.t().repeat({1, 2})) == std::vector<double>{0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5});
  CHECK(x.repeat({1, 0, 2}).sizes().vec() == std::vector<int64_t>{1, 0, 6});
  CHECK(vals(tensor(5).repeat({3})) == std::vector<double>{5, 5, 5});
  CHECK_THROWS_WITH(x.repeat({2}),
                    "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  CHECK_THROWS_WITH(x.repeat({2, -1}), "Trying to create tensor with negative dimension -3: [4, -3]");
  CHECK_THROWS_AS(Tensor().repeat({1}), InvalidArgument);
}

TEST_CASE("tensor compat: repeat's gradient sums the tiles (RepeatBackward0, gradcheck)") {
  Tensor r = arange(4., kDouble).reshape({2, 2}).requires_grad_();
  Tensor rr = r.repeat({2, 3});
  CHECK(rr.grad_fn()->name() == "RepeatBackward0");
  Tensor w = arange(24., kDouble).reshape({4, 6});
  (rr * w).sum().backward();
  // grad[i][j] = sum over the 2x3 tiles of w[2a + i][2b + j].
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double g = 0;
      for (int ta = 0; ta < 2; ++ta)
        for (int tb = 0; tb < 3; ++tb) g += (2 * ta + i) * 6 + (2 * tb + j);
      want.push_back(g);
    }
  CHECK(vals(r.grad()) == want);

  manual_seed(ember_test::fresh_seed());
  Tensor in = randn({2, 3}, kDouble).requires_grad_();
  CHECK(autograd::gradcheck([](const autograd::variable_list& v) -> autograd::variable_list {
    return {v[0].repeat({2, 1, 3}), v[0].t().repeat({2, 2}), v[0].repeat({1, 0})};
  }, {in}));
  // Double backward: the backward is ordinary ops.
  Tensor z = randn({3}, kDouble).requires_grad_();
  Tensor g = autograd::grad({(z.repeat({2}) * z.repeat({2})).sum()}, {z}, {}, true, true)[0];
  CHECK(vals(g) == vals(z * 4));
  CHECK(g.requires_grad());
}

TEST_CASE("tensor compat: item() is a Scalar with libtorch's checked accessors") {
  Scalar f = tensor(2.5).item();
  CHECK(f.isFloatingPoint());
  CHECK(f.type() == kDouble);
  CHECK(f.toDouble() == 2.5);
  CHECK(f.toFloat() == 2.5f);
  CHECK(f.toInt() == 2);
  CHECK(f.toLong() == 2);
  CHECK(f.toBool());
  CHECK(f.to<double>() == 2.5);
  Scalar i = tensor(7).item();
  CHECK(i.isIntegral(false));
  CHECK(i.type() == kLong);
  CHECK(i.toLong() == 7);
  CHECK(i.toDouble() == 7.0);
  Scalar t = tensor(true).item();
  CHECK(t.isBoolean());
  CHECK(!t.isIntegral(false));
  CHECK(t.isIntegral(true));
  CHECK(t.toInt() == 1);
  CHECK(Scalar(-3.7).toLong() == -3);
  CHECK(Scalar(-1).toByte() == 255);
  CHECK(float(Scalar(0.5).toHalf()) == 0.5f);
  CHECK(std::isinf(Scalar(std::numeric_limits<double>::infinity()).toFloat()));
  CHECK(std::isnan(Scalar(std::nan("")).toFloat()));
  CHECK_THROWS_WITH(Scalar(1e20).toInt(), "value cannot be converted to type int without overflow");
  CHECK_THROWS_WITH(Scalar(int64_t(1) << 40).toInt(), "value cannot be converted to type int without overflow");
  CHECK_THROWS_WITH(Scalar(300).toByte(), "value cannot be converted to type uint8_t without overflow");
  CHECK_THROWS_WITH(Scalar(std::nan("")).toLong(), "value cannot be converted to type int64_t without overflow");
  CHECK_THROWS_WITH(Scalar(-std::numeric_limits<double>::infinity()).toLong(),
                    "value cannot be converted to type int64_t without overflow");
  CHECK_THROWS_WITH(Scalar(1e300).toFloat(), "value cannot be converted to type float without overflow");
  CHECK_THROWS_WITH(Scalar(70000).toHalf(), "value cannot be converted to type at::Half without overflow");
  CHECK_THROWS_AS(Scalar(1e20).toInt(), InvalidArgument);
}

TEST_CASE("tensor compat: free t, transpose, isfinite") {
  Tensor x = arange(6).reshape({2, 3});
  CHECK(t(x).sizes().vec() == std::vector<int64_t>{3, 2});
  CHECK(vals(t(x)) == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(vals(t(arange(3))) == std::vector<double>{0, 1, 2});
  CHECK_THROWS_WITH(t(ones({2, 2, 2})), "t() expects a tensor with <= 2 dimensions, but self is 3D");
  CHECK(transpose(x, 0, 1).equal(x.transpose(0, 1)));
  CHECK(transpose(x, -1, 0).storage().get() == x.storage().get());
  CHECK_THROWS_AS(transpose(x, 0, 2), InvalidArgument);

  const double inf = std::numeric_limits<double>::infinity();
  Tensor v = tensor({1.0, inf, std::nan(""), -inf, -2.0});
  CHECK(isfinite(v).dtype() == kBool);
  CHECK(vals(isfinite(v)) == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(vals(v.to(kHalf).isfinite()) == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(vals(isfinite(tensor({1, 2}))) == std::vector<double>{1, 1});
  CHECK(vals(isfinite(tensor({true}))) == std::vector<double>{1});
  Tensor g = v.to(kDouble).requires_grad_();
  CHECK(!isfinite(g).requires_grad());
  CHECK_THROWS_AS(isfinite(Tensor()), InvalidArgument);
}

namespace {
size_t count_defined(TensorList list) {
  size_t n = 0;
  for (const Tensor& t : list) n += t.defined();
  return n;
}
}  // namespace

TEST_CASE("tensor compat: Variable, variable_list, tensor_list and TensorList as libtorch's") {
  static_assert(std::is_same_v<autograd::Variable, Tensor>);
  static_assert(std::is_same_v<autograd::tensor_list, std::vector<Tensor>>);
  static_assert(std::is_same_v<autograd::variable_list, std::vector<Tensor>>);
  static_assert(std::is_same_v<TensorList, ArrayRef<Tensor>>);
  autograd::tensor_list v{ones({2}), Tensor(), zeros({1})};
  TensorList l = v;
  CHECK(l.size() == 3);
  CHECK(l[0].is_same(v[0]));
  CHECK(count_defined(v) == 2);
  CHECK(count_defined({ones({1}), ones({1})}) == 2);
}

TEST_CASE("tensor compat: every unary op has libtorch's in-place method") {
  const Tensor x0 = tensor({0.3, 0.7, 0.45, 0.9}, kDouble);
  const std::vector<
      std::tuple<const char*, Tensor& (Tensor::*)() const, std::function<Tensor(const Tensor&)>>>
      cases = {
          {"log1p_", &Tensor::log1p_, [](const Tensor& x) { return x.log1p(); }},
          {"expm1_", &Tensor::expm1_, [](const Tensor& x) { return x.expm1(); }},
          {"rsqrt_", &Tensor::rsqrt_, [](const Tensor& x) { return x.rsqrt(); }},
          {"sin_", &Tensor::sin_, [](const Tensor& x) { return x.sin(); }},
          {"cos_", &Tensor::cos_, [](const Tensor& x) { return x.cos(); }},
          {"tan_", &Tensor::tan_, [](const Tensor& x) { return x.tan(); }},
          {"reciprocal_", &Tensor::reciprocal_, [](const Tensor& x) { return x.reciprocal(); }},
          {"erf_", &Tensor::erf_, [](const Tensor& x) { return x.erf(); }},
          {"erfc_", &Tensor::erfc_, [](const Tensor& x) { return x.erfc(); }},
          {"erfinv_", &Tensor::erfinv_, [](const Tensor& x) { return x.erfinv(); }},
          {"lgamma_", &Tensor::lgamma_, [](const Tensor& x) { return x.lgamma(); }},
          {"digamma_", &Tensor::digamma_, [](const Tensor& x) { return x.digamma(); }},
          {"sign_", &Tensor::sign_, [](const Tensor& x) { return x.sign(); }},
          {"floor_", &Tensor::floor_, [](const Tensor& x) { return (x * 3).floor() / 3; }},
          {"ceil_", &Tensor::ceil_, [](const Tensor& x) { return x.ceil(); }},
          {"round_", &Tensor::round_, [](const Tensor& x) { return x.round(); }},
          {"trunc_", &Tensor::trunc_, [](const Tensor& x) { return x.trunc(); }},
          {"asin_", &Tensor::asin_, [](const Tensor& x) { return x.asin(); }},
          {"acos_", &Tensor::acos_, [](const Tensor& x) { return x.acos(); }},
          {"atan_", &Tensor::atan_, [](const Tensor& x) { return x.atan(); }},
          {"sinh_", &Tensor::sinh_, [](const Tensor& x) { return x.sinh(); }},
          {"cosh_", &Tensor::cosh_, [](const Tensor& x) { return x.cosh(); }},
          {"asinh_", &Tensor::asinh_, [](const Tensor& x) { return x.asinh(); }},
          {"atanh_", &Tensor::atanh_, [](const Tensor& x) { return x.atanh(); }},
          {"exp2_", &Tensor::exp2_, [](const Tensor& x) { return x.exp2(); }},
          {"log2_", &Tensor::log2_, [](const Tensor& x) { return x.log2(); }},
          {"log10_", &Tensor::log10_, [](const Tensor& x) { return x.log10(); }},
          {"frac_", &Tensor::frac_, [](const Tensor& x) { return x.frac(); }},
          {"sgn_", &Tensor::sgn_, [](const Tensor& x) { return x.sgn(); }},
          {"sinc_", &Tensor::sinc_, [](const Tensor& x) { return x.sinc(); }},
          {"deg2rad_", &Tensor::deg2rad_, [](const Tensor& x) { return x.deg2rad(); }},
          {"rad2deg_", &Tensor::rad2deg_, [](const Tensor& x) { return x.rad2deg(); }},
          {"square_", &Tensor::square_, [](const Tensor& x) { return x.square(); }},
      };
  for (const auto& [name, method, f] : cases) {
    INFO(name);
    const bool floor_case = std::string(name) == "floor_";
    Tensor t = floor_case ? x0 * 3 : x0.clone();
    const Tensor want = floor_case ? (x0 * 3).floor() : f(x0);
    const Tensor& same = (t.*method)();
    CHECK(same.is_same(t));
    CHECK(allclose(t, want, 1e-15, 1e-15));
    // Through a view: only the viewed elements change.
    Tensor base = floor_case ? x0.repeat({2}) * 3 : x0.repeat({2});
    Tensor view = base.slice(0, 0, 8, 2);
    (view.*method)();
    const Tensor untouched = (floor_case ? x0 * 3 : x0).repeat({2}).slice(0, 1, 8, 2);
    CHECK(base.slice(0, 1, 8, 2).equal(untouched));
  }
  Tensor acosh_in = tensor({1.5, 3.0}, kDouble);
  CHECK(allclose(acosh_in.acosh_(), tensor({1.5, 3.0}, kDouble).acosh(), 1e-15, 1e-15));
  Tensor logit_in = tensor({0.0, 0.25, 1.0}, kDouble);
  CHECK(allclose(logit_in.logit_(0.1), tensor({0.0, 0.25, 1.0}, kDouble).logit(0.1), 1e-15, 1e-15));
  // Integers: rounding keeps the dtype; a floating result cannot be written back.
  Tensor ints = tensor({-2, 3});
  CHECK(ints.floor_().equal(tensor({-2, 3})));
  CHECK(ints.sign_().equal(tensor({-1, 1})));
  CHECK_THROWS_WITH(ints.sin_(),
                    Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK_THROWS_WITH(ints.asin_(),
                    Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK(ints.equal(tensor({-1, 1})));
  // Autograd: in place on a non-leaf differentiates the old values; a leaf is refused.
  const Tensor leaf = tensor({0.2, 0.6}, kDouble).requires_grad_();
  Tensor y = leaf * 2;
  y.sin_();
  y.asin_();  // asin(sin(2x)) = 2x here: gradient 2
  y.sum().backward();
  CHECK(allclose(leaf.grad(), full({2}, 2.0, kDouble), 1e-12, 1e-12));
  CHECK_THROWS_WITH(tensor({0.5}, kDouble).requires_grad_().atan_(),
                    Catch::Contains("a leaf Variable that requires grad"));
}

TEST_CASE("tensor compat: libtorch's in-place binary methods, div's rounding modes and the aliases") {
  const Tensor a0 = tensor({-7.5, 2.0, 5.25, -3.0}, kDouble), b0 = tensor({2.0, -3.0, 1.5, 4.0}, kDouble);
  using Method = std::function<Tensor&(Tensor&)>;
  using Plain = std::function<Tensor(const Tensor&)>;
  const std::vector<std::tuple<const char*, Method, Plain>> cases = {
      {"pow_", [&](Tensor& t) -> Tensor& { return t.pow_(2); }, [&](const Tensor& t) { return t.pow(2); }},
      {"pow_ tensor", [&](Tensor& t) -> Tensor& { return t.pow_(b0); },
       [&](const Tensor& t) { return t.pow(b0); }},
      {"remainder_", [&](Tensor& t) -> Tensor& { return t.remainder_(b0); },
       [&](const Tensor& t) { return t.remainder(b0); }},
      {"fmod_", [&](Tensor& t) -> Tensor& { return t.fmod_(2.5); },
       [&](const Tensor& t) { return t.fmod(2.5); }},
      {"atan2_", [&](Tensor& t) -> Tensor& { return t.atan2_(b0); },
       [&](const Tensor& t) { return t.atan2(b0); }},
      {"hypot_", [&](Tensor& t) -> Tensor& { return t.hypot_(b0); },
       [&](const Tensor& t) { return t.hypot(b0); }},
      {"copysign_", [&](Tensor& t) -> Tensor& { return t.copysign_(b0); },
       [&](const Tensor& t) { return t.copysign(b0); }},
      {"float_power_", [&](Tensor& t) -> Tensor& { return t.float_power_(3); },
       [&](const Tensor& t) { return t.float_power(3); }},
      {"true_divide_", [&](Tensor& t) -> Tensor& { return t.true_divide_(b0); },
       [&](const Tensor& t) { return t / b0; }},
      {"divide_ floor", [&](Tensor& t) -> Tensor& { return t.divide_(b0, "floor"); },
       [&](const Tensor& t) { return (t / b0).floor(); }},
      {"div_ trunc", [&](Tensor& t) -> Tensor& { return t.div_(b0, "trunc"); },
       [&](const Tensor& t) { return (t / b0).trunc(); }},
      {"multiply_", [&](Tensor& t) -> Tensor& { return t.multiply_(b0); },
       [&](const Tensor& t) { return t * b0; }},
      {"floor_divide_", [&](Tensor& t) -> Tensor& { return t.floor_divide_(2.0); },
       [&](const Tensor& t) { return (t / 2).floor(); }},
      {"negative_", [&](Tensor& t) -> Tensor& { return t.negative_(); }, [&](const Tensor& t) { return -t; }},
      {"clamp_min_", [&](Tensor& t) -> Tensor& { return t.clamp_min_(0.5); },
       [&](const Tensor& t) { return t.clamp(0.5); }},
      {"clamp_max_", [&](Tensor& t) -> Tensor& { return t.clamp_max_(0.5); },
       [&](const Tensor& t) { return t.clamp({}, 0.5); }},
      {"lerp_", [&](Tensor& t) -> Tensor& { return t.lerp_(b0, 0.25); },
       [&](const Tensor& t) { return t + (b0 - t) * 0.25; }},
      {"addcmul_", [&](Tensor& t) -> Tensor& { return t.addcmul_(b0, b0, 0.5); },
       [&](const Tensor& t) { return t + b0 * b0 * 0.5; }},
      {"addcdiv_", [&](Tensor& t) -> Tensor& { return t.addcdiv_(b0, b0 + 10, -2); },
       [&](const Tensor& t) { return t - 2 * b0 / (b0 + 10); }},
      {"cumsum_", [&](Tensor& t) -> Tensor& { return t.cumsum_(0); },
       [&](const Tensor& t) { return t.cumsum(0); }},
      {"cumprod_", [&](Tensor& t) -> Tensor& { return t.cumprod_(0); },
       [&](const Tensor& t) { return t.cumprod(0); }},
      {"lt_", [&](Tensor& t) -> Tensor& { return t.lt_(b0); },
       [&](const Tensor& t) { return t.lt(b0).to(kDouble); }},
      {"ge_", [&](Tensor& t) -> Tensor& { return t.ge_(2.0); },
       [&](const Tensor& t) { return t.ge(2.0).to(kDouble); }},
      {"eq_", [&](Tensor& t) -> Tensor& { return t.eq_(-3.0); },
       [&](const Tensor& t) { return t.eq(-3.0).to(kDouble); }},
      {"logical_and_", [&](Tensor& t) -> Tensor& { return t.logical_and_(b0 > 0); },
       [&](const Tensor& t) { return logical_and(t, b0 > 0).to(kDouble); }},
      {"logical_not_", [&](Tensor& t) -> Tensor& { return t.logical_not_(); },
       [&](const Tensor& t) { return t.logical_not().to(kDouble); }},
  };
  for (const auto& [name, method, plain] : cases) {
    INFO(name);
    Tensor t = a0.clone();
    Tensor& r = method(t);
    CHECK(r.is_same(t));
    CHECK(t.dtype() == kDouble);
    CHECK(allclose(t, plain(a0), 1e-14, 1e-14));
  }
  // The literal values of the rounding modes, integers kept as integers.
  CHECK(div(tensor({-7, 7}), tensor({2, 2}), "trunc").equal(tensor({-3, 3})));
  CHECK(div(tensor({-7, 7}), 2, "floor").equal(tensor({-4, 3})));
  CHECK(div(tensor({-7.0, 7.0}), 2, std::nullopt).equal(tensor({-3.5, 3.5})));
  CHECK(tensor({-7.5f}).div(2, "trunc").item<float>() == -3.0f);
  CHECK_THROWS_WITH(div(tensor({1.0}), 2, "round"),
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
  CHECK_THROWS_WITH(div(tensor({1}), tensor({0}), "trunc"), "ZeroDivisionError");
  CHECK(divide(tensor({3.0}), 2).item<double>() == 1.5);
  CHECK(multiply(tensor({3}), 2).equal(tensor({6})));
  CHECK(negative(tensor({3})).equal(tensor({-3})));
  // Errors: a result the dtype cannot hold, float_power_'s base, a leaf that requires grad.
  Tensor ints = tensor({1, 2});
  CHECK_THROWS_WITH(ints.atan2_(tensor({1, 1})),
                    Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK_THROWS_WITH(ints.true_divide_(2),
                    Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK(ints.equal(tensor({1, 2})));
  CHECK(ints.pow_(2).equal(tensor({1, 4})));
  CHECK(ints.lt_(3).equal(tensor({1, 0})));
  CHECK_THROWS_WITH(
      tensor({2.0f}).float_power_(2),
      "the base given to float_power_ has dtype Float but the operation's result requires dtype Double");
  CHECK_THROWS_WITH(
      tensor({2.0}, kDouble).requires_grad_().addcmul_(tensor({1.0}, kDouble), tensor({1.0}, kDouble)),
      Catch::Contains("a leaf Variable that requires grad"));
  // Autograd through an optimizer-style update on a non-leaf: d/dx (x + x * x * 0.5) = 1 + x.
  const Tensor leaf = tensor({0.5, -2.0}, kDouble).requires_grad_();
  Tensor y = leaf * 1;
  y.addcmul_(leaf, leaf, 0.5);
  y.sum().backward();
  CHECK(allclose(leaf.grad(), tensor({1.5, -1.0}, kDouble), 1e-14, 1e-14));
}

TEST_CASE("tensor compat: in-place views change sizes and strides, with libtorch's autograd") {
  Tensor m = arange(6.0).reshape({2, 3});
  const void* data = m.data_ptr();
  CHECK(m.t_().is_same(m));
  CHECK(m.sizes() == std::vector<int64_t>{3, 2});
  CHECK(m.strides() == std::vector<int64_t>{1, 3});
  CHECK(m.data_ptr() == data);
  CHECK(m.contiguous().equal(tensor({{0.0f, 3.0f}, {1.0f, 4.0f}, {2.0f, 5.0f}})));
  m.transpose_(0, 1).unsqueeze_(1);
  CHECK(m.sizes() == std::vector<int64_t>{2, 1, 3});
  CHECK(m.strides() == std::vector<int64_t>{3, 3, 1});
  m.squeeze_(1);
  CHECK(m.sizes() == std::vector<int64_t>{2, 3});
  m.unsqueeze_(0).unsqueeze_(-1).squeeze_();
  CHECK(m.sizes() == std::vector<int64_t>{2, 3});
  m.swapdims_(0, 1).swapaxes_(1, 0);
  CHECK(m.equal(arange(6.0).reshape({2, 3})));
  m.as_strided_({2, 2}, {1, 2}, 1);
  CHECK(m.equal(tensor({{1.0f, 3.0f}, {2.0f, 4.0f}})));
  Tensor v = ones({3});
  CHECK(v.t_().sizes() == std::vector<int64_t>{3});

  // A view stays a view of the same memory; the version counter moves, as libtorch's.
  Tensor base = zeros({2, 3});
  Tensor row = base.slice(0, 0, 2);
  const uint32_t version = base._version();
  row.t_();
  CHECK(base._version() == version + 1);
  row.select(0, 2).fill_(1);
  CHECK(base.select(1, 2).equal(ones({2})));

  // Autograd: the non-leaf's history becomes TBackward1, ...; gradients map back.
  const Tensor x = arange(6.0, kDouble).reshape({2, 3}).requires_grad_();
  Tensor y = x * 2;
  y.t_();
  CHECK(y.grad_fn()->name() == "TBackward1");
  (y * tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, kDouble)).sum().backward();
  CHECK(dvalues(x.grad()) == std::vector<double>{2, 6, 10, 4, 8, 12});
  auto node = [&](auto&& op) {
    Tensor z = x * 1;
    op(z);
    return z.grad_fn()->name();
  };
  CHECK(node([](Tensor& z) { z.transpose_(0, 1); }) == "TransposeBackward1");
  CHECK(node([](Tensor& z) { z.swapdims_(0, 1); }) == "TransposeBackward1");
  CHECK(node([](Tensor& z) { z.unsqueeze_(1); }) == "UnsqueezeBackward1");
  CHECK(node([](Tensor& z) { z.unsqueeze_(0).squeeze_(); }) == "SqueezeBackward2");
  CHECK(node([](Tensor& z) { z.unsqueeze_(0).squeeze_(0); }) == "SqueezeBackward3");
  CHECK(node([](Tensor& z) { z.as_strided_({3}, {1}); }) == "AsStridedBackward1");
  CHECK(ember_test::grad::check(
      [](const autograd::variable_list& v) {
        Tensor z = v[0] * 1;
        z.t_().unsqueeze_(0).transpose_(0, 2);
        return z * z;
      },
      {ember_test::grad::input({2, 3})}));
  // A view of a base restrided in place so that the view reaches past the base's elements:
  // refused at backward (never read out of bounds).
  Tensor wide = x * 2;
  const Tensor second_row = wide.select(0, 1);
  wide.as_strided_({2}, {1}, 0);
  CHECK_THROWS_AS(second_row.sum().backward(), NotImplemented);
  // A tensor saved for backward and then restrided in place is caught at backward.
  Tensor w = x * 2;
  Tensor sq = w * w;
  w.t_();
  CHECK_THROWS_WITH(sq.sum().backward(), Catch::Contains("modified by an inplace operation"));

  // Errors: libtorch's texts; the tensor is unchanged.
  Tensor c = zeros({2, 1, 3});
  CHECK_THROWS_WITH(c.t_(), "t_() expects a tensor with <= 2 dimensions, but self is 3D");
  CHECK_THROWS_WITH(c.squeeze_(3), Catch::Contains("expected to be in range of [-3, 2], but got 3"));
  CHECK_THROWS_WITH(c.transpose_(0, 5), Catch::Contains("but got 5"));
  CHECK_THROWS_WITH(c.as_strided_({4, 4}, {4, 1}), Catch::Contains("out of bounds for storage of size"));
  CHECK(c.sizes() == std::vector<int64_t>{2, 1, 3});
  CHECK_THROWS_WITH(x.t_(), "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(x.select(0, 0).unsqueeze_(0),
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK(x.sizes() == std::vector<int64_t>{2, 3});
}

TEST_CASE("tensor compat: round(decimals), where(cond) and split by sizes, with libtorch 1.13's values") {
  // The values libtorch 1.13 gives (run there): half to even at every power of ten, each
  // step in the tensor's dtype.
  Tensor x = tensor({1.2345, -2.5, 0.125, 1234.5678, 2.675, -0.0049, 15.0, 25.0}, kDouble);
  CHECK(dvalues(round(x, 2)) == std::vector<double>{1.23, -2.5, 0.12, 1234.57, 2.68, -0.0, 15, 25});
  CHECK(dvalues(x.round(-1)) == std::vector<double>{0, -0.0, 0, 1230, 0, -0.0, 20, 20});
  CHECK(std::signbit(dvalues(round(x, -1))[1]));
  CHECK(dvalues(round(x.to(kBFloat16), 1)) ==
        std::vector<double>{1.203125, -2.5, 0.10009765625, 1232, 2.703125, -0.0, 15, 25});
  CHECK(dvalues(round(x, 0)) == dvalues(round(x)));
  Tensor y = x.clone();
  y.round_(1);
  CHECK(dvalues(y) == dvalues(round(x, 1)));
  Tensor g = tensor({1.26, 2.5}, kDouble).requires_grad_();
  Tensor r = round(g, 1);
  CHECK(r.grad_fn()->name() == "RoundBackward1");
  r.sum().backward();
  CHECK(dvalues(g.grad()) == std::vector<double>{0, 0});
  CHECK_THROWS_WITH(round(tensor({14, 25}), 1), "\"round_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(round(x.to(kHalf), 1), "\"round_cpu\" not implemented for 'Half'");

  std::vector<Tensor> w = where(tensor({0, 1, 1, 1}, kInt64).reshape({2, 2}));
  REQUIRE(w.size() == 2);
  CHECK(dvalues(w[0]) == std::vector<double>{0, 1, 1});
  CHECK(dvalues(w[1]) == std::vector<double>{1, 0, 1});
  CHECK(w[0].dtype() == kInt64);
  std::vector<Tensor> w0 = where(scalar_tensor(3));
  REQUIRE(w0.size() == 1);
  CHECK(dvalues(w0[0]) == std::vector<double>{0});
  CHECK(where(zeros({3}, kBool))[0].numel() == 0);

  std::vector<Tensor> parts = split(arange(6), {1, 2, 3});
  REQUIRE(parts.size() == 3);
  CHECK(dvalues(parts[2]) == std::vector<double>{3, 4, 5});
  CHECK(arange(6).reshape({2, 3}).split({2, 1}, 1)[1].sizes() == IntArrayRef({2, 1}));
  CHECK(split(arange(6), 4).size() == 2);  // an integer is still a chunk size
  CHECK_THROWS_WITH(split(arange(6), {1, 2}),
                    Catch::Contains("split_with_sizes expects split_sizes to sum exactly to 6"));
}
