// The seeds' data-parallel training with make_parallel: the polynomial model runs on a
// part of each batch per device (three devices: GPUs, logical GPUs of one GPU, or logical
// CPUs), the predictions meet on the current device, and one Adam step follows. Because
// the towers' gradients add up to the full batch's, the loss curve equals the curve of
// the same training on one device (checked within float32 tolerance).
#include <ember/ember.h>

#include <cmath>
#include <cstdio>

#include "example_devices.h"

namespace {
std::vector<double> train(const PolyData& data, const std::vector<ember::Device>& devices, int steps) {
  using namespace ember;
  Tensor coef = zeros({4, 1}, TensorOptions().requires_grad(true));
  optim::Adam opt({coef}, optim::AdamOptions(0.1));
  std::vector<double> curve;
  for (int step = 0; step < steps; ++step) {
    opt.zero_grad();
    // Each tower reads coef through an automatic copy to its device; the copy's gradient
    // flows back to coef's device.
    Tensor pred = make_parallel([&](const std::vector<Tensor>& in) { return matmul(in[0], coef); }, devices,
                                {data.features});
    Tensor loss = nn::functional::mse_loss(pred, data.y);
    loss.backward();
    opt.step();
    curve.push_back(loss.item<double>());
  }
  return curve;
}
}  // namespace

int main() {
  using namespace ember;
  const std::vector<Device> devices = example_devices(3);
  const PolyData data = poly_data(768, 11);
  const int steps = 200;
  const std::vector<double> one = train(data, {devices[0]}, steps);
  const std::vector<double> many = train(data, devices, steps);
  double worst = 0;
  for (int i = 0; i < steps; ++i) {
    worst = std::max(worst, std::abs(one[size_t(i)] - many[size_t(i)]) / std::max(one[size_t(i)], 1e-12));
    if (i % 40 == 0 || i == steps - 1)
      std::printf("step %3d  one device %.6f   %zu devices %.6f\n", i, one[size_t(i)], devices.size(),
                  many[size_t(i)]);
  }
  const bool ok = worst < 1e-3 && many.back() < 0.004;
  std::printf("%s: largest relative difference of the curves %.2e (< 1e-3), final loss %.5f (< 0.004)\n",
              ok ? "PASS" : "FAIL", worst, many.back());
  return ok ? 0 : 1;
}
