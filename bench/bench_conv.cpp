// The convolutional stack, ember beside libtorch in one run (interleaved, so the ratios
// hold on a noisy machine), forward + backward on the CPU:
//  1. conv2d of the LeNet layer (64 x 1 x 28 x 28, 10 filters 5 x 5; the input is data,
//     so only weight and bias get gradients) and of a ResNet layer (32 x 64 x 56 x 56,
//     64 filters 3 x 3, padding 1, input gradient too);
//  2. max_pool2d (MNIST's 2 x 2 over 64 x 10 x 24 x 24; ResNet's 3 x 3 stride 2 padding 1
//     over 32 x 64 x 56 x 56) and adaptive_avg_pool2d (ResNet's head, 32 x 512 x 7 x 7 to
//     1 x 1; bins that overlap, 32 x 64 x 30 x 30 to 7 x 7);
//  3. batch_norm2d in training mode (the ResNet layer's 32 x 64 x 56 x 56, and the LeNet
//     activation's 64 x 10 x 24 x 24), gradients of input, weight and bias;
//  4. grid_sample (bilinear and bicubic, border padding), gradients of image and grid;
//  5. one training step of libtorch's MNIST network, batch 64 (forward, nll_loss,
//     backward, SGD with momentum), dropout masks included.
// Use: ember_bench_conv [repetitions, default 5]; prints the median time of each side.
#include <ember/ember.h>

#include "side_by_side.h"
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using Case = ember_bench::SideBySideCase;

// libtorch's MNIST network, written once per library (NN: ember::nn or torch::nn).
template <class Module, class Conv2d, class Conv2dOptions, class Dropout2d, class Linear>
struct MnistNet : Module {
  MnistNet() : conv1(Conv2dOptions(1, 10, 5)), conv2(Conv2dOptions(10, 20, 5)), fc1(320, 50), fc2(50, 10) {
    this->register_module("conv1", conv1);
    this->register_module("conv2", conv2);
    this->register_module("conv2_drop", conv2_drop);
    this->register_module("fc1", fc1);
    this->register_module("fc2", fc2);
  }
  Conv2d conv1, conv2;
  Dropout2d conv2_drop;
  Linear fc1, fc2;
};

using EmberNet = MnistNet<ember::nn::Module, ember::nn::Conv2d, ember::nn::Conv2dOptions,
                          ember::nn::Dropout2d, ember::nn::Linear>;

ember::Tensor forward(EmberNet& n, ember::Tensor x) {
  x = ember::relu(ember::max_pool2d(n.conv1->forward(x), 2));
  x = ember::relu(ember::max_pool2d(n.conv2_drop->forward(n.conv2->forward(x)), 2));
  x = ember::relu(n.fc1->forward(x.view({-1, 320})));
  x = ember::dropout(x, 0.5, n.is_training());
  return ember::log_softmax(n.fc2->forward(x), 1);
}

#ifdef EMBER_BENCH_WITH_TORCH
using TorchNet = MnistNet<torch::nn::Module, torch::nn::Conv2d, torch::nn::Conv2dOptions,
                          torch::nn::Dropout2d, torch::nn::Linear>;

torch::Tensor forward(TorchNet& n, torch::Tensor x) {
  x = torch::relu(torch::max_pool2d(n.conv1->forward(x), 2));
  x = torch::relu(torch::max_pool2d(n.conv2_drop->forward(n.conv2->forward(x)), 2));
  x = torch::relu(n.fc1->forward(x.view({-1, 320})));
  x = torch::dropout(x, 0.5, n.is_training());
  return torch::log_softmax(n.fc2->forward(x), 1);
}

torch::Tensor to_torch(const ember::Tensor& e) {
  ember::Tensor c = e.contiguous();
  return torch::from_blob(c.data_ptr(), c.sizes().vec(), torch::kFloat).clone();
}
#endif

