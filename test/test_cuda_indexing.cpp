// CUDA: indexing and the selection ops on cuda:0 against the CPU, and out-of-range
// positions on the GPU as typed errors (a device-side flag), with self left unchanged.
// Skips with a printed reason when there is no GPU.
#include <catch2/catch.hpp>

#include "cuda_test_util.h"

#include <vector>

#include "ember/cuda.h"
#include "ember/ember.h"

using namespace ember;
using ember::indexing::Slice;

namespace {

const Device kGpu(kCUDA, 0);

std::vector<double> host_values(const Tensor& t) {
  Tensor c = t.to(Device(kCPU, 0), kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

TEST_CASE("cuda indexing: index, index_put_ and the selection ops match the CPU") {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}) {
    INFO(name(dt));
    Tensor x = (rand({6, 7, 5}) * 8).to(dt);
    Tensor g = x.to(kGpu);
    Tensor i = randint(-6, 6, {4, 3}, TensorOptions(kInt64)), j = randint(0, 5, {3}, TensorOptions(kInt64));
    CHECK(host_values(g.index({i.to(kGpu), Slice(), j.to(kGpu)})) == host_values(x.index({i, Slice(), j})));
    Tensor m = x.ne(0);
    CHECK(host_values(g.index({m.to(kGpu)})) == host_values(x.index({m})));
    CHECK(host_values(nonzero(g)) == host_values(nonzero(x)));
    CHECK(host_values(index_select(g.transpose(0, 2), 1, j.to(kGpu))) == host_values(index_select(x.transpose(0, 2), 1, j)));
    if (dt != kBool) {
      Tensor src = ones({6, 3, 5}, dt);
      Tensor dup = tensor({1, 1, 4});
      CHECK(host_values(g.index_add(1, dup.to(kGpu), src.to(kGpu))) == host_values(x.index_add(1, dup, src)));
    }
    Tensor y = x.clone(), h = g.clone();
    y.index_put_({tensor({0, 5})}, zeros({7, 5}, dt));
    h.index_put_({tensor({0, 5}).to(kGpu)}, zeros({7, 5}, TensorOptions(dt).device(kGpu)));
    CHECK(host_values(h) == host_values(y));
  }
}

TEST_CASE("cuda indexing: out-of-range positions are typed errors and change nothing") {
  EMBER_REQUIRE_GPU();
  Tensor g = arange(10, TensorOptions(kFloat).device(kGpu));
  CHECK_THROWS_WITH(g.index({tensor({1, 10}).to(kGpu)}), "index 10 is out of bounds for dimension 0 with size 10");
  CHECK_THROWS_WITH(index_select(g, 0, tensor({-1}).to(kGpu)), Catch::StartsWith("index_select(): index out of range in self"));
  CHECK_THROWS_AS(g.index_put_({tensor({0, 12}).to(kGpu)}, ones({2}, TensorOptions(kFloat).device(kGpu)), true),
                  InvalidArgument);
  CHECK_THROWS_AS(g.index_add_(0, tensor({3, 11}).to(kGpu), ones({2}, TensorOptions(kFloat).device(kGpu))),
                  InvalidArgument);
  CHECK(host_values(g) == host_values(arange(10).to(kFloat)));
}
