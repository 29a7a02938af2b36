// CUDA selection ops: gather, scatter, scatter_add, masked_fill, one_hot, sort, topk on
// cuda:0 against the CPU, and out-of-range indices caught by the device-side flag (a
// typed error, self unchanged). Skips with a printed reason when there is no GPU.
#include <catch2/catch.hpp>

#include "cuda_test_util.h"

#include <vector>

#include "ember/cuda.h"
#include "ember/ember.h"

using namespace ember;

namespace {

const Device kGpu(kCUDA, 0);
const ScalarType kAllTypes[] = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble};

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(Device(kCPU, 0), kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

Tensor random_of(std::vector<int64_t> sizes, ScalarType dt) {
  Tensor v = rand(sizes, kDouble) * 20 - 10;
  if (dt == kUInt8) v = v.abs();
  if (is_integral(dt, true)) v = v.round();
  return v.to(dt);
}

}  // namespace

TEST_CASE("cuda selection: gather, scatter and sort match the CPU for every dtype") {
  EMBER_REQUIRE_GPU();
  manual_seed(31);
  for (ScalarType dt : kAllTypes) {
    INFO(name(dt));
    Tensor x = random_of({300, 200}, dt).t();  // strided
    Tensor idx = randint(0, 300, {200, 500});
    CHECK(values(gather(x.to(kGpu), 1, idx.to(kGpu))) == values(gather(x, 1, idx)));
    Tensor self = random_of({50, 64}, dt), src = random_of({40, 64}, dt);
    Tensor distinct = argsort(rand({50, 64}), 0).narrow(0, 0, 40);
    CHECK(values(scatter(self.to(kGpu), 0, distinct.to(kGpu), src.to(kGpu))) == values(scatter(self, 0, distinct, src)));
    if (is_integral(dt, true)) {  // exact sums: any atomic order gives the CPU's result
      Tensor dup = randint(0, 50, {40, 64});
      CHECK(values(scatter_add(self.to(kGpu), 0, dup.to(kGpu), src.to(kGpu))) == values(scatter_add(self, 0, dup, src)));
    }
    Tensor s = random_of({7, 1000, 3}, dt);
    for (int64_t dim : {0, 1, 2})
      for (bool desc : {false, true}) {
        auto [gv, gi] = sort(s.to(kGpu), dim, desc);
        auto [cv, ci] = sort(s, dim, desc);
        CHECK(values(gv) == values(cv));
        CHECK(values(gi) == values(ci));  // both stable
      }
    Tensor mask = rand({1, 64}) > 0.5;
    CHECK(values(masked_fill(self.to(kGpu), mask.to(kGpu), 1)) == values(masked_fill(self, mask, 1)));
  }
  Tensor c = randint(0, 10, {100});
  CHECK(values(one_hot(c.to(kGpu), 12)) == values(one_hot(c, 12)));
  Tensor f = rand({64, 500});
  CHECK(values(std::get<1>(topk(f.to(kGpu), 10))) == values(std::get<1>(topk(f, 10))));
}

TEST_CASE("cuda selection: out-of-range indices are typed errors and leave self unchanged") {
  EMBER_REQUIRE_GPU();
  Tensor x = arange(1 << 20, kFloat).reshape({1024, 1024}).to(kGpu);
  Tensor idx = zeros({1024, 1024}, kLong);
  idx.index({700, 5}).fill_(1024);
  CHECK_THROWS_MATCHES(gather(x, 1, idx.to(kGpu)), InvalidArgument,
                       Catch::Message("gather: index 1024 is out of bounds for dimension 1 with size 1024"));
  Tensor before = x.cpu();
  CHECK_THROWS_MATCHES(x.scatter_(1, idx.to(kGpu), 7.0), InvalidArgument,
                       Catch::Message("scatter: index 1024 is out of bounds for dimension 1 with size 1024"));
  CHECK(values(x) == values(before));
  CHECK_THROWS_AS(x.scatter_add_(0, full({1, 4}, -1, kLong).to(kGpu), ones({1, 4}).to(kGpu)), InvalidArgument);
  CHECK(values(x) == values(before));
  // the device is still usable after a failed op
  CHECK(values(gather(x, 1, zeros({2, 1}, kLong).to(kGpu))) == std::vector<double>{0, 1024});
}
