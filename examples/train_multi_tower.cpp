// The seeds' classic multi-tower loop (TF's CIFAR-10 multi-GPU pattern): each device takes
// an equal part of the batch and computes its tower's loss and gradient under a
// DeviceScope; the gradients are averaged with add_n on the CPU and one optimizer step
// applies them. The result equals one device training on the whole batch.
#include <ember/ember.h>

#include <cmath>
#include <cstdio>

#include "example_devices.h"

int main() {
  using namespace ember;
  const std::vector<Device> towers = example_devices(2);
  const PolyData data = poly_data(512, 5);
  const int steps = 200;
  const int64_t n = int64_t(towers.size());
  const std::vector<Tensor> xs = data.features.chunk(n, 0), ys = data.y.chunk(n, 0);

  Tensor coef = zeros({4, 1}, TensorOptions().requires_grad(true));      // the variables live on the CPU
  Tensor coef_ref = zeros({4, 1}, TensorOptions().requires_grad(true));  // one device, whole batch
  optim::Adam opt({coef}, optim::AdamOptions(0.1));
  optim::Adam opt_ref({coef_ref}, optim::AdamOptions(0.1));
  double worst = 0, loss_value = 0;
  for (int step = 0; step < steps; ++step) {
    std::vector<Tensor> grads, losses;
    for (int64_t i = 0; i < n; ++i) {
      DeviceScope scope(towers[size_t(i)]);
      Tensor loss = nn::functional::mse_loss(matmul(xs[size_t(i)], coef), ys[size_t(i)]);
      grads.push_back(autograd::grad({loss}, {coef})[0]);  // arrives on coef's device
      losses.push_back(loss.detach());
      if (step == 0) std::printf("tower %lld: loss on %s\n", (long long)i, loss.device().tf_str().c_str());
    }
    {
      DeviceScope scope("/CPU:0");
      coef.mutable_grad() = add_n(grads) / double(n);
      loss_value = (add_n(losses) / double(n)).item<double>();
    }
    opt.step();

    opt_ref.zero_grad();
    Tensor ref = nn::functional::mse_loss(matmul(data.features, coef_ref), data.y);
    ref.backward();
    opt_ref.step();
    worst = std::max(worst, std::abs(loss_value - ref.item<double>()) / ref.item<double>());
    if (step % 40 == 0 || step == steps - 1)
      std::printf("step %3d  towers %.6f   one device %.6f\n", step, loss_value, ref.item<double>());
  }
  const double coef_diff = (coef.detach() - coef_ref.detach()).abs().max().item<double>();
  const bool ok = worst < 1e-3 && coef_diff < 1e-4 && loss_value < 0.004;
  std::printf("%s: loss curves within %.2e (< 1e-3), coefficients within %.2e (< 1e-4), final loss %.5f (< 0.004)\n",
              ok ? "PASS" : "FAIL", worst, coef_diff, loss_value);
  return ok ? 0 : 1;
}
