// TF GPU guide, "Logging device placement":
//   tf.debugging.set_log_device_placement(True)
//   a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
//   c = tf.matmul(a, b)   # Executing op MatMul in device /job:localhost/replica:0/task:0/device:GPU:0
// TensorFlow puts unscoped ops on GPU:0; ember does so under Placement::PreferAccelerator.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  set_placement(Placement::PreferAccelerator);
  set_log_device_placement(true);  // lines go to stderr by default
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
  Tensor b = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2});
  Tensor c = matmul(a, b);
  std::cout << c << "\n";
  std::cout << "matmul ran on " << c.device().tf_str() << "\n";
  if (cuda::device_count() == 0)
    std::cout << "No GPU on this machine: PreferAccelerator found no accelerator, so MatMul ran on the CPU "
                 "(TensorFlow would log device:CPU:0 as well).\n";
  return 0;
}
