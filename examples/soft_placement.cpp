// TF GPU guide, "Using a single GPU on a multi-GPU system":
//   with tf.device('/device:GPU:2'): c = tf.matmul(a, b)   # error when GPU:2 does not exist
//   tf.config.set_soft_device_placement(True)              # then it runs on an existing device
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  set_log_device_placement(true);
  set_placement_log_sink([](const std::string& line) { std::cout << "  [placement] " << line << "\n"; });
  std::cout << "GPUs on this machine: " << cuda::device_count() << "\n";
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
  Tensor b = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2});

  std::cout << "1. without soft placement:\n";
  try {
    DeviceScope scope("/device:GPU:2");
    Tensor c = matmul(a, b);
    std::cout << "  ran on " << c.device().tf_str() << " (this machine has GPU:2)\n";
  } catch (const InvalidArgument& e) {
    std::cout << "  InvalidArgument: " << e.what() << "\n";
  }

  std::cout << "2. with soft placement:\n";
  set_soft_device_placement(true);
  {
    DeviceScope scope("/device:GPU:2");
    Tensor c = matmul(a, b);
    std::cout << c << "\n  ran on " << c.device().tf_str() << "\n";
    if (cuda::device_count() <= 2)
      std::cout << "  GPU:2 does not exist: soft placement fell back to "
                << (cuda::device_count() > 0 ? "GPU:0" : "the CPU (no GPU at all)") << ".\n";
  }
  return 0;
}
