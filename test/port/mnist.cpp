// A libtorch program, unchanged: libtorch's classic MNIST example (examples/cpp/mnist) with
// its network (Conv2d, Dropout2d, max_pool2d, Linear, dropout, log_softmax), nll_loss,
// SGD with momentum, torch::data's MNIST dataset, Normalize, Stack and data loaders.
// Given no directory, it writes small MNIST-format files (each digit a pattern of strokes
// plus noise; libtorch's own reader wants the full 60000 / 10000 images, ember's takes
// any count), trains two epochs on them and checks that accuracy rises above 0.9.
#include <torch/torch.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

// The batch size for training.
const int64_t kTrainBatchSize = 64;
// The batch size for testing.
const int64_t kTestBatchSize = 1000;
// The number of epochs to train.
const int64_t kNumberOfEpochs = 2;
// After how many batches to log a new update with the loss value.
const int64_t kLogInterval = 10;

struct Net : torch::nn::Module {
  Net()
      : conv1(torch::nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(torch::nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(fc1->forward(x));
    x = torch::dropout(x, /*p=*/0.5, /*training=*/is_training());
    x = fc2->forward(x);
    return torch::log_softmax(x, /*dim=*/1);
  }

  torch::nn::Conv2d conv1;
  torch::nn::Conv2d conv2;
  torch::nn::Dropout2d conv2_drop;
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};

template <typename DataLoader>
void train(size_t epoch, Net& model, torch::Device device, DataLoader& data_loader,
           torch::optim::Optimizer& optimizer, size_t dataset_size) {
  model.train();
  size_t batch_idx = 0;
  for (auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model.forward(data);
    auto loss = torch::nll_loss(output, targets);
    AT_ASSERT(!std::isnan(loss.template item<float>()));
    loss.backward();
    optimizer.step();

    if (batch_idx++ % kLogInterval == 0) {
      std::printf("\rTrain Epoch: %ld [%5ld/%5ld] Loss: %.4f", static_cast<long>(epoch),
                  static_cast<long>(batch_idx * batch.data.size(0)), static_cast<long>(dataset_size),
                  loss.template item<float>());
    }
  }
}

template <typename DataLoader>
double test(Net& model, torch::Device device, DataLoader& data_loader, size_t dataset_size) {
  torch::NoGradGuard no_grad;
  model.eval();
  double test_loss = 0;
  int32_t correct = 0;
  for (const auto& batch : data_loader) {
    auto data = batch.data.to(device), targets = batch.target.to(device);
    auto output = model.forward(data);
    test_loss += torch::nll_loss(output, targets,
                                 /*weight=*/{}, torch::Reduction::Sum)
                     .template item<float>();
    auto pred = output.argmax(1);
    correct += pred.eq(targets).sum().template item<int64_t>();
  }

  test_loss /= dataset_size;
  const double accuracy = static_cast<double>(correct) / dataset_size;
  std::printf("\nTest set: Average loss: %.4f | Accuracy: %.3f\n", test_loss, accuracy);
  return accuracy;
}

void put_u32(std::ofstream& out, uint32_t v) {
  const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.write(bytes, 4);
}

// Digit d lights row 2d+4 and column 27-2d (two pixels wide), over uniform noise.
void write_synthetic(const std::string& dir, const char* prefix, uint32_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::ofstream images(dir + "/" + prefix + "-images-idx3-ubyte", std::ios::binary);
  std::ofstream labels(dir + "/" + prefix + "-labels-idx1-ubyte", std::ios::binary);
  put_u32(images, 2051), put_u32(images, count), put_u32(images, 28), put_u32(images, 28);
  put_u32(labels, 2049), put_u32(labels, count);
  for (uint32_t i = 0; i < count; ++i) {
    const int digit = int(rng() % 10);
    labels.put(char(digit));
    for (int r = 0; r < 28; ++r) {
      for (int c = 0; c < 28; ++c) {
        const bool stroke = r / 2 == digit + 2 || (27 - c) / 2 == digit;
        images.put(char(stroke ? 160 + rng() % 96 : rng() % 120));
      }
    }
  }
}

int main(int argc, char** argv) {
  std::string data_root;
  const bool synthetic = argc < 2;
  if (synthetic) {
    char pattern[] = "/tmp/port_mnist_XXXXXX";
    data_root = ::mkdtemp(pattern);
    write_synthetic(data_root, "train", 4000, 1);
    write_synthetic(data_root, "t10k", 1000, 2);
  } else {
    data_root = argv[1];
  }

  torch::manual_seed(1);

  torch::DeviceType device_type;
  if (torch::cuda::is_available()) {
    std::cout << "CUDA available! Training on GPU." << std::endl;
    device_type = torch::kCUDA;
  } else {
    std::cout << "Training on CPU." << std::endl;
    device_type = torch::kCPU;
  }
  torch::Device device(device_type);

  Net model;
  model.to(device);

  auto train_dataset = torch::data::datasets::MNIST(data_root)
                           .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                           .map(torch::data::transforms::Stack<>());
  const size_t train_dataset_size = train_dataset.size().value();
  auto train_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      std::move(train_dataset), kTrainBatchSize);

  auto test_dataset = torch::data::datasets::MNIST(data_root, torch::data::datasets::MNIST::Mode::kTest)
                          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                          .map(torch::data::transforms::Stack<>());
  const size_t test_dataset_size = test_dataset.size().value();
  auto test_loader = torch::data::make_data_loader(std::move(test_dataset), kTestBatchSize);

  torch::optim::SGD optimizer(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));

  double accuracy = 0;
  for (size_t epoch = 1; epoch <= kNumberOfEpochs; ++epoch) {
    train(epoch, model, device, *train_loader, optimizer, train_dataset_size);
    accuracy = test(model, device, *test_loader, test_dataset_size);
  }
  if (!synthetic) return 0;
  std::system(("rm -rf '" + data_root + "'").c_str());
  const bool ok = accuracy > 0.9;
  std::printf("%s: accuracy %.3f after %ld epochs (> 0.9)\n", ok ? "PASS" : "FAIL", accuracy,
              static_cast<long>(kNumberOfEpochs));
  return ok ? 0 : 1;
}
