// A libtorch program, unchanged: runs a small model under c10::InferenceMode, checks that
// its outputs are inference tensors without history, that the CPU device is libtorch's
// "cpu", and that libtorch's errors guard inference tensors outside the mode.
#include <c10/core/InferenceMode.h>
#include <torch/torch.h>

#include <iostream>
#include <string>

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(3, 2);
  const torch::Tensor x = torch::randn({4, 3});
  const torch::Tensor expected = model->forward(x).detach();
  torch::Tensor y;
  {
    c10::InferenceMode guard;
    TORCH_CHECK(c10::InferenceMode::is_enabled() && !torch::GradMode::is_enabled(), "the guard's modes");
    y = model->forward(x);
    TORCH_CHECK(y.is_inference() && !y.requires_grad(), "an output made in InferenceMode");
    y.mul_(1);  // in place inside the mode: allowed
  }
  TORCH_CHECK(!c10::InferenceMode::is_enabled() && torch::GradMode::is_enabled(), "the modes come back");
  TORCH_CHECK(torch::allclose(y, expected), "the same values as with autograd on");
  TORCH_CHECK(y.device() == torch::Device(torch::kCPU) && y.device().str() == "cpu", "the CPU device");

  torch::Tensor z = y.clone();  // a clone is a normal tensor
  bool refused = false;
  try {
    y.add_(1);
  } catch (const c10::Error& e) {
    refused = std::string(e.what()).find("Inplace update to inference tensor outside InferenceMode") !=
              std::string::npos;
  }
  TORCH_CHECK(refused, "an in-place update outside InferenceMode");
  z.add_(1);
  TORCH_CHECK(!z.is_inference() && torch::allclose(z, expected + 1), "a clone");
  std::cout << "ok\n";
}
