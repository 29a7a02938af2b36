// libtorch's classic MNIST program (its examples/cpp/mnist): two convolutions (1 -> 10 and
// 10 -> 20 channels, 5 x 5), Dropout2d, max pooling, two linear layers with dropout between,
// log_softmax + nll_loss, SGD (lr 0.01, momentum 0.5); MNIST-format IDX files read through
// ember::data with Normalize + Stack, two loader workers, and a progress line per epoch.
// Use: mnist_cnn [directory with the four MNIST files]. Without one it writes a small
// synthetic set in that format (each digit a pattern of strokes plus noise) to a temporary
// directory, trains on it and checks that test accuracy rises from chance to over 90%.
#include <ember/ember.h>

#include "mnist_training.h"

namespace {

using namespace ember;

struct Net : nn::Module {
  Net()
      : conv1(nn::Conv2dOptions(1, 10, /*kernel_size=*/5)),
        conv2(nn::Conv2dOptions(10, 20, /*kernel_size=*/5)),
        fc1(320, 50),
        fc2(50, 10) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv2_drop", conv2_drop);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(Tensor x) {
    x = relu(max_pool2d(conv1->forward(x), 2));
    x = relu(max_pool2d(conv2_drop->forward(conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = relu(fc1->forward(x));
    x = dropout(x, /*p=*/0.5, /*train=*/is_training());
    x = fc2->forward(x);
    return log_softmax(x, /*dim=*/1);
  }
  nn::Conv2d conv1, conv2;
  nn::Dropout2d conv2_drop;
  nn::Linear fc1, fc2;
};

}  // namespace

int main(int argc, char** argv) { return mnist_example::train_mnist<Net>(argc, argv); }
