// Devices and placement (API.md section 5 and 7): discovery, DeviceScope, the default
// device, placement rules 1-4 under both policies, soft placement, placement logging,
// add_n and make_parallel. Cross-device-type cases run on the "npu" test backend
// (fake_accelerator.h), so they need no GPU.
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "fake_accelerator.h"

using namespace ember;
using Catch::Contains;
using ember::testing::ensure_fake_accelerator;
using ember::testing::expected_accelerator;
using ember::testing::fake_counters;
using ember::testing::PlacementSettings;
using Lines = std::vector<std::string>;

namespace {

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kNpu0 = "/job:localhost/replica:0/task:0/device:NPU:0";
const std::string kNpu1 = "/job:localhost/replica:0/task:0/device:NPU:1";

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(Device(kCPU, 0), kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// A device of type CUDA that does not exist on this machine (gpu:0 on CPU-only CI).
Device missing_gpu() { return Device(kCUDA, cuda::device_count()); }

std::string all_devices() {
  std::string s;
  for (const DeviceInfo& d : list_logical_devices()) s += (s.empty() ? "" : ", ") + d.device.tf_str();
  return s;
}

// a = [[1,2,3],[4,5,6]], b = [[1,2],[3,4],[5,6]]: a @ b = [[22,28],[49,64]].
Tensor mat_a() { return tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3}); }
Tensor mat_b() { return tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2}); }
const std::vector<double> kAB = {22, 28, 49, 64};

}  // namespace

TEST_CASE("placement: discovery with no GPU reports zero GPUs") {
  ensure_fake_accelerator();
  const int gpus = cuda::device_count();
  CHECK(cuda::is_available() == (gpus > 0));
  CHECK(list_physical_devices(kCUDA).size() == size_t(gpus));
  CHECK_NOTHROW(cuda::synchronize());
  auto cpus = list_physical_devices(kCPU);
  REQUIRE(cpus.size() == 1);
  CHECK(cpus[0].device == Device(kCPU, 0));
  CHECK_FALSE(cpus[0].is_logical);
  CHECK(cpus[0].memory_total > 0);
  CHECK(cpus[0].cc_major == 0);
  CHECK(cpus[0].pci_bus_id.empty());
  auto npus = list_physical_devices(kPrivateUse1);
  REQUIRE(npus.size() == 2);
  CHECK(npus[1].device == Device("npu:1"));
  CHECK(npus[1].name == "ember fake accelerator (host memory)");
  CHECK(npus[1].memory_total == (size_t(1) << 30));
  // Every type, in order: cpu, then cuda, then npu.
  auto all = list_logical_devices();
  REQUIRE(all.size() == size_t(3 + gpus));
  CHECK(all.front().device == Device(kCPU, 0));
  CHECK(all.back().device == Device("npu:1"));
  const std::string table = describe_devices();
  CHECK_THAT(table, Contains(kCpu0) && Contains(kNpu1) && Contains("ember fake accelerator"));
  CHECK_THAT(table, Contains("device") && Contains("memory") && Contains("1.00 GiB"));
}

TEST_CASE("placement: DeviceScope accepts every device string form") {
  ensure_fake_accelerator();
  const std::vector<std::pair<std::string, Device>> forms = {
      {"cpu", Device(kCPU, 0)},
      {"cpu:0", Device(kCPU, 0)},
      {"CPU:0", Device(kCPU, 0)},
      {"/cpu:0", Device(kCPU, 0)},
      {"/device:CPU:0", Device(kCPU, 0)},
      {kCpu0, Device(kCPU, 0)},
      {"gpu", Device(kCUDA, 0)},
      {"cuda:1", Device(kCUDA, 1)},
      {"gpu:1", Device(kCUDA, 1)},
      {"GPU:1", Device(kCUDA, 1)},
      {"/gpu:0", Device(kCUDA, 0)},
      {"/device:GPU:1", Device(kCUDA, 1)},
      {"/job:localhost/replica:0/task:0/device:GPU:0", Device(kCUDA, 0)},
      {"npu", Device(kPrivateUse1, 0)},
      {"npu:1", Device(kPrivateUse1, 1)},
      {"/device:NPU:1", Device(kPrivateUse1, 1)},
      {kNpu1, Device(kPrivateUse1, 1)},
  };
  for (const auto& [spec, want] : forms) {
    INFO("spec: " << spec);
    DeviceScope s(spec);  // never validated: gpu:1 is fine until an op runs
    CHECK(current_device() == want);
  }
  CHECK(current_device() == Device(kCPU, 0));
  {
    DeviceScope s(std::string("npu:1"));
    DeviceScope t(Device(kPrivateUse1, 0));
    CHECK(current_device() == Device("npu:0"));
  }
  CHECK_THROWS_AS(DeviceScope("cuda:01"), InvalidArgument);
  CHECK_THROWS_WITH(DeviceScope("tpu:0"), Contains("invalid device string 'tpu:0'"));
  static_assert(!std::is_copy_constructible_v<DeviceScope> && !std::is_move_constructible_v<DeviceScope>);
  static_assert(!std::is_copy_assignable_v<DeviceScope> && !std::is_move_assignable_v<DeviceScope>);
}

