// The 3-D layers against libtorch 1.13 on the same values: conv3d (every option, "same" /
// "valid", strided inputs, batch 0, unbatched, padding modes), conv_transpose3d (output_padding,
// groups, dilation, output_size), max / avg / adaptive / fractional pooling and max unpooling
// (values, indices, gradients), modules initialised after manual_seed and printed, and error
// texts. libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::printed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
namespace en = ember::nn;
namespace tn = torch::nn;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;
using Ints = std::vector<int64_t>;

ember::Tensor leaf(Ints sizes, ember::ScalarType dt = ember::kDouble) {
  return ember::randn(sizes, dt).requires_grad_();
}

// Values from a few levels, so that windows hold ties.
ember::Tensor tie_leaf(Ints sizes) { return ember::randint(0, 3, sizes).to(ember::kDouble).requires_grad_(); }

void same_indices(const ember::Tensor& e, const torch::Tensor& t, const std::string& what) {
  INFO(what << ": indices");
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  CHECK(torch::equal(as_torch(e), t));
}

std::string str(const Ints& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

#define SAME_ERROR(ours, theirs)                                     \
  do {                                                               \
    const std::string e_text = ember_error([&] { (void)(ours); });   \
    const std::string t_text = torch_error([&] { (void)(theirs); }); \
    INFO(#ours);                                                     \
    CHECK(e_text == t_text);                                         \
  } while (0)

}  // namespace

TEST_CASE("3d crosscheck: conv3d values and gradients for every option, strided inputs, batch 0") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    Ints input, weight, stride, padding, dilation;
    int64_t groups;
    bool bias;
  };
  const std::vector<Case> cases = {{{1, 2, 5, 5, 5}, {3, 2, 3, 3, 3}, {1}, {0}, {1}, 1, true},
                                   {{2, 2, 4, 5, 6}, {2, 2, 2, 3, 2}, {2, 1, 2}, {1, 0, 1}, {1}, 1, false},
                                   {{1, 4, 5, 4, 5}, {4, 2, 2, 2, 2}, {1}, {1}, {2, 1, 2}, 2, true},
                                   {{1, 3, 3, 4, 3}, {3, 1, 1, 2, 1}, {1, 2, 1}, {0}, {1}, 3, true},
                                   {{0, 2, 4, 4, 4}, {2, 2, 2, 2, 2}, {1}, {1}, {1}, 1, true},
                                   {{2, 4, 4, 4}, {2, 2, 2, 3, 2}, {1}, {1, 0, 1}, {1}, 1, true}};
  for (const Case& k : cases)
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      EInputs in = {leaf(k.input, dt), leaf(k.weight, dt),
                    k.bias ? leaf({k.weight[0]}, dt) : ember::Tensor()};
      same_forward_backward(
          "conv3d " + str(k.input) + " weight " + str(k.weight), in,
          [&](const EInputs& v) {
            return ember::conv3d(v[0], v[1], v[2], k.stride, k.padding, k.dilation, k.groups);
          },
          [&](const TInputs& v) {
            return torch::conv3d(v[0], v[1], v[2], k.stride, k.padding, k.dilation, k.groups);
          },
          dt == ember::kDouble ? 1e-10 : 1e-4);
    }
  for (const char* mode : {"same", "valid"}) {
    EInputs in = {leaf({1, 2, 4, 5, 3}), leaf({2, 1, 2, 3, 2}), leaf({2})};
    same_forward_backward(
        std::string("conv3d padding ") + mode, in,
        [&](const EInputs& v) {
          return ember::conv3d(v[0], v[1], v[2], 1, std::string_view(mode), {1, 2, 1}, 2);
        },
        [&](const TInputs& v) {
          return torch::conv3d(v[0], v[1], v[2], 1, c10::string_view(mode), {1, 2, 1}, 2);
        },
        1e-10);
  }
  EInputs st = {leaf({1, 5, 6, 4, 2}), leaf({2, 2, 2, 2, 2}), leaf({2})};
  same_forward_backward(
      "conv3d of a permuted, sliced input and a transposed weight", st,
      [](const EInputs& v) {
        return ember::conv3d(v[0].permute({0, 4, 1, 2, 3}).slice(3, 0, 6, 2), v[1].transpose(2, 4), v[2], 1,
                             1);
      },
      [](const TInputs& v) {
        return torch::conv3d(v[0].permute({0, 4, 1, 2, 3}).slice(3, 0, 6, 2), v[1].transpose(2, 4), v[2], 1,
                             1);
      },
      1e-10);
  EInputs fo = {leaf({1, 4, 5, 4, 4}), leaf({2, 2, 3, 1, 2}), leaf({2})};
  same_forward_backward(
      "F::conv3d options", fo,
      [](const EInputs& v) {
        return EF::conv3d(v[0], v[1],
                          EF::Conv3dFuncOptions().bias(v[2]).stride(2).padding({1, 0, 1}).groups(2));
      },
      [](const TInputs& v) {
        return TF::conv3d(v[0], v[1],
                          TF::Conv3dFuncOptions().bias(v[2]).stride(2).padding({1, 0, 1}).groups(2));
      },
      1e-10);
  same_forward_backward(
      "F::conv3d kSame", {leaf({1, 2, 3, 4, 5}), leaf({1, 2, 2, 3, 2})},
      [](const EInputs& v) { return EF::conv3d(v[0], v[1], EF::Conv3dFuncOptions().padding(ember::kSame)); },
      [](const TInputs& v) { return TF::conv3d(v[0], v[1], TF::Conv3dFuncOptions().padding(torch::kSame)); },
      1e-10);
  const ember::Tensor li = ember::randint(-9, 10, {1, 2, 4, 3, 4}),
                      lw = ember::randint(-9, 10, {2, 1, 2, 2, 2});
  CHECK(torch::equal(as_torch(ember::conv3d(li, lw, {}, 1, 1, 1, 2)),
                     torch::conv3d(as_torch(li), as_torch(lw), {}, 1, torch::IntArrayRef{1}, 1, 2)));
}

