// Cross-checks the optimizers against libtorch's: SGD, Adam and AdamW from the same
// initial weights and gradients for five steps (float32 and float64), StepLR's learning
// rates, and the option errors' texts.
// (REQUIRE, not CHECK: the torch headers redefine CHECK as glog's.)
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <ember/optim.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;

struct Pair {
  std::unique_ptr<ember::optim::Optimizer> ember_opt;
  std::unique_ptr<torch::optim::Optimizer> torch_opt;
};
using MakePair = std::function<Pair(const ember::Tensor&, const torch::Tensor&)>;

void check_steps(const MakePair& make, ember::ScalarType dt, double tol) {
  ember::manual_seed(7);
  ember::Tensor ep = (ember::rand({17, 33}, ember::kDouble) * 4 - 2).to(dt).requires_grad_();
  torch::Tensor tp = as_torch(ep.detach()).requires_grad_();
  Pair opts = make(ep, tp);
  for (int s = 0; s < 5; ++s) {
    ember::Tensor g = (ember::rand({17, 33}, ember::kDouble) * 2 - 1).to(dt);
    ep.mutable_grad() = g;
    tp.mutable_grad() = as_torch(g);
    opts.ember_opt->step();
    opts.torch_opt->step();
  }
  ember::Tensor got = ep.detach().to(ember::kDouble).contiguous();
  torch::Tensor want = tp.detach().to(torch::kDouble).contiguous();
  const double* a = got.data_ptr<double>();
  const double* b = want.data_ptr<double>();
  int64_t bad = 0;
  for (int64_t i = 0; i < got.numel(); ++i)
    if (std::abs(a[i] - b[i]) > tol * (1 + std::abs(b[i])) && bad++ == 0) INFO(i << ": " << a[i] << " vs " << b[i]);
  REQUIRE(bad == 0);
}


}  // namespace

TEST_CASE("optim crosscheck: SGD matches torch::optim::SGD for five steps") {
  struct Cfg {
    double momentum, dampening, wd;
    bool nesterov;
  };
  for (Cfg c : {Cfg{0, 0, 0, false}, Cfg{0.9, 0, 0, false}, Cfg{0.9, 0.3, 0.01, false}, Cfg{0.8, 0, 0.05, true}})
    for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
      INFO("momentum " << c.momentum << " dampening " << c.dampening << " wd " << c.wd << " nesterov " << c.nesterov
                       << " " << ember::name(dt));
      check_steps(
          [&](const ember::Tensor& ep, const torch::Tensor& tp) {
            return Pair{std::make_unique<ember::optim::SGD>(
                            std::vector<ember::Tensor>{ep},
                            ember::optim::SGDOptions(0.1).momentum(c.momentum).dampening(c.dampening).weight_decay(c.wd).nesterov(c.nesterov)),
                        std::make_unique<torch::optim::SGD>(
                            std::vector<torch::Tensor>{tp},
                            torch::optim::SGDOptions(0.1).momentum(c.momentum).dampening(c.dampening).weight_decay(c.wd).nesterov(c.nesterov))};
          },
          dt, dt == ember::kDouble ? 1e-14 : 2e-6);
    }
}

TEST_CASE("optim crosscheck: Adam and AdamW match torch::optim's for five steps") {
  for (bool amsgrad : {false, true})
    for (double wd : {0.0, 0.05})
      for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
        INFO("amsgrad " << amsgrad << " wd " << wd << " " << ember::name(dt));
        const double tol = dt == ember::kDouble ? 1e-13 : 2e-6;
        check_steps(
            [&](const ember::Tensor& ep, const torch::Tensor& tp) {
              return Pair{std::make_unique<ember::optim::Adam>(
                              std::vector<ember::Tensor>{ep},
                              ember::optim::AdamOptions(0.02).betas({0.85, 0.99}).eps(1e-7).weight_decay(wd).amsgrad(amsgrad)),
                          std::make_unique<torch::optim::Adam>(
                              std::vector<torch::Tensor>{tp},
                              torch::optim::AdamOptions(0.02).betas({0.85, 0.99}).eps(1e-7).weight_decay(wd).amsgrad(amsgrad))};
            },
            dt, tol);
        check_steps(
            [&](const ember::Tensor& ep, const torch::Tensor& tp) {
              return Pair{std::make_unique<ember::optim::AdamW>(std::vector<ember::Tensor>{ep},
                                                                ember::optim::AdamWOptions(0.02).weight_decay(wd).amsgrad(amsgrad)),
                          std::make_unique<torch::optim::AdamW>(std::vector<torch::Tensor>{tp},
                                                                torch::optim::AdamWOptions(0.02).weight_decay(wd).amsgrad(amsgrad))};
            },
            dt, tol);
      }
}

TEST_CASE("optim crosscheck: StepLR sets the same learning rates as torch::optim::StepLR") {
  ember::Tensor ep = ember::ones({2}).requires_grad_();
  torch::Tensor tp = torch::ones({2}).requires_grad_();
  ember::optim::SGD eopt({ep}, ember::optim::SGDOptions(0.4));
  torch::optim::SGD topt({tp}, torch::optim::SGDOptions(0.4));
  ember::optim::StepLR esched(eopt, 3, 0.3);
  torch::optim::StepLR tsched(topt, 3, 0.3);
  for (int i = 0; i < 10; ++i) {
    esched.step();
    tsched.step();
    INFO("call " << i);
    REQUIRE(eopt.param_groups()[0].options().get_lr() == topt.param_groups()[0].options().get_lr());
  }
}

TEST_CASE("optim crosscheck: option errors carry libtorch's texts") {
  ember::Tensor ep = ember::ones({2}).requires_grad_();
  torch::Tensor tp = torch::ones({2}).requires_grad_();
  auto torch_text = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const c10::Error& e) {
      return std::string(e.what_without_backtrace());
    }
    return std::string("no error");
  };
  auto ember_text = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const ember::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  REQUIRE(ember_text([&] { ember::optim::SGD({ep}, ember::optim::SGDOptions(-0.5)); }) ==
        torch_text([&] { torch::optim::SGD({tp}, torch::optim::SGDOptions(-0.5)); }));
  REQUIRE(ember_text([&] { ember::optim::SGD({ep}, ember::optim::SGDOptions(0.5).nesterov(true)); }) ==
        torch_text([&] { torch::optim::SGD({tp}, torch::optim::SGDOptions(0.5).nesterov(true)); }));
  REQUIRE(ember_text([&] { ember::optim::Adam({ep}, ember::optim::AdamOptions().betas({0.9, 1.5})); }) ==
        torch_text([&] { torch::optim::Adam({tp}, torch::optim::AdamOptions().betas({0.9, 1.5})); }));
  REQUIRE(ember_text([&] { ember::optim::AdamW({ep}, ember::optim::AdamWOptions().eps(-1)); }) ==
        torch_text([&] { torch::optim::AdamW({tp}, torch::optim::AdamWOptions().eps(-1)); }));
}
