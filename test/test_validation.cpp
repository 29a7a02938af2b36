// Input validation and edge cases found in review: each gets a typed error or the
// value libtorch gives, and the inputs stay as they were.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "test_util.h"

#include <cmath>
#include <sstream>

using namespace ember;
using ember_test::dvalues;
using ember_test::fresh_seed;

TEST_CASE("validation: addmm checks the input dtype and adds beta * c once") {
  Tensor a = ones({2, 3}), b = ones({3, 2});
  CHECK_THROWS_WITH(addmm(zeros({2, 2}, kHalf), a, b), Catch::Contains("self and mat2 must have the same dtype, but got Half and Float"));
  CHECK_THROWS_AS(addmm(zeros({3, 3}), a, b), InvalidArgument);
  CHECK(dvalues(addmm(tensor({1.0f, 2.0f}), a, b, 0.5, 2)) == std::vector<double>{6.5, 7, 6.5, 7});
  Tensor nan_c = full({2, 2}, NAN);
  CHECK(dvalues(addmm(nan_c, a, b, 0, 1)) == std::vector<double>{3, 3, 3, 3});  // beta 0 ignores c
}

TEST_CASE("validation: infinite and huge scalars are well defined") {
  Tensor m = full({2}, -INFINITY);
  CHECK(std::isinf(dvalues(m)[0]));
  CHECK(dvalues(clamp(tensor({-5.0f, 5.0f}), -INFINITY, 0)) == std::vector<double>{-5, 0});
  Tensor x = ones({2});
  x.fill_(INFINITY);
  CHECK(std::isinf(dvalues(x)[1]));
  CHECK(Scalar(INFINITY).to_long() == INT64_MAX);
  CHECK(Scalar(-1e300).to_long() == INT64_MIN);
  CHECK(Scalar(double(NAN)).to_long() == 0);
  CHECK(dvalues(add(ones({1}, kDouble), ones({1}, kDouble), 1e300))[0] == Approx(1e300));
}

TEST_CASE("validation: 0-d tensors view, reshape and flatten like torch") {
  Tensor s = scalar_tensor(2.0);
  CHECK(s.dtype() == kFloat);
  CHECK(s.reshape({1}).sizes() == std::vector<int64_t>{1});
  CHECK(s.view({1, 1}).sizes() == std::vector<int64_t>{1, 1});
  CHECK(ones({3}).sum().flatten().sizes() == std::vector<int64_t>{1});
  CHECK(s.transpose(0, -1).dim() == 0);
  CHECK_THROWS_AS(s.transpose(5, 7), InvalidArgument);
  CHECK_THROWS_AS(s.squeeze(3), InvalidArgument);
  CHECK_THROWS_AS(s.size(0), InvalidArgument);
  CHECK(s.flatten(0, -1).sizes() == std::vector<int64_t>{1});
  CHECK_THROWS_WITH(s.flatten(-2, -2), Catch::Contains("flatten"));  // found by fuzz_views
  CHECK_THROWS_AS(s.flatten(1), InvalidArgument);
}

TEST_CASE("validation: sizes that overflow and negative expands are rejected") {
  CHECK_THROWS_WITH(zeros({int64_t(1) << 40, int64_t(1) << 40}), Catch::Contains("too large to address"));
  CHECK_THROWS_WITH(ones({1}).expand({-2}), Catch::Contains("invalid size -2"));
  CHECK_THROWS_WITH(ones({1}).expand({INT64_MAX, 2}), Catch::Contains("more elements than an int64 can count"));
  CHECK_THROWS_WITH(empty({-1}), "empty: negative dimension in size [-1]");
  CHECK_THROWS_WITH(full({2, -3}, 1.0), "full: negative dimension in size [2, -3]");
  CHECK_THROWS_WITH(empty({INT64_MAX}), Catch::Contains("[9223372036854775807] and dtype float32 is too large to address"));
  CHECK_THROWS_WITH(arange(0, 1e300, 1e-300), Catch::Contains("arange: invalid size inf, possible overflow? (start 0, end 1e+300, step 1e-300)"));
  CHECK_THROWS_WITH(arange(INT64_MIN, INT64_MAX), Catch::Contains("possible overflow"));
  CHECK(arange(INT64_MIN, INT64_MAX, int64_t(1) << 62).numel() == 4);
  // Larger than any device holds: OutOfMemory naming the request, not std::bad_alloc.
  CHECK_THROWS_WITH(empty({int64_t(1) << 40}), Catch::Contains("requested 4398046511104 bytes"));
  CHECK_THROWS_AS(empty({int64_t(1) << 40}), OutOfMemory);
  CHECK_THROWS_AS(Device(kCUDA, -5), InvalidArgument);
  CHECK_THROWS_WITH(Device(kCPU, 40000), Catch::Contains("expected -1 (the current device) or 0..32767"));
}

