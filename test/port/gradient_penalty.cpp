// A libtorch program, unchanged: a WGAN-GP gradient penalty through
// autograd::grad(..., create_graph = true), for a linear critic whose penalty and its
// gradient are known in closed form: the input gradient of w.x + b is w on every row, so
// the penalty is (|w| - 1)^2 and its gradient is 2 (|w| - 1) w / |w|.
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(3);
  torch::nn::Linear critic(5, 1);
  const torch::Tensor real = torch::randn({8, 5}), fake = torch::randn({8, 5});
  const torch::Tensor alpha = torch::rand({8, 1});
  torch::Tensor mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(true);

  torch::Tensor score = critic(mixed);
  auto grads = torch::autograd::grad({score}, {mixed}, {torch::ones_like(score)},
                                     /*retain_graph=*/true, /*create_graph=*/true);
  torch::Tensor penalty = (grads[0].norm(2, 1) - 1).pow(2).mean();
  penalty.backward();

  torch::NoGradGuard no_grad;
  const torch::Tensor w = critic->weight.view({-1});
  const double norm = w.norm().item<double>();
  const double expected = (norm - 1) * (norm - 1);
  std::cout << "penalty " << penalty.item<double>() << " expected " << expected << "\n";
  TORCH_CHECK(std::abs(penalty.item<double>() - expected) < 1e-5, "penalty value");
  const torch::Tensor expected_grad = w * (2 * (norm - 1) / norm);
  TORCH_CHECK(torch::allclose(critic->weight.grad().view({-1}), expected_grad, 1e-4, 1e-6),
              "penalty gradient");
  TORCH_CHECK(!critic->bias.grad().defined() || critic->bias.grad().abs().max().item<double>() < 1e-7,
              "the bias does not move the input gradient");
  std::cout << "ok\n";
}
