// The CNN stack against libtorch 1.13 on the same values: conv1d / conv2d (every option,
// odd sizes, strided inputs, batch 0, unbatched), F::pad in every mode, max / avg /
// adaptive avg pooling (ties included: same indices and gradients), forward values and
// gradients of every input; modules initialised after manual_seed equal to libtorch's,
// Dropout2d masks equal, the MNIST network's training steps equal, and error texts equal.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::printed;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

ember::Tensor leaf(std::vector<int64_t> sizes, ember::ScalarType dt = ember::kDouble) {
  return ember::randn(sizes, dt).requires_grad_();
}

struct Conv2dCase {
  int64_t n, c_in, c_out, h, w, kh, kw;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
};

// libtorch's MNIST network, written once per library.
template <class NN, class Tensor>
struct MnistNet : NN::Module {
  MnistNet()
      : conv1(typename NN::Conv2dOptions(1, 10, 5)),
        conv2(typename NN::Conv2dOptions(10, 20, 5)),
        fc1(320, 50),
        fc2(50, 10) {
    this->register_module("conv1", conv1);
    this->register_module("conv2", conv2);
    this->register_module("conv2_drop", conv2_drop);
    this->register_module("fc1", fc1);
    this->register_module("fc2", fc2);
  }
  typename NN::Conv2d conv1, conv2;
  typename NN::Dropout2d conv2_drop;
  typename NN::Linear fc1, fc2;
};

struct EmberNN {
  using Module = ember::nn::Module;
  using Conv2dOptions = ember::nn::Conv2dOptions;
  using Conv2d = ember::nn::Conv2d;
  using Dropout2d = ember::nn::Dropout2d;
  using Linear = ember::nn::Linear;
};
struct TorchNN {
  using Module = torch::nn::Module;
  using Conv2dOptions = torch::nn::Conv2dOptions;
  using Conv2d = torch::nn::Conv2d;
  using Dropout2d = torch::nn::Dropout2d;
  using Linear = torch::nn::Linear;
};

}  // namespace

TEST_CASE("conv crosscheck: conv2d values and gradients for every option, odd sizes and strided inputs") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const std::vector<Conv2dCase> cases = {{2, 3, 4, 7, 9, 3, 2, {1, 2}, {1, 0}, {1}, 1, true},
                                         {1, 4, 6, 11, 8, 3, 3, {2}, {2, 1}, {2, 1}, 2, true},
                                         {3, 6, 6, 9, 9, 3, 3, {1}, {1}, {1}, 6, false},
                                         {2, 2, 3, 5, 13, 1, 5, {1, 3}, {0, 2}, {1, 2}, 1, true},
                                         {2, 1, 10, 28, 28, 5, 5, {1}, {0}, {1}, 1, true},
                                         {0, 2, 3, 5, 5, 3, 3, {1}, {1}, {1}, 1, true},
                                         {1, 6, 4, 6, 7, 2, 3, {3, 1}, {1, 1}, {2, 2}, 2, true}};
  for (const Conv2dCase& k : cases) {
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      // float32: the weight's gradient sums up to ~1000 products, each library rounding its own way.
      const double tol = dt == ember::kDouble ? 1e-10 : 1e-4;
      std::ostringstream name;
      name << "conv2d n=" << k.n << " c=" << k.c_in << "->" << k.c_out << " " << k.h << "x" << k.w
           << " k=" << k.kh << "x" << k.kw << " groups=" << k.groups << " " << ember::name(dt);
      EInputs in = {leaf({k.n, k.c_in, k.h, k.w}, dt), leaf({k.c_out, k.c_in / k.groups, k.kh, k.kw}, dt),
                    k.bias ? leaf({k.c_out}, dt) : ember::Tensor()};
      same_forward_backward(
          name.str(), in,
          [&](const EInputs& v) {
            return ember::conv2d(v[0], v[1], v[2], k.stride, k.padding, k.dilation, k.groups);
          },
          [&](const TInputs& v) {
            return torch::conv2d(v[0], v[1], v[2].defined() ? v[2] : torch::Tensor(), k.stride, k.padding,
                                 k.dilation, k.groups);
          },
          tol);
    }
  }
  // Strided inputs: channels-last storage (permuted), every other column (sliced), a
  // transposed weight; unbatched input.
  EInputs in = {leaf({2, 9, 11, 3}), leaf({4, 3, 3, 2}), leaf({4})};
  same_forward_backward(
      "conv2d of permuted input, sliced columns, transposed weight", in,
      [](const EInputs& v) {
        return ember::conv2d(v[0].permute({0, 3, 1, 2}).slice(3, 0, 11, 2), v[1].transpose(2, 3), v[2], 1, 1);
      },
      [](const TInputs& v) {
        return torch::conv2d(v[0].permute({0, 3, 1, 2}).slice(3, 0, 11, 2), v[1].transpose(2, 3), v[2], 1, 1);
      },
      1e-10);
  EInputs un = {leaf({3, 6, 5}), leaf({2, 3, 2, 4})};
  same_forward_backward(
      "conv2d unbatched, padding same", un,
      [](const EInputs& v) {
        return ember::conv2d(v[0], v[1], {}, 1, "same", {2, 1});
      },
      [](const TInputs& v) {
        return torch::conv2d(v[0], v[1], {}, 1, "same", {2, 1});
      },
      1e-10);
  // Integers convolve exactly, as libtorch's slow path does.
  const ember::Tensor li = ember::randint(-9, 10, {2, 4, 6, 5}), lw = ember::randint(-9, 10, {6, 2, 3, 2});
  CHECK(torch::equal(as_torch(ember::conv2d(li, lw, ember::randint(-9, 10, {6}) * 0, 2, 1, 1, 2)),
                     torch::conv2d(as_torch(li), as_torch(lw), torch::zeros({6}, torch::kLong), 2, 1, 1, 2)));
  EInputs fo = {leaf({2, 4, 7, 6}), leaf({6, 2, 3, 3}), leaf({6})};
  same_forward_backward(
      "F::conv2d options", fo,
      [](const EInputs& v) {
        return EF::conv2d(v[0], v[1], EF::Conv2dFuncOptions().bias(v[2]).stride(2).padding(1).groups(2));
      },
      [](const TInputs& v) {
        return TF::conv2d(v[0], v[1], TF::Conv2dFuncOptions().bias(v[2]).stride(2).padding(1).groups(2));
      },
      1e-10);
}

