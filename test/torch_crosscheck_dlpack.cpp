// DLPack exchange with libtorch (at::toDLPack / at::fromDLPack) both ways, for every dtype
// both libraries share: the memory is shared (writes show through), strides and the view
// offset survive, and each side's deleter runs once the other lets go.
#include <ATen/DLConvertor.h>
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::kTypes;
using crosscheck::to_torch;

}  // namespace

TEST_CASE("dlpack crosscheck: ember tensors handed to libtorch share memory, strides and values") {
  for (ember::ScalarType dt : kTypes) {
    INFO(ember::name(dt));
    ember::Tensor base = (ember::arange(60, ember::kInt64).remainder(7) != 0).to(dt).view({3, 4, 5});
    ember::Tensor view = base.transpose(0, 2).narrow(1, 1, 2);
    torch::Tensor t = at::fromDLPack(ember::to_dlpack(view));
    // libtorch 1.13 reads DLPack 0.6's 8-bit unsigned as uint8: bool arrives as uint8.
    CHECK(t.scalar_type() == (dt == ember::kBool ? torch::kUInt8 : to_torch(dt)));
    CHECK(t.sizes().vec() == view.sizes().vec());
    CHECK(t.strides().vec() == view.strides().vec());
    CHECK(t.data_ptr() == view.data_ptr());
    CHECK(t.to(torch::kDouble).contiguous().sum().item<double>() == view.to(ember::kDouble).sum().item<double>());
  }
  // A write through libtorch shows in ember; the ember storage outlives every ember handle.
  ember::Tensor a = ember::arange(6, ember::kFloat).view({2, 3});
  torch::Tensor t = at::fromDLPack(ember::to_dlpack(a.t()));
  t.mul_(10);
  CHECK(a[1][2].item<float>() == 50.0f);
  a = ember::Tensor();
  CHECK(t[2][1].item<float>() == 50.0f);
}

TEST_CASE("dlpack crosscheck: libtorch tensors handed to ember share memory and are released once") {
  for (ember::ScalarType dt : kTypes) {
    if (dt == ember::kBool) continue;  // libtorch 1.13's toDLPack refuses bool ("Bool type is not supported by dlpack")
    INFO(ember::name(dt));
    torch::Tensor base = (torch::arange(60).remainder(7) != 0).to(to_torch(dt)).view({3, 4, 5});
    torch::Tensor view = base.permute({2, 0, 1}).narrow(0, 1, 3);
    ember::Tensor e = ember::from_dlpack(at::toDLPack(view));
    CHECK(e.scalar_type() == dt);
    CHECK(e.sizes().vec() == view.sizes().vec());
    CHECK(e.strides().vec() == view.strides().vec());
    CHECK(e.data_ptr() == view.data_ptr());
    CHECK(e.to(ember::kDouble).sum().item<double>() == view.to(torch::kDouble).sum().item<double>());
  }
  // The libtorch memory lives while ember holds it: references are taken and all dropped when
  // ember lets go. Which ones (storage, TensorImpl) differs between libtorch 1.13 and 2.x:
  // count both.
  torch::Tensor b = torch::arange(8, torch::kDouble);
  auto refs = [&b] { return b.storage().use_count() + b.use_count(); };
  const auto before = refs();
  {
    ember::Tensor e = ember::from_dlpack(at::toDLPack(b));
    CHECK(refs() > before);
    e.add_(1);
    CHECK(b[7].item<double>() == 8.0);
  }
  CHECK(refs() == before);
}