TEST_CASE("placement: nested scopes restore the enclosing device; a scope without index keeps it") {
  ensure_fake_accelerator();
  CHECK(current_device() == Device(kCPU, 0));
  {
    DeviceScope outer("npu:1");
    CHECK(current_device() == Device("npu:1"));
    {
      DeviceScope inner("cpu:0");
      CHECK(current_device() == Device(kCPU, 0));
      {
        DeviceScope bare("npu");  // TF merges: the enclosing npu index wins
        CHECK(current_device() == Device("npu:1"));
      }
      CHECK(current_device() == Device(kCPU, 0));
    }
    CHECK(current_device() == Device("npu:1"));
  }
  CHECK(current_device() == Device(kCPU, 0));
}

TEST_CASE("placement: CPU tensors report Device(kCPU) as libtorch; it is cpu:0 wherever devices compare") {
  ensure_fake_accelerator();
  Tensor x = ones({2});
  CHECK(x.device() == Device(kCPU));
  CHECK(x.device().index() == -1);
  CHECK_FALSE(x.device().has_index());
  CHECK(x.device().str() == "cpu");
  CHECK(fmt::format("{}", x.device()) == "cpu");
  CHECK(x.device().tf_str() == kCpu0);
  CHECK(x.device() == Device(kCPU, 0));
  CHECK(x.options().device() == Device(kCPU));
  CHECK(x.storage().device().str() == "cpu");
  // Asking for cpu:0 or for "the CPU" gives the same device, and no copy.
  CHECK(zeros({2}, TensorOptions().device(Device("cpu:0"))).device().str() == "cpu");
  CHECK(x.to(Device(kCPU)).is_same(x));
  CHECK(x.to(Device("cpu:0")).is_same(x));
  CHECK(x.cpu().is_same(x));
  // Devices as keys: the tensor's device finds cpu:0's entry.
  std::unordered_map<Device, int> per_device{{Device("cpu:0"), 7}};
  CHECK(per_device.count(x.device()) == 1);
  // Device(kCPU) is a concrete device: a scope of it is cpu:0, inside any other scope too.
  {
    DeviceScope npu("npu:1");
    Tensor c = ones({2}, TensorOptions().device(kCPU));
    CHECK(c.device() == Device(kCPU));
    DeviceScope cpu{Device(kCPU)};
    CHECK(current_device() == Device(kCPU, 0));
    CHECK(current_device().index() == 0);
    CHECK(zeros({1}).device().str() == "cpu");
  }
  // A tensor coming back from another device reports the CPU the same way.
  Tensor back = ones({2}, TensorOptions().device(Device("npu:1"))).cpu();
  CHECK(back.device() == Device(kCPU));
  CHECK(back.device().str() == "cpu");
  CHECK(values(back + x) == std::vector<double>{2, 2});
}

TEST_CASE("placement: set_default_device moves creation ops, not ops with inputs") {
  ensure_fake_accelerator();
  PlacementSettings settings;
  Tensor x = tensor({1.0f, 2.0f});
  set_default_device(Device("npu:1"));
  CHECK(current_device() == Device("npu:1"));
  Tensor z = ones({3});
  CHECK(z.device() == Device("npu:1"));
  CHECK(values(z) == std::vector<double>{1, 1, 1});
  CHECK(exp(x).device() == Device(kCPU, 0));  // rule 2: runs where its input lives
  {
    DeviceScope s("cpu:0");
    CHECK(zeros({2}).device() == Device(kCPU, 0));
  }
  set_default_device(Device("npu"));
  CHECK(current_device() == Device("npu:0"));
  set_default_device(missing_gpu());
  CHECK_THROWS_AS(zeros({2}), InvalidArgument);
  set_default_device(Device(kCPU, 0));
  CHECK(zeros({2}).device() == Device(kCPU, 0));
}