TEST_CASE("conv crosscheck: conv1d values and gradients") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct Case {
    int64_t n, c_in, c_out, l, k, stride, pad, dil, groups;
  };
  for (const Case& k : std::vector<Case>{{2, 3, 5, 17, 3, 2, 1, 2, 1},
                                         {1, 4, 4, 9, 4, 1, 2, 1, 4},
                                         {3, 2, 6, 8, 1, 3, 0, 1, 2},
                                         {0, 2, 2, 5, 3, 1, 1, 1, 1}}) {
    EInputs in = {leaf({k.n, k.c_in, k.l}), leaf({k.c_out, k.c_in / k.groups, k.k}), leaf({k.c_out})};
    same_forward_backward(
        "conv1d l=" + std::to_string(k.l) + " groups=" + std::to_string(k.groups), in,
        [&](const EInputs& v) { return ember::conv1d(v[0], v[1], v[2], k.stride, k.pad, k.dil, k.groups); },
        [&](const TInputs& v) { return torch::conv1d(v[0], v[1], v[2], k.stride, k.pad, k.dil, k.groups); },
        1e-10);
  }
  EInputs in = {leaf({4, 10}), leaf({3, 4, 4})};
  same_forward_backward(
      "conv1d unbatched, padding same with an even kernel", in,
      [](const EInputs& v) { return ember::conv1d(v[0], v[1], {}, 1, "same"); },
      [](const TInputs& v) { return torch::conv1d(v[0], v[1], {}, 1, "same"); }, 1e-10);
}

