// The nn layers on the GPU against the CPU (issue: the parity table covers the new layers):
// each layer's output, the gradient of its input and of every parameter, in float64, from
// the same weights and inputs. The layers are ember ops, so this checks that their
// composition (im2col, pooling indices, the recurrent and attention graphs) runs on CUDA.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda_test_util.h"

using namespace ember;
using ember::test::kCpu;
using ember::test::kGpu;
namespace F = ember::nn::functional;

namespace {

using V = std::vector<Tensor>;

// A float64 input on `d`, the same values on every device for the same seed.
Tensor input(IntArrayRef sizes, Device d, uint64_t seed = 5) {
  manual_seed(seed);
  return randn(sizes, TensorOptions(kDouble)).to(d).requires_grad_();
}

// Backpropagates a fixed random weighting of `out`; returns out, then each leaf's gradient.
V backprop(const Tensor& out, const V& leaves) {
  manual_seed(99);
  const Tensor w = randn(out.sizes(), TensorOptions(kDouble)).to(out.device());
  (out * w).sum().backward();
  V r{out.detach()};
  for (const Tensor& l : leaves) r.push_back(l.grad());
  return r;
}

// The module's parameters after `x`: the leaves whose gradients are compared.
V with_params(Tensor x, const std::vector<Tensor>& params) {
  V leaves{std::move(x)};
  leaves.insert(leaves.end(), params.begin(), params.end());
  return leaves;
}

// Made on the CPU from seed 3 (so both devices get the same weights), in float64, on d.
template <class Holder>
Holder on(Holder m, Device d) {
  m->to(kDouble);
  m->to(d);
  return m;
}

void check_layer(const std::string& what, const std::function<V(Device)>& run) {
  const V gpu = run(kGpu), cpu = run(kCpu);
  REQUIRE(gpu.size() == cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO(what << ", tensor " << i << " (0: output, then the input's and each parameter's gradient)");
    REQUIRE(gpu[i].defined() == cpu[i].defined());
    if (!cpu[i].defined()) continue;
    CHECK(gpu[i].device().is_cuda());
    REQUIRE(gpu[i].sizes().vec() == cpu[i].sizes().vec());
    const Tensor g = gpu[i].cpu().to(kDouble), c = cpu[i].to(kDouble);
    const double err = (g - c).abs().max().item<double>(), scale = c.abs().max().item<double>();
    INFO("max |gpu - cpu| " << err << ", max |cpu| " << scale);
    CHECK(err <= 1e-9 * (1 + scale));
  }
}

}  // namespace

TEST_CASE("cuda layers: convolutions match the CPU, forward and backward") {
  EMBER_REQUIRE_GPU();
  check_layer("Conv2d stride 2 padding 1", [](Device d) {
    manual_seed(3);
    auto m = on(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).stride(2).padding(1)), d);
    Tensor x = input({2, 3, 11, 9}, d);
    return backprop(m(x), with_params(x, m->parameters()));
  });
  check_layer("Conv2d groups 2 dilation 2, reflect padding", [](Device d) {
    manual_seed(3);
    auto m = on(nn::Conv2d(nn::Conv2dOptions(4, 6, 3).groups(2).dilation(2).padding(2).padding_mode(kReflect)), d);
    Tensor x = input({2, 4, 8, 8}, d);
    return backprop(m(x), with_params(x, m->parameters()));
  });
  check_layer("ConvTranspose2d stride 2 output_padding 1", [](Device d) {
    manual_seed(3);
    auto m = on(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 3, 3).stride(2).output_padding(1)), d);
    Tensor x = input({2, 4, 5, 6}, d);
    return backprop(m(x), with_params(x, m->parameters()));
  });
  check_layer("Conv3d", [](Device d) {
    manual_seed(3);
    auto m = on(nn::Conv3d(nn::Conv3dOptions(2, 3, 3).padding(1)), d);
    Tensor x = input({1, 2, 5, 6, 4}, d);
    return backprop(m(x), with_params(x, m->parameters()));
  });
}

