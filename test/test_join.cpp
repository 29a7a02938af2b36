// cat, stack, split/chunk/unbind as free functions, add_n, allclose and equal (isclose: test_compare.cpp).
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember_test::fresh_seed;

TEST_CASE("join: cat along any dim with dtype promotion") {
  Tensor a = arange(6).reshape({2, 3}), b = arange(6, 12).reshape({2, 3});
  Tensor c0 = cat({a, b});
  CHECK(c0.sizes() == std::vector<int64_t>{4, 3});
  CHECK(dvalues(c0) == std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor c1 = cat({a, b}, -1);
  CHECK(c1.sizes() == std::vector<int64_t>{2, 6});
  CHECK(dvalues(c1) == std::vector<double>{0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11});
  Tensor mixed = cat({ones({2}, kInt32), full({1}, 0.5)});
  CHECK(mixed.dtype() == kFloat);
  CHECK(dvalues(mixed) == std::vector<double>{1, 1, 0.5});
  CHECK(cat({a.t(), b.t()}, 1).sizes() == std::vector<int64_t>{3, 4});
  CHECK(dvalues(cat({a.t(), b.t()}, 1)) == std::vector<double>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  CHECK(cat({zeros({0, 3}), a}).sizes() == std::vector<int64_t>{2, 3});
  CHECK(cat({zeros({0}), a}).sizes() == std::vector<int64_t>{2, 3});  // legacy empty 1-D is skipped
}

TEST_CASE("join: stack inserts a new dim") {
  Tensor a = tensor({1, 2}), b = tensor({3, 4});
  CHECK(stack({a, b}).sizes() == std::vector<int64_t>{2, 2});
  CHECK(dvalues(stack({a, b}, 1)) == std::vector<double>{1, 3, 2, 4});
  CHECK(stack({a, b}, -1).sizes() == std::vector<int64_t>{2, 2});
  CHECK(stack({ones({2, 3}), ones({2, 3})}, 2).sizes() == std::vector<int64_t>{2, 3, 2});
}

TEST_CASE("join: split, chunk and unbind as free functions") {
  Tensor x = arange(10).reshape({2, 5});
  auto parts = split(x, 2, 1);
  REQUIRE(parts.size() == 3);
  CHECK(dvalues(parts[2]) == std::vector<double>{4, 9});
  auto chunks = chunk(x, 2, -1);
  REQUIRE(chunks.size() == 2);
  CHECK(chunks[0].sizes() == std::vector<int64_t>{2, 3});
  auto rows = unbind(x);
  REQUIRE(rows.size() == 2);
  CHECK(dvalues(rows[1]) == std::vector<double>{5, 6, 7, 8, 9});
}

TEST_CASE("join: add_n sums same-shaped tensors without touching the inputs") {
  Tensor a = tensor({1.0, 2.0}), b = tensor({10.0, 20.0}), c = tensor({100, 200});
  Tensor s = add_n({a, b, c});
  CHECK(dvalues(s) == std::vector<double>{111, 222});
  CHECK(s.dtype() == kFloat);
  CHECK(dvalues(a) == std::vector<double>{1, 2});
  CHECK(!add_n({a}).is_same(a));
  CHECK_THROWS_WITH(add_n({a, ones({3})}), Catch::Contains("all inputs must have the same shape"));
  CHECK_THROWS_AS(add_n({}), InvalidArgument);
}

TEST_CASE("join: errors name the shapes and dims") {
  Tensor a = ones({2, 3});
  CHECK_THROWS_WITH(cat({a, ones({2, 4})}), Catch::Contains("sizes of tensors must match except in dimension 0"));
  CHECK_THROWS_WITH(cat({a, ones({2})}), Catch::Contains("tensors must have same number of dimensions"));
  CHECK_THROWS_WITH(cat({a, a}, 2), Catch::Contains("dimension out of range"));
  CHECK_THROWS_WITH(cat({}), Catch::Contains("expected a non-empty list"));
  CHECK_THROWS_WITH(cat({zeros({})}), Catch::Contains("zero-dimensional tensor cannot be concatenated"));
  CHECK_THROWS_WITH(stack({a, ones({3, 2})}), Catch::Contains("expects each tensor to be equal size"));
  CHECK_THROWS_AS(stack({a}, 3), InvalidArgument);
  CHECK(dvalues(a) == std::vector<double>(6, 1.0));
}

TEST_CASE("join: allclose and equal") {
  Tensor a = tensor({1.0, 2.0, 3.0});
  CHECK(allclose(a, a + 1e-9));
  CHECK(!allclose(a, a + 1e-3));
  CHECK(allclose(a, a + 1e-3, 1e-2));
  CHECK(allclose(a, tensor({1.0}).expand({3}) * tensor({1.0, 2.0, 3.0})));
  CHECK(!allclose(tensor({double(NAN)}), tensor({double(NAN)})));
  CHECK(allclose(tensor({double(NAN)}), tensor({double(NAN)}), 1e-5, 1e-8, true));
  CHECK(equal(a, a.clone()));
  CHECK(!equal(a, tensor({1.0, 2.0})));
  CHECK(!equal(a, tensor({1.0, 2.0, 4.0})));
  CHECK(equal(tensor({1, 2}), tensor({1.0, 2.0})));
  CHECK_THROWS_AS(allclose(a, ones({2})), InvalidArgument);
}
