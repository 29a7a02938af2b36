// ctc_loss against libtorch 1.13: the same random logits through log_softmax, every target
// layout, reduction, blank and zero_infinity, values and gradients; error texts equal.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::printed;
using crosscheck::same_forward_backward;
using crosscheck::torch_error;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;

ember::Reduction ereduction(int r) { return r == 0 ? ember::kNone : r == 1 ? ember::kMean : ember::kSum; }
int64_t treduction(int r) {
  return r == 0 ? at::Reduction::None : r == 1 ? at::Reduction::Mean : at::Reduction::Sum;
}

}  // namespace

TEST_CASE("ctc crosscheck: values and gradients through log_softmax equal libtorch's") {
  struct Case {
    std::string what;
    std::vector<int64_t> shape;  // (T, N, C) or (T, C)
    ember::Tensor targets;
    std::vector<int64_t> il, tl;
    int64_t blank;
  };
  const std::vector<Case> cases = {
      {"padded", {6, 3, 4}, ember::tensor({{1, 2, 2}, {3, 1, 0}, {2, 0, 0}}), {6, 5, 4}, {3, 2, 1}, 0},
      {"concatenated", {6, 3, 4}, ember::tensor({1, 2, 2, 3, 1, 2}), {6, 5, 4}, {3, 2, 1}, 0},
      {"repeats and blank 2", {7, 2, 5}, ember::tensor({{1, 1, 3}, {4, 4, 4}}), {7, 7}, {3, 3}, 2},
      {"empty target", {4, 2, 3}, ember::tensor({{1, 2}, {0, 0}}), {4, 3}, {2, 0}, 0},
      {"int targets", {5, 2, 4}, ember::tensor({{3, 1}, {2, 2}}, ember::kInt), {5, 5}, {2, 1}, 0},
      {"unbatched", {6, 4}, ember::tensor({1, 3, 1}), {6}, {3}, 0},
      {"impossible", {3, 2, 3}, ember::tensor({{1, 1, 1}, {2, 1, 0}}), {3, 3}, {3, 2}, 0},
  };
  for (const Case& c : cases) {
    for (int r : {0, 1, 2}) {
      for (bool zero_inf : {false, true}) {
        if (zero_inf && c.what != "impossible" && c.what != "padded") continue;  // keep the run short
        if (c.what == "impossible" && !zero_inf && r != 0) continue;  // inf loss: no finite gradient
        const std::string what =
            c.what + " reduction " + std::to_string(r) + (zero_inf ? " zero_infinity" : "");
        const ember::Tensor logits = ember::randn(c.shape, ember::kDouble).requires_grad_();
        const torch::Tensor tt = as_torch(c.targets);
        if (c.what == "impossible" && !zero_inf) {
          const ember::Tensor e =
              ember::ctc_loss(logits.log_softmax(-1), c.targets, c.il, c.tl, c.blank, ember::kNone);
          const torch::Tensor t = torch::ctc_loss(as_torch(logits.detach()).log_softmax(-1), tt, c.il, c.tl,
                                                  c.blank, at::Reduction::None);
          CHECK(torch::equal(as_torch(e.detach()), t));
          continue;
        }
        same_forward_backward(
            what, {logits},
            [&](const EInputs& v) {
              return ember::ctc_loss(v[0].log_softmax(-1), c.targets, c.il, c.tl, c.blank, ereduction(r),
                                     zero_inf);
            },
            [&](const TInputs& v) {
              return torch::ctc_loss(v[0].log_softmax(-1), tt, c.il, c.tl, c.blank, treduction(r), zero_inf);
            },
            1e-10);
      }
    }
  }
  // Tensor lengths, F:: and the module (float32).
  const ember::Tensor logits = ember::randn({5, 2, 4}).requires_grad_();
  const ember::Tensor targets = ember::tensor({{1, 2}, {3, 3}});
  same_forward_backward(
      "F::ctc_loss", {logits},
      [&](const EInputs& v) {
        return EF::ctc_loss(v[0].log_softmax(2), targets, ember::tensor({5, 4}, ember::kInt),
                            ember::tensor({2, 2}), EF::CTCLossFuncOptions().reduction(ember::kSum).blank(0));
      },
      [&](const TInputs& v) {
        return TF::ctc_loss(v[0].log_softmax(2), as_torch(targets), torch::tensor({5, 4}, torch::kInt),
                            torch::tensor({2, 2}), TF::CTCLossFuncOptions().reduction(torch::kSum).blank(0));
      },
      1e-5);
  const ember::Tensor logits2 = ember::randn({5, 2, 4}).requires_grad_();
  ember::nn::CTCLoss em(ember::nn::CTCLossOptions().blank(3));
  torch::nn::CTCLoss tm(torch::nn::CTCLossOptions().blank(3));
  same_forward_backward(
      "nn::CTCLoss", {logits2},
      [&](const EInputs& v) {
        return em(v[0].log_softmax(2), ember::tensor({{1, 2}, {0, 0}}), ember::tensor({5, 4}),
                  ember::tensor({2, 2}));
      },
      [&](const TInputs& v) {
        return tm(v[0].log_softmax(2), torch::tensor({{1, 2}, {0, 0}}), torch::tensor({5, 4}),
                  torch::tensor({2, 2}));
      },
      1e-5);
  CHECK(printed(em) == printed(tm));
}