TEST_CASE("3d crosscheck: Conv3d modules (init after manual_seed, padding modes, printing)") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  const std::pair<ember::PaddingMode, tn::Conv3dOptions::padding_mode_t> modes[] = {
      {ember::kZeros, torch::kZeros},
      {ember::kReflect, torch::kReflect},
      {ember::kReplicate, torch::kReplicate},
      {ember::kCircular, torch::kCircular}};
  for (const auto& mode : modes) {
    ember::manual_seed(seed);
    torch::manual_seed(seed);
    en::Conv3d e(
        en::Conv3dOptions(2, 4, {2, 3, 2}).stride({1, 2, 1}).padding(1).groups(2).padding_mode(mode.first));
    tn::Conv3d t(
        tn::Conv3dOptions(2, 4, {2, 3, 2}).stride({1, 2, 1}).padding(1).groups(2).padding_mode(mode.second));
    check_close(e->weight, t->weight, 1e-6, "Conv3d weight init");
    check_close(e->bias, t->bias, 1e-6, "Conv3d bias init");
    CHECK(printed(e) == printed(t));
    const ember::Tensor x = ember::randn({2, 2, 3, 4, 3});
    check_close(e(x), t(as_torch(x)), 1e-5,
                std::string("Conv3d forward ") + ember::padding_mode_name(mode.first));
    // libtorch 1.13's circular F::pad refuses an unbatched volume.
    if (mode.first != ember::kCircular) check_close(e(x[0]), t(as_torch(x[0])), 1e-5, "Conv3d unbatched");
  }
  ember::manual_seed(seed);
  torch::manual_seed(seed);
  en::Conv3d e(en::Conv3dOptions(2, 2, 3)
                   .padding(ember::kSame)
                   .dilation({1, 2, 1})
                   .bias(false)
                   .padding_mode(ember::kReflect));
  tn::Conv3d t(tn::Conv3dOptions(2, 2, 3)
                   .padding(torch::kSame)
                   .dilation({1, 2, 1})
                   .bias(false)
                   .padding_mode(torch::kReflect));
  CHECK(printed(e) == printed(t));
  const ember::Tensor x = ember::randn({1, 2, 4, 5, 4});
  check_close(e(x), t(as_torch(x)), 1e-5, "Conv3d same reflect");
  // The modules' options: ConvNdOptions, not transposed, as libtorch's.
  CHECK(e->options.transposed() == t->options.transposed());
  CHECK(*e->options.output_padding() == *t->options.output_padding());
}

TEST_CASE("3d crosscheck: conv_transpose3d values, gradients and ConvTranspose3d") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    Ints input, weight, stride, padding, output_padding, dilation;
    int64_t groups;
  };
  const std::vector<Case> cases = {
      {{1, 2, 3, 3, 3}, {2, 3, 2, 2, 2}, {1}, {0}, {0}, {1}, 1},
      {{2, 2, 2, 3, 2}, {2, 2, 3, 2, 2}, {2, 1, 2}, {1, 0, 0}, {1, 0, 1}, {1}, 1},
      {{1, 4, 3, 2, 3}, {4, 1, 2, 2, 2}, {2}, {1}, {0, 1, 0}, {1, 2, 1}, 2},
      {{0, 2, 2, 2, 2}, {2, 2, 2, 2, 2}, {1}, {0}, {0}, {1}, 1},
      {{2, 3, 2, 3}, {2, 2, 2, 2, 2}, {2}, {0}, {1}, {1}, 1}};
  for (const Case& k : cases) {
    EInputs in = {leaf(k.input), leaf(k.weight), leaf({k.weight[1] * k.groups})};
    same_forward_backward(
        "conv_transpose3d " + str(k.input) + " weight " + str(k.weight), in,
        [&](const EInputs& v) {
          return ember::conv_transpose3d(v[0], v[1], v[2], k.stride, k.padding, k.output_padding, k.groups,
                                         k.dilation);
        },
        [&](const TInputs& v) {
          return torch::conv_transpose3d(v[0], v[1], v[2], k.stride, k.padding, k.output_padding, k.groups,
                                         k.dilation);
        },
        1e-10);
  }
  EInputs st = {leaf({1, 3, 4, 3, 2}), leaf({2, 2, 2, 2, 2})};
  same_forward_backward(
      "conv_transpose3d of a permuted input, F:: options", st,
      [](const EInputs& v) {
        return EF::conv_transpose3d(v[0].permute({0, 4, 1, 2, 3}), v[1],
                                    EF::ConvTranspose3dFuncOptions().stride(2).output_padding(1));
      },
      [](const TInputs& v) {
        return TF::conv_transpose3d(v[0].permute({0, 4, 1, 2, 3}), v[1],
                                    TF::ConvTranspose3dFuncOptions().stride(2).output_padding(1));
      },
      1e-10);
  ember::manual_seed(seed);
  torch::manual_seed(seed);
  en::ConvTranspose3d e(en::ConvTranspose3dOptions(2, 4, {1, 2, 3})
                            .stride(2)
                            .padding(1)
                            .output_padding(1)
                            .dilation(2)
                            .groups(2));
  tn::ConvTranspose3d t(tn::ConvTranspose3dOptions(2, 4, {1, 2, 3})
                            .stride(2)
                            .padding(1)
                            .output_padding(1)
                            .dilation(2)
                            .groups(2));
  check_close(e->weight, t->weight, 1e-6, "ConvTranspose3d weight init");
  check_close(e->bias, t->bias, 1e-6, "ConvTranspose3d bias init");
  CHECK(printed(e) == printed(t));
  const ember::Tensor x = ember::randn({1, 2, 3, 2, 3});
  check_close(e(x), t(as_torch(x)), 1e-5, "ConvTranspose3d forward");
  CHECK(e->options.transposed() == t->options.transposed());
  CHECK(*e->options.output_padding() == *t->options.output_padding());
  en::ConvTranspose3d e2(en::ConvTranspose3dOptions(2, 3, 2).stride(2));
  tn::ConvTranspose3d t2(tn::ConvTranspose3dOptions(2, 3, 2).stride(2));
  t2->weight.data().copy_(as_torch(e2->weight.detach()));
  t2->bias.data().copy_(as_torch(e2->bias.detach()));
  const Ints size{7, 4, 6};
  check_close(e2->forward(x, size), t2->forward(as_torch(x), size), 1e-5, "ConvTranspose3d output_size");
  const Ints full{1, 3, 6, 5, 7};
  check_close(e2->forward(x, full), t2->forward(as_torch(x), full), 1e-5, "ConvTranspose3d output_size N, C");
  SAME_ERROR(e2->forward(x, Ints{9, 9}), t2->forward(as_torch(x), Ints{9, 9}));
  SAME_ERROR(e2->forward(x, Ints{9, 9, 9}), t2->forward(as_torch(x), Ints{9, 9, 9}));
}

