// TF GPU guide, "Manual device placement":
//   with tf.device('/CPU:0'):
//     a = tf.constant(...); b = tf.constant(...)
//   c = tf.matmul(a, b)   # a and b are on CPU:0; MatMul still runs on GPU:0
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  set_placement(Placement::PreferAccelerator);  // TF's behaviour for the unscoped matmul
  set_log_device_placement(true);
  set_placement_log_sink([](const std::string& line) { std::cout << "  [placement] " << line << "\n"; });
  Tensor a, b;
  {
    DeviceScope scope("/CPU:0");
    a = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
    b = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2});
  }
  std::cout << "a and b live on " << a.device().tf_str() << "\n";
  Tensor c = matmul(a, b);
  std::cout << c << "\nmatmul ran on " << c.device().tf_str() << "\n";
  if (cuda::device_count() == 0)
    std::cout << "No GPU on this machine: the unscoped matmul stayed with its inputs on the CPU; with a GPU "
                 "it would run on GPU:0 and a and b would be copied there (one log line per copy).\n";
  return 0;
}
