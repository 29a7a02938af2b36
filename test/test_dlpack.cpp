// DLPack: zero-copy export and import, strides and byte offsets, dtype mapping, the
// deleter called exactly once, and the typed errors.
#include <catch2/catch.hpp>
#include <dlpack/dlpack.h>

#include <vector>

#include "ember/ember.h"
#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;

namespace {

// A foreign DLManagedTensor over a caller-owned buffer, counting its deleter's calls.
struct Foreign {
  std::vector<float> data;
  std::vector<int64_t> shape, strides;
  int deletes = 0;
  DLManagedTensor managed{};
  DLManagedTensor* make(DLDataType dtype = {kDLFloat, 32, 1}, DLDevice dev = {kDLCPU, 0}) {
    managed.dl_tensor = {data.data(), dev, int(shape.size()), dtype, shape.data(),
                         strides.empty() ? nullptr : strides.data(), 0};
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<Foreign*>(self->manager_ctx)->deletes; };
    return &managed;
  }
};

template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  FAIL("no InvalidArgument thrown");
  return {};
}

}  // namespace

TEST_CASE("dlpack: to_dlpack shares memory, keeps strides and holds the tensor until deleted") {
  Tensor base = arange(24, kFloat).view({2, 3, 4});
  Tensor v = base.transpose(0, 2).narrow(1, 1, 2);  // sizes [4, 2, 2], strides [1, 4, 12], offset 4
  DLManagedTensor* m = to_dlpack(v);
  const DLTensor& t = m->dl_tensor;
  CHECK(t.device.device_type == kDLCPU);
  CHECK(t.device.device_id == 0);
  CHECK(t.dtype.code == kDLFloat);
  CHECK(t.dtype.bits == 32);
  CHECK(t.dtype.lanes == 1);
  REQUIRE(t.ndim == 3);
  CHECK(std::vector<int64_t>(t.shape, t.shape + 3) == std::vector<int64_t>{4, 2, 2});
  CHECK(std::vector<int64_t>(t.strides, t.strides + 3) == std::vector<int64_t>{1, 4, 12});
  CHECK(static_cast<char*>(t.data) + t.byte_offset == static_cast<char*>(v.data_ptr()));
  CHECK(static_cast<float*>(t.data)[0] == 4.0f);
  const int32_t uses = base.unsafe_impl()->storage_.use_count();
  base = Tensor();
  v = Tensor();
  // The export alone keeps the storage: still readable, released by the deleter.
  CHECK(static_cast<float*>(m->dl_tensor.data)[12 + 4 + 1] == 21.0f);
  CHECK(uses >= 2);
  m->deleter(m);
}

TEST_CASE("dlpack: dtype codes out and back for every dtype") {
  struct Row {
    ScalarType type;
    uint8_t code, bits;
    ScalarType back;
  };
  const Row rows[] = {{kDouble, kDLFloat, 64, kDouble}, {kFloat, kDLFloat, 32, kFloat},
                      {kHalf, kDLFloat, 16, kHalf},     {kBFloat16, kDLBfloat, 16, kBFloat16},
                      {kInt64, kDLInt, 64, kInt64},     {kInt32, kDLInt, 32, kInt32},
                      {kInt16, kDLInt, 16, kInt16},     {kInt8, kDLInt, 8, kInt8},
                      {kUInt8, kDLUInt, 8, kUInt8},     {kBool, kDLUInt, 8, kUInt8}};
  for (const Row& r : rows) {
    INFO(name(r.type));
    Tensor a = ones({5}, r.type);
    DLManagedTensor* m = to_dlpack(a);
    CHECK(m->dl_tensor.dtype.code == r.code);
    CHECK(m->dl_tensor.dtype.bits == r.bits);
    Tensor b = from_dlpack(m);  // b owns m now
    CHECK(b.scalar_type() == r.back);
    CHECK(b.data_ptr() == a.data_ptr());
    CHECK(ember_test::dvalues(b) == std::vector<double>(5, 1.0));
  }
}

