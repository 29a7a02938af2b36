// Selection ops: gather, scatter, scatter_add, masked_fill, one_hot, sort, argsort, topk.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using V = std::vector<double>;

namespace {
const ScalarType kAllTypes[] = {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};
}  // namespace

TEST_CASE("selection: gather picks along a dim, for every dtype") {
  for (ScalarType t : kAllTypes) {
    INFO(name(t));
    Tensor a = tensor({{1, 0, 1}, {0, 1, 1}}).to(t);
    if (t != kBool) a = tensor({{1, 2, 3}, {4, 5, 6}}).to(t);
    Tensor g = gather(a, 1, tensor({{2, 0}, {1, 1}}));
    CHECK(g.dtype() == t);
    CHECK(g.sizes() == std::vector<int64_t>{2, 2});
    CHECK(dvalues(g) == (t == kBool ? V{1, 1, 1, 1} : V{3, 1, 5, 5}));
  }
  Tensor a = arange(12, kFloat).reshape({3, 4});
  CHECK(dvalues(a.gather(0, tensor({{2, 0, 1, 2}}))) == V{8, 1, 6, 11});
  CHECK(dvalues(gather(a, -1, tensor({{3}, {0}, {1}}))) == V{3, 4, 9});
  // strided self and index, broadcast (expanded) index
  Tensor at = a.t();  // 4x3
  CHECK(dvalues(gather(at, 1, tensor({{2}, {0}, {1}, {1}}))) == V{8, 1, 6, 7});
  Tensor idx = tensor({{0, 2}}).expand({4, 2});
  CHECK(dvalues(gather(at, 1, idx)) == V{0, 8, 1, 9, 2, 10, 3, 11});
  Tensor idx_t = tensor({{1, 0}, {2, 1}}).t();  // non-contiguous index
  CHECK(dvalues(gather(a, 0, idx_t)) == V{4, 9, 0, 5});
  // 0-dim
  CHECK(gather(tensor(7.5), 0, tensor(int64_t(0))).item<double>() == 7.5);
  // empty index
  CHECK(gather(a, 1, zeros({3, 0}, kLong)).sizes() == std::vector<int64_t>{3, 0});
}

