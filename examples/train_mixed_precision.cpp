// Mixed precision: the same MLP (1 -> 64 -> 64 -> 1, tanh) trained three times from the
// same weights on the seeds' cubic: in float32, under AutocastScope(kBFloat16), and under
// AutocastScope(kHalf) with a GradScaler. The parameters stay float32; the matmuls run in
// the low type; the loss is computed in float32. The run checks that both low-precision
// runs reach the float32 run's final loss within 0.01 (absolute) and below 0.02.
#include <ember/ember.h>

#include <cmath>
#include <cstdio>
#include <optional>

#include "example_devices.h"

namespace {
double train(const PolyData& data, std::optional<ember::ScalarType> low, bool scaled) {
  using namespace ember;
  manual_seed(42);  // the same initial weights for every run
  nn::Sequential model(nn::Linear(1, 64), nn::Tanh(), nn::Linear(64, 64), nn::Tanh(), nn::Linear(64, 1));
  optim::Adam opt(model->parameters(), optim::AdamOptions(1e-2));
  optim::GradScaler scaler;
  double loss_value = 0;
  for (int step = 1; step <= 300; ++step) {
    opt.zero_grad();
    Tensor loss;
    {
      std::optional<AutocastScope> autocast;
      if (low) autocast.emplace(*low);
      loss = nn::functional::mse_loss(model->forward(data.x), data.y);
    }
    if (scaled) {
      scaler.scale(loss).backward();
      scaler.step(opt);
      scaler.update();
    } else {
      loss.backward();
      opt.step();
    }
    loss_value = loss.item<double>();
  }
  return loss_value;
}
}  // namespace

int main() {
  using namespace ember;
  const PolyData data = poly_data(512, 9);
  const double f32 = train(data, std::nullopt, false);
  const double bf16 = train(data, kBFloat16, false);
  const double fp16 = train(data, kHalf, true);
  std::printf("final loss after 300 Adam steps: float32 %.5f, bfloat16 autocast %.5f, float16 autocast + GradScaler %.5f\n",
              f32, bf16, fp16);
  const bool ok = std::abs(bf16 - f32) < 0.01 && std::abs(fp16 - f32) < 0.01 && bf16 < 0.02 && fp16 < 0.02;
  std::printf("%s: both low-precision runs within 0.01 of float32 and below 0.02\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
