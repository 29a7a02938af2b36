// Data loading, ember::data beside libtorch's torch::data in one run (interleaved, so the
// ratios hold on a noisy machine):
//  1. one epoch of MNIST-format files (60,000 images of 28x28, as libtorch's reader
//     demands) through Normalize + Stack in batches of 64, with 0 and with 2 workers;
//  2. a transform that costs about 1 ms per example (busy work), 1 and 2 workers: the
//     speedup of the second worker on this machine;
//  3. the cost of ember::progress around a loop whose body takes about 20 us.
// Use: ember_bench_data [repetitions, default 3]
#include <ember/ember.h>
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& fn) {
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void put_u32(std::ofstream& out, uint32_t v) {
  const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.write(bytes, 4);
}

void write_mnist(const std::string& dir, uint32_t count) {
  std::mt19937 rng(5);
  std::ofstream images(dir + "/train-images-idx3-ubyte", std::ios::binary);
  std::ofstream labels(dir + "/train-labels-idx1-ubyte", std::ios::binary);
  put_u32(images, 2051), put_u32(images, count), put_u32(images, 28), put_u32(images, 28);
  put_u32(labels, 2049), put_u32(labels, count);
  std::vector<char> pixels(size_t(count) * 784);
  for (auto& p : pixels) p = char(rng());
  images.write(pixels.data(), std::streamsize(pixels.size()));
  for (uint32_t i = 0; i < count; ++i) labels.put(char(i % 10));
}

void spin_for(std::chrono::microseconds d) {
  const auto until = Clock::now() + d;
  while (Clock::now() < until) {
  }
}

double ember_mnist_epoch(const std::string& root, size_t workers) {
  namespace d = ember::data;
  auto loader = d::make_data_loader<d::samplers::SequentialSampler>(
      d::datasets::MNIST(root).map(d::transforms::Normalize<>(0.1307, 0.3081)).map(d::transforms::Stack<>()),
      d::DataLoaderOptions(64).workers(workers));
  size_t n = 0;
  const double s = seconds_of([&] {
    for (auto& batch : *loader) n += size_t(batch.data.size(0));
  });
  return double(n) / s;
}

#ifdef EMBER_BENCH_WITH_TORCH
double torch_mnist_epoch(const std::string& root, size_t workers) {
  namespace d = torch::data;
  auto loader = d::make_data_loader<d::samplers::SequentialSampler>(
      d::datasets::MNIST(root).map(d::transforms::Normalize<>(0.1307, 0.3081)).map(d::transforms::Stack<>()),
      d::DataLoaderOptions(64).workers(workers));
  size_t n = 0;
  const double s = seconds_of([&] {
    for (auto& batch : *loader) n += size_t(batch.data.size(0));
  });
  return double(n) / s;
}
#endif

// Examples per second through a 1 ms transform.
double ember_slow_transform(size_t workers) {
  namespace d = ember::data;
  auto dataset = d::datasets::TensorDataset(ember::arange(240).to(ember::kFloat32))
                     .map(d::transforms::TensorLambda<ember::data::example::NoTarget>([](ember::Tensor t) {
                       spin_for(std::chrono::microseconds(1000));
                       return t * 2;
                     }))
                     .map(d::transforms::Stack<d::TensorExample>());
  auto loader = d::make_data_loader<d::samplers::SequentialSampler>(std::move(dataset),
                                                                     d::DataLoaderOptions(8).workers(workers));
  size_t n = 0;
  const double s = seconds_of([&] {
    for (auto& batch : *loader) n += size_t(batch.data.size(0));
  });
  return double(n) / s;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  char pattern[] = "/tmp/ember_bench_data_XXXXXX";
  const std::string root = ::mkdtemp(pattern);
  write_mnist(root, 60000);

  std::printf("== MNIST-format epoch, Normalize + Stack, batch 64 (images/s, median of %d)\n", reps);
  for (size_t workers : {size_t(0), size_t(2)}) {
    std::vector<double> ours, theirs;
    for (int r = 0; r < reps; ++r) {
      ours.push_back(ember_mnist_epoch(root, workers));
#ifdef EMBER_BENCH_WITH_TORCH
      theirs.push_back(torch_mnist_epoch(root, workers));
#endif
    }
    if (theirs.empty()) {
      std::printf("workers %zu: ember %.0f images/s (libtorch not built in)\n", workers, median(ours));
    } else {
      std::printf("workers %zu: ember %.0f images/s, libtorch %.0f images/s, ember/libtorch %.2fx\n", workers,
                  median(ours), median(theirs), median(ours) / median(theirs));
    }
  }

  std::printf("== 1 ms transform per example, 240 examples, batch 8 (examples/s, median of %d)\n", reps);
  std::vector<double> one, two;
  for (int r = 0; r < reps; ++r) {
    one.push_back(ember_slow_transform(1));
    two.push_back(ember_slow_transform(2));
  }
  std::printf("1 worker %.0f, 2 workers %.0f: speedup %.2fx\n", median(one), median(two), median(two) / median(one));

  std::printf("== ember::progress around a 20 us loop body, 20000 iterations (median of %d)\n", reps);
  std::vector<int> items(20000);
  std::vector<double> plain, wrapped;
  std::ofstream sink("/dev/null");
  for (int r = 0; r < reps; ++r) {
    plain.push_back(seconds_of([&] {
      for (int v : items) {
        (void)v;
        spin_for(std::chrono::microseconds(20));
      }
    }));
    wrapped.push_back(seconds_of([&] {
      auto bar = ember::progress(items, "bench", ember::ProgressOptions().stream(&sink).interactive(true));
      for (int v : bar) {
        (void)v;
        spin_for(std::chrono::microseconds(20));
      }
    }));
  }
  std::printf("plain %.4f s, with progress %.4f s: overhead %+.2f%%\n", median(plain), median(wrapped),
              100.0 * (median(wrapped) / median(plain) - 1.0));
  std::system(("rm -rf '" + root + "'").c_str());
  return 0;
}
