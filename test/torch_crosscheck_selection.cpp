// Cross-checks the selection ops against libtorch: gather, scatter, scatter_add,
// masked_fill, one_hot, sort, argsort and topk on random, strided and broadcast inputs.
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::kTypes;
using crosscheck::to_torch;

ember::Tensor random(std::vector<int64_t> sizes, ember::ScalarType dtype) {
  ember::Tensor v = ember::rand(sizes, ember::kDouble) * 200 - 100;
  if (dtype == ember::kUInt8) v = v.abs();
  if (ember::is_integral(dtype, true)) v = v.round();
  return v.to(dtype);
}

void check_same(const ember::Tensor& e, const torch::Tensor& t, double tol = 0) {
  REQUIRE(to_torch(e.dtype()) == t.scalar_type());
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  ember::Tensor ed = e.to(ember::kDouble).contiguous();
  torch::Tensor td = t.to(torch::kDouble).contiguous();
  const double* a = ed.data_ptr<double>();
  const double* b = td.data_ptr<double>();
  for (int64_t i = 0; i < ed.numel(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      REQUIRE(std::isnan(a[i]) == std::isnan(b[i]));
      continue;
    }
    if (a[i] == b[i]) continue;  // equal infinities too
    INFO("element " << i << ": ember " << a[i] << ", torch " << b[i]);
    REQUIRE(std::abs(a[i] - b[i]) <= tol * (1 + std::abs(b[i])));
  }
}

double tol_for(ember::ScalarType t) { return t == ember::kHalf ? 2e-3 : t == ember::kBFloat16 ? 2e-2 : 1e-6; }

// A [rows, cols] int64 index whose columns hold distinct values in [0, n) (a scatter
// with distinct targets has one defined result).
ember::Tensor distinct_rows(int64_t rows, int64_t cols, int64_t n) {
  return ember::argsort(ember::rand({n, cols}), 0).narrow(0, 0, rows).contiguous();
}

}  // namespace

TEST_CASE("crosscheck: gather on strided self and broadcast index, every dtype") {
  ember::manual_seed(21);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    ember::Tensor self = random({5, 6}, dt).t();  // 6x5, strided
    ember::Tensor index = ember::randint(0, 5, {6, 7});
    check_same(ember::gather(self, 1, index), torch::gather(as_torch(self), 1, as_torch(index)));
    ember::Tensor bidx = ember::randint(0, 6, {1, 5}).expand({4, 5});
    check_same(self.gather(0, bidx), as_torch(self).gather(0, as_torch(bidx)));
  }
}

TEST_CASE("crosscheck: scatter, scatter_add and scatter reductions, every dtype") {
  ember::manual_seed(22);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    ember::Tensor self = random({6, 4}, dt);
    ember::Tensor src = random({5, 4}, dt);
    ember::Tensor index = distinct_rows(3, 4, 6);
    torch::Tensor ts = as_torch(self), tsrc = as_torch(src), ti = as_torch(index);
    check_same(ember::scatter(self, 0, index, src), torch::scatter(ts, 0, ti, tsrc));
    check_same(ember::scatter(self, 0, index, 3), torch::scatter(ts, 0, ti, 3));
    ember::Tensor dup = ember::randint(0, 6, {5, 4});  // duplicates accumulate
    torch::Tensor tdup = as_torch(dup);
    check_same(ember::scatter_add(self, 0, dup, src), torch::scatter_add(ts, 0, tdup, tsrc), tol_for(dt) * 4);
    if (dt != ember::kBool)
      check_same(ember::scatter(self, 0, dup, src, "multiply"), torch::scatter(ts, 0, tdup, tsrc, "multiply"),
                 tol_for(dt) * 4);
    ember::Tensor inplace = self.clone();
    inplace.t().scatter_(1, index, src.t());
    check_same(inplace, ts.clone().t().scatter_(1, ti, tsrc.t()).t());
  }
}

TEST_CASE("crosscheck: masked_fill with broadcast masks, every dtype") {
  ember::manual_seed(23);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    ember::Tensor self = random({3, 4, 5}, dt);
    ember::Tensor mask = ember::rand({4, 1}) > 0.5;
    torch::Tensor ts = as_torch(self), tm = as_torch(mask);
    check_same(ember::masked_fill(self, mask, 1), torch::masked_fill(ts, tm, 1));
    check_same(self.masked_fill(mask, ember::tensor(true)), ts.masked_fill(tm, torch::tensor(true)));
    ember::Tensor e = self.clone();
    e.masked_fill_(mask, 0);
    check_same(e, ts.clone().masked_fill_(tm, 0));
  }
}

TEST_CASE("crosscheck: sort, argsort and topk along each dim, every dtype") {
  ember::manual_seed(24);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    ember::Tensor x = random({4, 7, 3}, dt).transpose(0, 2);  // 3x7x4, strided
    torch::Tensor tx = as_torch(x);
    for (int64_t dim : {0, 1, -1})
      for (bool desc : {false, true}) {
        INFO("dim " << dim << " descending " << desc);
        auto [v, i] = ember::sort(x, dim, desc);
        auto [tv, ti] = torch::sort(tx, /*stable=*/true, dim, desc);
        check_same(v, tv);
        check_same(i, ti);
        check_same(ember::argsort(x, dim, desc), std::get<1>(torch::sort(tx, true, dim, desc)));
      }
    // Random floats have no ties (topk's order among equal values is unspecified);
    // libtorch 1.13 has no CPU topk for float16 / bfloat16.
    if (dt == ember::kFloat || dt == ember::kDouble) {
      ember::Tensor f = ember::rand({5, 9}, dt);
      torch::Tensor tf = as_torch(f);
      for (bool largest : {true, false}) {
        auto [v, i] = ember::topk(f, 4, 1, largest);
        auto [tv, ti] = torch::topk(tf, 4, 1, largest);
        check_same(v, tv);
        check_same(i, ti);
      }
    }
  }
}

TEST_CASE("crosscheck: one_hot") {
  ember::manual_seed(25);
  ember::Tensor c = ember::randint(0, 6, {4, 5});
  check_same(ember::one_hot(c), torch::one_hot(as_torch(c)));
  check_same(ember::one_hot(c, 9), torch::one_hot(as_torch(c), 9));
}