TEST_CASE("placement: rule 1, creation ops run on the scope's device") {
  ensure_fake_accelerator();
  DeviceScope s("npu:1");
  CHECK(zeros({2, 2}).device() == Device("npu:1"));
  CHECK(arange(4).device() == Device("npu:1"));
  Tensor t = tensor({1.5, 2.5});
  CHECK(t.device() == Device("npu:1"));
  CHECK(values(t) == std::vector<double>{1.5, 2.5});
  // Explicit options win over the scope, as in libtorch.
  CHECK(zeros({2}, TensorOptions().device(Device(kCPU, 0))).device() == Device(kCPU, 0));
}

TEST_CASE("placement: rule 1, inputs on another device type are copied into the scope, both ways") {
  ensure_fake_accelerator();
  Tensor a = mat_a(), b = mat_b();
  const int64_t from_host = fake_counters(0).copies_from_host;
  Tensor c;
  {
    DeviceScope s("npu:0");
    c = matmul(a, b);
  }
  CHECK(c.device() == Device("npu:0"));
  CHECK(fake_counters(0).copies_from_host == from_host + 2);
  CHECK(values(c) == kAB);
  CHECK(a.device() == Device(kCPU, 0));  // the inputs stay where they were
  CHECK(b.device() == Device(kCPU, 0));

  const int64_t to_host = fake_counters(0).copies_to_host;
  Tensor d;
  {
    DeviceScope s("cpu:0");
    d = c + 1;
  }
  CHECK(d.device() == Device(kCPU, 0));
  CHECK(fake_counters(0).copies_to_host == to_host + 1);
  CHECK(values(d) == std::vector<double>{23, 29, 50, 65});

  // npu:0 -> npu:1 goes through the backend's copy as well.
  const int64_t between = fake_counters(1).copies_between;
  Tensor e;
  {
    DeviceScope s("npu:1");
    e = exp(c - c);
  }
  CHECK(e.device() == Device("npu:1"));
  CHECK(fake_counters(1).copies_between >= between + 1);
  CHECK(values(e) == std::vector<double>{1, 1, 1, 1});
}

TEST_CASE("placement: rule 2, FollowInputs runs ops where their inputs live") {
  ensure_fake_accelerator();
  CHECK(placement() == Placement::FollowInputs);
  Tensor x = tensor({0.0f, 1.0f}).to(Device("npu:1"));
  Tensor y = exp(x) * 2;
  CHECK(y.device() == Device("npu:1"));
  CHECK_THAT(values(y), Catch::Matchers::Approx(std::vector<double>{2.0, 2.0 * std::exp(1.0)}).epsilon(1e-6));
  // A 0-dim CPU tensor joins any device, as in libtorch.
  Tensor s = scalar_tensor(3.0f);
  REQUIRE(s.dim() == 0);
  Tensor z = x + s;
  CHECK(z.device() == Device("npu:1"));
  CHECK(values(z) == std::vector<double>{3, 4});
  // Two devices: InvalidArgument naming both.
  Tensor c = tensor({1.0f, 2.0f});
  CHECK_THROWS_AS(c + x, InvalidArgument);
  CHECK_THROWS_WITH(c + x, "Add: expected all tensors to be on the same device, but found at least two devices, " +
                               kCpu0 + " (cpu) and " + kNpu1 +
                               " (npu:1); move them with .to(device), use a DeviceScope, or "
                               "set_placement(Placement::PreferAccelerator)");
  CHECK(c.device() == Device(kCPU, 0));
  CHECK(x.device() == Device("npu:1"));
}

