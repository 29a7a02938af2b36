// A libtorch program, unchanged: fits a degree-4 polynomial with nn::Linear, SGD and
// smooth_l1_loss until the loss is below 1e-3, then checks the learned coefficients.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <utility>
#include <vector>

constexpr int64_t kDegree = 4;

// [x, x^2, x^3, x^4] for each x.
torch::Tensor make_features(torch::Tensor x) {
  x = x.unsqueeze(1);
  std::vector<torch::Tensor> powers;
  for (int64_t i = 0; i < kDegree; ++i) powers.push_back(x.pow(i + 1));
  return torch::cat(powers, 1);
}

torch::Tensor target_function(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return x.mm(w) + b.item();  // item(): a Scalar
}

std::pair<torch::Tensor, torch::Tensor> get_batch(const torch::Tensor& w, const torch::Tensor& b,
                                                  int64_t size = 32) {
  torch::Tensor x = make_features(torch::randn({size}));
  return {x, target_function(x, w, b)};
}

int main() {
  torch::manual_seed(1);
  const torch::Tensor w_target = torch::randn({kDegree, 1}) * 5;
  const torch::Tensor b_target = torch::randn({1}) * 5;
  torch::nn::Linear fc(w_target.size(0), 1);
  torch::optim::SGD optimizer(fc->parameters(), 0.1);

  float loss = 0;
  int64_t batch = 0;
  while (++batch < 100000) {
    auto [x, y] = get_batch(w_target, b_target);
    optimizer.zero_grad();
    torch::Tensor output = torch::smooth_l1_loss(fc(x), y);
    loss = output.item<float>();
    output.backward();
    optimizer.step();
    if (loss < 1e-3f) break;
  }
  std::printf("Loss: %.6f after %ld batches\n", loss, long(batch));
  std::cout << "learned w " << fc->weight.view({-1}) << "\ntarget w " << w_target.view({-1}) << "\n";
  TORCH_CHECK(loss < 1e-3f, "did not converge: loss ", loss);
  TORCH_CHECK(torch::allclose(fc->weight.view({-1}), w_target.view({-1}), 0, 0.05),
              "weights far from the target");
  TORCH_CHECK(std::abs(fc->bias.item<float>() - b_target.item<float>()) < 0.05, "bias far from the target");
  std::printf("ok\n");
}
