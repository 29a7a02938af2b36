// Device strings (API.md section 1): every accepted form, every rejection by type and message.

#include <catch2/catch.hpp>
#include <string>
#include <unordered_set>

#include "ember/device.h"
#include "ember/error.h"

using Catch::Contains;
using Catch::StartsWith;
using ember::Device;
using ember::DeviceType;

namespace {

void check_parses(const std::string& spec, DeviceType type, int index) {
  INFO("spec: " << spec);
  const Device d(spec);
  CHECK(d.type() == type);
  CHECK(d.index() == index);
  CHECK(d.has_index() == (index >= 0));
}

// Every rejection is an InvalidArgument that quotes the string and says what is wrong.
void check_rejects(const std::string& spec, const std::string& why) {
  INFO("spec: '" << spec << "'");
  CHECK_THROWS_AS(Device(spec), ember::InvalidArgument);
  CHECK_THROWS_WITH(Device(spec), StartsWith("Device: invalid device string '" + spec + "': "));
  CHECK_THROWS_WITH(Device(spec), Contains(why));
  CHECK_THROWS_WITH(Device(spec), Contains("expected <type>[:<index>]") &&
                                      Contains("'/job:localhost/replica:0/task:0/device:CPU:0'"));
}

}  // namespace

TEST_CASE("device: parses libtorch forms") {
  check_parses("cpu", DeviceType::CPU, -1);
  check_parses("cpu:0", DeviceType::CPU, 0);
  check_parses("cpu:3", DeviceType::CPU, 3);
  check_parses("cuda", DeviceType::CUDA, -1);
  check_parses("cuda:1", DeviceType::CUDA, 1);
  check_parses("cuda:10", DeviceType::CUDA, 10);
  check_parses("gpu", DeviceType::CUDA, -1);
  check_parses("gpu:1", DeviceType::CUDA, 1);
  check_parses("GPU:1", DeviceType::CUDA, 1);
  check_parses("CPU", DeviceType::CPU, -1);
  check_parses("Cuda:2", DeviceType::CUDA, 2);
  check_parses("cuda:32767", DeviceType::CUDA, 32767);
}

TEST_CASE("device: parses TensorFlow names") {
  check_parses("/cpu:0", DeviceType::CPU, 0);
  check_parses("/gpu:0", DeviceType::CUDA, 0);
  check_parses("/GPU:2", DeviceType::CUDA, 2);
  check_parses("/cpu", DeviceType::CPU, -1);
  check_parses("/device:CPU:0", DeviceType::CPU, 0);
  check_parses("/device:GPU:1", DeviceType::CUDA, 1);
  check_parses("/device:gpu:1", DeviceType::CUDA, 1);
  check_parses("/device:cuda:4", DeviceType::CUDA, 4);
  check_parses("/device:GPU", DeviceType::CUDA, -1);
  check_parses("/job:localhost/replica:0/task:0/device:GPU:0", DeviceType::CUDA, 0);
  check_parses("/job:localhost/replica:0/task:0/device:CPU:0", DeviceType::CPU, 0);
  check_parses("/job:localhost/device:CPU:0", DeviceType::CPU, 0);
  check_parses("/job:localhost/replica:0/device:GPU:3", DeviceType::CUDA, 3);
  check_parses("/replica:0/task:0/device:GPU:1", DeviceType::CUDA, 1);
  check_parses("/device:GPU:0/job:localhost", DeviceType::CUDA, 0);  // TF allows any order
  check_parses("/job:localhost/gpu:1", DeviceType::CUDA, 1);
  check_parses("/job:worker_1/replica:12/task:3/device:CPU:0", DeviceType::CPU, 0);
}