// fwd + bwd of a conv2d layer: the sum of its output back through input (when asked), weight and bias.
Case conv_case(const std::string& name, std::vector<int64_t> in, std::vector<int64_t> w, int64_t padding,
               bool input_grad) {
  Case c;
  c.name = name;
  auto x = std::make_shared<ember::Tensor>(ember::randn(in).requires_grad_(input_grad));
  auto wt = std::make_shared<ember::Tensor>(ember::randn(w).requires_grad_());
  auto b = std::make_shared<ember::Tensor>(ember::randn({w[0]}).requires_grad_());
  c.ours = [=] {
    ember::conv2d(*x, *wt, *b, 1, padding).sum().backward();
    wt->mutable_grad() = ember::Tensor();
    b->mutable_grad() = ember::Tensor();
    if (input_grad) x->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_(input_grad));
  auto tw = std::make_shared<torch::Tensor>(to_torch(*wt).requires_grad_());
  auto tb = std::make_shared<torch::Tensor>(to_torch(*b).requires_grad_());
  c.theirs = [=] {
    torch::conv2d(*tx, *tw, *tb, 1, padding).sum().backward();
    tw->mutable_grad().reset();
    tb->mutable_grad().reset();
    if (input_grad) tx->mutable_grad().reset();
  };
#endif
  return c;
}

// The libtorch side of a pooling case (nothing without libtorch).
#ifdef EMBER_BENCH_WITH_TORCH
#define TORCH_OP(call) [](const torch::Tensor& x) { return torch::call; }
#else
#define TORCH_OP(call) nullptr
#endif

template <class EmberOp, class TorchOp>
Case pool_case(const std::string& name, std::vector<int64_t> in, EmberOp ours, TorchOp theirs) {
  Case c;
  c.name = name;
  auto x = std::make_shared<ember::Tensor>(ember::randn(in).requires_grad_());
  c.ours = [=] {
    ours(*x).sum().backward();
    x->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_());
  c.theirs = [=] {
    theirs(*tx).sum().backward();
    tx->mutable_grad().reset();
  };
#else
  (void)theirs;
#endif
  return c;
}

// Training-mode batch norm (running statistics updated) with gradients of input, weight
// and bias.
Case batch_norm_case(const std::string& name, std::vector<int64_t> in) {
  Case c;
  c.name = name;
  const int64_t ch = in[1];
  auto x = std::make_shared<ember::Tensor>(ember::randn(in).requires_grad_());
  auto w = std::make_shared<ember::Tensor>(ember::rand({ch}).requires_grad_());
  auto b = std::make_shared<ember::Tensor>(ember::randn({ch}).requires_grad_());
  auto rm = std::make_shared<ember::Tensor>(ember::zeros({ch}));
  auto rv = std::make_shared<ember::Tensor>(ember::ones({ch}));
  c.ours = [=] {
    ember::batch_norm(*x, *w, *b, *rm, *rv, true, 0.1, 1e-5).sum().backward();
    for (auto* t : {x.get(), w.get(), b.get()}) t->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_());
  auto tw = std::make_shared<torch::Tensor>(to_torch(*w).requires_grad_());
  auto tb = std::make_shared<torch::Tensor>(to_torch(*b).requires_grad_());
  auto trm = std::make_shared<torch::Tensor>(torch::zeros({ch}));
  auto trv = std::make_shared<torch::Tensor>(torch::ones({ch}));
  c.theirs = [=] {
    torch::batch_norm(*tx, *tw, *tb, *trm, *trv, true, 0.1, 1e-5, false).sum().backward();
    for (auto* t : {tx.get(), tw.get(), tb.get()}) t->mutable_grad().reset();
  };
#endif
  return c;
}

// fwd + bwd of grid_sampler (border padding) of 8 x 16 x 64 x 64 images at a 64 x 64 grid
// reaching past the borders: gradients of the image and the grid.
Case grid_sample_case(const std::string& name, int64_t mode) {
  Case c;
  c.name = name;
  auto x = std::make_shared<ember::Tensor>(ember::randn({8, 16, 64, 64}).requires_grad_());
  auto g = std::make_shared<ember::Tensor>((ember::rand({8, 64, 64, 2}) * 2.2 - 1.1).requires_grad_());
  c.ours = [=] {
    ember::grid_sampler(*x, *g, mode, 1, false).sum().backward();
    x->mutable_grad() = ember::Tensor();
    g->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_());
  auto tg = std::make_shared<torch::Tensor>(to_torch(*g).requires_grad_());
  c.theirs = [=] {
    torch::grid_sampler(*tx, *tg, mode, 1, false).sum().backward();
    tx->mutable_grad().reset();
    tg->mutable_grad().reset();
  };
#endif
  return c;
}

