// A libtorch program, unchanged: a custom dataset of (x, 3x + 1) pairs read through
// torch::data with a Lambda transform, Stack, a RandomSampler and two worker threads;
// fits a line with SGD and checks the first epoch's order, which libtorch 1.13 draws for
// manual_seed(0), and the fitted coefficients.
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <vector>

struct LineDataset : torch::data::datasets::Dataset<LineDataset> {
  explicit LineDataset(int64_t n) : x(torch::linspace(-1, 1, n).unsqueeze(1)) {}
  torch::data::Example<> get(size_t index) override {
    torch::Tensor xi = x[static_cast<int64_t>(index)];
    return {xi, 3 * xi + 1};
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(x.size(0)); }
  torch::Tensor x;
};

int main() {
  torch::manual_seed(0);
  auto dataset = LineDataset(10)
                     .map(torch::data::transforms::Lambda<torch::data::Example<>>([](torch::data::Example<> e) {
                       return torch::data::Example<>(e.data, e.target);
                     }))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(4).workers(2));

  // The first epoch's examples, identified by their x values.
  std::vector<int64_t> order;
  for (auto& batch : *loader) {
    torch::Tensor index = ((batch.data.squeeze(1) + 1) * 4.5).round().to(torch::kLong);
    for (int64_t i = 0; i < index.size(0); ++i) order.push_back(index[i].item<int64_t>());
  }
  const std::vector<int64_t> expected = {3, 9, 4, 2, 7, 8, 6, 0, 5, 1};
  bool ok = order == expected;
  std::printf("epoch order:");
  for (int64_t i : order) std::printf(" %lld", static_cast<long long>(i));
  std::printf("%s\n", ok ? "" : "  (differs from libtorch's)");

  torch::nn::Linear line(1, 1);
  torch::optim::SGD optimizer(line->parameters(), torch::optim::SGDOptions(0.1));
  for (int epoch = 0; epoch < 100; ++epoch) {
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      torch::Tensor loss = torch::mse_loss(line(batch.data), batch.target);
      loss.backward();
      optimizer.step();
    }
  }
  const double w = line->weight.item<double>(), b = line->bias.item<double>();
  std::printf("fitted y = %.4f x + %.4f\n", w, b);
  ok = ok && std::abs(w - 3) < 1e-3 && std::abs(b - 1) < 1e-3;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