TEST_CASE("cuda layers: pooling and resampling match the CPU") {
  EMBER_REQUIRE_GPU();
  check_layer("MaxPool2d 3 stride 2, AvgPool2d 2, AdaptiveAvgPool2d 3x3", [](Device d) {
    Tensor x = input({2, 3, 13, 11}, d);
    nn::MaxPool2d mp(nn::MaxPool2dOptions(3).stride(2));
    nn::AvgPool2d ap(nn::AvgPool2dOptions(2));
    nn::AdaptiveAvgPool2d aap(nn::AdaptiveAvgPool2dOptions({3, 3}));
    Tensor y = cat({mp(x).flatten(1), ap(x).flatten(1), aap(x).flatten(1)}, 1);
    return backprop(y, {x});
  });
  check_layer("max_pool2d indices, MaxPool3d, bilinear interpolate", [](Device d) {
    Tensor x = input({2, 3, 9, 8}, d), v = input({1, 2, 6, 6, 6}, d, 6);
    auto [y, idx] = nn::MaxPool2d(nn::MaxPool2dOptions(2)).get()->forward_with_indices(x);
    Tensor z = nn::MaxPool3d(nn::MaxPool3dOptions(2))(v);
    Tensor up = F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{13, 5}).mode(kBilinear).align_corners(false));
    V r = backprop(cat({y.flatten(), z.flatten(), up.flatten()}), {x, v});
    r.push_back(idx);
    return r;
  });
}

TEST_CASE("cuda layers: normalization and embedding match the CPU") {
  EMBER_REQUIRE_GPU();
  check_layer("BatchNorm2d in training, with its running statistics", [](Device d) {
    manual_seed(3);
    auto m = on(nn::BatchNorm2d(5), d);
    Tensor x = input({4, 5, 6, 7}, d);
    V r = backprop(m(x), with_params(x, m->parameters()));
    r.push_back(m->running_mean);
    r.push_back(m->running_var);
    return r;
  });
  check_layer("GroupNorm 2 groups and LayerNorm", [](Device d) {
    manual_seed(3);
    auto g = on(nn::GroupNorm(nn::GroupNormOptions(2, 6)), d);
    auto l = on(nn::LayerNorm(nn::LayerNormOptions({7})), d);
    Tensor x = input({3, 6, 7}, d);
    V leaves = with_params(x, g->parameters());
    for (const Tensor& p : l->parameters()) leaves.push_back(p);
    return backprop(l(g(x)), leaves);
  });
  check_layer("Embedding with repeated indices", [](Device d) {
    manual_seed(3);
    auto m = on(nn::Embedding(nn::EmbeddingOptions(20, 6)), d);
    const Tensor idx = tensor({{1, 4, 4, 19}, {0, 1, 1, 1}}).to(d);
    return backprop(m(idx), m->parameters());
  });
}

TEST_CASE("cuda layers: recurrent layers match the CPU") {
  EMBER_REQUIRE_GPU();
  check_layer("LSTM 2 layers, bidirectional", [](Device d) {
    manual_seed(3);
    auto m = on(nn::LSTM(nn::LSTMOptions(5, 7).num_layers(2).bidirectional(true)), d);
    Tensor x = input({6, 3, 5}, d);
    auto [y, state] = m(x);
    return backprop(cat({y.flatten(), std::get<0>(state).flatten(), std::get<1>(state).flatten()}),
                    with_params(x, m->parameters()));
  });
  check_layer("GRU batch_first", [](Device d) {
    manual_seed(3);
    auto m = on(nn::GRU(nn::GRUOptions(5, 7).batch_first(true)), d);
    Tensor x = input({3, 6, 5}, d);
    auto [y, h] = m(x);
    return backprop(cat({y.flatten(), h.flatten()}), with_params(x, m->parameters()));
  });
}

TEST_CASE("cuda layers: attention and the Transformer encoder layer match the CPU") {
  EMBER_REQUIRE_GPU();
  check_layer("MultiheadAttention, self-attention with weights", [](Device d) {
    manual_seed(3);
    auto m = on(nn::MultiheadAttention(nn::MultiheadAttentionOptions(16, 4)), d);
    Tensor x = input({5, 2, 16}, d);
    auto [y, attn] = m(x, x, x);
    return backprop(cat({y.flatten(), attn.flatten()}), with_params(x, m->parameters()));
  });
  check_layer("TransformerEncoderLayer without dropout", [](Device d) {
    manual_seed(3);
    auto m = on(nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(16, 4).dim_feedforward(32).dropout(0)), d);
    Tensor x = input({5, 2, 16}, d);
    return backprop(m(x), with_params(x, m->parameters()));
  });
}