TEST_CASE("conv crosscheck: F::pad in every mode, and the padding modes of Conv2d") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  const std::vector<std::vector<int64_t>> pads = {{2, 1}, {1, 2, 2, 0}, {-1, 2, 1, -1}, {0, 0, 2, 2}};
  const std::pair<ember::PaddingMode, TF::PadFuncOptions::mode_t> modes[] = {
      {ember::kConstant, torch::kConstant},
      {ember::kReflect, torch::kReflect},
      {ember::kReplicate, torch::kReplicate},
      {ember::kCircular, torch::kCircular}};
  for (const auto& mode : modes) {
    const ember::PaddingMode em = mode.first;
    const TF::PadFuncOptions::mode_t tm = mode.second;
    for (const auto& pad : pads) {
      // A batched input with as many spatial dims as padded ones, transposed (strided).
      EInputs in = {pad.size() == 2 ? leaf({2, 5, 3}) : leaf({2, 3, 5, 4})};
      const int64_t d = in[0].dim();
      same_forward_backward(
          std::string("pad ") + ember::padding_mode_name(em) + " of " + std::to_string(pad.size()), in,
          [&](const EInputs& v) {
            return EF::pad(v[0].transpose(d - 2, d - 1), EF::PadFuncOptions(pad).mode(em));
          },
          [&](const TInputs& v) {
            return TF::pad(v[0].transpose(d - 2, d - 1), TF::PadFuncOptions(pad).mode(tm));
          },
          1e-12);
    }
  }
  EInputs c = {leaf({2, 3, 7})};
  same_forward_backward(
      "pad constant with a value", c,
      [](const EInputs& v) {
        return EF::pad(v[0], EF::PadFuncOptions({3, -2, 1, 1}).value(2.5));
      },
      [](const TInputs& v) {
        return TF::pad(v[0], TF::PadFuncOptions({3, -2, 1, 1}).value(2.5));
      },
      1e-12);

  const std::pair<ember::PaddingMode, torch::nn::Conv2dOptions::padding_mode_t> conv_modes[] = {
      {ember::kReflect, torch::kReflect},
      {ember::kReplicate, torch::kReplicate},
      {ember::kCircular, torch::kCircular}};
  for (const auto& mode : conv_modes) {
    const ember::PaddingMode em = mode.first;
    const torch::nn::Conv2dOptions::padding_mode_t tm = mode.second;
    ember::manual_seed(5);
    torch::manual_seed(5);
    ember::nn::Conv2d ec(ember::nn::Conv2dOptions(3, 4, {3, 2}).padding({1, 1}).padding_mode(em));
    torch::nn::Conv2d tc(torch::nn::Conv2dOptions(3, 4, {3, 2}).padding({1, 1}).padding_mode(tm));
    ec->to(ember::kDouble);
    tc->to(torch::kDouble);
    EInputs in = {leaf({2, 3, 6, 5})};
    same_forward_backward(
        std::string("Conv2d padding_mode ") + ember::padding_mode_name(em), in,
        [&](const EInputs& v) { return ec(v[0]); }, [&](const TInputs& v) { return tc(v[0]); }, 1e-10);
    check_close(ec->weight.grad(), tc->weight.grad(), 1e-10, "padding_mode weight grad");
    check_close(ec->bias.grad(), tc->bias.grad(), 1e-10, "padding_mode bias grad");
  }
}

