// Transposed convolutions against libtorch 1.13 on the same values: conv_transpose1d/2d for
// every option (stride, padding, output_padding, groups, dilation, bias), odd sizes,
// strided and unbatched inputs, values and gradients of every input; the modules
// initialised after manual_seed equal to libtorch's, output_size, printing and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::printed;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

ember::Tensor leaf(std::vector<int64_t> sizes) {
  return ember::randn(sizes, ember::kDouble).requires_grad_();
}

struct Case {
  int64_t n, c_in, c_out, h, w, kh, kw;
  std::vector<int64_t> stride, padding, output_padding, dilation;
  int64_t groups;
  bool bias;
};

}  // namespace

TEST_CASE("conv_transpose crosscheck: conv_transpose2d values and gradients for every option") {
  ember::manual_seed(crosscheck::fresh_seed());
  const std::vector<Case> cases = {
      {2, 3, 4, 5, 5, 3, 3, {1}, {0}, {0}, {1}, 1, true},
      {1, 4, 6, 4, 7, 3, 2, {2, 3}, {1, 0}, {1, 2}, {1}, 2, true},
      {2, 2, 3, 3, 3, 4, 4, {2}, {1}, {1}, {1}, 1, false},
      {3, 6, 6, 5, 4, 3, 3, {1}, {2}, {1}, {2}, 3, true},  // output_padding below dilation
      {1, 4, 4, 6, 6, 1, 1, {3}, {0}, {2}, {1}, 4, true},  // depthwise, 1x1
      {0, 2, 2, 3, 3, 2, 2, {1}, {0}, {0}, {1}, 1, true},  // empty batch
  };
  for (const Case& c : cases) {
    const std::string what = "conv_transpose2d " + std::to_string(c.c_in) + "->" + std::to_string(c.c_out) +
                             " k" + std::to_string(c.kh) + "x" + std::to_string(c.kw) + " groups " +
                             std::to_string(c.groups);
    const EInputs leaves = {leaf({c.n, c.c_in, c.h, c.w}), leaf({c.c_in, c.c_out / c.groups, c.kh, c.kw}),
                            c.bias ? leaf({c.c_out}) : ember::Tensor()};
    same_forward_backward(
        what, leaves,
        [&](const EInputs& v) {
          return ember::conv_transpose2d(v[0], v[1], v[2], c.stride, c.padding, c.output_padding, c.groups,
                                         c.dilation);
        },
        [&](const TInputs& v) {
          return torch::conv_transpose2d(v[0], v[1], v[2], c.stride, c.padding, c.output_padding, c.groups,
                                         c.dilation);
        },
        1e-11);
  }
  // A strided (transposed) input and an unbatched one.
  same_forward_backward(
      "conv_transpose2d of a transposed input", {leaf({2, 3, 6, 5}), leaf({3, 2, 2, 3})},
      [](const EInputs& v) { return ember::conv_transpose2d(v[0].transpose(2, 3), v[1], {}, 2); },
      [](const TInputs& v) { return torch::conv_transpose2d(v[0].transpose(2, 3), v[1], {}, 2); }, 1e-11);
  same_forward_backward(
      "conv_transpose2d unbatched", {leaf({3, 4, 4}), leaf({3, 2, 3, 3}), leaf({2})},
      [](const EInputs& v) { return ember::conv_transpose2d(v[0], v[1], v[2], 2, 1, 1); },
      [](const TInputs& v) { return torch::conv_transpose2d(v[0], v[1], v[2], 2, 1, 1); }, 1e-11);
  // float32 as well.
  const ember::Tensor x = ember::randn({2, 4, 5, 5}), w = ember::randn({4, 3, 3, 3});
  check_close(ember::conv_transpose2d(x, w, {}, 2, 1, 1),
              torch::conv_transpose2d(as_torch(x), as_torch(w), {}, 2, 1, 1), 1e-5, "float32");
}

TEST_CASE("conv_transpose crosscheck: conv_transpose1d values and gradients") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (int64_t stride : {1, 2, 3})
    for (int64_t groups : {1, 2})
      same_forward_backward(
          "conv_transpose1d stride " + std::to_string(stride) + " groups " + std::to_string(groups),
          {leaf({2, 4, 7}), leaf({4, 3, 3}), leaf({3 * groups})},
          [&](const EInputs& v) {
            return ember::conv_transpose1d(v[0], v[1], v[2], stride, 1, stride - 1, groups, 2);
          },
          [&](const TInputs& v) {
            return torch::conv_transpose1d(v[0], v[1], v[2], stride, 1, stride - 1, groups, 2);
          },
          1e-11);
}