TEST_CASE("3d crosscheck: max_pool3d and avg_pool3d values, indices and gradients for every option") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    Ints input, kernel, stride, padding, dilation;
    bool ceil_mode;
  };
  const std::vector<Case> cases = {{{1, 2, 5, 5, 5}, {2}, {}, {0}, {1}, false},
                                   {{2, 1, 5, 6, 4}, {3, 2, 2}, {2, 1, 2}, {1, 0, 1}, {1}, true},
                                   {{1, 2, 6, 5, 5}, {2, 3, 2}, {2}, {1}, {2, 1, 2}, false},
                                   {{2, 4, 5, 3}, {3}, {2}, {1}, {1}, true},
                                   {{0, 2, 4, 4, 4}, {2}, {2}, {0}, {1}, false}};
  for (const Case& k : cases)
    for (bool ties : {false, true}) {
      const std::string what = "max_pool3d " + str(k.input) + (ties ? " ties" : "");
      const ember::Tensor x = ties ? tie_leaf(k.input) : leaf(k.input);
      same_forward_backward(
          what, {x},
          [&](const EInputs& v) {
            return ember::max_pool3d(v[0], k.kernel, k.stride, k.padding, k.dilation, k.ceil_mode);
          },
          [&](const TInputs& v) {
            return torch::max_pool3d(v[0], k.kernel, k.stride, k.padding, k.dilation, k.ceil_mode);
          },
          1e-12);
      same_indices(std::get<1>(ember::max_pool3d_with_indices(x.detach(), k.kernel, k.stride, k.padding,
                                                              k.dilation, k.ceil_mode)),
                   std::get<1>(torch::max_pool3d_with_indices(as_torch(x.detach()), k.kernel, k.stride,
                                                              k.padding, k.dilation, k.ceil_mode)),
                   what);
    }
  for (const Case& k : cases)
    for (bool include : {true, false})
      for (std::optional<int64_t> divisor : {std::optional<int64_t>(), std::optional<int64_t>(3)}) {
        if (k.dilation.size() > 1 || k.dilation[0] != 1) continue;
        same_forward_backward(
            "avg_pool3d " + str(k.input), {leaf(k.input)},
            [&](const EInputs& v) {
              return ember::avg_pool3d(v[0], k.kernel, k.stride, k.padding, k.ceil_mode, include, divisor);
            },
            [&](const TInputs& v) {
              return torch::avg_pool3d(v[0], k.kernel, k.stride, k.padding, k.ceil_mode, include,
                                       divisor ? c10::optional<int64_t>(*divisor) : c10::nullopt);
            },
            1e-12);
      }
  const ember::Tensor li = ember::randint(-20, 20, {1, 2, 4, 5, 4});
  CHECK(torch::equal(as_torch(ember::avg_pool3d(li, 3, 2, 1, true, false)),
                     torch::avg_pool3d(as_torch(li), 3, 2, 1, true, false)));
  same_forward_backward(
      "F::max_pool3d / F::avg_pool3d of a permuted input", {leaf({1, 4, 5, 4, 2})},
      [](const EInputs& v) {
        const ember::Tensor x = v[0].permute({0, 4, 1, 2, 3});
        return EF::max_pool3d(x, EF::MaxPool3dFuncOptions(2).stride(1).padding(1)) +
               EF::avg_pool3d(x, EF::AvgPool3dFuncOptions(2).stride(1).padding(1).count_include_pad(false));
      },
      [](const TInputs& v) {
        const torch::Tensor x = v[0].permute({0, 4, 1, 2, 3});
        return TF::max_pool3d(x, TF::MaxPool3dFuncOptions(2).stride(1).padding(1)) +
               TF::avg_pool3d(x, TF::AvgPool3dFuncOptions(2).stride(1).padding(1).count_include_pad(false));
      },
      1e-12);
  CHECK(printed(en::MaxPool3d(
            en::MaxPool3dOptions({2, 1, 2}).stride(2).padding(1).dilation(2).ceil_mode(true))) ==
        printed(
            tn::MaxPool3d(tn::MaxPool3dOptions({2, 1, 2}).stride(2).padding(1).dilation(2).ceil_mode(true))));
  CHECK(printed(en::AvgPool3d(en::AvgPool3dOptions(3).stride(2).padding(1))) ==
        printed(tn::AvgPool3d(tn::AvgPool3dOptions(3).stride(2).padding(1))));
  const ember::Tensor x = ember::randn({1, 2, 4, 4, 4});
  const auto [ev, ei] = en::MaxPool3d(2)->forward_with_indices(x);
  const auto [tv, ti] = tn::MaxPool3d(2)->forward_with_indices(as_torch(x));
  check_close(ev, tv, 0, "MaxPool3d forward_with_indices");
  same_indices(ei, ti, "MaxPool3d forward_with_indices");
  check_close(en::AvgPool3d(en::AvgPool3dOptions(2).divisor_override(5))(x),
              tn::AvgPool3d(tn::AvgPool3dOptions(2).divisor_override(5))(as_torch(x)), 1e-6, "AvgPool3d");
}