Case mnist_step_case() {
  Case c;
  c.name = "MNIST CNN training step, batch 64";
  ember::manual_seed(1);
  auto net = std::make_shared<EmberNet>();
  auto opt =
      std::make_shared<ember::optim::SGD>(net->parameters(), ember::optim::SGDOptions(0.01).momentum(0.5));
  auto x = std::make_shared<ember::Tensor>(ember::randn({64, 1, 28, 28}));
  auto y = std::make_shared<ember::Tensor>(ember::randint(0, 10, {64}));
  c.ours = [=] {
    opt->zero_grad();
    ember::Tensor loss = ember::nll_loss(forward(*net, *x), *y);
    loss.backward();
    opt->step();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  torch::manual_seed(1);
  auto tnet = std::make_shared<TorchNet>();
  auto topt =
      std::make_shared<torch::optim::SGD>(tnet->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x));
  ember::Tensor yd = y->contiguous();
  auto ty = std::make_shared<torch::Tensor>(torch::from_blob(yd.data_ptr(), {64}, torch::kLong).clone());
  c.theirs = [=] {
    topt->zero_grad();
    torch::Tensor loss = torch::nll_loss(forward(*tnet, *tx), *ty);
    loss.backward();
    topt->step();
  };
#endif
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  ember::manual_seed(0);
  std::vector<Case> cases;
  cases.push_back(
      conv_case("conv2d LeNet 64x1x28x28, 10 filters 5x5", {64, 1, 28, 28}, {10, 1, 5, 5}, 0, false));
  cases.push_back(conv_case("conv2d ResNet 32x64x56x56, 64 filters 3x3 pad 1", {32, 64, 56, 56},
                            {64, 64, 3, 3}, 1, true));
  cases.push_back(pool_case(
      "max_pool2d 2x2 of 64x10x24x24", {64, 10, 24, 24},
      [](const ember::Tensor& x) { return ember::max_pool2d(x, 2); }, TORCH_OP(max_pool2d(x, 2))));
  cases.push_back(pool_case(
      "max_pool2d 3x3 s2 p1 of 32x64x56x56", {32, 64, 56, 56},
      [](const ember::Tensor& x) { return ember::max_pool2d(x, 3, 2, 1); },
      TORCH_OP(max_pool2d(x, 3, 2, 1))));
  cases.push_back(pool_case(
      "adaptive_avg_pool2d 32x512x7x7 -> 1x1", {32, 512, 7, 7},
      [](const ember::Tensor& x) {
        return ember::adaptive_avg_pool2d(x, {1, 1});
      },
      TORCH_OP(adaptive_avg_pool2d(x, {1, 1}))));
  cases.push_back(pool_case(
      "adaptive_avg_pool2d 32x64x30x30 -> 7x7", {32, 64, 30, 30},
      [](const ember::Tensor& x) {
        return ember::adaptive_avg_pool2d(x, {7, 7});
      },
      TORCH_OP(adaptive_avg_pool2d(x, {7, 7}))));
  cases.push_back(batch_norm_case("batch_norm2d train 32x64x56x56", {32, 64, 56, 56}));
  cases.push_back(batch_norm_case("batch_norm2d train 64x10x24x24", {64, 10, 24, 24}));
  cases.push_back(grid_sample_case("grid_sample bilinear 8x16x64x64 at 64x64", 0));
  cases.push_back(grid_sample_case("grid_sample bicubic 8x16x64x64 at 64x64", 2));
  cases.push_back(mnist_step_case());

  std::printf("== forward + backward, CPU, float32 (median of %d; ms per call)\n", reps);
  ember_bench::SideBySideOptions options;
  options.repetitions = reps;
  options.name_width = 50;
  ember_bench::run_side_by_side(cases, options);
  return 0;
}
