// Writes into overlapping memory (libtorch's MemOverlap rules): an in-place or out= op
// whose output partially overlaps an input, or whose output has a zero stride over
// several elements, is refused before anything is written; exact aliasing is allowed.
// copy_ refuses any overlap except the very same elements. CPU and the "npu" backend
// here; CUDA in test_cuda_ops.cpp.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using Catch::Contains;
using ember_test::dvalues;

namespace {

const std::string kPartial =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";
const std::string kInternal =
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";

std::vector<double> iota(int n, double from = 0) {
  std::vector<double> v(size_t(n), 0);
  for (int i = 0; i < n; ++i) v[size_t(i)] = from + i;
  return v;
}

Tensor arange_on(int n, Device dev) { return arange(n, TensorOptions(kFloat).device(dev)); }

void partial_overlap_is_refused(Device dev) {
  Tensor a = arange_on(10, dev);
  CHECK_THROWS_WITH(a.narrow(0, 0, 9).add_(a.narrow(0, 1, 9)), "Add: " + kPartial);
  CHECK_THROWS_WITH(a.narrow(0, 2, 5).mul_(a.narrow(0, 0, 5)), "Mul: " + kPartial);
  CHECK_THROWS_WITH(a.narrow(0, 1, 9).sub_(a.narrow(0, 0, 9), 2), Contains(kPartial));
  Tensor out = a.narrow(0, 0, 9);
  CHECK_THROWS_WITH(add_out(out, a.narrow(0, 1, 9), ones({9}, TensorOptions().device(dev))), "Add: " + kPartial);
  CHECK_THROWS_WITH(mul_out(out, ones({9}, TensorOptions().device(dev)), a.narrow(0, 1, 9)), "Mul: " + kPartial);
  // Same bytes, different order of elements: partial in libtorch's terms too.
  Tensor m = arange_on(9, dev).view({3, 3});
  CHECK_THROWS_WITH(m.add_(m.t()), "Add: " + kPartial);
  CHECK_THROWS_WITH(a.narrow(0, 1, 9).copy_(a.narrow(0, 0, 9)), "copy_: " + kPartial);
  CHECK_THROWS_WITH(a.narrow(0, 0, 9).copy_(a.narrow(0, 1, 9)), "copy_: " + kPartial);
  CHECK(dvalues(a) == iota(10));  // nothing was written
  CHECK(dvalues(m) == iota(9));
}

void internal_overlap_is_refused(Device dev) {
  Tensor x = arange_on(3, dev);
  Tensor e = x.expand({4, 3});
  CHECK_THROWS_WITH(e.add_(1), "Add: " + kInternal);
  CHECK_THROWS_WITH(e.exp_(), "Exp: " + kInternal);
  CHECK_THROWS_WITH(e.clamp_(0, 1), "Clamp: " + kInternal);
  CHECK_THROWS_WITH(e.copy_(ones({4, 3}, TensorOptions().device(dev))), "copy_: " + kInternal);
  Tensor out = e;
  CHECK_THROWS_WITH(add_out(out, ones({4, 3}, TensorOptions().device(dev)), ones({3}, TensorOptions().device(dev))),
                    "Add: " + kInternal);
  CHECK(dvalues(x) == iota(3));
  // fill_ writes one value, so a repeated element is harmless (libtorch allows it too).
  e.fill_(7);
  CHECK(dvalues(x) == std::vector<double>{7, 7, 7});
  // A dim of size 1 with stride 0 repeats nothing.
  Tensor one = arange_on(3, dev).unsqueeze(0).expand({1, 3});
  one.add_(1);
  CHECK(dvalues(one) == iota(3, 1));
}

void allowed_writes_still_work(Device dev) {
  Tensor a = arange_on(10, dev);
  a.add_(a);  // exact aliasing
  CHECK(dvalues(a) == std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14, 16, 18});
  Tensor b = arange_on(10, dev);
  b.narrow(0, 0, 5).add_(b.narrow(0, 5, 5));  // same storage, disjoint bytes
  CHECK(dvalues(b) == std::vector<double>{5, 7, 9, 11, 13, 5, 6, 7, 8, 9});
  Tensor c = arange_on(10, dev);
  c.narrow(0, 0, 5).copy_(c.narrow(0, 5, 5));
  CHECK(dvalues(c) == std::vector<double>{5, 6, 7, 8, 9, 5, 6, 7, 8, 9});
  Tensor d = arange_on(4, dev);
  d.copy_(d.view({4}));  // the very same elements through another view: nothing to do
  d.narrow(0, 1, 2).exp_().neg_();
  CHECK(dvalues(d)[1] == Approx(-std::exp(1.0)));
  Tensor t = arange_on(6, dev).view({2, 3}).t();  // non-contiguous, but no repeated element
  t.mul_(2);
  CHECK(dvalues(t) == std::vector<double>{0, 6, 2, 8, 4, 10});
}

}  // namespace

