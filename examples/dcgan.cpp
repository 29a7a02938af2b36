// libtorch's DCGAN example (examples/cpp/dcgan) written with ember: a generator of
// ConvTranspose2d + BatchNorm2d + ReLU layers (noise 100 -> 1 x 28 x 28, tanh) and a
// discriminator of strided Conv2d + BatchNorm2d + LeakyReLU layers (sigmoid), trained with
// binary cross-entropy, real labels smoothed to U(0.8, 1), two Adam optimizers (lr 2e-4,
// beta1 0.5), and torch::save checkpoints of both networks and optimizers.
// Use: dcgan [directory with MNIST's train files] trains libtorch's full-size networks for
// 30 epochs. Without a directory it writes a small synthetic MNIST-format set (digit d: row
// pair d + 2 and column pair 9 - d lit over dark noise), trains networks of a quarter of the
// width for three epochs, and checks (exit status 1 otherwise) that the generated images'
// mean and their share of bright pixels (sampled in training mode, as libtorch's example
// samples) move at least two thirds of the way from the untrained generator's to the
// data's, and that a checkpoint restores the generator exactly.
#include <ember/ember.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mnist_training.h"

namespace {

using namespace ember;

constexpr int64_t kNoiseSize = 100;
constexpr int64_t kBatchSize = 64;

struct DCGANGeneratorImpl : nn::Module {
  explicit DCGANGeneratorImpl(int64_t width)
      : conv1(nn::ConvTranspose2dOptions(kNoiseSize, 4 * width, 4).bias(false)),
        batch_norm1(4 * width),
        conv2(nn::ConvTranspose2dOptions(4 * width, 2 * width, 3).stride(2).padding(1).bias(false)),
        batch_norm2(2 * width),
        conv3(nn::ConvTranspose2dOptions(2 * width, width, 4).stride(2).padding(1).bias(false)),
        batch_norm3(width),
        conv4(nn::ConvTranspose2dOptions(width, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }
  // (N, 100, 1, 1) -> 4 x 4 -> 7 x 7 -> 14 x 14 -> 28 x 28.
  Tensor forward(Tensor x) {
    x = relu(batch_norm1(conv1(x)));
    x = relu(batch_norm2(conv2(x)));
    x = relu(batch_norm3(conv3(x)));
    return tanh(conv4(x));
  }
  nn::ConvTranspose2d conv1;
  nn::BatchNorm2d batch_norm1;
  nn::ConvTranspose2d conv2;
  nn::BatchNorm2d batch_norm2;
  nn::ConvTranspose2d conv3;
  nn::BatchNorm2d batch_norm3;
  nn::ConvTranspose2d conv4;
};
EMBER_MODULE(DCGANGenerator);

nn::Sequential discriminator(int64_t width) {
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(1, width, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(width, 2 * width, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(2 * width), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(2 * width, 4 * width, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(4 * width), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(4 * width, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
}

// The mean pixel and the share of bright pixels (> 0.1 after Normalize(0.5, 0.5)).
struct ImageStats {
  double mean, bright;
};
ImageStats stats(const Tensor& images) {
  return {images.mean().item<double>(), (images > 0.1).to(kDouble).mean().item<double>()};
}

// Sampled as libtorch's example samples: in training mode (batch statistics).
ImageStats generated_stats(DCGANGenerator& generator, const Tensor& noise) {
  NoGradGuard no_grad;
  return stats(generator(noise));
}

}  // namespace

int main(int argc, char** argv) {
  const bool synthetic = argc < 2;
  std::string root = synthetic ? "" : argv[1];
  if (synthetic) {
    char pattern[] = "/tmp/ember_dcgan_XXXXXX";
    root = ::mkdtemp(pattern);
    mnist_example::write_synthetic(root, "train", 2048, 3);
  }
  const int64_t width = synthetic ? 16 : 64;  // libtorch's example: 64
  const int64_t epochs = synthetic ? 3 : 30;
  manual_seed(1);

  DCGANGenerator generator(width);
  nn::Sequential disc = discriminator(width);
  auto dataset = data::datasets::MNIST(root)
                     .map(data::transforms::Normalize<>(0.5, 0.5))
                     .map(data::transforms::Stack<>());
  const int64_t batches_per_epoch = int64_t(std::ceil(double(*dataset.size()) / double(kBatchSize)));
  auto loader = data::make_data_loader(std::move(dataset), data::DataLoaderOptions(kBatchSize).workers(2));

  optim::Adam generator_optimizer(generator->parameters(),
                                  optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999)));
  optim::Adam discriminator_optimizer(disc->parameters(),
                                      optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.999)));