TEST_CASE(
    "ctc crosscheck: libtorch's gradient w.r.t. log_probs adds exp(log_probs) times the loss gradient") {
  // libtorch's backward assumes log_probs normalised over classes; ours is the exact gradient,
  // and the two agree once log_softmax is applied.
  const ember::Tensor lp = ember::randn({5, 2, 4}, ember::kDouble).log_softmax(2).detach().requires_grad_();
  const torch::Tensor tlp = as_torch(lp.detach()).requires_grad_();
  const std::vector<int64_t> il = {5, 3}, tl = {2, 1};
  ember::ctc_loss(lp, ember::tensor({{1, 2}, {3, 0}}), il, tl, 0, ember::kSum).backward();
  torch::ctc_loss(tlp, torch::tensor({{1, 2}, {3, 0}}), il, tl, 0, at::Reduction::Sum).backward();
  ember::Tensor ours = lp.grad() + lp.detach().exp();
  ours.slice(0, 3).select(1, 1).zero_();  // beyond sample 1's input length libtorch's is 0
  check_close(ours, tlp.grad(), 1e-10, "direct gradient");
}

TEST_CASE("ctc crosscheck: error texts equal libtorch's") {
  const ember::Tensor lp = ember::randn({5, 2, 4}).log_softmax(2);
  const torch::Tensor tlp = as_torch(lp);
  const ember::Tensor tg = ember::tensor({{1, 2}, {3, 3}});
  const torch::Tensor ttg = as_torch(tg);
  using IL = std::vector<int64_t>;
  auto both = [&](const std::string& what, const ember::Tensor& elp, const torch::Tensor& tlp_,
                  const ember::Tensor& etg, const torch::Tensor& ttg_, IL il, IL tl, int64_t blank) {
    INFO(what);
    const std::string e = ember_error([&] { ember::ctc_loss(elp, etg, il, tl, blank); });
    CHECK(e != "<no error>");
    CHECK(e == torch_error([&] { torch::ctc_loss(tlp_, ttg_, il, tl, blank); }));
  };
  both("log_probs 4-dim", lp.unsqueeze(3), tlp.unsqueeze(3), tg, ttg, {5, 4}, {2, 2}, 0);
  both("log_probs 1-dim", lp.flatten(), tlp.flatten(), tg, ttg, {5, 4}, {2, 2}, 0);
  both("targets 3-dim", lp, tlp, tg.unsqueeze(0), ttg.unsqueeze(0), {5, 4}, {2, 2}, 0);
  both("blank", lp, tlp, tg, ttg, {5, 4}, {2, 2}, 4);
  both("negative blank", lp, tlp, tg, ttg, {5, 4}, {2, 2}, -1);
  both("input_lengths size", lp, tlp, tg, ttg, {5}, {2, 2}, 0);
  both("target_lengths size", lp, tlp, tg, ttg, {5, 4}, {2, 2, 2}, 0);
  both("concatenated size", lp, tlp, ember::tensor({1, 2, 3}), torch::tensor({1, 2, 3}), {5, 4}, {2, 2}, 0);
  both("padded batch", lp, tlp, ember::ones({3, 2}, ember::kLong), torch::ones({3, 2}, torch::kLong), {5, 4},
       {2, 2}, 0);
  both("padded length", lp, tlp, tg, ttg, {5, 4}, {2, 3}, 0);
  both("input length", lp, tlp, tg, ttg, {6, 4}, {2, 2}, 0);
  both("half", lp.to(ember::kHalf), tlp.to(torch::kHalf), tg, ttg, {5, 4}, {2, 2}, 0);
  both("long", lp.to(ember::kLong), tlp.to(torch::kLong), tg, ttg, {5, 4}, {2, 2}, 0);
  CHECK(ember_error([&] {
          ember::ctc_loss(lp, tg, ember::tensor({5.0, 4.0}), ember::tensor({2, 2}));
        }) == torch_error([&] {
          torch::ctc_loss(tlp, ttg, torch::tensor({5.0, 4.0}), torch::tensor({2, 2}));
        }));
  CHECK(ember_error([&] {
          ember::ctc_loss(lp, tg, ember::tensor({5, 4}), ember::tensor({true, true}));
        }) == torch_error([&] {
          torch::ctc_loss(tlp, ttg, torch::tensor({5, 4}), torch::tensor({true, true}));
        }));
}