TEST_CASE("overlap: partial overlap of output and input is refused, inputs unchanged") {
  partial_overlap_is_refused(Device(kCPU, 0));
  ember::testing::ensure_fake_accelerator();
  partial_overlap_is_refused(Device("npu:0"));
}

TEST_CASE("overlap: an output with repeated elements (zero stride) is refused") {
  internal_overlap_is_refused(Device(kCPU, 0));
  ember::testing::ensure_fake_accelerator();
  internal_overlap_is_refused(Device("npu:0"));
  // A zero stride made by hand (as as_strided would) is caught the same way.
  std::vector<float> buf = {1, 2, 3};
  const std::vector<int64_t> sizes = {3}, strides = {0};
  Tensor z = from_blob(buf.data(), sizes, IntArrayRef(strides), TensorOptions(kFloat));
  CHECK_THROWS_WITH(z.add_(1), "Add: " + kInternal);
  CHECK(buf == std::vector<float>{1, 2, 3});
}

TEST_CASE("overlap: exact aliasing, disjoint views and no-op copies are allowed") {
  allowed_writes_still_work(Device(kCPU, 0));
  ember::testing::ensure_fake_accelerator();
  allowed_writes_still_work(Device("npu:0"));
}

TEST_CASE("overlap: matmul_out into one of its inputs computes from the old values") {
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({2, 2});
  Tensor b = tensor({1.0f, 1.0f, 0.0f, 1.0f}).view({2, 2});
  matmul_out(a, a, b);
  CHECK(dvalues(a) == std::vector<double>{1, 3, 3, 7});
}

TEST_CASE("overlap: indexed writes share no memory with their source or index, as libtorch's") {
  // libtorch's assert_no_overlap: for index_copy_, index_add_, scatter_ and put_ even the very
  // same elements are refused, since the write order would decide the result.
  Tensor m = arange(6.).reshape({3, 2});
  const Tensor rows = tensor({0, 1, 2});
  CHECK_THROWS_WITH(m.index_copy_(0, rows, m), "index_copy_(): " + kPartial);
  CHECK_THROWS_WITH(m.index_add_(0, rows, m), "index_add_(): " + kPartial);
  CHECK_THROWS_WITH(m.index_reduce_(0, rows, m, "prod"), "index_reduce_(): " + kPartial);
  const Tensor zero_rows = zeros({3, 2}, kLong);
  CHECK_THROWS_WITH(m.scatter_(0, zero_rows, m), "scatter: " + kPartial);
  CHECK_THROWS_WITH(m.scatter_add_(0, zero_rows, m), "scatter_add: " + kPartial);
  CHECK_THROWS_WITH(m.scatter_reduce_(0, zero_rows, m, "sum"), "scatter_reduce_: " + kPartial);
  CHECK(dvalues(m) == iota(6));

  Tensor a = arange(6.);
  CHECK_THROWS_WITH(a.narrow(0, 0, 3).index_copy_(0, tensor({0, 1}), a.narrow(0, 1, 2)),
                    "index_copy_(): " + kPartial);
  CHECK_THROWS_WITH(a.put_(tensor({0, 1}), a.narrow(0, 1, 2)), "put_: " + kPartial);
  CHECK_THROWS_WITH(a.index_put_({tensor({0, 1})}, a.narrow(0, 1, 2)), "index_put_: " + kPartial);
  CHECK_THROWS_WITH(a.index_put_({tensor({0, 1, 2, 3, 4, 5})}, a), "index_put_: " + kPartial);
  // The index tensor is an input too.
  Tensor idx = tensor({0, 1, 2});
  CHECK_THROWS_WITH(idx.index_copy_(0, idx, idx), "index_copy_(): " + kPartial);
  CHECK_THROWS_WITH(idx.index_put_({idx}, tensor({5, 6, 7})), "index_put_: " + kPartial);
  // A written-to tensor with repeated elements.
  Tensor e = zeros({1}).expand({3});
  CHECK_THROWS_WITH(e.index_copy_(0, tensor({0}), ones({1})), "index_copy_(): " + kInternal);
  CHECK_THROWS_WITH(e.index_add_(0, tensor({0}), ones({1})), "index_add_(): " + kInternal);
  CHECK_THROWS_WITH(e.scatter_(0, tensor({0}), 2.0), "scatter: " + kInternal);
  CHECK_THROWS_WITH(e.put_(tensor({0}), ones({1})), "put_: " + kInternal);
  CHECK(dvalues(a) == iota(6));
  CHECK(dvalues(idx) == iota(3));
  CHECK(dvalues(e) == std::vector<double>{0, 0, 0});

  // Disjoint parts of one storage, and a basic-index write of the very same elements, are fine.
  Tensor b = arange(6.);
  b.narrow(0, 0, 3).index_copy_(0, tensor({0, 2}), b.narrow(0, 3, 2));
  CHECK(dvalues(b) == std::vector<double>{3, 1, 4, 3, 4, 5});
  b.index_put_({indexing::Slice()}, b);
  CHECK(dvalues(b) == std::vector<double>{3, 1, 4, 3, 4, 5});
}