TEST_CASE("cuda layers: losses match the CPU") {
  EMBER_REQUIRE_GPU();
  check_layer("cross_entropy with label smoothing and ignore_index", [](Device d) {
    Tensor x = input({6, 5}, d);
    const Tensor target = tensor({0, 4, 2, -100, 1, 4}).to(d);
    return backprop(F::cross_entropy(x, target, F::CrossEntropyFuncOptions().label_smoothing(0.1)).reshape({1}), {x});
  });
  check_layer("ctc_loss", [](Device d) {
    Tensor x = input({12, 2, 5}, d);
    const Tensor lp = log_softmax(x, 2);
    const Tensor targets = tensor({{1, 2, 2, 3}, {4, 1, 0, 0}}).to(d);
    const Tensor in_len = tensor({12, 10}).to(d), tgt_len = tensor({4, 2}).to(d);
    return backprop(F::ctc_loss(lp, targets, in_len, tgt_len).reshape({1}), {x});
  });
}

namespace {

// ember::cuda::allow_tf32 set for a scope, restored however the scope ends.
struct AllowTf32 {
  bool before = cuda::allow_tf32();
  explicit AllowTf32(bool allow) { cuda::set_allow_tf32(allow); }
  ~AllowTf32() { cuda::set_allow_tf32(before); }
};

// conv1d, conv2d or conv3d on `d` in `dtype` and memory `format`, from float32 values drawn on
// the CPU and rounded to `values` (the GPU's dtype, so that the CPU's float32 reference
// starts from the same numbers): the output, then the input's, weight's and bias's
// gradients for a fixed output gradient, as float32 on the CPU. On the GPU it also checks
// that the layout was kept, and says in `library` whether cuDNN ran the forward (one
// ConvolutionBackward0 node) or had no algorithm for it (the portable form ran).
V cudnn_conv(Device d, ScalarType values, ScalarType dtype, MemoryFormat format, int spatial, int64_t groups,
             int64_t stride, int64_t dilation, bool* library = nullptr) {
  manual_seed(11);
  const std::vector<int64_t> xs = spatial == 1   ? std::vector<int64_t>{3, 8, 29}
                                  : spatial == 2 ? std::vector<int64_t>{3, 8, 13, 11}
                                                 : std::vector<int64_t>{2, 8, 6, 7, 5};
  std::vector<int64_t> ws = {12, 8 / groups};
  for (int i = 0; i < spatial; ++i) ws.push_back(3);
  const auto round = [&](const Tensor& t) { return t.to(values).to(kFloat); };
  const Tensor x0 = round(randn(xs)), w0 = round(randn(ws) * 0.2), b0 = round(randn({12}));
  Tensor x = x0.to(d).to(dtype).contiguous(format).requires_grad_();
  Tensor w = w0.to(d).to(dtype).requires_grad_(), b = b0.to(d).to(dtype).requires_grad_();
  const std::vector<int64_t> st(size_t(spatial), stride), pad(size_t(spatial), 1),
      dil(size_t(spatial), dilation);
  const Tensor y = spatial == 1   ? conv1d(x, w, b, st, pad, dil, groups)
                   : spatial == 2 ? conv2d(x, w, b, st, pad, dil, groups)
                                  : conv3d(x, w, b, st, pad, dil, groups);
  manual_seed(12);
  const Tensor g = round(randn(y.sizes())).to(d).to(dtype);
  y.backward(g);
  if (d.is_cuda()) {
    if (library) *library = y.grad_fn()->name() == "ConvolutionBackward0";
    CHECK(y.is_contiguous(format));
    CHECK(x.grad().is_contiguous(format));
  }
  return {y.detach().cpu().to(kFloat), x.grad().cpu().to(kFloat), w.grad().cpu().to(kFloat),
          b.grad().cpu().to(kFloat)};
}

}  // namespace