TEST_CASE("3d crosscheck: adaptive pooling, max unpooling and fractional max pooling") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  for (const auto& [in, out] : std::vector<std::pair<Ints, Ints>>{{{1, 2, 5, 5, 5}, {2, 3, 2}},
                                                                  {{2, 1, 4, 6, 3}, {2, 3, 1}},
                                                                  {{2, 3, 4, 5}, {3, 2, 4}},
                                                                  {{1, 2, 3, 4, 5}, {1, 1, 1}},
                                                                  {{0, 2, 3, 3, 3}, {2, 2, 2}}}) {
    for (bool ties : {false, true}) {
      const std::string what = str(in) + " to " + str(out);
      const ember::Tensor x = ties ? tie_leaf(in) : leaf(in);
      same_forward_backward(
          "adaptive_avg_pool3d " + what, {x.detach().requires_grad_()},
          [&](const EInputs& v) { return ember::adaptive_avg_pool3d(v[0], out); },
          [&](const TInputs& v) { return torch::adaptive_avg_pool3d(v[0], out); }, 1e-12);
      same_forward_backward(
          "adaptive_max_pool3d " + what, {x},
          [&](const EInputs& v) { return std::get<0>(ember::adaptive_max_pool3d(v[0], out)); },
          [&](const TInputs& v) { return std::get<0>(torch::adaptive_max_pool3d(v[0], out)); }, 1e-12);
      same_indices(std::get<1>(ember::adaptive_max_pool3d(x.detach(), out)),
                   std::get<1>(torch::adaptive_max_pool3d(as_torch(x.detach()), out)), what);
    }
  }
  const ember::Tensor x = ember::randn({1, 2, 4, 5, 6});
  check_close(en::AdaptiveAvgPool3d(en::AdaptiveAvgPool3dOptions({2, std::nullopt, 3}))(x),
              tn::AdaptiveAvgPool3d(tn::AdaptiveAvgPool3dOptions({2, c10::nullopt, 3}))(as_torch(x)), 1e-6,
              "AdaptiveAvgPool3d None");
  const auto [ev, ei] =
      en::AdaptiveMaxPool3d(en::AdaptiveMaxPool3dOptions({std::nullopt, 2, 4}))->forward_with_indices(x);
  const auto [tv, ti] = tn::AdaptiveMaxPool3d(tn::AdaptiveMaxPool3dOptions({c10::nullopt, 2, 4}))
                            ->forward_with_indices(as_torch(x));
  check_close(ev, tv, 0, "AdaptiveMaxPool3d None");
  same_indices(ei, ti, "AdaptiveMaxPool3d None");
  CHECK(printed(en::AdaptiveAvgPool3d(en::AdaptiveAvgPool3dOptions({2, std::nullopt, 3}))) ==
        printed(tn::AdaptiveAvgPool3d(tn::AdaptiveAvgPool3dOptions({2, c10::nullopt, 3}))));
  CHECK(printed(en::AdaptiveMaxPool3d(3)) == printed(tn::AdaptiveMaxPool3d(3)));
  // Max unpooling of max_pool3d's output: default and given sizes, unbatched, gradient.
  const auto [pv, pi] = ember::max_pool3d_with_indices(ember::randn({2, 2, 5, 4, 5}), 2, 2);
  const torch::Tensor tpi = as_torch(pi);
  const auto [qv, qi] = ember::max_pool3d_with_indices(ember::randn({1, 2, 4, 4, 4}), 2, 2);
  const torch::Tensor tqi = as_torch(qi);
  same_forward_backward(
      "MaxUnpool3d", {qv.detach().requires_grad_()},
      [&](const EInputs& v) { return en::MaxUnpool3d(2)(v[0], qi); },
      [&](const TInputs& v) { return tn::MaxUnpool3d(2)(v[0], tqi); }, 1e-12);
  same_forward_backward(
      "MaxUnpool3d with output_size (N, C, ...)", {pv.detach().requires_grad_()},
      [&](const EInputs& v) {
        return en::MaxUnpool3d(2)(v[0], pi, Ints{2, 2, 5, 4, 5});
      },
      [&](const TInputs& v) {
        return tn::MaxUnpool3d(2)(v[0], tpi, Ints{2, 2, 5, 4, 5});
      },
      1e-12);
  same_forward_backward(
      "max_unpool3d unbatched", {pv[0].detach().requires_grad_()},
      [&](const EInputs& v) {
        return ember::max_unpool3d(v[0], pi[0], {5, 5, 5}, {2, 2, 2}, {0, 0, 0});
      },
      [&](const TInputs& v) {
        return torch::max_unpool3d(v[0], tpi[0], {5, 5, 5}, {2, 2, 2}, {0, 0, 0});
      },
      1e-12);
  CHECK(printed(en::MaxUnpool3d(en::MaxUnpool3dOptions({2, 1, 2}).stride(1).padding(1))) ==
        printed(tn::MaxUnpool3d(tn::MaxUnpool3dOptions({2, 1, 2}).stride(1).padding(1))));
  // Fractional: libtorch's draws after the same seed, output_ratio, the module, given samples.
  for (uint64_t s : {uint64_t(1), seed}) {
    for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
      const ember::Tensor fx = ember::randn({2, 2, 6, 5, 7}, dt);
      ember::manual_seed(s);
      torch::manual_seed(s);
      const auto [fv, fi] = EF::fractional_max_pool3d_with_indices(
          fx, EF::FractionalMaxPool3dFuncOptions({2, 3, 2}).output_size(ember::ExpandingArray<3>({3, 2, 4})));
      const auto [gv, gi] = TF::fractional_max_pool3d_with_indices(
          as_torch(fx),
          TF::FractionalMaxPool3dFuncOptions({2, 3, 2}).output_size(torch::ExpandingArray<3>({3, 2, 4})));
      check_close(fv, gv, 0, "fractional_max_pool3d values");
      same_indices(fi, gi, "fractional_max_pool3d");
      ember::manual_seed(s);
      torch::manual_seed(s);
      en::FractionalMaxPool3d em(en::FractionalMaxPool3dOptions(2).output_ratio(0.5));
      tn::FractionalMaxPool3d tm(tn::FractionalMaxPool3dOptions(2).output_ratio(0.5));
      for (int call = 0; call < 2; ++call)
        same_indices(std::get<1>(em->forward_with_indices(fx[0])),
                     std::get<1>(tm->forward_with_indices(as_torch(fx[0]))),
                     "FractionalMaxPool3d unbatched call " + std::to_string(call));
    }
  }
  const ember::Tensor samples = ember::rand({2, 2, 3}, ember::kDouble);
  for (bool ties : {false, true}) {
    const ember::Tensor fx = ties ? tie_leaf({2, 2, 5, 6, 5}) : leaf({2, 2, 5, 6, 5});
    same_forward_backward(
        std::string("fractional_max_pool3d given samples") + (ties ? " with ties" : ""), {fx},
        [&](const EInputs& v) {
          return std::get<0>(ember::fractional_max_pool3d(v[0], {2, 3, 1}, {3, 2, 4}, samples));
        },
        [&](const TInputs& v) {
          return std::get<0>(torch::fractional_max_pool3d(v[0], {2, 3, 1}, {3, 2, 4}, as_torch(samples)));
        },
        1e-12);
  }
  CHECK(printed(en::FractionalMaxPool3d(en::FractionalMaxPool3dOptions(2).output_size(3))) ==
        printed(tn::FractionalMaxPool3d(tn::FractionalMaxPool3dOptions(2).output_size(3))));
}

