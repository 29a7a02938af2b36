// Tensor basics: creation ops, metadata, views sharing storage, copies, item, printing.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>
#include <sstream>

#include "test_util.h"

using namespace ember;
using namespace ember::indexing;

namespace {
std::vector<float> values(const Tensor& t) {
  Tensor c = t.to(kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}
std::vector<int64_t> ivalues(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}
std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
}  // namespace

TEST_CASE("tensor: creation ops infer dtypes as libtorch") {
  CHECK(zeros({2, 3}).dtype() == kFloat);
  CHECK(zeros({2, 3}).sizes() == std::vector<int64_t>{2, 3});
  CHECK(zeros({2}, kInt64).dtype() == kInt64);
  CHECK(full({2}, 3.5).dtype() == kFloat);
  CHECK(full({2}, 3).dtype() == kInt64);
  CHECK(full({2}, true).dtype() == kBool);
  CHECK(arange(5).dtype() == kInt64);
  CHECK(arange(0.0, 1.0, 0.25).dtype() == kFloat);
  CHECK(tensor({1, 2, 3}).dtype() == kInt64);
  CHECK(tensor({1.5, 2.0}).dtype() == kFloat);
  CHECK(tensor({true, false}).dtype() == kBool);
  CHECK(randint(10, {4}).dtype() == kInt64);
  CHECK(rand({2}).dtype() == kFloat);
  CHECK(zeros({2}).device() == Device(kCPU, 0));
}

TEST_CASE("tensor: creation ops give the right values") {
  CHECK(values(ones({2, 2})) == std::vector<float>{1, 1, 1, 1});
  CHECK(values(full({3}, 2.5)) == std::vector<float>{2.5, 2.5, 2.5});
  CHECK(ivalues(arange(5)) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(ivalues(arange(2, 11, 3)) == std::vector<int64_t>{2, 5, 8});
  CHECK(ivalues(arange(5, 0, -2)) == std::vector<int64_t>{5, 3, 1});
  CHECK(values(arange(0.0, 1.0, 0.25)) == std::vector<float>{0, 0.25, 0.5, 0.75});
  CHECK(values(linspace(0, 1, 5)) == std::vector<float>{0, 0.25, 0.5, 0.75, 1});
  CHECK(values(linspace(-1, 1, 1)) == std::vector<float>{-1});
  CHECK(values(eye(3)) == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  CHECK(values(eye(2, 3)) == std::vector<float>{1, 0, 0, 0, 1, 0});
  CHECK(ivalues(tensor({4, -5, 6})) == std::vector<int64_t>{4, -5, 6});
  CHECK(values(tensor({1.5, -2.25})) == std::vector<float>{1.5, -2.25});
  CHECK(values(zeros_like(ones({2}))) == std::vector<float>{0, 0});
  CHECK(values(full_like(ones({2}, kInt32), 7)) == std::vector<float>{7, 7});
  CHECK(full_like(ones({2}, kInt32), 7).dtype() == kInt32);
  CHECK(zeros({0, 3}).numel() == 0);
  CHECK(zeros({}).dim() == 0);
  CHECK(zeros({}).numel() == 1);
}

TEST_CASE("tensor: random ops are reproducible and in range") {
  manual_seed(42);
  Tensor a = rand({1000});
  manual_seed(42);
  Tensor b = rand({1000});
  CHECK(values(a) == values(b));
  for (float v : values(a)) REQUIRE((v >= 0 && v < 1));
  Tensor c = rand({1000});
  CHECK(values(c) != values(a));
  manual_seed(7);
  auto n = values(randn({20000}));
  double mean = 0, sq = 0;
  for (float v : n) mean += v, sq += double(v) * v;
  mean /= n.size();
  CHECK(std::abs(mean) < 0.05);
  CHECK(std::abs(sq / n.size() - 1.0) < 0.05);
  for (int64_t v : ivalues(randint(3, 8, {500}))) REQUIRE((v >= 3 && v < 8));
  CHECK_THROWS_AS(randint(5, 5, {2}), InvalidArgument);
}

TEST_CASE("tensor: creation errors are typed and name the problem") {
  CHECK_THROWS_AS(zeros({2, -1}), InvalidArgument);
  CHECK_THROWS_WITH(zeros({2, -1}), Catch::Contains("negative dimension"));
  CHECK_THROWS_WITH(arange(0, 5, 0), Catch::Contains("step must be nonzero"));
  CHECK_THROWS_AS(arange(5, 0, 1), InvalidArgument);
  CHECK_THROWS_AS(linspace(0, 1, -1), InvalidArgument);
  CHECK_THROWS_WITH(zeros({2}, Device("gpu:3")), Catch::Contains("Could not satisfy explicit device specification"));
}

TEST_CASE("tensor: views share storage with the right sizes, strides and offsets") {
  Tensor x = arange(24).reshape({2, 3, 4});
  CHECK(x.strides() == std::vector<int64_t>{12, 4, 1});
  CHECK(x.is_contiguous());
  Tensor t = x.transpose(0, 2);
  CHECK(t.sizes() == std::vector<int64_t>{4, 3, 2});
  CHECK(t.strides() == std::vector<int64_t>{1, 4, 12});
  CHECK(!t.is_contiguous());
  CHECK(t.storage().get() == x.storage().get());
  Tensor p = x.permute({2, 0, 1});
  CHECK(p.sizes() == std::vector<int64_t>{4, 2, 3});
  CHECK(p.strides() == std::vector<int64_t>{1, 12, 4});
  Tensor s = x.select(1, 2);
  CHECK(s.sizes() == std::vector<int64_t>{2, 4});
  CHECK(s.storage_offset() == 8);
  CHECK(ivalues(s) == std::vector<int64_t>{8, 9, 10, 11, 20, 21, 22, 23});
  Tensor sl = x.slice(2, 1, 4, 2);
  CHECK(sl.sizes() == std::vector<int64_t>{2, 3, 2});
  CHECK(sl.strides() == std::vector<int64_t>{12, 4, 2});
  CHECK(sl.storage_offset() == 1);
  Tensor n = x.narrow(1, 1, 2);
  CHECK(n.storage_offset() == 4);
  CHECK(n.sizes() == std::vector<int64_t>{2, 2, 4});
  Tensor u = x.unsqueeze(1);
  CHECK(u.sizes() == std::vector<int64_t>{2, 1, 3, 4});
  CHECK(u.squeeze().sizes() == x.sizes());
  CHECK(u.squeeze(1).sizes() == x.sizes());
  CHECK(x.unsqueeze(-1).sizes() == std::vector<int64_t>{2, 3, 4, 1});
  Tensor e = ones({3, 1}).expand({2, 3, 4});
  CHECK(e.strides() == std::vector<int64_t>{0, 1, 0});
  CHECK(x.flatten().sizes() == std::vector<int64_t>{24});
  CHECK(x.flatten(1).sizes() == std::vector<int64_t>{2, 12});
  CHECK(x.view({-1, 6}).sizes() == std::vector<int64_t>{4, 6});
  CHECK(x.view({4, 6}).storage().get() == x.storage().get());
  CHECK(ones({2, 3}).t().sizes() == std::vector<int64_t>{3, 2});
  // writing through a view changes the base
  x.select(0, 1).select(0, 0).fill_(-1);
  CHECK(ivalues(x.select(0, 1).select(0, 0)) == std::vector<int64_t>{-1, -1, -1, -1});
  CHECK(x.data_ptr<int64_t>()[12] == -1);
}

TEST_CASE("tensor: index with Slice, None, Ellipsis and integers") {
  Tensor x = arange(24).reshape({2, 3, 4});
  CHECK(x.index({1}).sizes() == std::vector<int64_t>{3, 4});
  CHECK(ivalues(x.index({1, 2})) == std::vector<int64_t>{20, 21, 22, 23});
  CHECK(ivalues(x.index({Slice(), 0, Slice(1, None, 2)})) == std::vector<int64_t>{1, 3, 13, 15});
  CHECK(x.index({None, Ellipsis, 0}).sizes() == std::vector<int64_t>{1, 2, 3});
  CHECK(x.index({Ellipsis, -1}).sizes() == std::vector<int64_t>{2, 3});
  CHECK(ivalues(x.index({-1, -1, -1})) == std::vector<int64_t>{23});
  CHECK_THROWS_AS(x.index({0, 0, 0, 0}), InvalidArgument);
  CHECK_THROWS_WITH(x.index({5}), Catch::Contains("index 5 is out of bounds for dimension 0 with size 2"));
}

TEST_CASE("tensor: split, chunk and unbind") {
  Tensor x = arange(10);
  auto parts = x.split(4);
  REQUIRE(parts.size() == 3);
  CHECK(ivalues(parts[2]) == std::vector<int64_t>{8, 9});
  auto chunks = x.chunk(3);
  REQUIRE(chunks.size() == 3);
  CHECK(chunks[0].numel() == 4);
  CHECK(chunks[2].numel() == 2);
  auto rows = arange(6).reshape({2, 3}).unbind(1);
  REQUIRE(rows.size() == 3);
  CHECK(ivalues(rows[1]) == std::vector<int64_t>{1, 4});
  CHECK(parts[1].storage().get() == x.storage().get());
}

TEST_CASE("tensor: view errors name sizes and leave the input unchanged") {
  Tensor x = arange(6).reshape({2, 3});
  CHECK_THROWS_WITH(x.view({4, 2}), Catch::Contains("shape '[4, 2]' is invalid for input of size 6"));
  CHECK_THROWS_WITH(x.t().view({6}), Catch::Contains("view size"));
  CHECK(ivalues(x.t().reshape({6})) == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  CHECK_THROWS_WITH(x.transpose(0, 2), Catch::Contains("dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  CHECK_THROWS_AS(x.permute({0, 0}), InvalidArgument);
  CHECK_THROWS_AS(x.expand({3, 3}), InvalidArgument);
  CHECK_THROWS_AS(x.view({-1, -1}), InvalidArgument);
  CHECK_THROWS_AS(x.narrow(1, 2, 2), InvalidArgument);
  CHECK_THROWS_AS(x.split(0), InvalidArgument);
  CHECK(x.sizes() == std::vector<int64_t>{2, 3});
  CHECK(ivalues(x) == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("tensor: contiguous, clone, copy_ and to") {
  Tensor x = arange(6, kFloat).reshape({2, 3});
  Tensor t = x.t();
  Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c.storage().get() != x.storage().get());
  CHECK(values(c) == std::vector<float>{0, 3, 1, 4, 2, 5});
  CHECK(x.contiguous().is_same(x));
  Tensor cl = x.clone();
  cl.fill_(9);
  CHECK(values(x) == std::vector<float>{0, 1, 2, 3, 4, 5});
  Tensor dst = zeros({2, 3}, kInt32);
  dst.copy_(tensor({1.7, -2.7, 3.2}));  // broadcast + float -> int truncation
  CHECK(ivalues(dst) == std::vector<int64_t>{1, -2, 3, 1, -2, 3});
  CHECK_THROWS_AS(dst.copy_(ones({4})), InvalidArgument);
  CHECK(x.to(kInt64).dtype() == kInt64);
  CHECK(x.to(kFloat).is_same(x));
  CHECK(!x.to(kFloat, false, true).is_same(x));
  CHECK(ivalues(tensor({2.9, -0.5}).to(kInt64)) == std::vector<int64_t>{2, 0});
  CHECK(values(tensor({300}).to(kUInt8)) == std::vector<float>{44});
  CHECK(values(tensor({1.0}).to(kHalf)) == std::vector<float>{1});
}

TEST_CASE("tensor: data_ptr checks the dtype and item converts") {
  Tensor x = tensor({1.5});
  CHECK(*x.data_ptr<float>() == 1.5f);
  CHECK_THROWS_WITH(x.data_ptr<double>(), Catch::Contains("expected scalar type Double but found Float"));
  CHECK(x.item<float>() == 1.5f);
  CHECK(x.item<double>() == 1.5);
  CHECK(x.item<int64_t>() == 1);
  CHECK(tensor({7}).item<int64_t>() == 7);
  CHECK(tensor({true}).item<bool>());
  CHECK_THROWS_WITH(ones({2}).item<float>(), Catch::Contains("a Tensor with 2 elements cannot be converted to Scalar"));
  CHECK_THROWS_AS(Tensor().item<float>(), InvalidArgument);
}

TEST_CASE("tensor: from_blob wraps memory and runs the deleter") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data, {2, 3});
  CHECK(t.data_ptr<float>() == data);
  t.mul_(2);
  CHECK(data[5] == 12);
  int deleted = 0;
  {
    Tensor d = from_blob(data, {6}, [&](void* p) { deleted += p == data; }, kFloat);
    Tensor view = d.slice(0, 1, 3);
    d = Tensor();
    CHECK(deleted == 0);
  }
  CHECK(deleted == 1);
  int64_t strides[] = {1, 2};
  Tensor st = from_blob(data, {2, 3}, IntArrayRef(strides, 2));
  CHECK(values(st) == std::vector<float>{2, 6, 10, 4, 8, 12});
  {
    Tensor both = from_blob(data, {2, 3}, IntArrayRef(strides, 2), [&](void*) { ++deleted; }, kFloat);
    CHECK(both.strides() == IntArrayRef({1, 2}));
    CHECK(values(both) == std::vector<float>{2, 6, 10, 4, 8, 12});
  }
  CHECK(deleted == 2);
}

TEST_CASE("tensor: unfold views every window, and its gradient sums them back") {
  const Tensor x = arange(10.0);
  const Tensor windows = x.unfold(0, 3, 3);
  CHECK(values(windows) == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(windows.storage().get() == x.storage().get());
  CHECK(x.unfold(0, 10, 1).sizes() == IntArrayRef({1, 10}));
  CHECK(x.unfold(-1, 1, 5).sizes() == IntArrayRef({2, 1}));
  const Tensor m = arange(9.0).view({3, 3});
  CHECK(m.unfold(0, 2, 1).sizes() == IntArrayRef({2, 3, 2}));
  CHECK(m.unfold(1, 2, 1).strides() == IntArrayRef({3, 1, 1}));
  CHECK(values(m.unfold(1, 2, 1)[2][1]) == std::vector<float>{7, 8});
  CHECK(tensor(5.0).unfold(0, 1, 1).sizes() == IntArrayRef({1}));
  CHECK_THROWS_WITH(m.unfold(0, 4, 1), "maximum size for tensor at dimension 0 is 3 but size is 4");
  CHECK_THROWS_WITH(m.unfold(0, 2, 0), "step is 0 but must be > 0");
  CHECK_THROWS_AS(m.unfold(3, 2, 1), InvalidArgument);
  // libtorch 1.13's gradient of overlapping windows [0, 1, 2] and [2, 3, 4].
  const Tensor leaf = arange(6.0).requires_grad_();
  const Tensor u = leaf.unfold(0, 3, 2);
  CHECK(std::string(u.grad_fn()->name()) == "UnfoldBackward0");
  (u * arange(6.0).view({2, 3})).sum().backward();
  CHECK(values(leaf.grad()) == std::vector<float>{0, 1, 5, 4, 5, 0});
  CHECK(ember_test::grad::check([](const autograd::variable_list& v) { return v[0].unfold(1, 3, 2) * 1.5; },
                    {ember_test::grad::input({2, 7}, -1, 1)}));
  CHECK(ember_test::grad::check_second([](const autograd::variable_list& v) { return v[0].unfold(0, 2, 1).pow(2); },
                           {ember_test::grad::input({5}, -1, 1)}));
}

TEST_CASE("tensor: narrow_copy and is_set_to, as libtorch's") {
  const Tensor x = arange(6.0).view({2, 3});
  const Tensor copy = x.narrow_copy(1, 1, 2);
  CHECK(values(copy) == std::vector<float>{1, 2, 4, 5});
  CHECK((copy.is_contiguous() && copy.storage().get() != x.storage().get()));
  CHECK(values(narrow_copy(x, 1, -1, 1)) == std::vector<float>{2, 5});
  CHECK_THROWS_WITH(x.narrow_copy(1, 2, 2), "start (2) + length (2) exceeds dimension size (3).");
  const Tensor y = arange(6.0);
  CHECK(y.is_set_to(y));
  CHECK(y.is_set_to(y.view({6})));
  CHECK(y.view({2, 3}).is_set_to(y.view({2, 3})));
  CHECK_FALSE(y.is_set_to(y.view({2, 3})));
  CHECK_FALSE(y.is_set_to(y.clone()));
  CHECK_FALSE(y.is_set_to(y.slice(0, 1)));
}

TEST_CASE("tensor: prints as libtorch") {
  CHECK(printed(ones({2, 2})) == " 1  1\n 1  1\n[ CPUFloatType{2,2} ]");
  CHECK(printed(tensor({1, 2, 3})) == " 1\n 2\n 3\n[ CPULongType{3} ]");
  CHECK(printed(tensor({0.5, 1.25})) == " 0.5000\n 1.2500\n[ CPUFloatType{2} ]");
  CHECK(printed(zeros({0})) == "[ CPUFloatType{0} ]");
  CHECK(printed(full({}, 3.5)) == "3.5\n[ CPUFloatType{} ]");
  CHECK(printed(ones({2}, kInt32)).find("[ CPUIntType{2} ]") != std::string::npos);
  CHECK(fmt::format("{}", Device("gpu:1")) == "cuda:1");
  CHECK(fmt::format("{}", kBFloat16) == "bfloat16");
  CHECK(fmt::format("{}", ones({1}, kDouble)) == " 1\n[ CPUDoubleType{1} ]");
}