TEST_CASE("selection: gather errors") {
  Tensor a = arange(6, kFloat).reshape({2, 3});
  CHECK_THROWS_MATCHES(gather(a, 1, tensor({{0, 5}, {1, 0}})), InvalidArgument,
                       Catch::Message("gather: index 5 is out of bounds for dimension 1 with size 3"));
  CHECK_THROWS_MATCHES(gather(a, 1, tensor({{0, -1}, {1, 0}})), InvalidArgument,
                       Catch::Message("gather: index -1 is out of bounds for dimension 1 with size 3"));
  CHECK_THROWS_MATCHES(gather(a, 2, tensor({{0}})), InvalidArgument,
                       Catch::Message("gather: dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  CHECK_THROWS_MATCHES(gather(a, 1, tensor({{0}}, kInt)), InvalidArgument,
                       Catch::Message("gather(): Expected dtype int64 for index, got Int"));
  CHECK_THROWS_AS(gather(a, 1, tensor({0, 1})), InvalidArgument);
  CHECK_THROWS_WITH(gather(a, 1, tensor({0, 1})), Catch::Contains("Index tensor must have the same number of dimensions as input tensor"));
  CHECK_THROWS_MATCHES(gather(a, 1, tensor({{0, 1}, {1, 0}, {1, 1}})), InvalidArgument,
                       Catch::Message("gather: Size does not match at dimension 0 expected index [3, 2] to be smaller "
                                      "than self [2, 3] apart from dimension 1"));
}

TEST_CASE("selection: scatter with tensors, values and reductions") {
  Tensor z = zeros({2, 3});
  Tensor idx = tensor({{2, 0}, {1, 1}});
  Tensor src = tensor({{1.5, 2.5}, {3.5, 4.5}});
  CHECK(dvalues(scatter(z, 1, idx, src)) == V{2.5, 0, 1.5, 0, 4.5, 0});
  CHECK(dvalues(z) == V{0, 0, 0, 0, 0, 0});  // out-of-place leaves self alone
  CHECK(dvalues(scatter(z, 1, idx, 7)) == V{7, 0, 7, 0, 7, 0});
  CHECK(dvalues(scatter_add(z, 1, idx, src)) == V{2.5, 0, 1.5, 0, 8, 0});
  CHECK(dvalues(scatter(ones({2, 3}), 1, idx, src, "add")) == V{3.5, 1, 2.5, 1, 9, 1});
  CHECK(dvalues(scatter(full({2, 3}, 2.0), 1, idx, src, "multiply")) == V{5, 2, 3, 2, 2 * 3.5 * 4.5, 2});
  CHECK(dvalues(scatter(full({2, 3}, 2.0), 1, idx, 3.0, "multiply")) == V{6, 2, 6, 2, 18, 2});
  // in place, on a strided (transposed) self, with a larger src
  Tensor base = zeros({3, 2});
  Tensor view = base.t();
  view.scatter_(1, idx, arange(9, kFloat).reshape({3, 3}));
  CHECK(dvalues(base) == V{1, 0, 0, 4, 0, 0});
  Tensor acc = zeros({4}, kLong);
  acc.scatter_add_(0, tensor({0, 0, 3, 0}), tensor({1, 2, 3, 4}));
  CHECK(dvalues(acc) == V{7, 0, 0, 3});
  // every dtype
  for (ScalarType t : kAllTypes) {
    INFO(name(t));
    Tensor s = ones({3}, t);
    Tensor r = zeros({4}, t).scatter(0, tensor({3, 1}), s);
    CHECK(dvalues(r) == V{0, 1, 0, 1});
    CHECK(dvalues(zeros({4}, t).scatter_add(0, tensor({2, 2}), s)) == (t == kBool ? V{0, 0, 1, 0} : V{0, 0, 2, 0}));
  }
}

TEST_CASE("selection: scatter errors leave self unchanged") {
  Tensor a = arange(6, kFloat).reshape({2, 3});
  CHECK_THROWS_MATCHES(a.scatter_(1, tensor({{0, 1}, {1, 5}}), 9.0), InvalidArgument,
                       Catch::Message("scatter: index 5 is out of bounds for dimension 1 with size 3"));
  CHECK(dvalues(a) == V{0, 1, 2, 3, 4, 5});
  CHECK_THROWS_MATCHES(a.scatter_add_(1, tensor({{0, 7}, {1, 0}}), ones({2, 2})), InvalidArgument,
                       Catch::Message("scatter_add: index 7 is out of bounds for dimension 1 with size 3"));
  CHECK(dvalues(a) == V{0, 1, 2, 3, 4, 5});
  CHECK_THROWS_MATCHES(scatter(a, 1, tensor({{0, 1}, {1, 0}}), ones({1, 1})), InvalidArgument,
                       Catch::Message("scatter: Expected index [2, 2] to be smaller than self [2, 3] apart from "
                                      "dimension 1 and to be smaller size than src [1, 1]"));
  CHECK_THROWS_MATCHES(scatter(a, 1, tensor({{0}}), ones({1, 1}, kDouble)), InvalidArgument,
                       Catch::Message("scatter(): Expected self.dtype to be equal to src.dtype (got Float and "
                                      "Double)"));
  CHECK_THROWS_MATCHES(scatter(a, 1, tensor({{0}}), ones({1, 1}), "max"), InvalidArgument,
                       Catch::Message("scatter: reduce argument must be either add or multiply, got 'max'"));
  CHECK_THROWS_MATCHES(scatter(a, 1, tensor({{0}}, kInt), 1), InvalidArgument,
                       Catch::Message("scatter(): Expected dtype int64 for index, got Int"));
}

TEST_CASE("selection: masked_fill broadcasts the mask") {
  Tensor a = arange(6, kFloat).reshape({2, 3});
  Tensor m = tensor({true, false, true});
  CHECK(dvalues(masked_fill(a, m, -1.5)) == V{-1.5, 1, -1.5, -1.5, 4, -1.5});
  CHECK(dvalues(a.masked_fill(m, tensor(2.0))) == V{2, 1, 2, 2, 4, 2});
  Tensor i = zeros({2, 3}, kInt);
  Tensor r = i.masked_fill(m, 2.5);
  CHECK(r.dtype() == kInt);
  CHECK(dvalues(r) == V{2, 0, 2, 2, 0, 2});
  // out-of-place broadcasts self against the mask; in place the mask broadcasts to self
  CHECK(zeros({3}).masked_fill(ones({2, 3}, kBool), 1.0).sizes() == std::vector<int64_t>{2, 3});
  Tensor b = zeros({2, 3});
  b.masked_fill_(tensor({{true}, {false}}), 4);
  CHECK(dvalues(b) == V{4, 4, 4, 0, 0, 0});
  Tensor h = ones({3}, kHalf);
  h.masked_fill_(tensor({false, true, false}), -std::numeric_limits<double>::infinity());
  CHECK(std::isinf(dvalues(h)[1]));
  CHECK_THROWS_MATCHES(zeros({3}).masked_fill_(ones({2, 3}, kBool), 1.0), InvalidArgument,
                       Catch::Message("masked_fill_: output with shape [3] doesn't match the broadcast shape [2, 3]"));
  CHECK_THROWS_MATCHES(a.masked_fill(tensor({1, 0, 1}), 1.0), InvalidArgument,
                       Catch::Message("masked_fill: only supports boolean masks, but got mask with dtype Long"));
  CHECK_THROWS_MATCHES(a.masked_fill(m, ones({2})), InvalidArgument,
                       Catch::Message("masked_fill_: only supports a 0-dimensional value tensor, but got tensor with "
                                      "1 dimension(s)."));
  CHECK_THROWS_AS(a.masked_fill(tensor({true, false}), 1.0), InvalidArgument);
}

TEST_CASE("selection: one_hot") {
  Tensor o = one_hot(tensor({0, 2}));
  CHECK(o.dtype() == kLong);
  CHECK(o.sizes() == std::vector<int64_t>{2, 3});
  CHECK(dvalues(o) == V{1, 0, 0, 0, 0, 1});
  CHECK(one_hot(tensor({{1}, {3}}), 5).sizes() == std::vector<int64_t>{2, 1, 5});
  CHECK(dvalues(one_hot(tensor({{1}, {3}}), 5)) == V{0, 1, 0, 0, 0, 0, 0, 0, 1, 0});
  CHECK(one_hot(zeros({0}, kLong), 3).sizes() == std::vector<int64_t>{0, 3});
  CHECK_THROWS_MATCHES(one_hot(tensor({0, 3}), 2), InvalidArgument,
                       Catch::Message("one_hot: Class values must be smaller than num_classes (2), got 3"));
  CHECK_THROWS_MATCHES(one_hot(tensor({0, -1}), 5), InvalidArgument,
                       Catch::Message("one_hot: Class values must be non-negative, got -1"));
  CHECK_THROWS_MATCHES(one_hot(tensor({0, 1}, kInt), 5), InvalidArgument,
                       Catch::Message("one_hot: is only applicable to index tensor, got dtype Int"));
  CHECK_THROWS_MATCHES(one_hot(zeros({0}, kLong)), InvalidArgument,
                       Catch::Message("one_hot: Can not infer total number of classes from empty tensor."));
}

TEST_CASE("selection: sort and argsort, stable, NaN largest") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto [v, i] = sort(tensor({3.0, nan, 1.0, 2.0, -inf}, kDouble), -1, true);
  auto vv = dvalues(v);
  CHECK(std::isnan(vv[0]));
  CHECK(V(vv.begin() + 1, vv.end()) == V{3, 2, 1, -inf});
  CHECK(dvalues(i) == V{1, 0, 3, 2, 4});
  auto [va, ia] = tensor({3.0, nan, 1.0, 2.0, -inf}, kDouble).sort();
  CHECK(dvalues(ia) == V{4, 2, 3, 0, 1});
  (void)va;
  // ties keep their order in both directions
  CHECK(dvalues(argsort(tensor({2, 1, 2, 1}))) == V{1, 3, 0, 2});
  CHECK(dvalues(argsort(tensor({2, 1, 2, 1}), 0, true)) == V{0, 2, 1, 3});
  CHECK(dvalues(argsort(tensor({2, 1, 2, 1}), true, 0, true)) == V{0, 2, 1, 3});
  // along dim 0 of a strided input
  Tensor m = tensor({{3, 1}, {1, 2}, {2, 0}}).t();  // 2x3: {3,1,2},{1,2,0}
  auto [sv, si] = m.sort(0);
  CHECK(dvalues(sv) == V{1, 1, 0, 3, 2, 2});
  CHECK(dvalues(si) == V{1, 0, 1, 0, 1, 0});
  for (ScalarType t : kAllTypes) {
    INFO(name(t));
    Tensor x = tensor({1, 0, 1, 0}).to(t);
    if (t != kBool) x = tensor({5, -3, 4, 0}).to(t == kByte ? kShort : t).abs().to(t);
    auto [s, idx] = sort(x, 0, true);
    CHECK(s.dtype() == t);
    CHECK(dvalues(s) == (t == kBool ? V{1, 1, 0, 0} : V{5, 4, 3, 0}));
    CHECK(dvalues(idx) == (t == kBool ? V{0, 2, 1, 3} : V{0, 2, 1, 3}));
  }
  CHECK(std::get<0>(sort(tensor(2.0))).item<double>() == 2.0);
  CHECK_THROWS_MATCHES(sort(zeros({2, 3}), 2), InvalidArgument,
                       Catch::Message("sort: dimension out of range (expected to be in range of [-2, 1], but got 2)"));
}

