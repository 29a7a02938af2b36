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
  CHECK_THROWS_WITH(x.index({tensor({0.5})}), Catch::StartsWith("tensors used as indices must be long, byte or bool tensors"));
  CHECK_THROWS_WITH(x.index({tensor({0}, kInt32)}), Catch::StartsWith("tensors used as indices must be long, byte or bool tensors"));
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
