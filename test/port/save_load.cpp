// A libtorch program, unchanged: trains a small model for a few steps, saves the model,
// the optimizer and a tensor with torch::save, loads them into fresh objects with
// torch::load, and checks that the resumed run continues exactly as the original.
#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(3, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

torch::Tensor train_step(Net& net, torch::optim::Adam& optimizer, const torch::Tensor& x,
                         const torch::Tensor& y) {
  optimizer.zero_grad();
  torch::Tensor loss = torch::mse_loss(net->forward(x), y);
  loss.backward();
  optimizer.step();
  return loss;
}

int main() {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({16, 3});
  const torch::Tensor y = x.sum(1, /*keepdim=*/true);
  Net net;
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(1e-2));
  for (int i = 0; i < 5; ++i) train_step(net, optimizer, x, y);

  const std::string dir = "/tmp/ember_port_save_load_";
  torch::save(net, dir + "net.pt");
  torch::save(optimizer, dir + "optimizer.pt");
  torch::save(x, dir + "x.pt");
  std::vector<torch::Tensor> pair{x, y};
  torch::save(pair, dir + "pair.pt");

  Net restored;
  torch::optim::Adam restored_optimizer(restored->parameters(), torch::optim::AdamOptions(1e-2));
  torch::load(restored, dir + "net.pt");
  torch::load(restored_optimizer, dir + "optimizer.pt");
  torch::Tensor x2;
  torch::load(x2, dir + "x.pt");
  std::vector<torch::Tensor> pair2;
  torch::load(pair2, dir + "pair.pt");
  TORCH_CHECK(x2.equal(x) && pair2.size() == 2 && pair2[1].equal(y), "tensors did not round-trip");

  for (int i = 0; i < 5; ++i) {
    const torch::Tensor a = train_step(net, optimizer, x, y);
    const torch::Tensor b = train_step(restored, restored_optimizer, x, y);
    TORCH_CHECK(a.item<float>() == b.item<float>(), "step ", i, ": the resumed run differs (",
                a.item<float>(), " vs ", b.item<float>(), ")");
  }
  for (const char* f : {"net.pt", "optimizer.pt", "x.pt", "pair.pt"}) std::remove((dir + f).c_str());
  std::cout << "loss after 10 steps " << torch::mse_loss(restored->forward(x), y).item<float>() << "\nok\n";
}
