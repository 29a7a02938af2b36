#pragma once
// The MNIST training loop shared by examples/mnist_mlp.cpp and examples/mnist_cnn.cpp,
// which differ only in their network: MNIST-format IDX files read through ember::data with
// Normalize + Stack, two loader workers, SGD (lr 0.01, momentum 0.5), nll_loss on the
// network's log_softmax, a progress line per epoch. Without a directory argument it writes
// a small synthetic set in that format (each digit a pattern of strokes plus noise) to a
// temporary directory, trains on it and checks that test accuracy rises from chance to
// over 90% (exit status 1 otherwise).
#include <ember/ember.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

namespace mnist_example {

using namespace ember;

inline void put_u32(std::ofstream& out, uint32_t v) {
  const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.write(bytes, 4);
}

// Digit d lights row 2d+4 and column 27-2d (two pixels wide), over uniform noise.
inline void write_synthetic(const std::string& dir, const char* prefix, uint32_t count, uint32_t seed) {
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

template <class Net, class Loader>
double accuracy(Net& net, Loader& loader) {
  NoGradGuard no_grad;
  net.eval();
  int64_t correct = 0, total = 0;
  for (auto& batch : loader) {
    correct += net.forward(batch.data).argmax(1).eq(batch.target).sum().template item<int64_t>();
    total += batch.data.size(0);
  }
  net.train();
  return double(correct) / double(total);
}


/// Runs the MNIST training of the examples with `Net`; the exit status of main().
template <class Net>
int train_mnist(int argc, char** argv) {
  std::string root;
  bool synthetic = argc < 2;
  if (synthetic) {
    char pattern[] = "/tmp/ember_mnist_XXXXXX";
    root = ::mkdtemp(pattern);
    write_synthetic(root, "train", 4000, 1);
    write_synthetic(root, "t10k", 1000, 2);
    std::printf("synthetic MNIST-format data in %s\n", root.c_str());
  } else {
    root = argv[1];
  }

  manual_seed(1);
  auto train_set = data::datasets::MNIST(root)
                       .map(data::transforms::Normalize<>(0.1307, 0.3081))
                       .map(data::transforms::Stack<>());
  const size_t train_size = *train_set.size();
  auto train_loader = data::make_data_loader(std::move(train_set), data::DataLoaderOptions(64).workers(2));
  auto test_loader = data::make_data_loader<data::samplers::SequentialSampler>(
      data::datasets::MNIST(root, data::datasets::MNIST::Mode::kTest)
          .map(data::transforms::Normalize<>(0.1307, 0.3081))
          .map(data::transforms::Stack<>()),
      1000);

  Net net;
  optim::SGD optimizer(net.parameters(), optim::SGDOptions(0.01).momentum(0.5));
  const double before = accuracy(net, *test_loader);
  std::printf("test accuracy before training: %.3f\n", before);
  double after = before;
  for (int epoch = 1; epoch <= 2; ++epoch) {
    auto bar = progress(*train_loader, "epoch " + std::to_string(epoch),
                        ProgressOptions().total((train_size + 63) / 64));
    for (auto& batch : bar) {
      optimizer.zero_grad();
      Tensor loss = nn::functional::nll_loss(net.forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      bar.set("loss", loss.item<double>());
    }
    after = accuracy(net, *test_loader);
    std::printf("epoch %d: test accuracy %.3f\n", epoch, after);
  }
  if (synthetic) std::system(("rm -rf '" + root + "'").c_str());
  if (!synthetic) return 0;
  const bool ok = before < 0.3 && after > 0.9;
  std::printf("%s: test accuracy %.3f before training (chance is 0.1) and %.3f after 2 epochs (> 0.9)\n",
              ok ? "PASS" : "FAIL", before, after);
  return ok ? 0 : 1;
}

}  // namespace mnist_example