TEST_CASE("placement: rule 2, PreferAccelerator sends unscoped CPU ops to the accelerator") {
  ensure_fake_accelerator();
  PlacementSettings settings;
  // Inputs are made first: under PreferAccelerator creation ops go to the accelerator too.
  Tensor a = mat_a(), b = mat_b();
  Tensor v = tensor({1.0f, 2.0f, 3.0f});
  Tensor ai = tensor({1, 2, 3, 4}).reshape({2, 2});
  Tensor x = tensor({1.0f, 2.0f}).to(Device("npu:1"));
  Tensor h = tensor({10.0f, 20.0f});
  set_placement(Placement::PreferAccelerator);
  CHECK(placement() == Placement::PreferAccelerator);
  const Device acc = expected_accelerator();
  Tensor c = matmul(a, b);
  CHECK(c.device() == acc);
  CHECK(values(c) == kAB);
  CHECK(a.device() == Device(kCPU, 0));
  // Creation ops outside a scope go there too (the default device is cpu:0).
  CHECK(zeros({2}).device() == acc);
  CHECK(tensor({1.0f}).device() == acc);
  // An op the accelerator has no kernel for stays on the CPU.
  const Device cumsum_dev = cuda::device_count() > 0 && has_kernel(Op::Cumsum, kCUDA, kFloat) ? acc : Device(kCPU, 0);
  Tensor cs = cumsum(v, 0);
  CHECK(cs.device() == cumsum_dev);
  CHECK(values(cs) == std::vector<double>{1, 3, 6});
  // A dtype the accelerator's matmul lacks stays on the CPU (fake npu: float32 and float64 only).
  if (acc.is_privateuse1()) {
    Tensor ci = matmul(ai, ai);
    CHECK(ci.device() == Device(kCPU, 0));
    CHECK(values(ci) == std::vector<double>{7, 10, 15, 22});
  }
  // Inputs already on an accelerator stay there.
  CHECK((x * x).device() == Device("npu:1"));
  // Mixed CPU and accelerator inputs are no error: both go to the accelerator.
  Tensor m = h + x;
  CHECK(m.device() == acc);
  CHECK(values(m) == std::vector<double>{11, 22});
  // A scope still wins.
  {
    DeviceScope s("cpu:0");
    CHECK(matmul(a, b).device() == Device(kCPU, 0));
    CHECK(zeros({1}).device() == Device(kCPU, 0));
  }
  // An explicit default device other than cpu:0 is kept for creation ops.
  set_default_device(Device("npu:1"));
  CHECK(zeros({1}).device() == Device("npu:1"));
}

TEST_CASE("placement: rule 3, a device that does not exist is InvalidArgument") {
  ensure_fake_accelerator();
  Tensor a = tensor({1.0f, 2.0f});
  const Device gpu = missing_gpu();
  {
    DeviceScope s(gpu);  // the scope itself never fails
    CHECK_THROWS_AS(exp(a), InvalidArgument);
    CHECK_THROWS_WITH(exp(a), "Could not satisfy explicit device specification '" + gpu.tf_str() +
                                  "': the device does not exist (op Exp; " + std::to_string(gpu.index()) +
                                  " device(s) of type cuda); available devices: " + all_devices() +
                                  ". Enable soft placement (set_soft_device_placement(true)) to fall back "
                                  "to an existing device");
    CHECK_THROWS_WITH(zeros({2}), Contains("Could not satisfy explicit device specification '" + gpu.tf_str()));
  }
  {
    DeviceScope s("npu:5");
    CHECK_THROWS_WITH(a + a, Contains("'/job:localhost/replica:0/task:0/device:NPU:5': the device does not exist "
                                      "(op Add; 2 device(s) of type npu); available devices: " +
                                      all_devices()));
  }
  CHECK_THROWS_AS(a.to(gpu), InvalidArgument);
  CHECK_THROWS_WITH(a.to(gpu), "to: Could not satisfy explicit device specification '" + gpu.tf_str() +
                                   "': the device does not exist; available devices: " + all_devices());
  CHECK_THROWS_WITH(zeros({2}, TensorOptions().device(Device("npu:7"))),
                    Contains("Could not satisfy explicit device specification "
                             "'/job:localhost/replica:0/task:0/device:NPU:7'"));
  // No kernel on an existing device is NotImplemented, naming where the op exists.
  DeviceScope s("npu:0");
  CHECK_THROWS_AS(cumsum(a, 0), NotImplemented);
  CHECK_THROWS_WITH(cumsum(a, 0), Contains("Cumsum: no kernel for device type npu and dtype float32; "
                                           "the op is available on: cpu ("));
}