TEST_CASE("cuda layers: cuDNN convolutions in every dtype and memory format match the CPU") {
  EMBER_REQUIRE_GPU();
  if (!cuda::cudnn_is_available()) {
    WARN("skipped: ember was built without cuDNN");
    return;
  }
  struct Shape {
    int spatial;
    int64_t groups, stride, dilation;
  };
  // 1-D runs as 2-D with a height of 1 (as libtorch describes it to cuDNN).
  const Shape shapes[] = {{1, 1, 1, 1}, {1, 2, 2, 2}, {2, 1, 1, 1}, {2, 2, 2, 1},
                          {2, 4, 1, 2}, {3, 1, 1, 1}, {3, 2, 2, 1}};
  // Relative to max |cpu|: float32 differs only by summation order (FMA math, no TF32);
  // Half and BFloat16 round each output and gradient.
  const std::pair<ScalarType, double> dtypes[] = {{kFloat, 1e-5}, {kHalf, 4e-3}, {kBFloat16, 3e-2}};
  for (const Shape& s : shapes)
    for (const auto& [dtype, tol] : dtypes)
      for (bool channels_last : {false, true}) {
        if (s.spatial == 1 && channels_last) continue;  // no 3-D channels-last format
        const MemoryFormat format = !channels_last   ? MemoryFormat::Contiguous
                                    : s.spatial == 2 ? MemoryFormat::ChannelsLast
                                                     : MemoryFormat::ChannelsLast3d;
        bool library = false;
        const V gpu =
            cudnn_conv(kGpu, dtype, dtype, format, s.spatial, s.groups, s.stride, s.dilation, &library);
        const std::string what = std::to_string(s.spatial) + "-d, groups " + std::to_string(s.groups) +
                                 ", stride " + std::to_string(s.stride) + ", dilation " +
                                 std::to_string(s.dilation) + ", " + name(dtype) +
                                 (channels_last ? ", channels-last" : "");
        // cuDNN's legacy API has no algorithm for some shapes; the plain float32 one it must run.
        if (s.spatial <= 2 && s.groups == 1 && dtype == kFloat) CHECK(library);
        if (!library) WARN("cuDNN ran no algorithm, the portable form did: " << what);
        const V cpu = cudnn_conv(kCpu, dtype, kFloat, MemoryFormat::Contiguous, s.spatial, s.groups, s.stride,
                                 s.dilation);
        for (size_t i = 0; i < cpu.size(); ++i) {
          INFO(what << ", tensor " << i << " (output, then the input's, weight's and bias's gradients)");
          REQUIRE(gpu[i].sizes().vec() == cpu[i].sizes().vec());
          const double err = (gpu[i] - cpu[i]).abs().max().item<double>(),
                       scale = cpu[i].abs().max().item<double>();
          INFO("max |gpu - cpu| " << err << ", max |cpu| " << scale);
          CHECK(err <= tol * (1 + scale));
        }
      }
  // TF32 when allowed: the same values to TF32's 10-bit mantissa.
  V tf32;
  {
    AllowTf32 allow(true);
    tf32 = cudnn_conv(kGpu, kFloat, kFloat, MemoryFormat::ChannelsLast, 2, 1, 1, 1);
  }
  const V cpu = cudnn_conv(kCpu, kFloat, kFloat, MemoryFormat::Contiguous, 2, 1, 1, 1);
  for (size_t i = 0; i < cpu.size(); ++i)
    CHECK((tf32[i] - cpu[i]).abs().max().item<double>() <= 5e-3 * (1 + cpu[i].abs().max().item<double>()));
}

// cuDNN indexes tensors with int: a batch of more than INT_MAX elements runs in slices
// (127 + 3 samples of 4096^2 here), whose weight and bias gradients add up.
TEST_CASE("cuda layers: a cuDNN convolution over more than INT_MAX elements runs in batch slices", "[slow]") {
  EMBER_REQUIRE_GPU();
  if (!cuda::cudnn_is_available()) {
    WARN("skipped: ember was built without cuDNN");
    return;
  }
  const auto half = TensorOptions(kHalf).device(kGpu);
  manual_seed(21);
  const Tensor x = rand({130, 1, 4096, 4096}, half);
  REQUIRE(x.numel() > INT32_MAX);
  Tensor w = full({1, 1, 1, 1}, 0.5, half).requires_grad_(), b = full({1}, 0.25, half).requires_grad_();
  const Tensor y = conv2d(x, w, b);
  REQUIRE(y.grad_fn()->name() == "ConvolutionBackward0");
  for (int64_t n : {0, 126, 127, 129}) {  // both sides of the slice boundary
    const Tensor expect = x[n].to(kFloat) * 0.5 + 0.25;
    CHECK((y[n].to(kFloat) - expect).abs().max().item<double>() <= 1e-3);
  }
  // The gradient reaches the first and the last sample only, 2^-12 each (exact in half).
  Tensor g = zeros_like(y);
  g[0].fill_(1.0 / 4096);
  g[129].fill_(1.0 / 4096);
  y.backward(g);
  const double expect_w = (x[0].to(kFloat).sum() + x[129].to(kFloat).sum()).item<double>() / 4096;
  CHECK(std::abs(w.grad().item<double>() - expect_w) <= 4e-3 * expect_w);
  CHECK(b.grad().item<double>() == 8192.0);  // 2 * 4096^2 * 2^-12
}