TEST_CASE("selection: topk") {
  Tensor x = tensor({{1.0, 5.0, 3.0, 4.0}, {8.0, 6.0, 7.0, 0.5}});
  auto [v, i] = topk(x, 2);
  CHECK(dvalues(v) == V{5, 4, 8, 7});
  CHECK(dvalues(i) == V{1, 3, 0, 2});
  auto [sv, si] = x.topk(1, 0, false);
  CHECK(dvalues(sv) == V{1, 5, 3, 0.5});
  CHECK(dvalues(si) == V{0, 0, 0, 1});
  CHECK(std::get<0>(topk(x, 0)).sizes() == std::vector<int64_t>{2, 0});
  CHECK_THROWS_MATCHES(topk(x, 5), InvalidArgument,
                       Catch::Message("topk: selected index k out of range (k = 5, dimension 1 has size 4)"));
  CHECK_THROWS_AS(topk(x, -1), InvalidArgument);
  CHECK_THROWS_WITH(topk(x, -1), Catch::Contains("selected index k out of range"));
  CHECK_THROWS_AS(topk(x, 1, 3), InvalidArgument);
  CHECK_THROWS_WITH(topk(x, 1, 3), Catch::Contains("dimension out of range"));
}

TEST_CASE("selection: a backend's kernels report bad indices through device memory") {
  // The test accelerator (npu) runs the CPU kernels on its own memory: the status block
  // lives on the device and comes back through the backend's copy.
  ember::testing::ensure_fake_accelerator();
  const Device npu("npu:0");
  Tensor a = arange(12, kFloat).reshape({3, 4});
  Tensor idx = tensor({{3, 0}, {1, 1}, {2, 3}});
  Tensor g = gather(a.to(npu), 1, idx.to(npu));
  CHECK(g.device() == npu);
  CHECK(dvalues(g) == V{3, 0, 5, 5, 10, 11});
  Tensor s = zeros({3, 4}, TensorOptions(kFloat).device(npu)).scatter_add(1, idx.to(npu), ones({3, 2}).to(npu));
  CHECK(dvalues(s) == V{1, 0, 0, 1, 0, 2, 0, 0, 0, 0, 1, 1});
  auto [v, i] = sort(a.to(npu), 1, true);
  CHECK(dvalues(v) == V{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  CHECK(dvalues(i) == V{3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0});
  Tensor on_npu = a.to(npu);
  CHECK_THROWS_MATCHES(gather(on_npu, 1, tensor({{4}}).to(npu)), InvalidArgument,
                       Catch::Message("gather: index 4 is out of bounds for dimension 1 with size 4"));
  CHECK_THROWS_MATCHES(on_npu.scatter_(0, tensor({{0, -2}}).to(npu), 5.0), InvalidArgument,
                       Catch::Message("scatter: index -2 is out of bounds for dimension 0 with size 3"));
  CHECK(dvalues(on_npu) == dvalues(a));
}