TEST_CASE(
    "conv crosscheck: max, avg and adaptive avg pooling values, indices and gradients (ties included)") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  struct MaxCase {
    std::vector<int64_t> size, k, s, p, d;
    bool ceil;
  };
  const std::vector<MaxCase> max_cases = {{{2, 3, 8, 9}, {2}, {}, {0}, {1}, false},
                                          {{1, 2, 7, 7}, {3}, {2}, {1}, {1}, true},
                                          {{2, 2, 9, 6}, {3, 2}, {1, 2}, {1, 0}, {2, 1}, false},
                                          {{3, 5, 11}, {2, 3}, {2}, {1}, {1, 2}, true},
                                          {{0, 2, 4, 4}, {2}, {}, {0}, {1}, false}};
  for (const MaxCase& k : max_cases) {
    for (bool ties : {false, true}) {
      // Small integers give windows with several equal maxima.
      const ember::Tensor x =
          (ties ? ember::randint(0, 3, k.size, ember::kDouble) : ember::randn(k.size, ember::kDouble))
              .requires_grad_();
      EInputs in = {x};
      const std::string what = std::string("max_pool2d ") + (ties ? "with ties" : "") + " size " +
                               std::to_string(k.size.size()) + "d ceil=" + std::to_string(k.ceil);
      same_forward_backward(
          what, in, [&](const EInputs& v) { return ember::max_pool2d(v[0], k.k, k.s, k.p, k.d, k.ceil); },
          [&](const TInputs& v) { return torch::max_pool2d(v[0], k.k, k.s, k.p, k.d, k.ceil); }, 1e-12);
      const auto [ev, ei] = ember::max_pool2d_with_indices(x.detach(), k.k, k.s, k.p, k.d, k.ceil);
      const auto [tv, ti] = torch::max_pool2d_with_indices(as_torch(x.detach()), k.k, k.s, k.p, k.d, k.ceil);
      INFO(what);
      CHECK(torch::equal(as_torch(ei), ti));
    }
  }
  ember::Tensor m1 = ember::randint(0, 3, {2, 3, 13}, ember::kDouble).requires_grad_();
  same_forward_backward(
      "max_pool1d with ties", {m1}, [](const EInputs& v) { return ember::max_pool1d(v[0], 3, 2, 1, 2); },
      [](const TInputs& v) { return torch::max_pool1d(v[0], 3, 2, 1, 2); }, 1e-12);
  CHECK(torch::equal(as_torch(std::get<1>(ember::max_pool1d_with_indices(m1.detach(), 4, 3, 2, 1, true))),
                     std::get<1>(torch::max_pool1d_with_indices(as_torch(m1.detach()), 4, 3, 2, 1, true))));

  struct AvgCase {
    std::vector<int64_t> size, k, s, p;
    bool ceil, include;
    std::optional<int64_t> divisor;
  };
  for (const AvgCase& k : std::vector<AvgCase>{{{2, 3, 7, 8}, {3}, {2}, {1}, true, true, std::nullopt},
                                               {{2, 3, 7, 8}, {3}, {2}, {1}, true, false, std::nullopt},
                                               {{1, 2, 9, 5}, {2, 3}, {3, 1}, {1, 0}, false, true, 4},
                                               {{3, 6, 6}, {2}, {}, {0}, false, true, std::nullopt},
                                               {{1, 1, 5, 5}, {4}, {3}, {2}, true, false, std::nullopt}}) {
    EInputs in = {leaf(k.size)};
    same_forward_backward(
        "avg_pool2d", in,
        [&](const EInputs& v) {
          return ember::avg_pool2d(v[0], k.k, k.s, k.p, k.ceil, k.include, k.divisor);
        },
        [&](const TInputs& v) {
          const c10::optional<int64_t> divisor =
              k.divisor ? c10::optional<int64_t>(*k.divisor) : c10::nullopt;
          return torch::avg_pool2d(v[0], k.k, k.s, k.p, k.ceil, k.include, divisor);
        },
        1e-12);
  }
  ember::Tensor li = ember::randint(-50, 50, {2, 2, 6, 7}, ember::kInt64);
  CHECK(torch::equal(as_torch(ember::avg_pool2d(li, 3, 2, 1, true)),
                     torch::avg_pool2d(as_torch(li), 3, 2, 1, true)));

  for (const std::vector<int64_t>& out :
       std::vector<std::vector<int64_t>>{{3, 4}, {1, 1}, {2, 3}, {7, 9}, {5, 1}}) {
    EInputs in = {leaf({2, 3, 9, 6})};
    same_forward_backward(
        "adaptive_avg_pool2d to " + std::to_string(out[0]) + "x" + std::to_string(out[1]), in,
        [&](const EInputs& v) { return ember::adaptive_avg_pool2d(v[0].transpose(2, 3), out); },
        [&](const TInputs& v) { return torch::adaptive_avg_pool2d(v[0].transpose(2, 3), out); }, 1e-12);
  }
  EInputs in = {leaf({3, 5, 7})};
  same_forward_backward(
      "F::adaptive_avg_pool2d with None", in,
      [](const EInputs& v) {
        return EF::adaptive_avg_pool2d(v[0], EF::AdaptiveAvgPool2dFuncOptions({std::nullopt, 3}));
      },
      [](const TInputs& v) {
        return TF::adaptive_avg_pool2d(v[0], TF::AdaptiveAvgPool2dFuncOptions({c10::nullopt, 3}));
      },
      1e-12);
}