  const Tensor probe_noise = randn({256, kNoiseSize, 1, 1});
  const ImageStats untrained = generated_stats(generator, probe_noise);
  ImageStats real{0, 0};
  int64_t real_batches = 0;
  double d_loss_last = 0, g_loss_last = 0;
  const std::string checkpoint_dir = synthetic ? root : ".";

  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    int64_t batch_index = 0;
    for (data::Example<>& batch : *loader) {
      // Train the discriminator on real images (labels smoothed to U(0.8, 1)) ...
      disc->zero_grad();
      const Tensor real_images = batch.data;
      if (epoch == 1) {
        const ImageStats s = stats(real_images);
        real.mean += s.mean;
        real.bright += s.bright;
        ++real_batches;
      }
      const Tensor real_labels = empty({batch.data.size(0)}).uniform_(0.8, 1.0);
      const Tensor real_output = disc->forward(real_images).reshape(real_labels.sizes());
      const Tensor d_loss_real = binary_cross_entropy(real_output, real_labels);
      d_loss_real.backward();
      // ... and on generated ones (label 0).
      const Tensor noise = randn({batch.data.size(0), kNoiseSize, 1, 1});
      const Tensor fake_images = generator(noise);
      const Tensor fake_labels = zeros({batch.data.size(0)});
      const Tensor fake_output = disc->forward(fake_images.detach()).reshape(fake_labels.sizes());
      const Tensor d_loss_fake = binary_cross_entropy(fake_output, fake_labels);
      d_loss_fake.backward();
      const Tensor d_loss = d_loss_real + d_loss_fake;
      discriminator_optimizer.step();

      // Train the generator: make the discriminator call its images real.
      generator->zero_grad();
      fake_labels.fill_(1);
      const Tensor g_output = disc->forward(fake_images).reshape(fake_labels.sizes());
      const Tensor g_loss = binary_cross_entropy(g_output, fake_labels);
      g_loss.backward();
      generator_optimizer.step();

      d_loss_last = d_loss.item<double>();
      g_loss_last = g_loss.item<double>();
      if (++batch_index % 16 == 0 || batch_index == batches_per_epoch)
        std::printf("[%2lld/%2lld][%3lld/%3lld] D_loss: %.4f | G_loss: %.4f\n", (long long)epoch,
                    (long long)epochs, (long long)batch_index, (long long)batches_per_epoch, d_loss_last,
                    g_loss_last);
    }
    save(generator, checkpoint_dir + "/generator-checkpoint.pt");
    save(generator_optimizer, checkpoint_dir + "/generator-optimizer-checkpoint.pt");
    save(disc, checkpoint_dir + "/discriminator-checkpoint.pt");
    save(discriminator_optimizer, checkpoint_dir + "/discriminator-optimizer-checkpoint.pt");
  }
  if (!synthetic) return 0;

  real.mean /= double(real_batches);
  real.bright /= double(real_batches);
  // A fresh generator restored from the last checkpoint draws the same images (in eval
  // mode, which uses the restored running statistics).
  DCGANGenerator restored(width);
  load(restored, root + "/generator-checkpoint.pt");
  restored->eval();
  generator->eval();
  bool same_after_load;
  {
    NoGradGuard no_grad;
    same_after_load = restored(probe_noise).equal(generator(probe_noise));
  }
  generator->train();
  const ImageStats trained = generated_stats(generator, probe_noise);
  std::system(("rm -rf '" + root + "'").c_str());

  auto moved = [](double from, double to, double target) {
    return std::abs(to - target) <= std::abs(from - target) / 3;
  };
  const bool finite = std::isfinite(d_loss_last) && std::isfinite(g_loss_last);
  const bool ok = finite && same_after_load && moved(untrained.mean, trained.mean, real.mean) &&
                  moved(untrained.bright, trained.bright, real.bright);
  std::printf(
      "data: mean %.3f, bright %.3f | untrained generator: mean %.3f, bright %.3f | trained: mean "
      "%.3f, bright %.3f\n",
      real.mean, real.bright, untrained.mean, untrained.bright, trained.mean, trained.bright);
  std::printf(
      "%s: losses finite (D %.4f, G %.4f), checkpoint restores the generator: %s, statistics moved "
      "two thirds of the way to the data's\n",
      ok ? "PASS" : "FAIL", d_loss_last, g_loss_last, same_after_load ? "yes" : "no");
  return ok ? 0 : 1;
}
