// TensorOptions as libtorch's: any layout kept (creation takes kStrided only), device_index,
// memory formats for empty, *_like and to(options); Tensor::type()'s deprecated pair;
// pin_memory and is_pinned on a machine without a GPU.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

TEST_CASE("tensor options: options keep any layout; creating a tensor takes kStrided only") {
  Tensor x = zeros({2}, TensorOptions(kFloat).layout(kStrided));
  CHECK(x.layout() == kStrided);
  CHECK(x.options().layout() == kStrided);
  CHECK(dvalues(ones({2}, layout(kStrided))) == std::vector<double>{1, 1});
  const TensorOptions sparse = TensorOptions(kByte).layout(kSparse).device(kCUDA, 2).device_index(3);
  CHECK(sparse.layout() == kSparse);
  CHECK(sparse.device() == Device(kCUDA, 3));
  CHECK(sparse.dtype() == kByte);
  CHECK(device_index(1).device() == Device(kCUDA, 1));
  CHECK_FALSE(TensorOptions().has_layout());
  const std::string refused =
      "creating a tensor: ember supports only the strided layout (kStrided), got the options' layout SparseCsr";
  for (const std::function<Tensor()>& make : std::vector<std::function<Tensor()>>{
           [] { return zeros({2}, layout(kSparseCsr)); }, [] { return empty({2}, layout(kSparseCsr)); },
           [] { return rand({2}, layout(kSparseCsr)); }, [] { return arange(3, layout(kSparseCsr)); },
           [] { return tensor({1.0, 2.0}, layout(kSparseCsr)); }, [] { return randperm(3, layout(kSparseCsr)); },
           [&] { return zeros_like(x, layout(kSparseCsr)); }})
    ember_test::expect_throw<NotImplemented>(make, refused);
  float data[2] = {1, 2};
  CHECK_THROWS_AS(from_blob(data, {2}, layout(kSparse)), NotImplemented);
  ember_test::expect_throw<InvalidArgument>([&] { x.to(layout(kSparse)); },
                                            "to(options) doesn't support converting to a different layout, but got "
                                            "self.layout being Strided and options.layout set as Sparse");
}

TEST_CASE("tensor options: the memory format of empty, *_like and to(options), as libtorch's") {
  const Tensor x = arange(24.0).view({2, 3, 4}).transpose(0, 2);  // dense, strides [1, 4, 12]
  CHECK(empty_like(x, {}, MemoryFormat::Preserve).strides() == IntArrayRef({1, 4, 12}));
  CHECK(empty_like(x, memory_format(MemoryFormat::Preserve)).strides() == IntArrayRef({1, 4, 12}));
  CHECK(empty_like(x).strides() == IntArrayRef({6, 2, 1}));  // ember's default: row-major
  const Tensor sliced = ones({4, 6}).slice(1, 0, 6, 2);    // not dense: its suggested format
  CHECK(empty_like(sliced, {}, MemoryFormat::Preserve).strides() == IntArrayRef({3, 1}));
  const Tensor nhwc = arange(120.0).view({2, 3, 4, 5}).permute({0, 2, 3, 1});
  const Tensor z = zeros_like(nhwc, {}, MemoryFormat::Preserve);
  CHECK(z.strides() == nhwc.strides());
  CHECK(dvalues(z.sum()) == std::vector<double>{0});
  const Tensor f = full_like(nhwc, 2.5, kDouble, MemoryFormat::ChannelsLast);
  CHECK(f.is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(dvalues(f.sum()) == std::vector<double>{300});
  CHECK(ones_like(x, requires_grad(), MemoryFormat::Preserve).requires_grad());
  CHECK(ones_like(x, requires_grad(), MemoryFormat::Preserve).is_leaf());
  const Tensor r = rand_like(nhwc, {}, MemoryFormat::Preserve);
  CHECK(r.strides() == nhwc.strides());
  CHECK((r.min().item<double>() >= 0 && r.max().item<double>() < 1));
  const Tensor k = randint_like(nhwc, 3, 7, kLong, MemoryFormat::ChannelsLast);
  CHECK((k.is_contiguous(MemoryFormat::ChannelsLast) && k.min().item<int64_t>() >= 3 && k.max().item<int64_t>() < 7));
  CHECK(empty({2, 3, 4, 5}, memory_format(MemoryFormat::ChannelsLast)).strides() == IntArrayRef({60, 1, 15, 3}));
  CHECK(ones({2, 3, 4, 5}).to(memory_format(MemoryFormat::ChannelsLast)).strides() == IntArrayRef({60, 1, 15, 3}));
  const Tensor same = ones({2, 3});
  CHECK(same.to(memory_format(MemoryFormat::Contiguous)).is_same(same));
  const std::string both =
      "Cannot set memory_format both in TensorOptions and explicit argument; please delete the redundant setter.";
  ember_test::expect_throw<InvalidArgument>(
      [] { empty({1, 1, 1, 1}, memory_format(MemoryFormat::ChannelsLast), MemoryFormat::ChannelsLast); }, both);
  ember_test::expect_throw<InvalidArgument>(
      [&] { zeros_like(x, memory_format(MemoryFormat::Preserve), MemoryFormat::Preserve); }, both);
  ember_test::expect_throw<InvalidArgument>([] { empty({1}, {}, MemoryFormat::Preserve); },
                                            "unsupported memory format Preserve");
}

TEST_CASE("tensor options: Tensor::type(), libtorch's deprecated backend-and-dtype pair") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const DeprecatedTypeProperties t = ones({2}, kLong).type();
#pragma GCC diagnostic pop
  CHECK(t.scalarType() == kLong);
  CHECK(t.backend() == TypeBackend::CPU);
  CHECK(t.toString() == "CPULongType");
  CHECK_FALSE(t.is_cuda());
  CHECK(t == getDeprecatedTypeProperties(TypeBackend::CPU, kLong));
  CHECK(t != t.toScalarType(kFloat));
  const DeprecatedTypeProperties sparse = getDeprecatedTypeProperties(TypeBackend::SparseCUDA, kByte);
  CHECK(sparse.toString() == "SparseCUDAByteType");
  const TensorOptions options = sparse;
  CHECK((options.layout() == kSparse && options.device().type() == kCUDA && options.dtype() == kByte));
  CHECK(sparse.cpu().backend() == TypeBackend::SparseCPU);
  const TensorOptions dense = t.options();
  CHECK(zeros({1}, dense).dtype() == kLong);
  CHECK_THROWS_AS(zeros({1}, sparse.cpu().options()), NotImplemented);
}

TEST_CASE("tensor options: pin_memory without a GPU is a DeviceError; nothing is pinned") {
  if (cuda::device_count() > 0) {
    SUCCEED("a GPU is present: test_cuda_ops.cpp pins memory");
    return;
  }
  const Tensor x = ones({2});
  CHECK_FALSE(x.is_pinned());
  ember_test::expect_throw<DeviceError>([&] { x.pin_memory(); },
                                        "pin_memory: page-locked memory needs a cuda device, and this process has none");
  ember_test::expect_throw<InvalidArgument>([&] { x.pin_memory(Device(kCPU)); },
                                            "pin_memory: memory is pinned for an accelerator, got device cpu");
  CHECK_FALSE(x.is_pinned(Device(kCPU)));
}
