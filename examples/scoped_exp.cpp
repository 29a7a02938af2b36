// `exp(a + b) * 2` under with tf.device("GPU:0"): every op in the scope, creation ops
// included, runs on the scope's device; inputs from elsewhere are copied there.
// Without a GPU it runs with soft placement on and says where it fell back to.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  set_log_device_placement(true);
  set_placement_log_sink([](const std::string& line) { std::cout << "  [placement] " << line << "\n"; });
  Tensor a = tensor({0.0f, 0.5f, 1.0f});
  Tensor b = tensor({1.0f, 0.5f, 0.0f});
  if (cuda::device_count() == 0) {
    std::cout << "No GPU on this machine. Without soft placement:\n";
    try {
      DeviceScope scope("GPU:0");
      Tensor c = exp(a + b) * 2;
    } catch (const InvalidArgument& e) {
      std::cout << "  InvalidArgument: " << e.what() << "\n";
    }
    std::cout << "Turning soft placement on: the ops fall back to the CPU.\n";
    set_soft_device_placement(true);
  }
  Tensor c;
  {
    DeviceScope scope("GPU:0");
    c = exp(a + b) * 2;
  }
  std::cout << c << "\nresult lives on " << c.device().tf_str() << " (2e = 5.43656...)\n";
  return 0;
}