TEST_CASE("validation: undefined tensors give InvalidArgument, not a crash") {
  Tensor u;
  CHECK_THROWS_AS(sub(u, ones({1})), InvalidArgument);
  CHECK_THROWS_AS(addcdiv(ones({1}), u, ones({1})), InvalidArgument);
  CHECK_THROWS_AS(ones({1}).expand_as(u), InvalidArgument);
  CHECK_THROWS_AS(ones({1}).view_as(u), InvalidArgument);
  CHECK_THROWS_AS(where(u, 1, 2), InvalidArgument);
}

TEST_CASE("validation: integer results reject floating parameters") {
  Tensor i = tensor({1, 2});
  CHECK_THROWS_WITH(add(i, i, 1.5), Catch::Contains("argument alpha must not be a floating point number"));
  CHECK_THROWS_WITH(sub(i, i, 0.5), Catch::Contains("argument alpha"));
  CHECK(dvalues(add(i, i, 2)) == std::vector<double>{3, 6});
  CHECK(dvalues(add(i.to(kFloat), i, 1.5)) == std::vector<double>{2.5, 5});
  CHECK_THROWS_WITH(i.clamp_(0.5), Catch::Contains("result type Float can't be cast to the desired output type Long"));
  CHECK(dvalues(i) == std::vector<double>{1, 2});
}

TEST_CASE("validation: numbers on the left of operators and where with two numbers") {
  Tensor x = tensor({0.25f, 1.0f, 3.0f});
  CHECK(dvalues(0.5 < x) == std::vector<double>{0, 1, 1});
  CHECK(dvalues(1 == x) == std::vector<double>{0, 1, 0});
  CHECK(dvalues(1 >= x) == std::vector<double>{1, 1, 0});
  CHECK(dvalues(1 != x) == std::vector<double>{1, 0, 1});
  CHECK(dvalues(5 % tensor({2, 3})) == std::vector<double>{1, 2});
  Tensor w = where(x > 0.5, 1.5, 0);
  CHECK(w.dtype() == kFloat);
  CHECK(dvalues(w) == std::vector<double>{0, 1.5, 1.5});
  CHECK(where(x > 0.5, 1, 0).dtype() == kInt64);
}

TEST_CASE("validation: tensor() keeps small integer dtypes, equal is exact for int64") {
  CHECK(tensor(std::vector<uint8_t>{1, 2}).dtype() == kUInt8);
  CHECK(tensor(std::vector<int16_t>{1, 2}).dtype() == kInt16);
  CHECK(tensor({1, 2}).dtype() == kInt64);
  const int64_t big = (int64_t(1) << 53) + 1;
  CHECK(!equal(tensor(std::vector<int64_t>{big}), tensor(std::vector<int64_t>{big - 1})));
  CHECK(equal(tensor(std::vector<int64_t>{big}), tensor(std::vector<int64_t>{big})));
}

TEST_CASE("validation: matmul_out writes into its output without a temporary") {
  Tensor out = empty({2, 2});
  const void* p = out.data_ptr();
  matmul_out(out, ones({2, 3}), ones({3, 2}));
  CHECK(out.data_ptr() == p);
  CHECK(dvalues(out) == std::vector<double>{3, 3, 3, 3});
  Tensor wrong = empty({3, 3});
  CHECK_THROWS_WITH(matmul_out(wrong, ones({2, 3}), ones({3, 2})), Catch::Contains("does not match the result's shape"));
}

TEST_CASE("validation: a log sink may itself run logged ops") {
  int lines = 0;
  set_log_device_placement(true);
  set_placement_log_sink([&](const std::string&) {
    ++lines;
    if (lines == 1) (void)(ones({1}) + 1);  // re-enters the logger: must not deadlock
  });
  Tensor y = ones({2}) * 2;
  set_log_device_placement(false);
  set_placement_log_sink({});
  CHECK(lines >= 3);
  CHECK(dvalues(y) == std::vector<double>{2, 2});
}
