// Cross-checks indexing and the selection ops against libtorch: random inputs (also
// strided and broadcast views), random index tensors and masks, then the same dtype,
// shape and values from both libraries.
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include "torch_crosscheck_util.h"

#include <vector>

namespace {

using ember::indexing::Slice;
namespace ti = torch::indexing;

using crosscheck::as_torch;
using crosscheck::kTypes;
using crosscheck::to_torch;

struct Pair {
  ember::Tensor e;
  torch::Tensor t;
};
Pair values(std::vector<int64_t> sizes, ember::ScalarType dtype) {
  ember::Tensor v = ember::rand(sizes, ember::kDouble) * 6 - 3;
  if (ember::is_integral(dtype, true)) v = v.round();
  ember::Tensor e = v.to(dtype);
  return {e, as_torch(e)};
}
// Positions in [-n, n) (int64), of the given shape.
Pair positions(std::vector<int64_t> sizes, int64_t n) {
  ember::Tensor e = ember::randint(-n, n, sizes, ember::TensorOptions(ember::kInt64));
  return {e, as_torch(e)};
}
Pair mask(std::vector<int64_t> sizes) {
  ember::Tensor e = ember::rand(sizes).gt(0.5);
  return {e, as_torch(e)};
}

void check_same(const ember::Tensor& e, const torch::Tensor& t) {
  REQUIRE(to_torch(e.dtype()) == t.scalar_type());
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  ember::Tensor ed = e.to(ember::kDouble).contiguous();
  torch::Tensor td = t.to(torch::kDouble).contiguous();
  const double* a = ed.data_ptr<double>();
  const double* b = td.data_ptr<double>();
  for (int64_t i = 0; i < ed.numel(); ++i) {
    INFO("element " << i << ": ember " << a[i] << ", torch " << b[i]);
    REQUIRE(std::abs(a[i] - b[i]) <= 1e-2 * (1 + std::abs(b[i])));
  }
}

}  // namespace

TEST_CASE("crosscheck: index with position tensors, masks, slices and None") {
  ember::manual_seed(31);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    Pair x = values({4, 5, 6}, dt);
    // A transposed view and a broadcast view of the same values.
    Pair xt{x.e.transpose(0, 2), x.t.transpose(0, 2)};
    Pair xb{x.e.index({Slice(), Slice(0, 1)}).expand({4, 3, 6}), x.t.index({ti::Slice(), ti::Slice(0, 1)}).expand({4, 3, 6})};
    Pair i4 = positions({3, 2}, 4), i5 = positions({2}, 5), i6 = positions({3, 1}, 6), i3 = positions({7}, 3);
    check_same(x.e.index({i4.e}), x.t.index({i4.t}));
    check_same(x.e.index({Slice(), i5.e}), x.t.index({ti::Slice(), i5.t}));
    check_same(x.e.index({i4.e, i5.e}), x.t.index({i4.t, i5.t}));
    check_same(x.e.index({i4.e, Slice(1, 4), i6.e}), x.t.index({i4.t, ti::Slice(1, 4), i6.t}));
    check_same(x.e.index({1, i5.e, i6.e}), x.t.index({1, i5.t, i6.t}));
    check_same(x.e.index({ember::indexing::None, i4.e, "...", i6.e}), x.t.index({ti::None, i4.t, "...", i6.t}));
    check_same(xt.e.index({i6.e, Slice(), i4.e}), xt.t.index({i6.t, ti::Slice(), i4.t}));
    check_same(xb.e.index({Slice(), i3.e}), xb.t.index({ti::Slice(), i3.t}));
    Pair m = mask({4, 5}), m6 = mask({6});
    check_same(x.e.index({m.e}), x.t.index({m.t}));
    check_same(x.e.index({"...", m6.e}), x.t.index({"...", m6.t}));
    check_same(xt.e.index({m6.e, Slice(), 2}), xt.t.index({m6.t, ti::Slice(), 2}));
    Pair m4 = mask({4});
    if (m4.e.sum().item<int64_t>() == 1) check_same(x.e.index({m4.e, i5.e}), x.t.index({m4.t, i5.t}));
  }
}

TEST_CASE("crosscheck: index_put_ with copies and accumulation") {
  ember::manual_seed(32);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    Pair x = values({4, 5, 6}, dt);
    Pair i4 = positions({3}, 4), i6 = positions({3}, 6);
    Pair v = values({5}, dt);
    ember::Tensor e = x.e.clone();
    torch::Tensor t = x.t.clone();
    if (dt != ember::kBool) {  // libtorch accumulates bools differently (a sum cast back)
      e.index_put_(std::vector<std::optional<ember::Tensor>>{i4.e, std::nullopt, i6.e}, v.e.reshape({1, 5}), true);
      t.index_put_(c10::List<c10::optional<torch::Tensor>>({i4.t, c10::nullopt, i6.t}), v.t.reshape({1, 5}), true);
      check_same(e, t);
    }
    Pair m = mask({4, 5});
    Pair w = values({6}, dt);
    e.index_put_({m.e}, w.e);
    t.index_put_({m.t}, w.t);
    check_same(e, t);
    // Through a transposed view: writes reach the base.
    ember::Tensor et = e.transpose(0, 2);
    torch::Tensor tt = t.transpose(0, 2);
    Pair j = positions({2}, 6);
    et.index_put_({j.e, 1}, 1);
    tt.index_put_({j.t, 1}, 1);
    check_same(e, t);
  }
}