TEST_CASE("device: constructs from type and index") {
  CHECK(Device(ember::kCPU).index() == -1);
  CHECK_FALSE(Device(ember::kCPU).has_index());
  CHECK(Device(ember::kCUDA, 2).index() == 2);
  CHECK(Device(ember::kCUDA, 2).is_cuda());
  CHECK_FALSE(Device(ember::kCUDA, 2).is_cpu());
  CHECK(Device("cpu:0").is_cpu());
  const char* spec = "gpu:5";
  CHECK(Device(spec) == Device(ember::kCUDA, 5));
}

TEST_CASE("device: str gives the libtorch form") {
  CHECK(Device("cpu").str() == "cpu");
  CHECK(Device("cpu:0").str() == "cpu:0");
  CHECK(Device("cpu:1").str() == "cpu:1");
  CHECK(Device("cuda").str() == "cuda");
  CHECK(Device("gpu:1").str() == "cuda:1");
  CHECK(Device("GPU:0").str() == "cuda:0");
  CHECK(Device("/device:GPU:3").str() == "cuda:3");
  CHECK(Device("/job:localhost/replica:0/task:0/device:CPU:0").str() == "cpu:0");
  CHECK(Device(ember::kCUDA, 7).str() == "cuda:7");
}

TEST_CASE("device: tf_str gives the full TensorFlow name") {
  CHECK(Device("cpu:0").tf_str() == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(Device("cuda:2").tf_str() == "/job:localhost/replica:0/task:0/device:GPU:2");
  CHECK(Device("/gpu:0").tf_str() == "/job:localhost/replica:0/task:0/device:GPU:0");
  // Device(kCPU) is cpu:0 (Note [CPU device index]); other types' -1 has no index yet.
  CHECK(Device("cpu").tf_str() == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(Device("gpu").tf_str() == "/job:localhost/replica:0/task:0/device:GPU");
  // tf_str() parses back to the same device.
  for (const char* spec : {"cpu", "cpu:0", "cuda:1", "gpu", "cuda:32767"}) {
    INFO("spec: " << spec);
    CHECK(Device(Device(spec).tf_str()) == Device(spec));
    CHECK(Device(Device(spec).str()) == Device(spec));
  }
}

TEST_CASE("device: equality and hash") {
  CHECK(Device("gpu:1") == Device("cuda:1"));
  CHECK(Device("/device:GPU:1") == Device("cuda:1"));
  CHECK(Device("cpu") == Device(ember::kCPU));
  CHECK(Device("cpu:0") != Device("cuda:0"));
  CHECK(Device("cuda:0") != Device("cuda:1"));
  CHECK_FALSE(Device("cuda:0") != Device("/gpu:0"));

  const std::hash<Device> h;
  CHECK(h(Device("gpu:1")) == h(Device("/device:GPU:1")));
  std::unordered_set<Device> set{Device("cpu"),  Device("cpu:0"),  Device("cpu:1"),
                                 Device("cuda"), Device("cuda:0"), Device("cuda:1")};
  CHECK(set.size() == 5);  // cpu and cpu:0 are one device
  set.insert(Device("/job:localhost/replica:0/task:0/device:GPU:1"));
  CHECK(set.size() == 5);
  CHECK(set.count(Device("gpu:0")) == 1);
  CHECK(set.count(Device("gpu:2")) == 0);
}

TEST_CASE("device: index -1 is the CPU, equal to cpu:0 and hashed alike; other types keep it apart") {
  const Device cpu(ember::kCPU), cpu0(ember::kCPU, 0), cpu1(ember::kCPU, 1);
  // libtorch's accessors: Device(kCPU) has no index and prints "cpu".
  CHECK(cpu.index() == -1);
  CHECK_FALSE(cpu.has_index());
  CHECK(cpu.str() == "cpu");
  CHECK(cpu0.str() == "cpu:0");
  // ember's rule (libtorch 1.13 says Device(kCPU) != Device(kCPU, 0)).
  CHECK(cpu == cpu0);
  CHECK(cpu0 == cpu);
  CHECK_FALSE(cpu != cpu0);
  CHECK(Device("cpu") == Device("/device:CPU:0"));
  CHECK(cpu != cpu1);
  CHECK(cpu.compared_index() == 0);
  const std::hash<Device> h;
  CHECK(h(cpu) == h(cpu0));
  CHECK(h(cpu) != h(cpu1));
  std::unordered_set<Device> set{cpu};
  CHECK(set.count(cpu0) == 1);
  CHECK(set.count(Device("/job:localhost/replica:0/task:0/device:CPU:0")) == 1);
  CHECK(set.count(cpu1) == 0);
  // CUDA and PrivateUse1: -1 is "the current device", unequal to every index.
  CHECK(Device(ember::kCUDA) != Device(ember::kCUDA, 0));
  CHECK(Device(ember::kCUDA) == Device("gpu"));
  CHECK(h(Device(ember::kCUDA)) != h(Device(ember::kCUDA, 0)));
  CHECK(Device(ember::kPrivateUse1) != Device(ember::kPrivateUse1, 0));
  CHECK(Device(ember::kCUDA).compared_index() == -1);
  // Equal devices hash alike, over every pair of these.
  const Device all[] = {
      cpu, cpu0, cpu1, Device(ember::kCUDA), Device(ember::kCUDA, 0), Device(ember::kCUDA, 1)};
  for (const Device& a : all)
    for (const Device& b : all)
      if (a == b) CHECK(h(a) == h(b));
}

TEST_CASE("device: parsing never consults hardware") {
  CHECK(Device("gpu:7").index() == 7);
  CHECK(Device("/device:GPU:31").str() == "cuda:31");
}

TEST_CASE("device: rejects malformed libtorch forms") {
  check_rejects("", "the string is empty");
  check_rejects("tpu", "unknown device type 'tpu'");
  check_rejects("tpu:0", "unknown device type 'tpu'");
  check_rejects(" cpu", "unknown device type ' cpu'");
  check_rejects(":0", "device type is empty");
  check_rejects("cuda:", "index is empty");
  check_rejects("cuda:01", "index '01' has a leading zero");
  check_rejects("cuda:00", "index '00' has a leading zero");
  check_rejects("cuda:-1", "index '-1' is negative");
  check_rejects("cuda:0x", "index '0x' is not a decimal number");
  check_rejects("cuda:+1", "index '+1' is not a decimal number");
  check_rejects("cuda:1 ", "index '1 ' is not a decimal number");
  check_rejects("cuda:0:1", "index '0:1' is not a decimal number");
  check_rejects("cuda:32768", "index 32768 is too large (at most 32767)");
  check_rejects("cuda:99999999999999999999", "is too large (at most 32767)");
  check_rejects("device:GPU:0", "unknown device type 'device'");  // TF names start with '/'
}

TEST_CASE("device: rejects malformed TensorFlow names") {
  check_rejects("/", "empty part");
  check_rejects("/job:localhost", "no device type");
  check_rejects("/job:localhost/replica:0/task:0", "no device type");
  check_rejects("/device:GPU:0/device:CPU:0", "more than one device type");
  check_rejects("/cpu:0/gpu:0", "more than one device type");
  check_rejects("/device:GPU:0/gpu:0", "more than one device type");
  check_rejects("/job:localhost/foo:1/device:CPU:0", "unknown part '/foo:1'");
  check_rejects("/tpu:0", "unknown part '/tpu:0'");
  check_rejects("/device:TPU:0", "unknown device type 'TPU'");
  check_rejects("/device:", "device type is empty");
  check_rejects("/device", "device type is empty");
  check_rejects("/device:GPU:", "index is empty");
  check_rejects("/device:GPU:01", "index '01' has a leading zero");
  check_rejects("/device:GPU:-1", "index '-1' is negative");
  check_rejects("/device:GPU:0x", "index '0x' is not a decimal number");
  check_rejects("//device:GPU:0", "empty part (a '/' doubled or at the end)");
  check_rejects("/device:GPU:0/", "empty part (a '/' doubled or at the end)");
  check_rejects("/job:/device:CPU:0", "job name '' is not a name");
  check_rejects("/job:local-host/device:CPU:0", "job name 'local-host' is not a name");
  check_rejects("/job:a/job:b/device:CPU:0", "'/job:' is given twice");
  check_rejects("/replica:x/device:CPU:0", "replica 'x' is not a decimal number");
  check_rejects("/replica:/device:CPU:0", "replica is empty");
  check_rejects("/task:-1/device:CPU:0", "task '-1' is negative");
  check_rejects("/task:01/device:CPU:0", "task '01' has a leading zero");
  check_rejects("/task:0/task:0/device:CPU:0", "'/task:' is given twice");
}

TEST_CASE("device: type names") {
  CHECK(ember::device_type_name(DeviceType::CPU) == "cpu");
  CHECK(ember::device_type_name(DeviceType::CUDA) == "cuda");
}

// Registration is process-wide; "npu" stays registered for the rest of this binary.
TEST_CASE("device: PrivateUse1 name registration") {
  ember::register_privateuse1_name("npu");
  CHECK(ember::device_type_name(DeviceType::PrivateUse1) == "npu");

  check_parses("npu", DeviceType::PrivateUse1, -1);
  check_parses("npu:1", DeviceType::PrivateUse1, 1);
  check_parses("NPU:2", DeviceType::PrivateUse1, 2);
  check_parses("/device:NPU:0", DeviceType::PrivateUse1, 0);
  check_parses("/job:localhost/replica:0/task:0/device:npu:3", DeviceType::PrivateUse1, 3);
  check_parses("/npu:1", DeviceType::PrivateUse1, 1);
  CHECK(Device("npu:1").is_privateuse1());
  CHECK(Device("npu:1").str() == "npu:1");
  CHECK(Device("npu").str() == "npu");
  CHECK(Device("npu:1").tf_str() == "/job:localhost/replica:0/task:0/device:NPU:1");
  CHECK(Device(Device("npu:1").tf_str()) == Device(ember::kPrivateUse1, 1));
  CHECK(Device("npu:1") != Device("cuda:1"));

  // The old default name is gone once a backend names itself; the message lists the new one.
  check_rejects("privateuseone:0", "unknown device type 'privateuseone'");
  CHECK_THROWS_WITH(Device("xpu:0"), Contains("cpu, gpu, cuda or npu"));
  check_rejects("npu:01", "index '01' has a leading zero");
  check_rejects("/device:NPU:0/device:GPU:0", "more than one device type");
}

TEST_CASE("device: rejects invalid PrivateUse1 names") {
  for (const char* name : {"", "NPU", "Npu", "my-npu", "npu:0", "1npu", "_npu", "n pu", "/npu"}) {
    INFO("name: '" << name << "'");
    CHECK_THROWS_AS(ember::register_privateuse1_name(name), ember::InvalidArgument);
    CHECK_THROWS_WITH(
        ember::register_privateuse1_name(name),
        StartsWith("register_privateuse1_name: invalid name '" + std::string(name) + "'"));
  }
  for (const char* name : {"cpu", "gpu", "cuda", "job", "replica", "task", "device"}) {
    INFO("name: '" << name << "'");
    CHECK_THROWS_AS(ember::register_privateuse1_name(name), ember::InvalidArgument);
    CHECK_THROWS_WITH(ember::register_privateuse1_name(name), Contains("is already taken"));
  }
  // A rejected name leaves the registered one in place.
  ember::register_privateuse1_name("npu");
  CHECK_THROWS(ember::register_privateuse1_name("CPU"));
  CHECK(ember::device_type_name(DeviceType::PrivateUse1) == "npu");
  CHECK(Device("npu:0").is_privateuse1());
}