TEST_CASE("conv crosscheck: modules initialised after manual_seed equal libtorch's, and print as it does") {
  for (uint64_t seed : {0, 1, 42}) {
    INFO("seed " << seed);
    ember::manual_seed(seed);
    torch::manual_seed(seed);
    ember::nn::Conv2d e2(ember::nn::Conv2dOptions(3, 8, {3, 5}).groups(1));
    torch::nn::Conv2d t2(torch::nn::Conv2dOptions(3, 8, {3, 5}).groups(1));
    ember::nn::Conv1d e1(ember::nn::Conv1dOptions(4, 6, 3).groups(2));
    torch::nn::Conv1d t1(torch::nn::Conv1dOptions(4, 6, 3).groups(2));
    ember::nn::Conv2d eb(ember::nn::Conv2dOptions(2, 2, 1).bias(false));
    torch::nn::Conv2d tb(torch::nn::Conv2dOptions(2, 2, 1).bias(false));
    CHECK(torch::equal(as_torch(e2->weight.detach()), t2->weight.detach()));
    CHECK(torch::equal(as_torch(e2->bias.detach()), t2->bias.detach()));
    CHECK(torch::equal(as_torch(e1->weight.detach()), t1->weight.detach()));
    CHECK(torch::equal(as_torch(e1->bias.detach()), t1->bias.detach()));
    CHECK(torch::equal(as_torch(eb->weight.detach()), tb->weight.detach()));
    // The MNIST network: conv1, conv2, fc1, fc2 drawn in this order.
    MnistNet<EmberNN, ember::Tensor> en;
    MnistNet<TorchNN, torch::Tensor> tn;
    const auto ep = en.named_parameters();
    const auto tp = tn.named_parameters();
    REQUIRE(ep.size() == tp.size());
    for (const auto& item : tp) {
      INFO(item.key());
      CHECK(torch::equal(as_torch(ep[item.key()].detach()), item.value().detach()));
    }
  }
  CHECK(printed(ember::nn::Conv2d(ember::nn::Conv2dOptions(4, 8, {3, 5})
                                      .stride(2)
                                      .padding(1)
                                      .dilation(2)
                                      .groups(2)
                                      .bias(false)
                                      .padding_mode(ember::kCircular))) ==
        printed(torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 8, {3, 5})
                                      .stride(2)
                                      .padding(1)
                                      .dilation(2)
                                      .groups(2)
                                      .bias(false)
                                      .padding_mode(torch::kCircular))));
  CHECK(printed(ember::nn::Conv1d(ember::nn::Conv1dOptions(1, 10, 5).stride(2).dilation(3).bias(false))) ==
        printed(torch::nn::Conv1d(torch::nn::Conv1dOptions(1, 10, 5).stride(2).dilation(3).bias(false))));
  CHECK(printed(ember::nn::Conv2d(ember::nn::Conv2dOptions(1, 10, 5).padding(ember::kValid))) ==
        printed(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 10, 5).padding(torch::kValid))));
  CHECK(printed(
            ember::nn::MaxPool2d(ember::nn::MaxPool2dOptions({3, 2}).stride(1).padding(1).ceil_mode(true))) ==
        printed(
            torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions({3, 2}).stride(1).padding(1).ceil_mode(true))));
  CHECK(printed(ember::nn::MaxPool1d(3)) == printed(torch::nn::MaxPool1d(3)));
  CHECK(printed(ember::nn::AvgPool2d(ember::nn::AvgPool2dOptions(3).padding(1))) ==
        printed(torch::nn::AvgPool2d(torch::nn::AvgPool2dOptions(3).padding(1))));
  CHECK(printed(ember::nn::AdaptiveAvgPool2d(ember::nn::AdaptiveAvgPool2dOptions({std::nullopt, 7}))) ==
        printed(torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({c10::nullopt, 7}))));
  CHECK(printed(ember::nn::Dropout2d(0.25)) == printed(torch::nn::Dropout2d(0.25)));
  CHECK(printed(ember::nn::Flatten()) == printed(torch::nn::Flatten()));
}

TEST_CASE("conv crosscheck: Dropout2d and feature_dropout masks equal libtorch's for a seed") {
  for (uint64_t seed : {3, 11, 1234}) {
    INFO("seed " << seed);
    auto same = [&](const std::string& what, const std::function<ember::Tensor()>& ours,
                    const std::function<torch::Tensor()>& theirs) {
      INFO(what);
      ember::manual_seed(seed);
      torch::manual_seed(seed);
      const ember::Tensor e = ours();
      const torch::Tensor t = theirs();
      CHECK(torch::equal(as_torch(e), t));
    };
    same(
        "dropout2d batched",
        [] {
          return EF::dropout2d(ember::ones({4, 7, 3, 2}), EF::Dropout2dFuncOptions().p(0.3));
        },
        [] {
          return TF::dropout2d(torch::ones({4, 7, 3, 2}), TF::Dropout2dFuncOptions().p(0.3));
        });
    same(
        "dropout2d unbatched",
        [] {
          return EF::dropout2d(ember::ones({9, 2, 2}), EF::Dropout2dFuncOptions().p(0.6));
        },
        [] {
          return TF::dropout2d(torch::ones({9, 2, 2}), TF::Dropout2dFuncOptions().p(0.6));
        });
    same(
        "dropout2d in place",
        [] {
          ember::Tensor x = ember::ones({3, 5, 1, 2}, ember::kDouble);
          EF::dropout2d(x, EF::Dropout2dFuncOptions().p(0.5).inplace(true));
          return x;
        },
        [] {
          torch::Tensor x = torch::ones({3, 5, 1, 2}, torch::kDouble);
          TF::dropout2d(x, TF::Dropout2dFuncOptions().p(0.5).inplace(true));
          return x;
        });
    same(
        "feature_dropout 3-D",
        [] {
          return ember::feature_dropout(ember::ones({6, 4, 5}), 0.25, true);
        },
        [] {
          return torch::feature_dropout(torch::ones({6, 4, 5}), 0.25, true);
        });
    same(
        "nn::Dropout2d then dropout",
        [] {
          ember::nn::Dropout2d d(0.4);
          ember::Tensor a = d(ember::ones({2, 8, 2, 2}));
          return ember::cat({a.flatten(), ember::dropout(ember::ones({16}), 0.5, true)});
        },
        [] {
          torch::nn::Dropout2d d(0.4);
          torch::Tensor a = d(torch::ones({2, 8, 2, 2}));
          return torch::cat({a.flatten(), torch::dropout(torch::ones({16}), 0.5, true)});
        });
  }
}

