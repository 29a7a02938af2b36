// libtorch's MNIST training program with an MLP in place of its convolutions (mnist_cnn
// has libtorch's network itself): MNIST-format IDX files read through ember::data with
// Normalize + Stack, two loader workers, SGD with momentum, log_softmax + nll_loss, and a
// progress line per epoch.
// Use: mnist_mlp [directory with the four MNIST files]. Without one it writes a small
// synthetic set in that format (each digit a pattern of strokes plus noise) to a temporary
// directory, trains on it and checks that test accuracy rises from chance to over 90%.
#include <ember/ember.h>

#include "mnist_training.h"

namespace {

using namespace ember;

struct Net : nn::Module {
  Net() {
    fc1 = register_module("fc1", nn::Linear(784, 128));
    fc2 = register_module("fc2", nn::Linear(128, 64));
    fc3 = register_module("fc3", nn::Linear(64, 10));
  }
  Tensor forward(Tensor x) {
    x = relu(fc1->forward(x.view({x.size(0), 784})));
    x = relu(fc2->forward(x));
    return log_softmax(fc3->forward(x), 1);
  }
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

}  // namespace

int main(int argc, char** argv) { return mnist_example::train_mnist<Net>(argc, argv); }