TEST_CASE("dlpack: from_dlpack views foreign memory and calls its deleter exactly once") {
  Foreign f;
  f.data = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  f.shape = {3, 2};
  f.strides = {1, 3};  // column-major 3x2 view of the first six
  DLManagedTensor* m = f.make();
  m->dl_tensor.byte_offset = 4 * sizeof(float);
  {
    Tensor t = from_dlpack(m);
    CHECK(t.sizes().vec() == std::vector<int64_t>{3, 2});
    CHECK(t.strides().vec() == std::vector<int64_t>{1, 3});
    CHECK(ember_test::dvalues(t) == std::vector<double>{4, 7, 5, 8, 6, 9});
    Tensor view = t.select(1, 1);
    t = Tensor();
    CHECK(f.deletes == 0);
    view.mul_(2);  // shared, not copied
    CHECK(f.data[8] == 16.0f);
    CHECK(f.deletes == 0);
  }
  CHECK(f.deletes == 1);
  // NULL strides: compact row-major.
  Foreign g;
  g.data = {1, 2, 3, 4, 5, 6};
  g.shape = {2, 3};
  {
    Tensor t = from_dlpack(g.make());
    CHECK(t.strides().vec() == std::vector<int64_t>{3, 1});
    CHECK(t.is_contiguous());
    CHECK(t.sum().item<float>() == 21.0f);
  }
  CHECK(g.deletes == 1);
}

TEST_CASE("dlpack: ember to ember round trip keeps the storage alive through both owners") {
  Tensor a = arange(6, kInt64).view({2, 3});
  void* p = a.data_ptr();
  Tensor b = from_dlpack(to_dlpack(a.t()));
  a = Tensor();
  CHECK(b.data_ptr() == p);
  CHECK(ember_test::dvalues(b) == std::vector<double>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("dlpack: unsupported dtypes, devices and layouts are InvalidArgument, and the caller keeps ownership") {
  Foreign f;
  f.data = {1, 2, 3, 4};
  f.shape = {4};
  CHECK(invalid_argument_of([&] { from_dlpack(f.make({kDLComplex, 64, 1})); }) ==
        "from_dlpack: unsupported dtype (code 5, 64 bits); valid: uint8, int8/16/32/64, float16/32/64, bfloat16");
  CHECK(invalid_argument_of([&] { from_dlpack(f.make({kDLUInt, 32, 1})); }) ==
        "from_dlpack: unsupported dtype (code 1, 32 bits); valid: uint8, int8/16/32/64, float16/32/64, bfloat16");
  CHECK(invalid_argument_of([&] { from_dlpack(f.make({kDLFloat, 32, 4})); }) ==
        "from_dlpack: vector types are not supported (lanes = 4, expected 1)");
  CHECK(invalid_argument_of([&] { from_dlpack(f.make({kDLFloat, 32, 1}, {kDLOpenCL, 0})); }) ==
        "from_dlpack: unsupported device type 4 (valid: kDLCPU, kDLCUDAHost, kDLCUDA)");
  if (cuda::device_count() == 0)
    CHECK_THAT(invalid_argument_of([&] { from_dlpack(f.make({kDLFloat, 32, 1}, {kDLCUDA, 0})); }),
               Catch::Contains("from_dlpack: device /job:localhost/replica:0/task:0/device:GPU:0 (cuda:0) does not exist"));
  f.strides = {-1};
  CHECK(invalid_argument_of([&] { from_dlpack(f.make()); }) ==
        "from_dlpack: negative stride -1 in dim 0 (ember views need strides >= 0)");
  CHECK(invalid_argument_of([&] { from_dlpack(nullptr); }) == "from_dlpack: null DLManagedTensor");
  CHECK(f.deletes == 0);
  CHECK(invalid_argument_of([&] { to_dlpack(Tensor()); }) == "to_dlpack: undefined tensor");
  testing::ensure_fake_accelerator();
  CHECK_THAT(invalid_argument_of([&] { to_dlpack(ones({2}, Device("npu:0"))); }),
             Catch::Contains("to_dlpack: tensors on") && Catch::Contains("(npu:0) cannot be exported (valid: CPU and CUDA)"));
}
