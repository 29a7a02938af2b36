// The seeds' first training program: fit y = a x^3 + b x^2 + c x + d to 512 noisy samples
// with Adam (lr 0.1), full batch. The noise alone gives a loss of about 0.0025; the run
// checks that the loss is below 0.004 after 300 steps and the coefficients within 0.05.
#include <ember/ember.h>

#include <cstdio>

#include "example_devices.h"

int main() {
  using namespace ember;
  const PolyData data = poly_data(512, 7);
  Tensor coef = zeros({4, 1}, TensorOptions().requires_grad(true));  // a, b, c, d
  optim::Adam opt({coef}, optim::AdamOptions(0.1));
  double loss_value = 0;
  for (int step = 1; step <= 300; ++step) {
    opt.zero_grad();
    Tensor loss = nn::functional::mse_loss(matmul(data.features, coef), data.y);
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
    if (step % 50 == 0) std::printf("step %3d  loss %.5f\n", step, loss_value);
  }
  const Tensor want = tensor({0.5f, -1.2f, 2.0f, 0.3f}).unsqueeze(1);
  const double coef_err = (coef.detach() - want).abs().max().item<double>();
  std::printf("learned a=%.3f b=%.3f c=%.3f d=%.3f (true 0.5 -1.2 2 0.3), max error %.4f\n",
              coef[0][0].item<double>(), coef[1][0].item<double>(), coef[2][0].item<double>(),
              coef[3][0].item<double>(), coef_err);
  const bool ok = loss_value < 0.004 && coef_err < 0.05;
  std::printf("%s: loss %.5f < 0.004 after 300 steps and coefficients within 0.05\n", ok ? "PASS" : "FAIL",
              loss_value);
  return ok ? 0 : 1;
}
