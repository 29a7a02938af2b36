// ember's demo: the devices this machine has, placement logging, a scoped device,
// a device that does not exist (with and without soft placement), and automatic copies.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  // Logical devices are configured before the first use of the physical device.
  set_logical_devices(Device("cpu:0"), 2);
  std::cout << "ember devices on this machine:\n" << describe_devices() << "\n";
  std::cout << "CUDA devices: " << cuda::device_count() << "\n\n";

  set_log_device_placement(true);
  set_placement_log_sink([](const std::string& line) { std::cout << "  [placement] " << line << "\n"; });

  std::cout << "1. matmul on the default device:\n";
  Tensor a = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).reshape({2, 3});
  Tensor b = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}).reshape({3, 2});
  std::cout << matmul(a, b) << "\n\n";

  std::cout << "2. two logical CPU devices and a scope:\n";
  {
    DeviceScope scope("/cpu:1");
    Tensor c = exp(a + b.t()) * 2;  // a and b live on cpu:0: copied into the scope's device
    std::cout << "  result lives on " << c.device().tf_str() << "\n\n";
  }

  std::cout << "3. a GPU that does not exist:\n";
  try {
    DeviceScope scope("/device:GPU:0");
    Tensor c = matmul(a, b);
    std::cout << "  ran on " << c.device().tf_str() << "\n";
  } catch (const InvalidArgument& e) {
    std::cout << "  InvalidArgument: " << e.what() << "\n";
  }
  set_soft_device_placement(true);
  {
    DeviceScope scope("/device:GPU:0");
    Tensor c = matmul(a, b);
    std::cout << "  with soft placement it ran on " << c.device().tf_str() << "\n";
  }
  return 0;
}