TEST_CASE("placement: rule 3, soft placement falls back to the best existing device") {
  ensure_fake_accelerator();
  PlacementSettings settings(true);
  set_soft_device_placement(true);
  Tensor a = tensor({1.0f, 2.0f});
  const Device gpu = missing_gpu();
  const Device gpu_fallback = cuda::device_count() > 0 ? Device(kCUDA, 0) : Device(kCPU, 0);
  {
    DeviceScope s(gpu);
    Tensor r = exp(a);
    CHECK(r.device() == gpu_fallback);
    CHECK_THAT(values(r), Catch::Matchers::Approx(std::vector<double>{std::exp(1.0), std::exp(2.0)}).epsilon(1e-6));
    CHECK(zeros({2}).device() == gpu_fallback);
  }
  {
    DeviceScope s("npu:5");  // same type's lowest index
    Tensor r = a * 3;
    CHECK(r.device() == Device("npu:0"));
    CHECK(values(r) == std::vector<double>{3, 6});
  }
  {
    // No kernel on the scope's type: soft placement goes to another type, the CPU,
    // copying the input back from the accelerator.
    Tensor x = tensor({1.0f, 2.0f, 3.0f}).to(Device("npu:1"));
    DeviceScope s("npu:1");
    set_log_device_placement(true);
    Tensor r = cumsum(x, 0);
    set_log_device_placement(false);
    CHECK(r.device() == Device(kCPU, 0));
    CHECK(values(r) == std::vector<double>{1, 3, 6});
    CHECK(x.device() == Device("npu:1"));
    CHECK(settings.take() == Lines{"Copying input 0 of Cumsum from " + kNpu1 + " to " + kCpu0,
                                   "Executing op Cumsum in device " + kCpu0});
  }
}

TEST_CASE("placement: a failed placement leaves its inputs where they were") {
  ensure_fake_accelerator();
  Tensor a = tensor({1.0f, 2.0f}).to(Device("npu:1"));
  Tensor b = tensor({5.0f, 7.0f});
  {
    DeviceScope s(missing_gpu());
    CHECK_THROWS_AS(a + b, InvalidArgument);
    CHECK_THROWS_AS(a.add_(b), InvalidArgument);
    CHECK_THROWS_AS(add_n({a, b}), InvalidArgument);
  }
  CHECK_THROWS_AS(a + b, InvalidArgument);  // FollowInputs, two devices
  CHECK(a.device() == Device("npu:1"));
  CHECK(values(a) == std::vector<double>{1, 2});
  CHECK(b.device() == Device(kCPU, 0));
  CHECK(values(b) == std::vector<double>{5, 7});
  {
    // An in-place op runs where the tensor it writes lives (colocated, as TF does with
    // variables): inside a scope for npu:0, a on npu:1 is updated there, b is copied.
    DeviceScope s("npu:0");
    a.mul_(b);
  }
  CHECK(a.device() == Device("npu:1"));
  CHECK(values(a) == std::vector<double>{5, 14});
  CHECK(b.device() == Device(kCPU, 0));
  CHECK(values(b) == std::vector<double>{5, 7});
}

TEST_CASE("placement: rule 4, one log line per op and per automatic copy, TF's format") {
  ensure_fake_accelerator();
  PlacementSettings settings(true);
  Tensor a = mat_a(), b = mat_b();
  set_log_device_placement(true);
  Tensor c = matmul(a, b);
  CHECK(settings.take() == Lines{"Executing op MatMul in device " + kCpu0});
  {
    DeviceScope s("npu:0");
    Tensor d = matmul(a, b);
    CHECK(values(d) == kAB);
  }
  CHECK(settings.take() == Lines{"Copying input 0 of MatMul from " + kCpu0 + " to " + kNpu0,
                                 "Copying input 1 of MatMul from " + kCpu0 + " to " + kNpu0,
                                 "Executing op MatMul in device " + kNpu0});
  Tensor z = zeros({2});
  CHECK(settings.take() == Lines{"Executing op Fill in device " + kCpu0});
  // exp(a + b) * 2 under a scope: Add copies both inputs, Exp and Mul run in place.
  Tensor x = tensor({0.5f, 1.0f}), y = tensor({0.5f, 0.0f});
  // tensor(...) logs as TensorFlow's constants do.
  CHECK(settings.take() == Lines{"Executing op _EagerConst in device " + kCpu0,
                                 "Executing op _EagerConst in device " + kCpu0});
  Tensor r;
  {
    DeviceScope s("npu:1");
    r = exp(x + y) * 2;
  }
  CHECK(settings.take() == Lines{"Copying input 0 of Add from " + kCpu0 + " to " + kNpu1,
                                 "Copying input 1 of Add from " + kCpu0 + " to " + kNpu1,
                                 "Executing op Add in device " + kNpu1, "Executing op Exp in device " + kNpu1,
                                 "Executing op Mul in device " + kNpu1});
  CHECK_THAT(values(r), Catch::Matchers::Approx(std::vector<double>{2 * std::exp(1.0), 2 * std::exp(1.0)}).epsilon(1e-6));
  set_log_device_placement(false);
  Tensor quiet = exp(x);
  CHECK(settings.take().empty());
}

