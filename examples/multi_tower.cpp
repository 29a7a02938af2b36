// TF GPU guide, "Using multiple GPUs", without tf.distribute:
//   c = []
//   for gpu in logical_gpus:
//     with tf.device(gpu.name): c.append(tf.matmul(a, b))
//   with tf.device('/CPU:0'): matmul_sum = tf.add_n(c)
// With one GPU, it is split into two logical GPUs of 1 GiB each, as the guide does with
// tf.config.set_logical_device_configuration; with none, the CPU is split the same way.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  std::vector<Device> towers;
  if (cuda::device_count() >= 2) {
    for (int i = 0; i < cuda::device_count(); ++i) towers.emplace_back(kCUDA, i);
  } else if (cuda::device_count() == 1) {
    set_logical_devices(Device("gpu:0"), 2, {size_t(1) << 30, size_t(1) << 30});  // before gpu:0's first use
    towers = {Device("gpu:0"), Device("gpu:1")};
    std::cout << "Found 1 GPU: split into two logical GPUs, gpu:0 and gpu:1.\n";
  } else {
    set_logical_devices(Device("cpu:0"), 2);  // before cpu:0's first use
    towers = {Device("cpu:0"), Device("cpu:1")};
    std::cout << "Found " << cuda::device_count()
              << " GPU(s): falling back to two logical CPU devices, cpu:0 and cpu:1.\n";
  }
  set_log_device_placement(true);
  set_placement_log_sink([](const std::string& line) { std::cout << "  [placement] " << line << "\n"; });

  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
  Tensor b = tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2});
  std::vector<Tensor> c;
  for (const Device& d : towers) {
    DeviceScope scope(d);
    c.push_back(matmul(a, b));
  }
  Tensor matmul_sum;
  {
    DeviceScope scope("/CPU:0");
    matmul_sum = add_n(c);
  }
  std::cout << matmul_sum << "\n";
  std::cout << "towers ran on";
  for (const Tensor& t : c) std::cout << " " << t.device().tf_str();
  std::cout << "; the sum lives on " << matmul_sum.device().tf_str() << "\n";
  return 0;
}