TEST_CASE("crosscheck: index_select, index_add, nonzero, masked_select") {
  ember::manual_seed(33);
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    Pair x = values({7, 9}, dt);
    ember::Tensor ie = ember::randint(0, 9, {12}, ember::TensorOptions(ember::kInt64));
    torch::Tensor it = as_torch(ie);
    check_same(ember::index_select(x.e, 1, ie), torch::index_select(x.t, 1, it));
    check_same(ember::index_select(x.e.t(), 0, ie), torch::index_select(x.t.t(), 0, it));
    check_same(ember::nonzero(x.e), torch::nonzero(x.t));
    check_same(ember::nonzero(x.e.t()), torch::nonzero(x.t.t()));
    Pair m = mask({9});
    check_same(ember::masked_select(x.e, m.e), torch::masked_select(x.t, m.t));
    if (dt != ember::kBool) {
      Pair src = values({7, 12}, dt);
      check_same(ember::index_add(x.e, 1, ie, src.e), torch::index_add(x.t, 1, it, src.t));
      check_same(ember::index_add(x.e.t(), 0, ie, src.e.t()), torch::index_add(x.t.t(), 0, it, src.t.t()));
    }
  }
}

TEST_CASE("crosscheck: int32 and 0-dim integer indices, value dims dropped by index_put_, aliases") {
  ember::manual_seed(34);
  Pair x = values({4, 5, 6}, ember::kFloat);
  for (ember::ScalarType it : {ember::kInt8, ember::kInt16, ember::kInt32, ember::kInt64}) {
    INFO(ember::name(it));
    ember::Tensor e2 = ember::scalar_tensor(2, it), em1 = ember::scalar_tensor(-1, it);
    torch::Tensor t2 = torch::scalar_tensor(2, to_torch(it)), tm1 = torch::scalar_tensor(-1, to_torch(it));
    check_same(x.e.index({e2}), x.t.index({t2}));
    check_same(x.e.index({Slice(), em1, e2}), x.t.index({ti::Slice(), tm1, t2}));
    ember::Tensor e = x.e.clone();
    torch::Tensor t = x.t.clone();
    e.index_put_({e2, Slice(1, 3)}, 7.5);
    t.index_put_({t2, ti::Slice(1, 3)}, 7.5);
    check_same(e, t);
  }
  // libtorch 1.13 takes int32 positions in index_select / index_add (its index and
  // index_put_ take them from 2.0): ember's int32 results equal libtorch's int64 ones.
  Pair p = positions({3, 2}, 4);
  ember::Tensor p32 = p.e.to(ember::kInt32);
  check_same(x.e.index({p32}), x.t.index({p.t}));
  check_same(x.e.index({Slice(), Slice(0, 4), p32}), x.t.index({ti::Slice(), ti::Slice(0, 4), p.t}));
  ember::Tensor i32 = ember::randint(0, 5, {7}, ember::TensorOptions(ember::kInt32));
  check_same(ember::index_select(x.e, 1, i32), torch::index_select(x.t, 1, as_torch(i32)));
  check_same(ember::index_select(x.e, 2, ember::scalar_tensor(3, ember::kInt32)),
             torch::index_select(x.t, 2, torch::scalar_tensor(3, torch::kInt32)));
  Pair src = values({4, 7, 6}, ember::kFloat);
  check_same(ember::index_add(x.e, 1, i32, src.e), torch::index_add(x.t, 1, as_torch(i32), src.t));
  {
    ember::Tensor e = x.e.clone();
    torch::Tensor t = x.t.clone();
    e.index_put_({p32}, ember::scalar_tensor(-2.0, ember::kFloat));
    t.index_put_({p.t}, torch::scalar_tensor(-2.0, torch::kFloat));
    check_same(e, t);
  }
  // The TensorIndex form drops the value's leading size-1 dims, in basic and advanced indexing.
  Pair v = values({1, 1, 5, 6}, ember::kFloat), w = values({1, 1, 2, 1, 6}, ember::kFloat);
  ember::Tensor e = x.e.clone();
  torch::Tensor t = x.t.clone();
  ember::Tensor i = ember::tensor({int64_t(3)});
  e.index_put_({i}, v.e);
  t.index_put_({as_torch(i)}, v.t);
  e.index_put_({Slice(0, 1)}, v.e);
  t.index_put_({ti::Slice(0, 1)}, v.t);
  e.index_put_({2}, v.e);
  t.index_put_({2}, v.t);
  ember::Tensor j = ember::tensor({int64_t(1), int64_t(0)});
  e.index_put_({Slice(1, 3), j}, w.e);
  t.index_put_({ti::Slice(1, 3), as_torch(j)}, w.t);
  check_same(e, t);
  // "..." alone is a new alias in both.
  CHECK(!x.e.index({"..."}).is_same(x.e));
  CHECK(!x.t.index({"..."}).is_same(x.t));
  CHECK(x.e.index({"..."}).data_ptr() == x.e.data_ptr());
}
