// Indexing: Tensor::index and index_put_ with every index kind (libtorch's placement of
// the indexed dims), index_select, index_add_, nonzero, masked_select, and their errors.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using namespace ember::indexing;
using ember_test::dvalues;

namespace {

// x[i][j][k] = 50 i + 10 j + k.
Tensor x3() { return arange(100).reshape({2, 5, 10}); }

std::vector<int64_t> shape(const Tensor& t) { return std::vector<int64_t>(t.sizes().begin(), t.sizes().end()); }

std::vector<double> range(double lo, double hi, double step = 1) {
  std::vector<double> v;
  for (double x = lo; x < hi; x += step) v.push_back(x);
  return v;
}

std::vector<double> cat(std::vector<std::vector<double>> parts) {
  std::vector<double> v;
  for (auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}

template <class T>
std::string streamed(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

struct CaptureWarnings : WarningHandler {
  std::vector<std::string> msgs;
  void process(const Warning& w) override { msgs.push_back(w.msg()); }
};

}  // namespace

TEST_CASE("indexing: integers, slices, None and ellipsis give views") {
  Tensor x = x3();
  Tensor v = x.index({0, Slice(1, 3)});
  CHECK(shape(v) == std::vector<int64_t>{2, 10});
  CHECK(dvalues(v) == range(10, 30));
  CHECK(v.storage().get() == x.storage().get());
  CHECK(shape(x.index({"...", 1})) == std::vector<int64_t>{2, 5});
  CHECK(dvalues(x.index({"...", 1})) == range(1, 100, 10));
  CHECK(shape(x.index({Ellipsis, None})) == std::vector<int64_t>{2, 5, 10, 1});
  CHECK(shape(x.index({None, 1, Slice(None, None, 2)})) == std::vector<int64_t>{1, 3, 10});
  CHECK(shape(x.index({true})) == std::vector<int64_t>{1, 2, 5, 10});
  CHECK(shape(x.index({false})) == std::vector<int64_t>{0, 2, 5, 10});
  CHECK(dvalues(x.index({scalar_tensor(1, kInt64), 4})) == range(90, 100));
}

TEST_CASE("indexing: one index tensor selects along its dim and copies") {
  Tensor x = x3();
  Tensor r = x.index({tensor({1, 0})});
  CHECK(shape(r) == std::vector<int64_t>{2, 5, 10});
  CHECK(dvalues(r) == cat({range(50, 100), range(0, 50)}));
  CHECK(r.storage().get() != x.storage().get());
  // Negative positions wrap.
  Tensor s = x.index({Slice(), tensor({0, -1})});
  CHECK(shape(s) == std::vector<int64_t>{2, 2, 10});
  CHECK(dvalues(s) == cat({range(0, 10), range(40, 50), range(50, 60), range(90, 100)}));
  // A 2-D index keeps its shape in place of the dim.
  Tensor t = x.index({1, tensor({0, 2, 4, 1}).reshape({2, 2}), 3});
  CHECK(shape(t) == std::vector<int64_t>{2, 2});
  CHECK(dvalues(t) == std::vector<double>{53, 73, 93, 63});
}

TEST_CASE("indexing: adjacent index tensors keep their place, separated ones go first") {
  Tensor x = x3();
  Tensor adj = x.index({Slice(), tensor({1}), tensor({0, 1, 2})});
  CHECK(shape(adj) == std::vector<int64_t>{2, 3});
  CHECK(dvalues(adj) == std::vector<double>{10, 11, 12, 60, 61, 62});
  Tensor sep = x.index({tensor({1}), Slice(), tensor({0, 1, 2})});
  CHECK(shape(sep) == std::vector<int64_t>{3, 5});
  CHECK(dvalues(sep) == std::vector<double>{50, 60, 70, 80, 90, 51, 61, 71, 81, 91, 52, 62, 72, 82, 92});
  Tensor after_select = x.index({0, Slice(), tensor({0, 1, 2})});
  CHECK(shape(after_select) == std::vector<int64_t>{5, 3});
  CHECK(dvalues(after_select)[4] == 11);
  Tensor nones = x.index({None, tensor({1}), None, tensor({2})});
  CHECK(shape(nones) == std::vector<int64_t>{1, 1, 1, 10});
  CHECK(dvalues(nones) == range(70, 80));
  // Broadcast index tensors: [2, 2] with [2].
  Tensor b = x.index({tensor({0, 1, 1, 0}).reshape({2, 2}), tensor({1, 2})});
  CHECK(shape(b) == std::vector<int64_t>{2, 2, 10});
  CHECK(dvalues(b) == cat({range(10, 20), range(70, 80), range(60, 70), range(20, 30)}));
  // All three dims: one element per position.
  CHECK(dvalues(x.index({tensor({1, 0, -1}), tensor({4, 0, 2}), tensor({9, 3, -1})})) == std::vector<double>{99, 3, 79});
}

TEST_CASE("indexing: masks") {
  Tensor x = x3();
  CHECK(dvalues(x.index({x.gt(95)})) == std::vector<double>{96, 97, 98, 99});
  Tensor m = tensor({true, false, true, false, false});
  Tensor r = x.index({Slice(), m});
  CHECK(shape(r) == std::vector<int64_t>{2, 2, 10});
  CHECK(dvalues(r) == cat({range(0, 10), range(20, 30), range(50, 60), range(70, 80)}));
  // A mask beside an index tensor becomes coordinate columns that broadcast with it.
  Tensor mix = x.index({tensor({false, true}), Slice(), tensor({3})});
  CHECK(shape(mix) == std::vector<int64_t>{1, 5});
  CHECK(dvalues(mix) == std::vector<double>{53, 63, 73, 83, 93});
  // A k-dim mask takes k dims, so the next index applies after them (NumPy's rule;
  // libtorch 1.13's C++ index applies it to the mask's second dim and fails).
  Tensor y = arange(24).reshape({2, 3, 4});
  Tensor m2 = tensor({true, false, true, true, false, true}).reshape({2, 3});
  CHECK(dvalues(y.index({m2, 1})) == std::vector<double>{1, 9, 13, 21});
  CHECK_THROWS_WITH(y.index({m2, Slice(), 1}), "too many indices for tensor of dimension 3");
  // 0-dim bool tensors and uint8 masks (deprecated: a warning, as libtorch).
  CHECK(dvalues(scalar_tensor(3, kInt64).index({scalar_tensor(true, kBool)})) == std::vector<double>{3});
  CHECK(shape(scalar_tensor(3, kInt64).index({scalar_tensor(false, kBool)})) == std::vector<int64_t>{0});
  CaptureWarnings cap;
  WarningUtils::WarningHandlerGuard guard(&cap);
  Tensor u = x.index({ones({2, 5}, kUInt8)});
  CHECK(shape(u) == std::vector<int64_t>{10, 10});
  CHECK(dvalues(u) == range(0, 100));
  REQUIRE(cap.msgs.size() == 1);
  CHECK(cap.msgs[0] == "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
}

TEST_CASE("indexing: strided and broadcast inputs") {
  Tensor x = x3().transpose(0, 2);  // [10, 5, 2], non-contiguous
  Tensor r = x.index({tensor({9, 0}), Slice(), 1});
  CHECK(shape(r) == std::vector<int64_t>{2, 5});
  CHECK(dvalues(r) == std::vector<double>{59, 69, 79, 89, 99, 50, 60, 70, 80, 90});
  Tensor e = arange(3).reshape({3, 1}).expand({3, 4});
  CHECK(dvalues(e.index({tensor({2, 0}), tensor({3, 1})})) == std::vector<double>{2, 0});
  CHECK(dvalues(e.index({e.gt(1)})) == std::vector<double>{2, 2, 2, 2});
}

TEST_CASE("indexing: errors") {
  Tensor x = x3();
  CHECK_THROWS_AS(x.index({0, 5}), InvalidArgument);
  CHECK_THROWS_WITH(x.index({0, 5}), "index 5 is out of bounds for dimension 1 with size 5");
  CHECK_THROWS_WITH(x.index({0, 1, 10}), "index 10 is out of bounds for dimension 2 with size 10");
  CHECK_THROWS_WITH(x.index({tensor({0, 5})}), "index 5 is out of bounds for dimension 0 with size 2");
  // ember names the dim of the user's tensor (libtorch 1.13 says dimension 0 here).
  CHECK_THROWS_WITH(x.index({Slice(), tensor({0, 5})}), "index 5 is out of bounds for dimension 1 with size 5");
  CHECK_THROWS_WITH(x.index({Slice(), tensor({-6})}), "index -6 is out of bounds for dimension 1 with size 5");
  CHECK_THROWS_WITH(x.index({0, tensor({0}), tensor({10})}), "index 10 is out of bounds for dimension 2 with size 10");
  CHECK_THROWS_WITH(x.index({tensor({0.5})}), "tensors used as indices must be long, int, byte or bool tensors, got Float");
  CHECK_THROWS_WITH(x.index({tensor({0}, kInt16)}),
                    "tensors used as indices must be long, int, byte or bool tensors, got Short");
  CHECK_THROWS_WITH(x.index({scalar_tensor(0.0)}), "tensors used as indices must be long, int, byte or bool tensors, got Float");
  CHECK_THROWS_WITH(x.index({ones({3}, kBool)}),
                    "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 5, 10] at index 0");
  CHECK_THROWS_WITH(x.index({ones({2, 4}, kBool)}),
                    "The shape of the mask [2, 4] at index 1 does not match the shape of the indexed tensor [2, 5, 10] at index 1");
  CHECK_THROWS_WITH(x.index({tensor({0, 1}), tensor({0, 1, 2})}),
                    "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  CHECK_THROWS_WITH(x.index({0, 0, 0, 0}), "too many indices for tensor of dimension 3");
  CHECK_THROWS_WITH(x.index({tensor({0}), tensor({0}), tensor({0}), tensor({0})}), "too many indices for tensor of dimension 3");
  CHECK_THROWS_AS(TensorIndex("..x"), InvalidArgument);
  CHECK_THROWS_AS(x.index({Ellipsis, 0, Ellipsis}), InvalidArgument);
}

TEST_CASE("indexing: index_put_ copies, accumulates and leaves self unchanged on error") {
  Tensor y = zeros({3, 4});
  y.index_put_({tensor({0, 2})}, 1.0);
  CHECK(dvalues(y) == std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
  Tensor a = zeros({5});
  a.index_put_({tensor({0, 0, 3, -2})}, tensor({1.f, 2.f, 3.f, 4.f}), true);
  CHECK(dvalues(a) == std::vector<double>{3, 0, 0, 7, 0});
  Tensor b = zeros({2, 3, 4});
  b.index_put_({tensor({0, 1}), Slice(), tensor({1, 3})}, tensor({5.f, 7.f, 9.f}));
  std::vector<double> want(24, 0);
  for (int s = 0; s < 3; ++s) want[size_t(0 * 12 + s * 4 + 1)] = want[size_t(1 * 12 + s * 4 + 3)] = 5 + 2 * s;
  CHECK(dvalues(b) == want);
  Tensor c = arange(6).to(kFloat);
  c.index_put_({c.gt(2)}, 0);
  CHECK(dvalues(c) == std::vector<double>{0, 1, 2, 0, 0, 0});
  Tensor d = zeros({2, 3});
  d.index_put_({0}, 5);
  CHECK(dvalues(d) == std::vector<double>{5, 5, 5, 0, 0, 0});
  // Through a transposed view: column 1 of the base.
  Tensor base = zeros({3, 4});
  Tensor t = base.t();
  t.index_put_({tensor({1})}, 1.0);
  CHECK(dvalues(base) == std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0});
  // The list-of-optional-tensors form.
  Tensor e = zeros({2, 3});
  e.index_put_(std::vector<std::optional<Tensor>>{std::nullopt, tensor({2})}, ones({1}), true);
  CHECK(dvalues(e) == std::vector<double>{0, 0, 1, 0, 0, 1});
  Tensor f = index_put(e, {tensor({1})}, tensor({4.f, 5.f, 6.f}));
  CHECK(dvalues(f) == std::vector<double>{0, 0, 1, 4, 5, 6});
  CHECK(dvalues(e) == std::vector<double>{0, 0, 1, 0, 0, 1});
  index_put_(e, {tensor({0}), tensor({0})}, tensor({2.f}), true);
  CHECK(dvalues(e) == std::vector<double>{2, 0, 1, 0, 0, 1});

  Tensor x = x3();
  CHECK_THROWS_WITH(zeros({3}).index_put_({tensor({0})}, tensor({1})),
                    Catch::StartsWith("Index put requires the source and destination dtypes match, got "));
  CHECK_THROWS_WITH(x.index_put_({Slice(), tensor({0, 1})}, tensor({1, 1, 1})),
                    "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 2, 10]");
  Tensor z = zeros({3});
  CHECK_THROWS_WITH(z.index_put_({tensor({0, 5})}, ones({2}), true), "index 5 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(z.index_put_({tensor({0, 5})}, ones({2})), "index 5 is out of bounds for dimension 0 with size 3");
  CHECK(dvalues(z) == std::vector<double>{0, 0, 0});
}

TEST_CASE("indexing: index_select on every dtype, strided inputs and errors") {
  for (ScalarType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}) {
    Tensor x = arange(12).reshape({3, 4}).to(dt);
    Tensor r = index_select(x, 1, tensor({3, 0, 3}));
    CHECK(r.dtype() == dt);
    std::vector<double> want = {3, 0, 3, 7, 4, 7, 11, 8, 11};
    if (dt == kBool)
      for (double& w : want) w = w != 0;
    CHECK(dvalues(r) == want);
  }
  Tensor x = arange(12).reshape({3, 4}).t();  // [4, 3]
  CHECK(dvalues(x.index_select(0, tensor({2}, kInt32))) == std::vector<double>{2, 6, 10});
  CHECK(dvalues(x.index_select(-1, tensor({2, 1}))) == std::vector<double>{8, 4, 9, 5, 10, 6, 11, 7});
  CHECK(shape(scalar_tensor(5).index_select(0, tensor({0}))).empty());
  CHECK(shape(x.index_select(0, scalar_tensor(1, kInt64))) == std::vector<int64_t>{1, 3});
  CHECK_THROWS_WITH(x.index_select(0, tensor({4})), Catch::StartsWith("index_select(): index out of range in self"));
  CHECK_THROWS_WITH(x.index_select(0, tensor({-1})), Catch::StartsWith("index_select(): index out of range in self"));
  CHECK_THROWS_WITH(x.index_select(0, tensor({0.5})), Catch::StartsWith("index_select(): Expected dtype int32 or int64 for index"));
  CHECK_THROWS_WITH(x.index_select(0, zeros({1, 1}, kInt64)), Catch::StartsWith("index_select(): Index is supposed to be a vector"));
  CHECK_THROWS_AS(x.index_select(2, tensor({0})), InvalidArgument);
}

TEST_CASE("indexing: index_add_ sums duplicates, with alpha, on every dtype") {
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}) {
    Tensor x = zeros({2, 3}, dt);
    x.index_add_(1, tensor({0, 2, 0}), ones({2, 3}, dt), 2);
    CHECK(dvalues(x) == std::vector<double>{4, 0, 2, 4, 0, 2});
  }
  Tensor b = zeros({3}, kBool);
  b.index_add_(0, tensor({1}), ones({1}, kBool));
  CHECK(dvalues(b) == std::vector<double>{0, 1, 0});
  Tensor x = zeros({2, 3});
  Tensor out = index_add(x, 0, tensor({1}), ones({1, 3}));
  CHECK(dvalues(out) == std::vector<double>{0, 0, 0, 1, 1, 1});
  CHECK(dvalues(x) == std::vector<double>(6, 0));
  CHECK_THROWS_WITH(x.index_add_(1, tensor({0, 3}), ones({2, 2})), Catch::StartsWith("index_add_(): index out of range in self"));
  CHECK(dvalues(x) == std::vector<double>(6, 0));
  CHECK_THROWS_WITH(x.index_add_(1, tensor({0, 1}), ones({2, 3})),
                    "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 1");
  CHECK_THROWS_WITH(x.index_add_(1, tensor({0}), ones({2, 1}, kInt64)),
                    Catch::StartsWith("index_add_(): self (") && Catch::EndsWith("must have the same scalar type"));
}

TEST_CASE("indexing: nonzero and masked_select") {
  Tensor n = nonzero(tensor({0, 1, 2, 0}).reshape({2, 2}));
  CHECK(n.dtype() == kInt64);
  CHECK(shape(n) == std::vector<int64_t>{2, 2});
  CHECK(dvalues(n) == std::vector<double>{0, 1, 1, 0});
  CHECK(shape(nonzero(scalar_tensor(3))) == std::vector<int64_t>{1, 0});
  CHECK(shape(nonzero(zeros({4, 2}))) == std::vector<int64_t>{0, 2});
  CHECK(dvalues(nonzero(tensor({0.f, 2.f, 0.f, -1.f}))) == std::vector<double>{1, 3});
  // Large enough for the chunked path.
  Tensor big = arange(300000).remainder(7).eq(0);
  Tensor nz = big.nonzero();
  CHECK(nz.size(0) == 42858);
  CHECK(dvalues(nz.index({Slice(-2)})) == std::vector<double>{299992, 299999});
  Tensor x = tensor({1.f, 2.f}).reshape({2, 1});
  CHECK(dvalues(masked_select(x, tensor({true, false, true}))) == std::vector<double>{1, 1, 2, 2});
  CHECK(dvalues(arange(6).masked_select(arange(6).remainder(2).eq(1).to(kUInt8))) == std::vector<double>{1, 3, 5});
  CHECK_THROWS_WITH(masked_select(x, ones({2}, kInt64)), Catch::StartsWith("masked_select: expected BoolTensor or ByteTensor for mask"));
  CHECK_THROWS_AS(masked_select(x, ones({3, 3}, kBool)), InvalidArgument);
}

TEST_CASE("indexing: Slice and TensorIndex print as libtorch's") {
  CHECK(streamed(Slice(1, 5, 2)) == "1:5:2");
  CHECK(streamed(Slice()) == "0:9223372036854775807:1");
  CHECK(streamed(TensorIndex(Slice(None, 3))) == "0:3:1");
  CHECK(streamed(TensorIndex(1)) == "1");
  CHECK(streamed(TensorIndex(None)) == "None");
  CHECK(streamed(TensorIndex("...")) == "...");
  CHECK(streamed(TensorIndex(true)) == "true");
}

TEST_CASE("indexing: the warning handler is per thread and restorable") {
  WarningHandler* def = get_warning_handler();
  CaptureWarnings cap;
  {
    WarningUtils::WarningHandlerGuard guard(&cap);
    CHECK(get_warning_handler() == &cap);
    arange(4).index({tensor({1, 0, 1, 1}).to(kUInt8)});
  }
  CHECK(get_warning_handler() == def);
  CHECK(cap.msgs.size() == 1);
}

TEST_CASE("indexing: int32 positions and 0-dim integer tensors of any width index as libtorch") {
  Tensor x = arange(12).reshape({3, 4}).to(kFloat);
  CHECK(dvalues(x.index({tensor({2, 0}, kInt32)})) == std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3});
  CHECK(dvalues(x.index({tensor({1, 0}, kInt32), tensor({1, 3}, kInt32)})) == std::vector<double>{5, 3});
  // A 0-dim integer tensor is an integer index: a view that drops the dim.
  for (ScalarType dt : {kInt8, kInt16, kInt32, kInt64}) {
    INFO(name(dt));
    Tensor r = x.index({scalar_tensor(2, dt)});
    CHECK(shape(r) == std::vector<int64_t>{4});
    CHECK(dvalues(r) == std::vector<double>{8, 9, 10, 11});
    CHECK(r.storage().get() == x.storage().get());
    CHECK(dvalues(x.index({Slice(), scalar_tensor(-3, dt)})) == std::vector<double>{1, 5, 9});
    Tensor y = x.clone();
    y.index_put_({scalar_tensor(1, dt)}, -1.0);
    CHECK(dvalues(y.index({1})) == std::vector<double>{-1, -1, -1, -1});
    CHECK_THROWS_WITH(x.index({scalar_tensor(5, dt)}), "index 5 is out of bounds for dimension 0 with size 3");
  }
  Tensor y = x.clone();
  y.index_put_({tensor({2, 0}, kInt32)}, tensor({1.f, 2.f, 3.f, 4.f}));
  CHECK(dvalues(y) == std::vector<double>{1, 2, 3, 4, 4, 5, 6, 7, 1, 2, 3, 4});
  y.index_put_({tensor({1, 1}, kInt32), tensor({0, 0}, kInt32)}, tensor({10.f, 20.f}), true);
  CHECK(y.index({1, 0}).item<double>() == 34);
  // index_select and index_add_ take int32 (1-D or 0-dim) as libtorch 1.13 does.
  CHECK(shape(x.index_select(1, scalar_tensor(2, kInt32))) == std::vector<int64_t>{3, 1});
  CHECK(dvalues(x.index_select(1, scalar_tensor(2, kInt32))) == std::vector<double>{2, 6, 10});
  CHECK(dvalues(x.index_add(0, tensor({2, 0}, kInt32), ones({2, 4})).sum(1)) == std::vector<double>{10, 22, 42});
  CHECK_THROWS_WITH(x.index_select(0, tensor({0}, kInt16)),
                    "index_select(): Expected dtype int32 or int64 for index, got Short");
  CHECK_THROWS_WITH(x.index_add(0, tensor({0}, kInt8), ones({1, 4})),
                    "index_add_(): Expected dtype int32/int64 for index but got: Char");
}

TEST_CASE("indexing: index_put_ drops the value's leading size-1 dims, as libtorch's TensorIndex form") {
  Tensor v = (arange(6).to(kFloat) + 1).reshape({1, 1, 2, 3});
  const std::vector<double> vals = {1, 2, 3, 4, 5, 6};
  Tensor a = zeros({4, 2, 3});
  a.index_put_({tensor({2})}, v);  // a [1, 2, 3] slot
  CHECK(dvalues(a.index({2})) == vals);
  CHECK(a.sum().item<double>() == 21);
  Tensor b = zeros({4, 2, 3});
  b.index_put_({Slice(1, 2)}, v);
  CHECK(dvalues(b.index({1})) == vals);
  b.index_put_({0}, v.reshape({1, 1, 1, 2, 3}));
  CHECK(dvalues(b.index({0})) == vals);
  Tensor c = zeros({4, 2, 3});
  c.index_put_({tensor({0, 2})}, ones({1, 1, 2, 1, 3}));  // then broadcast to [2, 2, 3]
  CHECK(c.sum().item<double>() == 12);
  // Only size-1 dims are dropped; the error shows the value as libtorch does, after the drop.
  CHECK_THROWS_WITH(c.index_put_({tensor({2})}, ones({2, 1, 2, 3})),
                    "shape mismatch: value tensor of shape [2, 1, 2, 3] cannot be broadcast to indexing result of "
                    "shape [1, 2, 3]");
  CHECK_THROWS_WITH(c.index_put_({Slice(), tensor({1}), Slice()}, ones({1, 1, 4, 3})),
                    "shape mismatch: value tensor of shape [4, 3] cannot be broadcast to indexing result of shape "
                    "[4, 1, 3]");
  // libtorch's list-of-optional-tensors form (aten::index_put_) keeps the value's dims.
  CHECK_THROWS_WITH(c.index_put_(std::vector<std::optional<Tensor>>{tensor({2})}, v),
                    "shape mismatch: value tensor of shape [1, 1, 2, 3] cannot be broadcast to indexing result of "
                    "shape [1, 2, 3]");
  CHECK(c.sum().item<double>() == 12);
  // A basic-indexed slot takes any dtype (a cast copy); an advanced one needs self's dtype.
  c.index_put_({1}, full({2, 3}, 2.5, kDouble));
  CHECK(dvalues(c.index({1})) == std::vector<double>{2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
  CHECK_THROWS_WITH(c.index_put_({tensor({1})}, ones({2, 3}, kDouble)),
                    "Index put requires the source and destination dtypes match, got Float for the destination and "
                    "Double for the source.");
}

TEST_CASE("indexing: index({\"...\"}) is a new alias; empty lists and 0-dim tensors fail as in libtorch") {
  Tensor x = arange(6).reshape({2, 3}).to(kFloat);
  for (const Tensor& a : {x.index({"..."}), x.index({Ellipsis})}) {
    CHECK_FALSE(a.is_same(x));
    CHECK(a.data_ptr() == x.data_ptr());
    CHECK(shape(a) == std::vector<int64_t>{2, 3});
  }
  Tensor a = x.index({"..."});
  a.index_put_({0, 0}, 7.0);  // writes reach x
  CHECK(x.index({0, 0}).item<double>() == 7);
  Tensor g = ones({2}, kDouble).requires_grad_();
  Tensor ga = g.index({"..."});
  CHECK(ga.grad_fn()->name() == "AliasBackward0");
  (ga * 3).sum().backward();
  CHECK(dvalues(g.grad()) == std::vector<double>{3, 3});
  CHECK_THROWS_AS(x.index({}), InvalidArgument);
  CHECK_THROWS_WITH(x.index({}), "Passing an empty index list to Tensor::index() is not valid syntax");
  CHECK_THROWS_WITH(x.index_put_(std::vector<TensorIndex>{}, 1.0),
                    "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  Tensor s = scalar_tensor(3.5);
  CHECK_THROWS_WITH(s.index({0}), "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                  "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  CHECK_THROWS_WITH(s.index_put_({0}, 1.0), Catch::StartsWith("invalid index of a 0-dim tensor."));
  CHECK_THROWS_WITH(s.index({1}), "index 1 is out of bounds for dimension 0 with size 0");
  CHECK_THROWS_WITH(s.index({0, 0}), "too many indices for tensor of dimension 0");
  // select / slice / narrow called directly use their own libtorch texts.
  CHECK_THROWS_WITH(x.select(1, -4), "select(): index -4 out of range for tensor of size [2, 3] at dimension 1");
  CHECK_THROWS_WITH(x[2], "select(): index 2 out of range for tensor of size [2, 3] at dimension 0");
  CHECK_THROWS_WITH(s.select(0, 0), "select() cannot be applied to a 0-dim tensor.");
  CHECK_THROWS_WITH(s.slice(0, 0, 1), "slice() cannot be applied to a 0-dim tensor.");
  CHECK_THROWS_WITH(s.narrow(0, 0, 1), "narrow() cannot be applied to a 0-dim tensor.");
  CHECK(s.item<double>() == 3.5);
  // Positions into a dim of size 0: libtorch's words.
  Tensor e = zeros({0, 3});
  CHECK_THROWS_WITH(e.index({tensor({0})}), "index is out of bounds for dimension with size 0");
  CHECK_THROWS_WITH(e.index({tensor({-1}), tensor({0})}), "index is out of bounds for dimension with size 0");
  CHECK_THROWS_WITH(e.index_put_({tensor({0})}, 1.0), "index is out of bounds for dimension with size 0");
  CHECK_THROWS_WITH(e.index({0}), "index 0 is out of bounds for dimension 0 with size 0");
}

TEST_CASE("indexing: at::index and printed index lists, as libtorch") {
  const Tensor x = arange(20).reshape({4, 5});
  const Tensor rows = tensor({3L, 0L});
  CHECK(equal(ember::index(x, {rows}), x.index({rows})));
  CHECK(equal(ember::index(x, {std::nullopt, tensor({1L, 1L})}), x.index({Slice(), tensor({1L, 1L})})));
  CHECK_THROWS_AS(ember::index(Tensor(), {rows}), InvalidArgument);
  // Every tensor is an advanced index, 0-dim ones too, and the result is a copy (libtorch
  // 1.13's shapes: [2, 2, 4], [2, 4, 5], [4, 5]).
  const Tensor y = arange(120).view({2, 3, 4, 5});
  CHECK(ember::index(y, {std::nullopt, tensor({0L, 1L}), std::nullopt, tensor(0L)}).sizes() == IntArrayRef{2, 2, 4});
  CHECK(ember::index(y, {std::nullopt, tensor(1L)}).sizes() == IntArrayRef{2, 4, 5});
  CHECK(ember::index(y, {tensor(1L), tensor(2L)}).sizes() == IntArrayRef{4, 5});
  CHECK(equal(ember::index(y, {tensor(1L), tensor(2L)}), y[1][2]));
  Tensor copy = ember::index(y, {tensor(1L)});
  copy.fill_(0);
  CHECK(y.sum().item<int64_t>() == 7140);
  CHECK(ember::index(y, {tensor({true, false})}).sizes() == IntArrayRef{1, 3, 4, 5});
  CHECK_THROWS_MATCHES(ember::index(y, {std::nullopt}), InvalidArgument,
                       Catch::Message("index: expected at least one index tensor (an empty entry takes a whole dim), "
                                      "got none of 1"));
  std::ostringstream s;
  s << std::vector<TensorIndex>{None, "...", 0, true, Slice(1, None, 2), Slice(None, 3)};
  CHECK(s.str() == "(None, ..., 0, true, 1:" + std::to_string(INDEX_MAX) + ":2, 0:3:1)");
  std::ostringstream empty;
  empty << std::vector<TensorIndex>{};
  CHECK(empty.str() == "()");
}

