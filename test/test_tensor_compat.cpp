// libtorch spellings: layout(kStrided), as_strided, resize_, clone(t), var_mean /
// std_mean, to(other), with real values and libtorch's error texts.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

TEST_CASE("tensor compat: layout(kStrided) is accepted, other layouts are NotImplemented") {
  Tensor x = zeros({2}, TensorOptions(kFloat).layout(kStrided));
  CHECK(x.layout() == kStrided);
  CHECK(dvalues(ones({2}, layout(kStrided))) == std::vector<double>{1, 1});
  CHECK_THROWS_AS(TensorOptions().layout(kSparse), NotImplemented);
  CHECK_THROWS_WITH(TensorOptions().layout(kSparseCsr),
                    "TensorOptions::layout: ember supports only the strided layout (kStrided), got SparseCsr");
}

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

TEST_CASE("tensor compat: Storage::data_ptr() is the storage's base, shared by views") {
  Tensor x = arange(6).to(kFloat);
  Tensor v = x.index({indexing::Slice(2)});
  CHECK(x.storage().data_ptr().get() == x.data_ptr());
  CHECK(v.storage().data_ptr().get() == x.data_ptr());
  CHECK(v.storage().data_ptr().device() == Device(kCPU, 0));
  CHECK(v.storage().nbytes() == 24);
  CHECK(static_cast<char*>(v.data_ptr()) - static_cast<char*>(v.storage().data()) == 8);
}
