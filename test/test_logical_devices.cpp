// Logical devices (set_logical_devices): one CPU split into three, each with its own
// allocator, limit and statistics. Built as its own executable: the split must happen
// before the first use of cpu:0, which every other test file makes. The first test case
// relies on running first in a fresh process (ctest runs each case in its own).
#include <catch2/catch.hpp>

#include <cmath>
#include <ember/ember.h>
#include <ember/registry.h>

#include "fake_accelerator.h"

using namespace ember;
using Catch::Contains;
using ember::testing::PlacementSettings;

namespace {
constexpr size_t MiB = size_t(1) << 20;
std::string cpu_tf(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }
std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(Device(kCPU, 0), kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}
}  // namespace

TEST_CASE("logical devices: one CPU split into three, each with its own allocator") {
  // Listing, describing and parsing are no use of the device.
  REQUIRE(list_logical_devices(kCPU).size() == 1);
  CHECK_THAT(describe_devices(), Contains(cpu_tf(0)));
  CHECK(Device("cpu:2").index() == 2);
  // Bad arguments are rejected before anything changes.
  CHECK_THROWS_WITH(set_logical_devices(Device("cpu:0"), 0), "set_logical_devices: count must be in 1..32, got 0");
  CHECK_THROWS_WITH(set_logical_devices(Device("cpu:0"), 3, {MiB}),
                    "set_logical_devices: 1 memory limits given for 3 logical devices");
  CHECK_THROWS_WITH(set_logical_devices(Device("cpu:1"), 2),
                    Contains("set_logical_devices: physical device " + cpu_tf(1) + " (cpu:1) does not exist"));

  set_logical_devices(Device("cpu:0"), 3, {256 * MiB, 256 * MiB, 4 * MiB});
  auto logical = list_logical_devices(kCPU);
  REQUIRE(logical.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(logical[size_t(i)].device == Device(kCPU, i));
    CHECK(logical[size_t(i)].is_logical);
  }
  CHECK(logical[2].memory_limit == 4 * MiB);
  auto physical = list_physical_devices(kCPU);
  REQUIRE(physical.size() == 1);
  CHECK(physical[0].device == Device(kCPU, 0));
  CHECK_FALSE(physical[0].is_logical);
  CHECK_THAT(describe_devices(), Contains(cpu_tf(2)));

  // Each logical device has its own statistics.
  Tensor on1;
  {
    DeviceScope s("/cpu:1");
    on1 = full({1024}, 2.0f);
  }
  CHECK(on1.device() == Device(kCPU, 1));
  CHECK(on1.device().str() == "cpu:1");  // a logical CPU keeps its index; cpu:0 reports "cpu"
  CHECK(on1.device() != Device(kCPU));
  {
    DeviceScope s("cpu:1");
    CHECK(ones({1}).device() == Device(kCPU, 1));
    CHECK(ones({1}, TensorOptions().device(kCPU)).device().str() == "cpu");  // Device(kCPU) is cpu:0
    CHECK(on1.cpu().device() == Device(kCPU));
  }
  CHECK(memory::stats(Device("cpu:1")).allocated_bytes >= 4096);
  CHECK(memory::stats(Device("cpu:2")).allocated_bytes == 0);
  CHECK(memory::stats(Device("cpu:2")).limit_bytes == 4 * MiB);

  // cpu:2's limit is its own: 8 MiB fails there and fits on cpu:1.
  {
    DeviceScope s("cpu:2");
    CHECK_THROWS_AS(zeros({2 * 1024 * 1024}), OutOfMemory);
  }
  {
    DeviceScope s("cpu:1");
    CHECK(zeros({2 * 1024 * 1024}).numel() == 2 * 1024 * 1024);
  }
  CHECK(memory::stats(Device("cpu:2")).num_ooms == 1);
  CHECK(memory::stats(Device("cpu:1")).num_ooms == 0);

  // Automatic copies between logical devices, logged.
  PlacementSettings settings(true);
  Tensor a = tensor({0.0f, 1.0f});
  set_log_device_placement(true);
  Tensor r;
  {
    DeviceScope s("cpu:2");
    r = exp(a) + on1.narrow(0, 0, 2);
  }
  set_log_device_placement(false);
  CHECK(r.device() == Device(kCPU, 2));
  CHECK_THAT(values(r), Catch::Matchers::Approx(std::vector<double>{3.0, 2.0 + std::exp(1.0)}).epsilon(1e-6));
  CHECK(settings.take() == std::vector<std::string>{
                               "Copying input 0 of Exp from " + cpu_tf(0) + " to " + cpu_tf(2),
                               "Executing op Exp in device " + cpu_tf(2),
                               "Copying input 1 of Add from " + cpu_tf(1) + " to " + cpu_tf(2),
                               "Executing op Add in device " + cpu_tf(2)});
  // FollowInputs: two logical devices are two devices.
  CHECK_THROWS_WITH(a + on1.narrow(0, 0, 2), Contains(cpu_tf(0) + " (cpu) and " + cpu_tf(1) + " (cpu:1)"));

  // Multi-tower over the logical devices, summed on cpu:0.
  Tensor m = tensor({1.0f, 2.0f, 3.0f, 4.0f}).reshape({2, 2});
  std::vector<Tensor> towers;
  for (int i = 1; i < 3; ++i) {
    DeviceScope s(Device(kCPU, i));
    towers.push_back(matmul(m, m));
  }
  Tensor total = add_n({towers[0], towers[1].to(Device("cpu:1"))});
  CHECK(total.device() == Device(kCPU, 1));
  CHECK(values(total) == std::vector<double>{14, 20, 30, 44});

  // make_parallel over the three: 7 rows split 3, 2, 2.
  std::vector<int64_t> rows;
  std::vector<Device> where;
  Tensor x = arange(7, TensorOptions().dtype(kFloat));
  Tensor y = make_parallel(
      [&](const std::vector<Tensor>& in) {
        Tensor out = in[0] + 1;
        rows.push_back(in[0].size(0));
        where.push_back(out.device());
        return out;
      },
      {Device("cpu:0"), Device("cpu:1"), Device("cpu:2")}, {x});
  CHECK(rows == std::vector<int64_t>{3, 2, 2});
  CHECK(where == std::vector<Device>{Device("cpu:0"), Device("cpu:1"), Device("cpu:2")});
  CHECK(y.device() == Device(kCPU, 0));
  CHECK(values(y) == std::vector<double>{1, 2, 3, 4, 5, 6, 7});

  // Configured once: now that the devices are in use, a new split is rejected.
  CHECK_THROWS_AS(set_logical_devices(Device("cpu:0"), 2), InvalidArgument);
  CHECK_THROWS_WITH(set_logical_devices(Device("cpu:0"), 2),
                    "set_logical_devices: device " + cpu_tf(0) +
                        " (cpu:0) is already in use; logical devices must be configured before the first "
                        "allocation or op on a device of that type");
  CHECK(list_logical_devices(kCPU).size() == 3);
}

TEST_CASE("logical devices: a split after the first use is InvalidArgument naming the device") {
  Tensor t = ones({2});
  const size_t before = list_logical_devices(kCPU).size();
  CHECK_THROWS_AS(set_logical_devices(Device("cpu:0"), 4), InvalidArgument);
  CHECK_THROWS_WITH(set_logical_devices(Device("cpu:0"), 4),
                    Contains("set_logical_devices: device " + cpu_tf(0) + " (cpu:0) is already in use"));
  CHECK(list_logical_devices(kCPU).size() == before);
  CHECK(values(t) == std::vector<double>{1, 1});
}