TEST_CASE("placement: rule 4, the default log sink is stderr") {
  ensure_fake_accelerator();
  PlacementSettings settings;  // no capture: stderr
  char path[] = "/tmp/ember_placement_logXXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  set_log_device_placement(true);
  Tensor t = ones({2}) + 1;
  set_log_device_placement(false);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path);
  CHECK(ss.str() == "Executing op Fill in device " + kCpu0 + "\nExecuting op Add in device " + kCpu0 + "\n");
}

TEST_CASE("placement: scopes are per thread") {
  ensure_fake_accelerator();
  Tensor x = tensor({1.0f, 2.0f});
  std::atomic<int> arrived{0};
  auto barrier = [&arrived](int n) {
    ++arrived;
    while (arrived.load() < n) std::this_thread::yield();
  };
  Device seen[2] = {Device(kCPU, 0), Device(kCPU, 0)};
  Device ran[2] = {Device(kCPU, 0), Device(kCPU, 0)};
  std::vector<double> got[2];
  auto worker = [&](int i, const char* spec) {
    DeviceScope s(spec);
    barrier(2);  // both scopes are open at once
    seen[i] = current_device();
    Tensor r = x * double(i + 2);
    ran[i] = r.device();
    got[i] = values(r);
    barrier(4);
  };
  std::thread t0(worker, 0, "npu:0"), t1(worker, 1, "npu:1");
  while (arrived.load() < 2) std::this_thread::yield();
  CHECK(current_device() == Device(kCPU, 0));  // the main thread sees neither scope
  CHECK((x + x).device() == Device(kCPU, 0));
  t0.join();
  t1.join();
  CHECK(seen[0] == Device("npu:0"));
  CHECK(seen[1] == Device("npu:1"));
  CHECK(ran[0] == Device("npu:0"));
  CHECK(ran[1] == Device("npu:1"));
  CHECK(got[0] == std::vector<double>{2, 4});
  CHECK(got[1] == std::vector<double>{3, 6});
  // A new thread starts outside any scope, whatever its parent's scope.
  DeviceScope s("npu:1");
  Device child(kCPU, 1);
  std::thread([&child] { child = current_device(); }).join();
  CHECK(child == Device(kCPU, 0));
}

