// The seed's make_parallel: split a batch along dim 0 over the devices, run the model on
// each part in that device's scope, and concatenate the results on the current device.
// With one GPU the parts go to three logical GPUs split from it; with none, to three
// logical CPU devices.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  std::vector<Device> devices;
  if (cuda::device_count() >= 2) {
    for (int i = 0; i < cuda::device_count(); ++i) devices.emplace_back(kCUDA, i);
  } else if (cuda::device_count() == 1) {
    set_logical_devices(Device("gpu:0"), 3);  // before gpu:0's first use
    devices = {Device("gpu:0"), Device("gpu:1"), Device("gpu:2")};
    std::cout << "Found 1 GPU: split into three logical GPUs.\n";
  } else {
    set_logical_devices(Device("cpu:0"), 3);
    devices = {Device("cpu:0"), Device("cpu:1"), Device("cpu:2")};
    std::cout << "Found " << cuda::device_count()
              << " GPU(s): falling back to three logical CPU devices.\n";
  }
  // A tiny linear model: y = relu(x @ w + bias).
  Tensor w = tensor({0.5f, -1.0f, 1.0f, 2.0f, 0.25f, 0.0f}).reshape({3, 2});
  Tensor bias = tensor({0.1f, -0.1f});
  auto model = [&](const std::vector<Tensor>& in) {
    Tensor y = relu(matmul(in[0], w) + bias);
    std::cout << "  part of " << in[0].size(0) << " rows ran on " << y.device().tf_str() << "\n";
    return y;
  };
  Tensor batch = arange(24, TensorOptions().dtype(kFloat)).reshape({8, 3}) / 10;
  std::cout << "batch of 8 rows over " << devices.size() << " devices (tensor_split: uneven parts, first larger):\n";
  Tensor out = make_parallel(model, devices, {batch});
  std::cout << out << "\n";
  std::cout << "the same batch on one device:\n";
  const bool same = allclose(out, model({batch}));
  std::cout << "concatenated on " << out.device().tf_str() << "; matches the single-device result: "
            << (same ? "yes" : "no") << "\n";
  return 0;
}
