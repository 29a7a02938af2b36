// Distinct values (_unique2, unique_dim, unique_consecutive): libtorch 1.13's values,
// the NaN rule, bool, 0-d and empty inputs.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

TEST_CASE("distinct values: unique, unique_consecutive and unique_dim") {
  const Tensor x = tensor({{3, 1, 3}, {2, 1, 2}});
  auto [v, inv, cnt] = _unique2(x, true, true, true);
  CHECK(dvalues(v) == std::vector<double>{1, 2, 3});
  CHECK(inv.sizes() == x.sizes());
  CHECK(dvalues(inv) == std::vector<double>{2, 0, 2, 1, 0, 1});
  CHECK(dvalues(cnt) == std::vector<double>{2, 2, 2});
  auto [v2, inv2, cnt2] = _unique2(x);
  CHECK(inv2.numel() == 0);
  CHECK(cnt2.numel() == 0);
  auto [cv, cinv, ccnt] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1}), true, true);
  CHECK(dvalues(cv) == std::vector<double>{1, 2, 3, 1});
  CHECK(dvalues(cinv) == std::vector<double>{0, 0, 1, 1, 2, 3, 3});
  CHECK(dvalues(ccnt) == std::vector<double>{2, 2, 1, 2});
  const Tensor rows = tensor({{1, 2}, {0, 5}, {1, 2}});
  auto [dv, dinv, dcnt] = unique_dim(rows, 0, true, true, true);
  CHECK(dvalues(dv) == std::vector<double>{0, 5, 1, 2});
  CHECK(dvalues(dinv) == std::vector<double>{1, 0, 1});
  CHECK(dvalues(dcnt) == std::vector<double>{1, 2});
  auto [qv, qinv, qcnt] = tensor({{1, 2}, {1, 2}, {0, 5}, {1, 2}}).unique_consecutive(true, true, 0);
  CHECK(dvalues(qv) == std::vector<double>{1, 2, 0, 5, 1, 2});
  CHECK(dvalues(qinv) == std::vector<double>{0, 0, 1, 2});
  CHECK(dvalues(qcnt) == std::vector<double>{2, 1, 1});
  // Each NaN is a value of its own (libtorch 1.13 gives wrong inverse and counts here).
  auto [nv, ninv, ncnt] = _unique2(tensor({NAN, 1.0f, NAN}), true, true, true);
  CHECK(nv.numel() == 3);
  CHECK(dvalues(ninv) == std::vector<double>{1, 0, 2});
  CHECK(dvalues(ncnt) == std::vector<double>{1, 1, 1});
  auto [bv, binv, bcnt] = _unique2(tensor({true, false, true}), true, true, true);
  CHECK(bv.dtype() == kBool);
  CHECK(dvalues(bcnt) == std::vector<double>{1, 2});
  auto [sv, sinv, scnt] = _unique2(scalar_tensor(5, kLong), true, true, true);
  CHECK(sinv.dim() == 0);
  CHECK(dvalues(scnt) == std::vector<double>{1});
  auto [ev, einv, ecnt] = _unique2(empty({0}), true, true, true);
  CHECK(ev.numel() == 0);
  CHECK(ecnt.numel() == 0);
  // Along a dim: inverse and counts always come back; an empty dim gives empty results.
  auto [av, ainv, acnt] = unique_dim(tensor({{1, 2}, {1, 2}}), 0);
  CHECK(dvalues(ainv) == std::vector<double>{0, 0});
  CHECK(dvalues(acnt) == std::vector<double>{2});
  auto [zv, zinv, zcnt] = unique_dim(zeros({0, 3}), 0, true, true, true);
  CHECK(zv.sizes() == IntArrayRef{0, 3});
  CHECK(zcnt.numel() == 0);
  CHECK_THROWS_WITH(unique_dim(zeros({3, 0}), 0),
                    Catch::Contains("There are 0 sized dimensions, and they aren't selected"));
}