TEST_CASE("placement: a scope exits while an exception unwinds") {
  ensure_fake_accelerator();
  try {
    DeviceScope outer("npu:1");
    DeviceScope inner("npu:0");
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  CHECK(current_device() == Device(kCPU, 0));
  Tensor a = tensor({1.0f});
  {
    DeviceScope outer("npu:1");
    try {
      DeviceScope inner(missing_gpu());
      Tensor r = exp(a);  // throws from inside the op
    } catch (const InvalidArgument&) {
    }
    CHECK(current_device() == Device("npu:1"));
    CHECK(exp(a).device() == Device("npu:1"));
  }
  CHECK(current_device() == Device(kCPU, 0));
}

TEST_CASE("placement: add_n, the multi-tower example, lands on the scope's device") {
  ensure_fake_accelerator();
  PlacementSettings settings(true);
  Tensor a = mat_a(), b = mat_b();
  std::vector<Tensor> towers;
  for (const char* d : {"npu:0", "npu:1"}) {
    DeviceScope s(d);
    towers.push_back(matmul(a, b));
  }
  CHECK(towers[0].device() == Device("npu:0"));
  CHECK(towers[1].device() == Device("npu:1"));
  set_log_device_placement(true);
  Tensor sum;
  {
    DeviceScope s("/cpu:0");
    sum = add_n(towers);
  }
  CHECK(settings.take() == Lines{"Copying input 0 of AddN from " + kNpu0 + " to " + kCpu0,
                                 "Copying input 1 of AddN from " + kNpu1 + " to " + kCpu0,
                                 "Executing op AddN in device " + kCpu0});
  set_log_device_placement(false);
  CHECK(sum.device() == Device(kCPU, 0));
  CHECK(values(sum) == std::vector<double>{44, 56, 98, 128});
  CHECK(towers[0].device() == Device("npu:0"));
  CHECK(values(towers[0]) == kAB);  // inputs untouched
  // Unscoped: runs where its inputs are; two devices is an error under FollowInputs.
  Tensor on1 = add_n({towers[1], towers[1], towers[1]});
  CHECK(on1.device() == Device("npu:1"));
  CHECK(values(on1) == std::vector<double>{66, 84, 147, 192});
  CHECK_THROWS_WITH(add_n(towers), Contains("AddN: expected all tensors to be on the same device") &&
                                       Contains(kNpu0) && Contains(kNpu1));
  // One input: a copy, not the same tensor; dtypes promote as add does.
  Tensor one = add_n({a});
  CHECK_FALSE(one.is_same(a));
  CHECK(equal(one, a));
  Tensor mixed = add_n({tensor({1, 2}), tensor({0.5f, 0.5f})});
  CHECK(mixed.dtype() == kFloat);
  CHECK(values(mixed) == std::vector<double>{1.5, 2.5});
  CHECK_THROWS_WITH(add_n({a, b}), "add_n: all inputs must have the same shape, but entry 0 is [2, 3] and entry 1 is [3, 2]");
  CHECK_THROWS_WITH(add_n({}), "add_n: expected a non-empty list of Tensors");
}

TEST_CASE("placement: make_parallel splits like tensor_split and concatenates on the current device") {
  ensure_fake_accelerator();
  Tensor x = arange(10, TensorOptions().dtype(kFloat)).reshape({5, 2});
  Tensor y = full({5, 1}, 100.0f);
  std::vector<Device> seen;
  std::vector<int64_t> rows;
  auto fn = [&](const std::vector<Tensor>& in) {
    seen.push_back(current_device());
    rows.push_back(in[0].size(0));
    return in[0] * 2 + in[1];
  };
  Tensor r = make_parallel(fn, {Device("npu:0"), Device("npu:1")}, {x, y});
  CHECK(seen == std::vector<Device>{Device("npu:0"), Device("npu:1")});
  CHECK(rows == std::vector<int64_t>{3, 2});  // the first parts larger
  CHECK(r.device() == Device(kCPU, 0));
  CHECK((r.size(0) == 5 && r.size(1) == 2));
  CHECK(values(r) == std::vector<double>{100, 102, 104, 106, 108, 110, 112, 114, 116, 118});
  // More devices than rows: the last parts are empty.
  seen.clear();
  rows.clear();
  Tensor r2 = make_parallel(fn, {Device("npu:0"), Device("npu:1"), Device("cpu:0"), Device("npu:0")},
                            {x.narrow(0, 0, 3), y.narrow(0, 0, 3)});
  CHECK(rows == std::vector<int64_t>{1, 1, 1, 0});
  CHECK(values(r2) == std::vector<double>{100, 102, 104, 106, 108, 110});
  // Inside a scope the result lands on the scope's device.
  {
    DeviceScope s("npu:1");
    Tensor r3 = make_parallel(fn, {Device("npu:0"), Device("cpu:0")}, {x, y});
    CHECK(r3.device() == Device("npu:1"));
    CHECK(values(r3) == values(r));
  }
  CHECK_THROWS_WITH(make_parallel(fn, {}, {x}), "make_parallel: expected at least one device");
  CHECK_THROWS_WITH(make_parallel(fn, {Device("npu:0")}, {x, y.narrow(0, 0, 4)}),
                    "make_parallel: input 1 has 4 rows but input 0 has 5");
  CHECK_THROWS_AS(make_parallel(fn, {missing_gpu()}, {x}), InvalidArgument);
  CHECK(current_device() == Device(kCPU, 0));
}