TEST_CASE("conv crosscheck: the MNIST network's training steps (dropout masks included) match libtorch's") {
  ember::manual_seed(1);
  torch::manual_seed(1);
  MnistNet<EmberNN, ember::Tensor> en;
  MnistNet<TorchNN, torch::Tensor> tn;
  ember::optim::SGD eopt(en.parameters(), ember::optim::SGDOptions(0.01).momentum(0.5));
  torch::optim::SGD topt(tn.parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));
  auto eforward = [&](ember::Tensor x) {
    x = ember::relu(ember::max_pool2d(en.conv1->forward(x), 2));
    x = ember::relu(ember::max_pool2d(en.conv2_drop->forward(en.conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = ember::relu(en.fc1->forward(x));
    x = ember::dropout(x, 0.5, en.is_training());
    return ember::log_softmax(en.fc2->forward(x), 1);
  };
  auto tforward = [&](torch::Tensor x) {
    x = torch::relu(torch::max_pool2d(tn.conv1->forward(x), 2));
    x = torch::relu(torch::max_pool2d(tn.conv2_drop->forward(tn.conv2->forward(x)), 2));
    x = x.view({-1, 320});
    x = torch::relu(tn.fc1->forward(x));
    x = torch::dropout(x, 0.5, tn.is_training());
    return torch::log_softmax(tn.fc2->forward(x), 1);
  };
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    const ember::Tensor x = ember::rand({16, 1, 28, 28});
    const ember::Tensor y = ember::randint(0, 10, {16});
    // Both draw their dropout masks from their own generator, seeded alike.
    ember::manual_seed(100 + uint64_t(step));
    torch::manual_seed(100 + uint64_t(step));
    eopt.zero_grad();
    topt.zero_grad();
    const ember::Tensor eloss = ember::nll_loss(eforward(x), y);
    const torch::Tensor tloss = torch::nll_loss(tforward(as_torch(x)), as_torch(y));
    CHECK(eloss.item<double>() == Approx(tloss.item<double>()).epsilon(1e-5));
    eloss.backward();
    tloss.backward();
    eopt.step();
    topt.step();
  }
  const auto ep = en.named_parameters();
  for (const auto& item : tn.named_parameters())
    check_close(ep[item.key()].detach(), item.value().detach(), 1e-5, item.key());
}

TEST_CASE("conv crosscheck: error texts equal libtorch's") {
  const int64_t zero = 0;  // libtorch's conv2d finds a literal 0 padding ambiguous
  const ember::Tensor ew = ember::ones({4, 3, 3, 3});
  const torch::Tensor tw = torch::ones({4, 3, 3, 3});
  struct Case {
    const char* name;
    std::function<void()> ours, theirs;
  };
  const std::vector<Case> cases = {
      {"conv2d 2-D input",
       [&] {
         ember::conv2d(ember::ones({2, 3}), ew);
       },
       [&] {
         torch::conv2d(torch::ones({2, 3}), tw);
       }},
      {"conv1d 4-D input",
       [&] {
         ember::conv1d(ember::ones({1, 3, 8, 8}), ember::ones({4, 3, 3}));
       },
       [&] {
         torch::conv1d(torch::ones({1, 3, 8, 8}), torch::ones({4, 3, 3}));
       }},
      {"conv2d channels",
       [&] {
         ember::conv2d(ember::ones({2, 8, 8}), ew);
       },
       [&] {
         torch::conv2d(torch::ones({2, 8, 8}), tw);
       }},
      {"conv2d groups",
       [&] {
         ember::conv2d(ember::ones({1, 2, 8, 8}), ember::ones({3, 1, 3, 3}), {}, 1, 0, 1, 2);
       },
       [&] {
         torch::conv2d(torch::ones({1, 2, 8, 8}), torch::ones({3, 1, 3, 3}), {}, 1, zero, 1, 2);
       }},
      {"conv2d groups channels",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ember::ones({4, 1, 3, 3}), {}, 1, 0, 1, 2);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), torch::ones({4, 1, 3, 3}), {}, 1, zero, 1, 2);
       }},
      {"conv2d kernel",
       [&] {
         ember::conv2d(ember::ones({1, 3, 4, 4}), ember::ones({4, 3, 5, 5}), {}, 1, 0, 1);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 4, 4}), torch::ones({4, 3, 5, 5}), {}, 1, zero, 1);
       }},
      {"conv2d stride",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 0);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 0);
       }},
      {"conv2d padding",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 1, -1);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 1, -1);
       }},
      {"conv2d dilation",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 1, 0, 0);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 1, zero, 0);
       }},
      {"conv2d groups 0",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 1, 0, 1, 0);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 1, zero, 1, 0);
       }},
      {"conv2d bias",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, ember::ones({3}));
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, torch::ones({3}));
       }},
      {"conv2d bias dtype",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, ember::ones({4}, ember::kDouble));
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, torch::ones({4}, torch::kDouble));
       }},
      {"conv2d stride list",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, {1, 1, 1});
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, {1, 1, 1});
       }},
      {"conv2d same strided",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 2, "same");
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 2, "same");
       }},
      {"conv2d padding string",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}), ew, {}, 1, "full");
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}), tw, {}, 1, "full");
       }},
      {"conv2d dtype",
       [&] {
         ember::conv2d(ember::ones({1, 3, 8, 8}, ember::kDouble), ew);
       },
       [&] {
         torch::conv2d(torch::ones({1, 3, 8, 8}, torch::kDouble), tw);
       }},
      {"conv1d weight dims",
       [&] {
         ember::conv1d(ember::ones({1, 3, 8}), ew);
       },
       [&] {
         torch::conv1d(torch::ones({1, 3, 8}), tw);
       }},
      {"Conv2d groups", [] { ember::nn::Conv2d(ember::nn::Conv2dOptions(3, 4, 3).groups(2)); },
       [] { torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).groups(2)); }},
      {"pad odd",
       [] {
         EF::pad(ember::ones({1, 2, 3}), EF::PadFuncOptions({1, 1, 1}));
       },
       [] {
         TF::pad(torch::ones({1, 2, 3}), TF::PadFuncOptions({1, 1, 1}));
       }},
      {"pad negative size",
       [] {
         EF::pad(ember::ones({1, 2, 3}), EF::PadFuncOptions({-3, 0, 1, 0}));
       },
       [] {
         TF::pad(torch::ones({1, 2, 3}), TF::PadFuncOptions({-3, 0, 1, 0}));
       }},
      {"reflect too far",
       [] {
         EF::pad(ember::ones({1, 2, 3}), EF::PadFuncOptions({3, 0}).mode(ember::kReflect));
       },
       [] {
         TF::pad(torch::ones({1, 2, 3}), TF::PadFuncOptions({3, 0}).mode(torch::kReflect));
       }},
      {"reflect 2d too far",
       [] {
         EF::pad(ember::ones({1, 2, 3}), EF::PadFuncOptions({0, 0, 2, 0}).mode(ember::kReflect));
       },
       [] {
         TF::pad(torch::ones({1, 2, 3}), TF::PadFuncOptions({0, 0, 2, 0}).mode(torch::kReflect));
       }},
      {"reflect empty",
       [] {
         EF::pad(ember::ones({1, 0, 3}), EF::PadFuncOptions({1, 1}).mode(ember::kReflect));
       },
       [] {
         TF::pad(torch::ones({1, 0, 3}), TF::PadFuncOptions({1, 1}).mode(torch::kReflect));
       }},
      {"replicate empty",
       [] {
         EF::pad(ember::ones({1, 0, 3}), EF::PadFuncOptions({1, 1, 1, 1}).mode(ember::kReplicate));
       },
       [] {
         TF::pad(torch::ones({1, 0, 3}), TF::PadFuncOptions({1, 1, 1, 1}).mode(torch::kReplicate));
       }},
      {"circular wrap",
       [] {
         EF::pad(ember::ones({1, 2, 3}), EF::PadFuncOptions({4, 0}).mode(ember::kCircular));
       },
       [] {
         TF::pad(torch::ones({1, 2, 3}), TF::PadFuncOptions({4, 0}).mode(torch::kCircular));
       }},
      {"max_pool2d dims",
       [] {
         ember::max_pool2d(ember::ones({2, 3}), 2);
       },
       [] {
         torch::max_pool2d(torch::ones({2, 3}), 2);
       }},
      {"max_pool2d empty plane",
       [] {
         ember::max_pool2d(ember::ones({1, 2, 0, 5}), 2);
       },
       [] {
         torch::max_pool2d(torch::ones({1, 2, 0, 5}), 2);
       }},
      {"max_pool2d pad",
       [] {
         ember::max_pool2d(ember::ones({1, 1, 5, 5}), 2, 2, 2);
       },
       [] {
         torch::max_pool2d(torch::ones({1, 1, 5, 5}), 2, 2, 2);
       }},
      {"max_pool2d small",
       [] {
         ember::max_pool2d(ember::ones({1, 1, 4, 4}), 2, 1, 0, 4);
       },
       [] {
         torch::max_pool2d(torch::ones({1, 1, 4, 4}), 2, 1, 0, 4);
       }},
      {"max_pool2d kernel",
       [] {
         ember::max_pool2d(ember::ones({1, 1, 4, 4}), -1);
       },
       [] {
         torch::max_pool2d(torch::ones({1, 1, 4, 4}), -1);
       }},
      {"max_pool2d long",
       [] {
         ember::max_pool2d(ember::ones({1, 1, 4, 4}, ember::kLong), 2);
       },
       [] {
         torch::max_pool2d(torch::ones({1, 1, 4, 4}, torch::kLong), 2);
       }},
      {"max_pool1d dims",
       [] {
         ember::max_pool1d(ember::ones({1, 3, 4, 4}), 2);
       },
       [] {
         torch::max_pool1d(torch::ones({1, 3, 4, 4}), 2);
       }},
      {"max_pool1d dilation",
       [] {
         ember::max_pool1d(ember::ones({1, 3, 8}), 2, 2, 0, 0);
       },
       [] {
         torch::max_pool1d(torch::ones({1, 3, 8}), 2, 2, 0, 0);
       }},
      {"avg_pool2d dims", [] { ember::avg_pool2d(ember::ones({4}), 2); },
       [] { torch::avg_pool2d(torch::ones({4}), 2); }},
      {"avg_pool2d stride list",
       [] {
         ember::avg_pool2d(ember::ones({1, 1, 4, 4}), 2, {1, 1, 1});
       },
       [] {
         torch::avg_pool2d(torch::ones({1, 1, 4, 4}), 2, {1, 1, 1});
       }},
      {"avg_pool2d small",
       [] {
         ember::avg_pool2d(ember::ones({1, 1, 2, 2}), 3);
       },
       [] {
         torch::avg_pool2d(torch::ones({1, 1, 2, 2}), 3);
       }},
      {"adaptive empty",
       [] {
         ember::adaptive_avg_pool2d(ember::ones({1, 2, 4, 0}), {2, 2});
       },
       [] {
         torch::adaptive_avg_pool2d(torch::ones({1, 2, 4, 0}), {2, 2});
       }},
      {"adaptive negative",
       [] {
         ember::adaptive_avg_pool2d(ember::ones({1, 2, 4, 4}), {2, -2});
       },
       [] {
         torch::adaptive_avg_pool2d(torch::ones({1, 2, 4, 4}), {2, -2});
       }},
      {"feature_dropout dims", [] { ember::feature_dropout(ember::ones({4}), 0.5, true); },
       [] { torch::feature_dropout(torch::ones({4}), 0.5, true); }},
      {"dropout2d p",
       [] {
         EF::dropout2d(ember::ones({2, 2}), EF::Dropout2dFuncOptions().p(1.5));
       },
       [] {
         TF::dropout2d(torch::ones({2, 2}), TF::Dropout2dFuncOptions().p(1.5));
       }},
      {"Flatten order",
       [] {
         ember::nn::Flatten(ember::nn::FlattenOptions().start_dim(2).end_dim(1))(ember::ones({2, 3, 4}));
       },
       [] {
         torch::nn::Flatten(torch::nn::FlattenOptions().start_dim(2).end_dim(1))(torch::ones({2, 3, 4}));
       }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string want = torch_error(c.theirs);
    CHECK(want != "<no error>");
    CHECK(ember_error(c.ours) == want);
  }
}