TEST_CASE("3d crosscheck: error texts equal libtorch's") {
  const auto er = [](Ints s, ember::ScalarType dt = ember::kFloat) { return ember::randn(s).to(dt); };
  const auto tr = [](Ints s, torch::ScalarType dt = torch::kFloat) { return torch::randn(s).to(dt); };
  const ember::Tensor w = er({4, 2, 3, 3, 3});
  const torch::Tensor tw = tr({4, 2, 3, 3, 3});
  // conv3d
  SAME_ERROR(ember::conv3d(er({5, 5, 5}), w), torch::conv3d(tr({5, 5, 5}), tw));
  SAME_ERROR(ember::conv3d(er({1, 3, 5, 5, 5}), w), torch::conv3d(tr({1, 3, 5, 5, 5}), tw));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 1, 0, 1, 3),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 1, torch::IntArrayRef{0}, 1, 3));
  SAME_ERROR(ember::conv3d(er({1, 3, 5, 5, 5}), er({3, 2, 3, 3, 3}), {}, 1, 0, 1, 3),
             torch::conv3d(tr({1, 3, 5, 5, 5}), tr({3, 2, 3, 3, 3}), {}, 1, torch::IntArrayRef{0}, 1, 3));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), er({4, 2, 7, 3, 3})),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tr({4, 2, 7, 3, 3})));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}, ember::kBool), w.to(ember::kBool)),
             torch::conv3d(tr({1, 2, 5, 5, 5}, torch::kBool), tw.to(torch::kBool)));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w.to(ember::kDouble)),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw.to(torch::kDouble)));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, er({3})), torch::conv3d(tr({1, 2, 5, 5, 5}), tw, tr({3})));
  // slow_conv3d converts a bias of another type; slow_conv_transpose3d refuses it; no Half.
  CHECK(ember::conv3d(er({1, 2, 5, 5, 5}), w, er({4}, ember::kDouble)).dtype() == ember::kFloat);
  SAME_ERROR(ember::conv_transpose3d(er({1, 4, 2, 2, 2}), w, er({2}, ember::kDouble)),
             torch::conv_transpose3d(tr({1, 4, 2, 2, 2}), tw, tr({2}, torch::kDouble)));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}, ember::kHalf), w.to(ember::kHalf)),
             torch::conv3d(tr({1, 2, 5, 5, 5}, torch::kHalf), tw.to(torch::kHalf)));
  SAME_ERROR(ember::conv_transpose3d(er({1, 4, 2, 2, 2}, ember::kHalf), w.to(ember::kHalf)),
             torch::conv_transpose3d(tr({1, 4, 2, 2, 2}, torch::kHalf), tw.to(torch::kHalf)));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 1, 0, 0),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 1, torch::IntArrayRef{0}, 0));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 2, "same"),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 2, "same"));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 1, "full"),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 1, "full"));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, {1, 1}, 0),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, {1, 1}, torch::IntArrayRef{0}));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 1, -1),
             torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 1, torch::IntArrayRef{-1}));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5, 5}), w, {}, 0), torch::conv3d(tr({1, 2, 5, 5, 5}), tw, {}, 0));
  SAME_ERROR(ember::conv3d(er({1, 2, 5, 5}), er({4, 2, 3, 3})),
             torch::conv3d(tr({1, 2, 5, 5}), tr({4, 2, 3, 3})));
  SAME_ERROR(en::Conv3d(en::Conv3dOptions(3, 4, 2).groups(2)),
             tn::Conv3d(tn::Conv3dOptions(3, 4, 2).groups(2)));
  SAME_ERROR(en::Conv3d(en::Conv3dOptions(2, 3, 2).groups(2)),
             tn::Conv3d(tn::Conv3dOptions(2, 3, 2).groups(2)));
  SAME_ERROR(en::Conv3d(en::Conv3dOptions(2, 4, 2).stride(2).padding(ember::kSame)),
             tn::Conv3d(tn::Conv3dOptions(2, 4, 2).stride(2).padding(torch::kSame)));
  // conv_transpose3d
  const ember::Tensor x4 = er({1, 4, 2, 2, 2});
  const torch::Tensor t4 = tr({1, 4, 2, 2, 2});
  SAME_ERROR(ember::conv_transpose3d(er({1, 3, 5, 5, 5}), w),
             torch::conv_transpose3d(tr({1, 3, 5, 5, 5}), tw));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, 0, 2), torch::conv_transpose3d(t4, tw, {}, 1, 0, 2));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, {2, 1, 1}, 0, {1, 1, 0}, 1, {1, 1, 2}),
             torch::conv_transpose3d(t4, tw, {}, {2, 1, 1}, 0, {1, 1, 0}, 1, {1, 1, 2}));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, 3), torch::conv_transpose3d(t4, tw, {}, 1, 3));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, 0, 0, 1, 0),
             torch::conv_transpose3d(t4, tw, {}, 1, 0, 0, 1, 0));
  SAME_ERROR(ember::conv_transpose3d(x4, w, er({3})), torch::conv_transpose3d(t4, tw, tr({3})));
  SAME_ERROR(ember::conv_transpose3d(x4.to(ember::kInt32), w.to(ember::kInt32)),
             torch::conv_transpose3d(t4.to(torch::kInt), tw.to(torch::kInt)));
  SAME_ERROR(ember::conv_transpose3d(x4.to(ember::kDouble), w),
             torch::conv_transpose3d(t4.to(torch::kDouble), tw));
  SAME_ERROR(ember::conv_transpose3d(er({4, 2, 2}), w), torch::conv_transpose3d(tr({4, 2, 2}), tw));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, -1), torch::conv_transpose3d(t4, tw, {}, 1, -1));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, 0, -1), torch::conv_transpose3d(t4, tw, {}, 1, 0, -1));
  SAME_ERROR(ember::conv_transpose3d(x4, w, {}, 1, 0, 0, 3), torch::conv_transpose3d(t4, tw, {}, 1, 0, 0, 3));
  SAME_ERROR(en::ConvTranspose3d(en::ConvTranspose3dOptions(2, 4, 2).padding_mode(ember::kReflect))(
                 er({1, 2, 3, 3, 3})),
             tn::ConvTranspose3d(tn::ConvTranspose3dOptions(2, 4, 2).padding_mode(torch::kReflect))(
                 tr({1, 2, 3, 3, 3})));
  // pooling
  const ember::Tensor x = er({1, 2, 5, 5, 5});
  const torch::Tensor tx = tr({1, 2, 5, 5, 5});
  SAME_ERROR(ember::max_pool3d(er({2, 5, 5}), 2), torch::max_pool3d(tr({2, 5, 5}), 2));
  SAME_ERROR(ember::max_pool3d(x, 7), torch::max_pool3d(tx, 7));
  SAME_ERROR(ember::max_pool3d(x, 2, 2, 2), torch::max_pool3d(tx, 2, 2, 2));
  SAME_ERROR(ember::max_pool3d(x, 2, 2, -1), torch::max_pool3d(tx, 2, 2, -1));
  SAME_ERROR(ember::max_pool3d(x, {2, 2}), torch::max_pool3d(tx, {2, 2}));
  SAME_ERROR(ember::max_pool3d(x, 2, {1, 1}), torch::max_pool3d(tx, 2, {1, 1}));
  SAME_ERROR(ember::max_pool3d(x, 2, 1, {1, 1}), torch::max_pool3d(tx, 2, 1, {1, 1}));
  SAME_ERROR(ember::max_pool3d(x, 2, 1, 0, {1, 1}), torch::max_pool3d(tx, 2, 1, 0, {1, 1}));
  SAME_ERROR(ember::max_pool3d(x, 2, 0), torch::max_pool3d(tx, 2, 0));
  SAME_ERROR(ember::max_pool3d(x, 2, -1), torch::max_pool3d(tx, 2, -1));
  SAME_ERROR(ember::max_pool3d(x, 0), torch::max_pool3d(tx, 0));
  SAME_ERROR(ember::max_pool3d(x, 2, 2, 0, 0), torch::max_pool3d(tx, 2, 2, 0, 0));
  SAME_ERROR(ember::max_pool3d(x.to(ember::kInt64), 2), torch::max_pool3d(tx.to(torch::kLong), 2));
  SAME_ERROR(ember::max_pool3d(er({1, 0, 5, 5, 5}), 2), torch::max_pool3d(tr({1, 0, 5, 5, 5}), 2));
  SAME_ERROR(ember::max_pool3d(er({0, 5, 5, 5}), 2), torch::max_pool3d(tr({0, 5, 5, 5}), 2));
  SAME_ERROR(ember::max_pool3d_with_indices(x, 7), torch::max_pool3d_with_indices(tx, 7));
  SAME_ERROR(ember::avg_pool3d(er({2, 5, 5}), 2), torch::avg_pool3d(tr({2, 5, 5}), 2));
  SAME_ERROR(ember::avg_pool3d(x, 7), torch::avg_pool3d(tx, 7));
  SAME_ERROR(ember::avg_pool3d(x, {2, 6, 2}, 1, {1, 0, 1}), torch::avg_pool3d(tx, {2, 6, 2}, 1, {1, 0, 1}));
  SAME_ERROR(ember::avg_pool3d(x, 2, 2, 2), torch::avg_pool3d(tx, 2, 2, 2));
  SAME_ERROR(ember::avg_pool3d(x, {2, 2}), torch::avg_pool3d(tx, {2, 2}));
  SAME_ERROR(ember::avg_pool3d(x, 2, {1, 1}), torch::avg_pool3d(tx, 2, {1, 1}));
  SAME_ERROR(ember::avg_pool3d(x, 2, 1, {1, 1}), torch::avg_pool3d(tx, 2, 1, {1, 1}));
  SAME_ERROR(ember::avg_pool3d(x, 2, 0), torch::avg_pool3d(tx, 2, 0));
  SAME_ERROR(ember::avg_pool3d(x, 0), torch::avg_pool3d(tx, 0));
  SAME_ERROR(ember::avg_pool3d(x, 2, 2, 0, false, true, 0), torch::avg_pool3d(tx, 2, 2, 0, false, true, 0));
  SAME_ERROR(ember::avg_pool3d(er({2, 5, 5}), 2, 2, 0, false, true, 0),
             torch::avg_pool3d(tr({2, 5, 5}), 2, 2, 0, false, true, 0));
  SAME_ERROR(ember::avg_pool3d(x.to(ember::kInt32), 2), torch::avg_pool3d(tx.to(torch::kInt), 2));
  SAME_ERROR(ember::avg_pool3d(er({1, 0, 5, 5, 5}), 2), torch::avg_pool3d(tr({1, 0, 5, 5, 5}), 2));
  SAME_ERROR(ember::adaptive_avg_pool3d(er({2, 5, 5}), {2, 2, 2}),
             torch::adaptive_avg_pool3d(tr({2, 5, 5}), {2, 2, 2}));
  SAME_ERROR(ember::adaptive_avg_pool3d(er({2, 0, 5}), {2, 2, 2}),
             torch::adaptive_avg_pool3d(tr({2, 0, 5}), {2, 2, 2}));
  SAME_ERROR(ember::adaptive_avg_pool3d(x, {2, 2}), torch::adaptive_avg_pool3d(tx, {2, 2}));
  SAME_ERROR(ember::adaptive_avg_pool3d(x, {2, -1, 2}), torch::adaptive_avg_pool3d(tx, {2, -1, 2}));
  SAME_ERROR(ember::adaptive_avg_pool3d(er({1, 2, 0, 5, 5}), {2, 2, 2}),
             torch::adaptive_avg_pool3d(tr({1, 2, 0, 5, 5}), {2, 2, 2}));
  SAME_ERROR(ember::adaptive_avg_pool3d(x.to(ember::kInt64), {2, 2, 2}),
             torch::adaptive_avg_pool3d(tx.to(torch::kLong), {2, 2, 2}));
  SAME_ERROR(EF::adaptive_avg_pool3d(er({5, 5, 5}), EF::AdaptiveAvgPool3dFuncOptions(2)),
             TF::adaptive_avg_pool3d(tr({5, 5, 5}), TF::AdaptiveAvgPool3dFuncOptions(2)));
  SAME_ERROR(ember::adaptive_max_pool3d(er({2, 5, 5}), {2, 2, 2}),
             torch::adaptive_max_pool3d(tr({2, 5, 5}), {2, 2, 2}));
  SAME_ERROR(ember::adaptive_max_pool3d(x, {2, 2}), torch::adaptive_max_pool3d(tx, {2, 2}));
  SAME_ERROR(ember::adaptive_max_pool3d(x, {2, -1, 2}), torch::adaptive_max_pool3d(tx, {2, -1, 2}));
  SAME_ERROR(ember::adaptive_max_pool3d(er({1, 2, 0, 5, 5}), {2, 2, 2}),
             torch::adaptive_max_pool3d(tr({1, 2, 0, 5, 5}), {2, 2, 2}));
  SAME_ERROR(ember::adaptive_max_pool3d(x.to(ember::kInt64), {2, 2, 2}),
             torch::adaptive_max_pool3d(tx.to(torch::kLong), {2, 2, 2}));
  const auto [v, i] = ember::max_pool3d_with_indices(er({1, 1, 4, 4, 4}), 2);
  const torch::Tensor tv = as_torch(v), ti = as_torch(i);
  SAME_ERROR(ember::max_unpool3d(v, i, {4, 4}, {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv, ti, {4, 4}, {2, 2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(v, i, {4, 4, 4}, {2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv, ti, {4, 4, 4}, {2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(v, i, {4, 4, 4}, {2, 2, 2}, {0, 0}),
             torch::max_unpool3d(tv, ti, {4, 4, 4}, {2, 2, 2}, {0, 0}));
  SAME_ERROR(ember::max_unpool3d(v, i.to(ember::kInt32), {4, 4, 4}, {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv, ti.to(torch::kInt), {4, 4, 4}, {2, 2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(v[0][0], i[0][0], {4, 4, 4}, {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv[0][0], ti[0][0], {4, 4, 4}, {2, 2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(v, i[0], {4, 4, 4}, {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv, ti[0], {4, 4, 4}, {2, 2, 2}, {0, 0, 0}));
  {
    // libtorch's threads race to report a bad index; on one thread it is the last one.
    const int threads = torch::get_num_threads();
    torch::set_num_threads(1);
    SAME_ERROR(ember::max_unpool3d(v, i, {1, 1, 1}, {2, 2, 2}, {0, 0, 0}),
               torch::max_unpool3d(tv, ti, {1, 1, 1}, {2, 2, 2}, {0, 0, 0}));
    torch::set_num_threads(threads);
  }
  SAME_ERROR(ember::max_unpool3d(v, i, {4, 4, 4}, {0, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv, ti, {4, 4, 4}, {0, 2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(v.to(ember::kInt64), i, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tv.to(torch::kLong), ti, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}));
  SAME_ERROR(ember::max_unpool3d(er({1, 0, 2, 2, 2}), ember::zeros({1, 0, 2, 2, 2}, ember::kInt64), {4, 4, 4},
                                 {2, 2, 2}, {0, 0, 0}),
             torch::max_unpool3d(tr({1, 0, 2, 2, 2}), torch::zeros({1, 0, 2, 2, 2}, torch::kLong), {4, 4, 4},
                                 {2, 2, 2}, {0, 0, 0}));
  SAME_ERROR(EF::max_unpool3d(v, i, EF::MaxUnpool3dFuncOptions(2).output_size(Ints{1, 2, 9, 4, 4})),
             TF::max_unpool3d(tv, ti, TF::MaxUnpool3dFuncOptions(2).output_size(Ints{1, 2, 9, 4, 4})));
  const ember::Tensor s = ember::rand({1, 2, 3});
  const torch::Tensor ts = as_torch(s);
  SAME_ERROR(ember::fractional_max_pool3d(er({2, 5, 5}), {2, 2, 2}, {3, 3, 3}, s),
             torch::fractional_max_pool3d(tr({2, 5, 5}), {2, 2, 2}, {3, 3, 3}, ts));
  SAME_ERROR(ember::fractional_max_pool3d(x, {2, 2}, {3, 3, 3}, s),
             torch::fractional_max_pool3d(tx, {2, 2}, {3, 3, 3}, ts));
  SAME_ERROR(ember::fractional_max_pool3d(x, {2, 2, 2}, {3, 3}, s),
             torch::fractional_max_pool3d(tx, {2, 2, 2}, {3, 3}, ts));
  for (const Ints& k : {Ints{3, 2, 2}, Ints{2, 3, 2}, Ints{2, 2, 3}})
    SAME_ERROR(ember::fractional_max_pool3d(x, k, {3, 3, 3}, s),
               torch::fractional_max_pool3d(tx, k, {3, 3, 3}, ts));
  SAME_ERROR(ember::fractional_max_pool3d(er({1, 2, 0, 5, 5}), {2, 2, 2}, {3, 3, 3}, s),
             torch::fractional_max_pool3d(tr({1, 2, 0, 5, 5}), {2, 2, 2}, {3, 3, 3}, ts));
  SAME_ERROR(ember::fractional_max_pool3d(x.to(ember::kInt64), {2, 2, 2}, {3, 3, 3}, s),
             torch::fractional_max_pool3d(tx.to(torch::kLong), {2, 2, 2}, {3, 3, 3}, ts));
  SAME_ERROR(ember::fractional_max_pool3d(x, {2, 2, 2}, {3, 3, 3}, s.to(ember::kDouble)),
             torch::fractional_max_pool3d(tx, {2, 2, 2}, {3, 3, 3}, ts.to(torch::kDouble)));
  SAME_ERROR(EF::fractional_max_pool3d(x, EF::FractionalMaxPool3dFuncOptions(2)),
             TF::fractional_max_pool3d(tx, TF::FractionalMaxPool3dFuncOptions(2)));
  SAME_ERROR(en::FractionalMaxPool3d(en::FractionalMaxPool3dOptions(2)),
             tn::FractionalMaxPool3d(tn::FractionalMaxPool3dOptions(2)));
  SAME_ERROR(en::FractionalMaxPool3d(en::FractionalMaxPool3dOptions(2).output_size(3).output_ratio(0.5)),
             tn::FractionalMaxPool3d(tn::FractionalMaxPool3dOptions(2).output_size(3).output_ratio(0.5)));
  SAME_ERROR(en::FractionalMaxPool3d(en::FractionalMaxPool3dOptions(2).output_ratio(1.5)),
             tn::FractionalMaxPool3d(tn::FractionalMaxPool3dOptions(2).output_ratio(1.5)));
}
