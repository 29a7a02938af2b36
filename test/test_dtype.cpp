// ScalarType names and sizes, torch's promotion table, Half / BFloat16 rounding, Scalar.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>

using namespace ember;

TEST_CASE("dtype: names and element sizes") {
  CHECK(std::string(name(kFloat)) == "float32");
  CHECK(std::string(name(kInt64)) == "int64");
  CHECK(std::string(name(kBFloat16)) == "bfloat16");
  CHECK(std::string(name(kHalf)) == "float16");
  CHECK(std::string(name(kBool)) == "bool");
  CHECK(element_size(kDouble) == 8);
  CHECK(element_size(kHalf) == 2);
  CHECK(element_size(kBool) == 1);
  CHECK(kFloat32 == kFloat);
  CHECK(kFloat64 == kDouble);
  CHECK(kFloat16 == kHalf);
}

TEST_CASE("dtype: promote_types matches torch's table") {
  // Rows and columns in the order b1 u1 i1 i2 i4 i8 f2 bf f4 f8 (torch.promote_types).
  const ScalarType order[] = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble};
  const char* table[10][10] = {
      {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"},
      {"uint8", "uint8", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"},
      {"int8", "int16", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"},
      {"int16", "int16", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"},
      {"int32", "int32", "int32", "int32", "int32", "int64", "float16", "bfloat16", "float32", "float64"},
      {"int64", "int64", "int64", "int64", "int64", "int64", "float16", "bfloat16", "float32", "float64"},
      {"float16", "float16", "float16", "float16", "float16", "float16", "float16", "float32", "float32", "float64"},
      {"bfloat16", "bfloat16", "bfloat16", "bfloat16", "bfloat16", "bfloat16", "float32", "bfloat16", "float32", "float64"},
      {"float32", "float32", "float32", "float32", "float32", "float32", "float32", "float32", "float32", "float64"},
      {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64"},
  };
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) {
      INFO(name(order[i]) << " with " << name(order[j]));
      CHECK(std::string(name(promote_types(order[i], order[j]))) == table[i][j]);
    }
}

TEST_CASE("dtype: Half and BFloat16 round to nearest even") {
  CHECK(float(Half(1.0f)) == 1.0f);
  CHECK(float(Half(65504.0f)) == 65504.0f);
  CHECK(std::isinf(float(Half(65520.0f))));
  CHECK(float(Half(1.0f + 1.0f / 2048)) == 1.0f);             // tie rounds to even (down)
  CHECK(float(Half(1.0f + 3.0f / 2048)) == 1.0f + 2.0f / 1024);  // tie rounds to even (up)
  CHECK(float(Half(5.960464477539063e-08f)) == 5.960464477539063e-08f);  // smallest subnormal
  CHECK(std::isnan(float(Half(NAN))));
  CHECK(Half(-2.5f).x == 0xC100);
  CHECK(float(BFloat16(1.0f)) == 1.0f);
  CHECK(BFloat16(1.0f + 1.0f / 256).x == BFloat16(1.0f).x);  // tie to even
  CHECK(float(BFloat16(3.140625f)) == 3.140625f);
  CHECK(std::isnan(float(BFloat16(NAN))));
}

TEST_CASE("dtype: Scalar kinds and conversions") {
  CHECK(Scalar(true).is_bool());
  CHECK(Scalar(3).is_integral());
  CHECK(Scalar(2.5).is_floating_point());
  CHECK(Scalar(3).natural_type() == kInt64);
  CHECK(Scalar(2.5f).natural_type() == kFloat);
  CHECK(Scalar(true).natural_type() == kBool);
  CHECK(Scalar(2.9).to<int64_t>() == 2);
  CHECK(Scalar(-2.9).to<int32_t>() == -2);
  CHECK(Scalar(int64_t(1) << 40).to_long() == (int64_t(1) << 40));
}

TEST_CASE("dtype: type promotion of ops with tensors, 0-dim tensors and numbers") {
  auto i32 = ones({3}, kInt32), i64 = ones({3}, kInt64), f32 = ones({3}), f64 = ones({3}, kDouble);
  auto b = ones({3}, kBool), h = ones({3}, kHalf);
  CHECK((i32 + f32).dtype() == kFloat);
  CHECK((i64 + 2.5).dtype() == kFloat);
  CHECK((f32 + f64).dtype() == kDouble);
  CHECK((i32 + 5).dtype() == kInt32);
  CHECK((b + 5).dtype() == kInt64);
  CHECK((b + b).dtype() == kBool);
  CHECK((h + 2.5).dtype() == kHalf);
  CHECK((f32 + scalar_tensor(1.0, kDouble)).dtype() == kFloat);   // 0-dim does not outrank dims
  CHECK((i32 + scalar_tensor(1.5, kDouble)).dtype() == kDouble);  // higher category wins
  CHECK((i32 / i32).dtype() == kFloat);                            // true division
  CHECK((i32 == 1.5).dtype() == kBool);
  CHECK(exp(i64).dtype() == kFloat);
  CHECK(abs(i32).dtype() == kInt32);
}
