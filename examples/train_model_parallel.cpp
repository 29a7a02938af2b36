// Model parallelism: the two halves of an MLP (1 -> 64 -> 64 -> 1, tanh) live on two
// devices; the activations are copied from the first to the second, and the gradients
// flow back across the copy. It learns the seeds' cubic from x alone. The run checks that
// the loss falls below 0.01 in 400 Adam steps and that every parameter and its gradient
// stayed on its own device.
#include <ember/ember.h>

#include <cstdio>

#include "example_devices.h"

int main() {
  using namespace ember;
  const std::vector<Device> devices = example_devices(2);
  const PolyData data = poly_data(512, 3);
  manual_seed(3);
  nn::Sequential first(nn::Linear(1, 64), nn::Tanh(), nn::Linear(64, 64), nn::Tanh());
  nn::Sequential second(nn::Linear(64, 1));
  first->to(devices[0]);
  second->to(devices[1]);
  std::vector<Tensor> params = first->parameters();
  for (const Tensor& p : second->parameters()) params.push_back(p);
  optim::Adam opt(params, optim::AdamOptions(1e-2));

  const Tensor x = data.x.to(devices[0]), y = data.y.to(devices[1]);
  double loss_value = 0;
  for (int step = 1; step <= 400; ++step) {
    opt.zero_grad();
    Tensor h = first->forward(x);                 // on devices[0]
    Tensor pred = second->forward(h.to(devices[1]));  // the copy is differentiable
    Tensor loss = nn::functional::mse_loss(pred, y);
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
    if (step % 100 == 0) std::printf("step %3d  loss %.5f\n", step, loss_value);
  }
  bool placed = true;
  for (const Tensor& p : first->parameters()) placed &= p.device() == devices[0] && p.grad().device() == devices[0];
  for (const Tensor& p : second->parameters()) placed &= p.device() == devices[1] && p.grad().device() == devices[1];
  std::printf("first half on %s, second half on %s\n", devices[0].tf_str().c_str(), devices[1].tf_str().c_str());
  const bool ok = loss_value < 0.01 && placed;
  std::printf("%s: loss %.5f < 0.01 after 400 steps; parameters and gradients on their devices: %s\n",
              ok ? "PASS" : "FAIL", loss_value, placed ? "yes" : "no");
  return ok ? 0 : 1;
}