TEST_CASE("conv_transpose crosscheck: modules equal libtorch's after manual_seed, output_size, printing") {
  for (uint64_t seed : {0, 7}) {
    ember::manual_seed(seed);
    torch::manual_seed(seed);
    ember::nn::ConvTranspose2d e(ember::nn::ConvTranspose2dOptions(4, 6, {3, 2}).stride(2).groups(2));
    torch::nn::ConvTranspose2d t(torch::nn::ConvTranspose2dOptions(4, 6, {3, 2}).stride(2).groups(2));
    CHECK(torch::equal(as_torch(e->weight.detach()), t->weight.detach()));
    CHECK(torch::equal(as_torch(e->bias.detach()), t->bias.detach()));
    const ember::Tensor x = ember::randn({2, 4, 5, 5});
    check_close(e(x), t(as_torch(x)), 1e-5, "forward");
    check_close(e->forward(x, ember::IntArrayRef({12, 11})),
                t->forward(as_torch(x), at::IntArrayRef({12, 11})), 1e-5, "output_size");
    ember::manual_seed(seed + 1);  // the input above came from ember's generator only
    torch::manual_seed(seed + 1);
    ember::nn::ConvTranspose1d e1(ember::nn::ConvTranspose1dOptions(2, 3, 4).bias(false));
    torch::nn::ConvTranspose1d t1(torch::nn::ConvTranspose1dOptions(2, 3, 4).bias(false));
    CHECK(torch::equal(as_torch(e1->weight.detach()), t1->weight.detach()));
  }
  CHECK(printed(ember::nn::ConvTranspose2d(
            ember::nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).groups(2))) ==
        printed(torch::nn::ConvTranspose2d(
            torch::nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).groups(2))));
  CHECK(
      printed(ember::nn::ConvTranspose1d(
          ember::nn::ConvTranspose1dOptions(2, 3, 4).output_padding(1).stride(2).dilation(2).bias(false))) ==
      printed(torch::nn::ConvTranspose1d(
          torch::nn::ConvTranspose1dOptions(2, 3, 4).output_padding(1).stride(2).dilation(2).bias(false))));
}

TEST_CASE("conv_transpose crosscheck: the same error texts") {
  const ember::Tensor x = ember::randn({2, 5, 4, 4}), w = ember::randn({3, 4, 3, 3});
  const torch::Tensor tx = as_torch(x), tw = as_torch(w);
  CHECK(ember_error([&] { ember::conv_transpose2d(x, w); }) ==
        torch_error([&] { torch::conv_transpose2d(tx, tw); }));
  const ember::Tensor x3 = ember::randn({2, 3, 4, 4});
  const torch::Tensor tx3 = as_torch(x3);
  CHECK(ember_error([&] { ember::conv_transpose2d(x3, w, ember::ones({3})); }) ==
        torch_error([&] { torch::conv_transpose2d(tx3, tw, torch::ones({3})); }));
  CHECK(ember_error([&] { ember::conv_transpose2d(x3, w, {}, 1, -1); }) ==
        torch_error([&] { torch::conv_transpose2d(tx3, tw, {}, 1, -1); }));
  CHECK(ember_error([&] { ember::conv_transpose2d(x3, w, {}, 1, 0, 1); }) ==
        torch_error([&] { torch::conv_transpose2d(tx3, tw, {}, 1, 0, 1); }));
  CHECK(ember_error([&] { ember::conv_transpose2d(x3, w, {}, 1, 3); }) ==
        torch_error([&] { torch::conv_transpose2d(tx3, tw, {}, 1, 3); }));
  CHECK(ember_error([&] { ember::conv_transpose2d(x3, w, {}, 1, 0, 0, 1, 0); }) ==
        torch_error([&] { torch::conv_transpose2d(tx3, tw, {}, 1, 0, 0, 1, 0); }));
  CHECK(ember_error([&] {
          ember::conv_transpose2d(ember::randn({3, 4}), w);
        }) == torch_error([&] {
          torch::conv_transpose2d(torch::randn({3, 4}), tw);
        }));
  ember::nn::ConvTranspose2d e(ember::nn::ConvTranspose2dOptions(4, 6, 3).stride(2));
  torch::nn::ConvTranspose2d t(torch::nn::ConvTranspose2dOptions(4, 6, 3).stride(2));
  const ember::Tensor in = ember::randn({1, 4, 5, 5});
  CHECK(ember_error([&] {
          e->forward(in, ember::IntArrayRef({13, 11}));
        }) == torch_error([&] {
          t->forward(as_torch(in), at::IntArrayRef({13, 11}));
        }));
}
