// torchvision's ResNet-18 in ember, with torchvision's parameter names ("conv1.weight",
// "layer2.0.downsample.1.running_var", "fc.bias", ...), so a state_dict that Python PyTorch
// saved as safetensors loads as it is.
//
// Use: resnet18 MODEL INPUT LOGITS
//   Loads MODEL (a torchvision resnet18 state_dict as safetensors), runs the "input" tensor
//   of INPUT in eval mode and compares with the "logits" tensor of LOGITS (PyTorch's output
//   for the same input): exit status 1 unless every logit is within 1e-4 of PyTorch's,
//   relative to the largest |logit|. examples/resnet18_reference.py writes the three files.
// Use: resnet18
//   Without files: one SGD training step on a random batch, then a safetensors round trip
//   of the model that must restore every parameter and buffer bit for bit.
#include <ember/ember.h>
#include <ember/nn.h>

#include <chrono>
#include <cstdio>
#include <string>

using namespace ember;

namespace {

// torchvision.models.resnet.BasicBlock: two 3x3 convolutions, the shortcut projected by a
// strided 1x1 convolution when the shape changes.
struct BasicBlockImpl : nn::Module {
  BasicBlockImpl(int64_t in, int64_t out, int64_t stride)
      : conv1(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)),
        bn1(out),
        conv2(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)),
        bn2(out) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    if (stride != 1 || in != out) {
      downsample = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)),
                                  nn::BatchNorm2d(out));
      register_module("downsample", downsample);
    }
  }

  Tensor forward(const Tensor& x) {
    const Tensor identity = downsample ? downsample->forward(x) : x;
    const Tensor y = bn2->forward(conv2->forward(relu(bn1->forward(conv1->forward(x)))));
    return relu(y + identity);
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample{nullptr};
};
EMBER_MODULE(BasicBlock);

struct ResNet18Impl : nn::Module {
  ResNet18Impl()
      : conv1(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)),
        bn1(64),
        layer1(BasicBlock(64, 64, 1), BasicBlock(64, 64, 1)),
        layer2(BasicBlock(64, 128, 2), BasicBlock(128, 128, 1)),
        layer3(BasicBlock(128, 256, 2), BasicBlock(256, 256, 1)),
        layer4(BasicBlock(256, 512, 2), BasicBlock(512, 512, 1)),
        fc(512, 1000) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("layer1", layer1);
    register_module("layer2", layer2);
    register_module("layer3", layer3);
    register_module("layer4", layer4);
    register_module("fc", fc);
  }

  Tensor forward(const Tensor& x) {
    Tensor y = max_pool2d(relu(bn1->forward(conv1->forward(x))), 3, 2, 1);
    y = layer4->forward(layer3->forward(layer2->forward(layer1->forward(y))));
    return fc->forward(adaptive_avg_pool2d(y, {1, 1}).flatten(1));
  }

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Sequential layer1, layer2, layer3, layer4;
  nn::Linear fc;
};
EMBER_MODULE(ResNet18);

Tensor only_tensor(const std::string& path, const std::string& name) {
  const auto tensors = ember::load(path);
  const auto it = tensors.find(name);
  if (it == tensors.end()) throw InvalidArgument(path + " has no tensor \"" + name + "\"");
  return it->second;
}

int compare_with_pytorch(const std::string& model_path, const std::string& input_path,
                         const std::string& logits_path) {
  ResNet18 model;
  model->load(model_path);  // strict: every torchvision name must match
  model->eval();
  const Tensor input = only_tensor(input_path, "input"), want = only_tensor(logits_path, "logits");
  NoGradGuard no_grad;
  const Tensor got = model->forward(input);
  const double scale = want.abs().max().item<double>();
  const double err = (got - want).abs().max().item<double>();
  std::printf("resnet18: %lld parameters loaded from %s\n", static_cast<long long>(model->parameters().size()),
              model_path.c_str());
  std::printf("logits (%lld x 1000): max |ember - pytorch| = %.3g, max |logit| %.3g, relative %.3g\n",
              static_cast<long long>(got.size(0)), err, scale, err / scale);
  const Tensor same_class = got.argmax(1).eq(want.argmax(1));
  std::printf("same top class for %lld of %lld inputs\n", static_cast<long long>(same_class.sum().item<int64_t>()),
              static_cast<long long>(same_class.numel()));
  if (!(err <= 1e-4 * scale)) {
    std::printf("FAILED: the logits differ from PyTorch's by more than 1e-4 relative\n");
    return 1;
  }
  std::printf("ok: PyTorch's logits reproduced within 1e-4 relative\n");
  return 0;
}

int train_and_round_trip() {
  manual_seed(0);
  ResNet18 model;
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  const Tensor x = randn({4, 3, 112, 112}), y = randint(0, 1000, {4});
  const auto start = std::chrono::steady_clock::now();
  opt.zero_grad();
  const Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
  loss.backward();
  opt.step();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("resnet18: one SGD step on a 4x3x112x112 batch, loss %.4f, %.0f ms\n", loss.item<double>(), ms);
  model->eval();
  const std::string path = "resnet18_roundtrip.safetensors";
  model->save(path);
  ResNet18 loaded;
  loaded->load(path);
  loaded->eval();
  std::remove(path.c_str());
  // Every parameter and buffer comes back bit for bit; the logits then agree (to rounding:
  // oneDNN may pick its kernels per call).
  bool same = true;
  const auto saved = model->named_parameters(), restored = loaded->named_parameters();
  for (const auto& item : saved) same = same && equal(item.value(), restored[item.key()]);
  const auto saved_buffers = model->named_buffers(), restored_buffers = loaded->named_buffers();
  for (const auto& item : saved_buffers) same = same && equal(item.value(), restored_buffers[item.key()]);
  NoGradGuard no_grad;
  const bool close = allclose(model->forward(x), loaded->forward(x), 1e-5, 1e-6);
  std::printf("safetensors round trip: parameters and buffers %s, logits %s\n", same ? "identical" : "DIFFER",
              close ? "equal" : "DIFFER");
  return same && close ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 4) return compare_with_pytorch(argv[1], argv[2], argv[3]);
    if (argc == 1) return train_and_round_trip();
    std::fprintf(stderr, "use: resnet18 [MODEL INPUT LOGITS]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resnet18: %s\n", e.what());
    return 1;
  }
}
