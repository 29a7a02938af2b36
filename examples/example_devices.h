#pragma once
// The devices the multi-device training examples run on: every GPU when there are
// several, `n` logical GPUs split from the one GPU, or `n` logical CPU devices.
#include <ember/ember.h>

#include <iostream>
#include <string>
#include <vector>

inline std::vector<ember::Device> example_devices(int n) {
  using namespace ember;
  std::vector<Device> devices;
  if (cuda::device_count() >= 2) {
    for (int i = 0; i < cuda::device_count(); ++i) devices.emplace_back(kCUDA, i);
    std::cout << "devices: " << devices.size() << " GPUs\n";
  } else if (cuda::device_count() == 1) {
    set_logical_devices(Device("gpu:0"), n);  // before gpu:0's first use
    for (int i = 0; i < n; ++i) devices.emplace_back("gpu:" + std::to_string(i));
    std::cout << "devices: 1 GPU split into " << n << " logical GPUs\n";
  } else {
    set_logical_devices(Device("cpu:0"), n);  // before cpu:0's first use
    for (int i = 0; i < n; ++i) devices.emplace_back("cpu:" + std::to_string(i));
    std::cout << "devices: no GPU, " << n << " logical CPU devices\n";
  }
  return devices;
}

/// The seeds' data: y = 0.5 x^3 - 1.2 x^2 + 2 x + 0.3 plus N(0, 0.05^2) noise, x in [-2, 2],
/// and the polynomial's features [x^3, x^2, x, 1].
struct PolyData {
  ember::Tensor x, features, y;
};
inline PolyData poly_data(int64_t n, uint64_t seed) {
  using namespace ember;
  manual_seed(seed);
  PolyData d;
  d.x = linspace(-2, 2, n).unsqueeze(1);  // [n, 1]
  d.features = cat({d.x.pow(3), d.x.pow(2), d.x, ones_like(d.x)}, 1);  // [n, 4]
  d.y = matmul(d.features, tensor({0.5f, -1.2f, 2.0f, 0.3f}).unsqueeze(1)) + 0.05 * randn({n, 1});
  return d;
}
