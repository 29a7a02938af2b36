// Cross-checks the optimizers against libtorch's: SGD, Adam, AdamW, RMSprop and Adagrad
// from the same initial weights and gradients for five steps (float32 and float64), LBFGS
// on the same closure for several steps (fixed step and strong Wolfe), StepLR's learning
// rates, and the option errors' texts. (libtorch 1.13 has no ReduceLROnPlateauScheduler:
// test_optim.cpp checks it against its source's rules.)
// (REQUIRE, not CHECK: the torch headers redefine CHECK as glog's.)
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <ember/optim.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
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

TEST_CASE("optim crosscheck: RMSprop matches torch::optim::RMSprop for five steps") {
  for (double momentum : {0.0, 0.9})
    for (bool centered : {false, true})
      for (double wd : {0.0, 0.05})
        for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
          INFO("momentum " << momentum << " centered " << centered << " wd " << wd << " " << ember::name(dt));
          check_steps(
              [&](const ember::Tensor& ep, const torch::Tensor& tp) {
                return Pair{std::make_unique<ember::optim::RMSprop>(
                                std::vector<ember::Tensor>{ep},
                                ember::optim::RMSpropOptions(0.01).alpha(0.95).eps(1e-6).weight_decay(wd).momentum(momentum).centered(centered)),
                            std::make_unique<torch::optim::RMSprop>(
                                std::vector<torch::Tensor>{tp},
                                torch::optim::RMSpropOptions(0.01).alpha(0.95).eps(1e-6).weight_decay(wd).momentum(momentum).centered(centered))};
              },
              dt, dt == ember::kDouble ? 1e-13 : 2e-6);
        }
}

TEST_CASE("optim crosscheck: Adagrad matches torch::optim::Adagrad for five steps") {
  for (double lr_decay : {0.0, 0.1})
    for (double wd : {0.0, 0.05})
      for (double init : {0.0, 0.3})
        for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
          INFO("lr_decay " << lr_decay << " wd " << wd << " init " << init << " " << ember::name(dt));
          check_steps(
              [&](const ember::Tensor& ep, const torch::Tensor& tp) {
                return Pair{std::make_unique<ember::optim::Adagrad>(
                                std::vector<ember::Tensor>{ep},
                                ember::optim::AdagradOptions(0.05).lr_decay(lr_decay).weight_decay(wd).initial_accumulator_value(init)),
                            std::make_unique<torch::optim::Adagrad>(
                                std::vector<torch::Tensor>{tp},
                                torch::optim::AdagradOptions(0.05).lr_decay(lr_decay).weight_decay(wd).initial_accumulator_value(init))};
              },
              dt, dt == ember::kDouble ? 1e-13 : 2e-6);
        }
}

namespace {

// A small nonlinear least-squares fit, mean((tanh(x w + b) - y)^2), with a third parameter
// that gets no gradient; the same data and start in ember and libtorch.
struct LbfgsRun {
  std::vector<ember::Tensor> ep;
  std::vector<torch::Tensor> tp;
  ember::Tensor ex, ey;
  torch::Tensor tx, ty;
  LbfgsRun(ember::ScalarType dt) {
    ember::manual_seed(11);
    ex = (ember::rand({16, 4}, ember::kDouble) * 2 - 1).to(dt);
    ey = (ember::rand({16, 3}, ember::kDouble) - 0.5).to(dt);
    ep = {(ember::rand({4, 3}, ember::kDouble) - 0.5).to(dt), (ember::rand({3}, ember::kDouble) - 0.5).to(dt),
          ember::ones({2}, dt)};
    tx = as_torch(ex);
    ty = as_torch(ey);
    for (auto& p : ep) {
      p.requires_grad_();
      tp.push_back(as_torch(p.detach()).requires_grad_());
    }
  }
};

double max_rel_diff(const ember::Tensor& e, const torch::Tensor& t) {
  ember::Tensor a = e.detach().to(ember::kDouble).contiguous();
  torch::Tensor b = t.detach().to(torch::kDouble).contiguous();
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::abs(a.data_ptr<double>()[i] - b.data_ptr<double>()[i]) /
                                (1 + std::abs(b.data_ptr<double>()[i])));
  return worst;
}

}  // namespace

TEST_CASE("optim crosscheck: LBFGS matches torch::optim::LBFGS step by step") {
  for (bool wolfe : {false, true})
    for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
      INFO("strong_wolfe " << wolfe << " " << ember::name(dt));
      LbfgsRun r(dt);
      auto eo = ember::optim::LBFGSOptions(1).max_iter(6).history_size(3);
      auto to = torch::optim::LBFGSOptions(1).max_iter(6).history_size(3);
      if (wolfe) {
        eo.line_search_fn("strong_wolfe");
        to.line_search_fn("strong_wolfe");
      }
      ember::optim::LBFGS eopt(r.ep, eo);
      torch::optim::LBFGS topt(r.tp, to);
      int ecalls = 0, tcalls = 0;
      auto eclosure = [&] {
        ++ecalls;
        eopt.zero_grad();
        ember::Tensor loss = (ember::tanh(ember::matmul(r.ex, r.ep[0]) + r.ep[1]) - r.ey).pow(2).mean();
        loss.backward();
        return loss;
      };
      auto tclosure = [&] {
        ++tcalls;
        topt.zero_grad();
        torch::Tensor loss = (torch::tanh(torch::matmul(r.tx, r.tp[0]) + r.tp[1]) - r.ty).pow(2).mean();
        loss.backward();
        return loss;
      };
      // float32 rounding (ember's tanh and sums round differently) is amplified by the
      // iterations and, with the line search, can change its decisions: float32 is compared
      // over one step, float64 over four (they agree to ~3e-13 there).
      const double tol = dt == ember::kDouble ? 1e-10 : 1e-4;
      const int steps = dt == ember::kDouble ? 4 : 1;
      for (int s = 0; s < steps; ++s) {
        INFO("step " << s);
        const double el = eopt.step(eclosure).item<double>();
        const double tl = topt.step(tclosure).item<double>();
        REQUIRE(std::abs(el - tl) <= tol * (1 + std::abs(tl)));
        REQUIRE(ecalls == tcalls);
        for (size_t i = 0; i < r.ep.size(); ++i) REQUIRE(max_rel_diff(r.ep[i], r.tp[i]) <= tol);
      }
      const auto& tstate = static_cast<const torch::optim::LBFGSParamState&>(
          *topt.state().at(c10::guts::to_string(r.tp[0].unsafeGetTensorImpl())));
      const auto est = eopt.state_tensors();
      REQUIRE(est.at("state.0.0.func_evals").item<int64_t>() == tstate.func_evals());
      REQUIRE(est.at("state.0.0.n_iter").item<int64_t>() == tstate.n_iter());
      REQUIRE(std::abs(est.at("state.0.0.t").item<double>() - tstate.t()) <= tol * (1 + std::abs(tstate.t())));
      REQUIRE(max_rel_diff(est.at("state.0.0.d"), tstate.d()) <= tol * 10);
      size_t kept = 0;
      while (est.count("state.0.0.old_dirs." + std::to_string(kept))) ++kept;
      REQUIRE(kept == tstate.old_dirs().size());
    }
}

TEST_CASE("optim crosscheck: LBFGS whose closure throws mid-step continues as libtorch's") {
  // The closure fails on its k-th call (the first evaluation, a fixed step's re-evaluation or
  // one inside the line search); the parameters have moved by then, and the next steps must
  // start from the same state in both libraries.
  for (bool wolfe : {false, true})
    for (int fail_at : {1, 2, 4}) {
      INFO("strong_wolfe " << wolfe << ", closure fails on call " << fail_at);
      LbfgsRun r(ember::kDouble);
      auto eo = ember::optim::LBFGSOptions(1).max_iter(4).history_size(3);
      auto to = torch::optim::LBFGSOptions(1).max_iter(4).history_size(3);
      if (wolfe) {
        eo.line_search_fn("strong_wolfe");
        to.line_search_fn("strong_wolfe");
      }
      ember::optim::LBFGS eopt(r.ep, eo);
      torch::optim::LBFGS topt(r.tp, to);
      int ecalls = 0, tcalls = 0;
      auto eclosure = [&] {
        if (++ecalls == fail_at) throw std::runtime_error("closure failed");
        eopt.zero_grad();
        ember::Tensor loss = (ember::tanh(ember::matmul(r.ex, r.ep[0]) + r.ep[1]) - r.ey).pow(2).mean();
        loss.backward();
        return loss;
      };
      auto tclosure = [&] {
        if (++tcalls == fail_at) throw std::runtime_error("closure failed");
        topt.zero_grad();
        torch::Tensor loss = (torch::tanh(torch::matmul(r.tx, r.tp[0]) + r.tp[1]) - r.ty).pow(2).mean();
        loss.backward();
        return loss;
      };
      REQUIRE_THROWS_AS(eopt.step(eclosure), std::runtime_error);
      REQUIRE_THROWS_AS(topt.step(tclosure), std::runtime_error);
      for (size_t i = 0; i < r.ep.size(); ++i) REQUIRE(max_rel_diff(r.ep[i], r.tp[i]) <= 1e-12);
      for (int s = 0; s < 2; ++s) {
        INFO("step " << s << " after the failure");
        const double el = eopt.step(eclosure).item<double>();
        const double tl = topt.step(tclosure).item<double>();
        REQUIRE(std::abs(el - tl) <= 1e-10 * (1 + std::abs(tl)));
        REQUIRE(ecalls == tcalls);
        for (size_t i = 0; i < r.ep.size(); ++i) REQUIRE(max_rel_diff(r.ep[i], r.tp[i]) <= 1e-10);
      }
      const auto& tstate = static_cast<const torch::optim::LBFGSParamState&>(
          *topt.state().at(c10::guts::to_string(r.tp[0].unsafeGetTensorImpl())));
      const auto est = eopt.state_tensors();
      REQUIRE(est.at("state.0.0.func_evals").item<int64_t>() == tstate.func_evals());
      REQUIRE(est.at("state.0.0.n_iter").item<int64_t>() == tstate.n_iter());
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
  REQUIRE(ember_text([&] { ember::optim::RMSprop({ep}, ember::optim::RMSpropOptions().alpha(-0.5)); }) ==
        torch_text([&] { torch::optim::RMSprop({tp}, torch::optim::RMSpropOptions().alpha(-0.5)); }));
  REQUIRE(ember_text([&] { ember::optim::RMSprop({ep}, ember::optim::RMSpropOptions().momentum(-2)); }) ==
        torch_text([&] { torch::optim::RMSprop({tp}, torch::optim::RMSpropOptions().momentum(-2)); }));
  REQUIRE(ember_text([&] { ember::optim::Adagrad({ep}, ember::optim::AdagradOptions().lr_decay(-1)); }) ==
        torch_text([&] { torch::optim::Adagrad({tp}, torch::optim::AdagradOptions().lr_decay(-1)); }));
  REQUIRE(ember_text([&] { ember::optim::Adagrad({ep}, ember::optim::AdagradOptions().initial_accumulator_value(-1)); }) ==
        torch_text([&] { torch::optim::Adagrad({tp}, torch::optim::AdagradOptions().initial_accumulator_value(-1)); }));
  REQUIRE(ember_text([&] { ember::optim::LBFGS({ep}).step(nullptr); }) ==
        torch_text([&] { torch::optim::LBFGS({tp}).step(nullptr); }));
  // libtorch refuses an unknown line search at the step, ember already at construction.
  REQUIRE(ember_text([&] { ember::optim::LBFGS({ep}, ember::optim::LBFGSOptions().line_search_fn("armijo")); }) ==
        torch_text([&] {
          torch::optim::LBFGS o({tp}, torch::optim::LBFGSOptions().line_search_fn("armijo"));
          o.step([&] {
            o.zero_grad();
            torch::Tensor l = (tp * tp).sum();
            l.backward();
            return l;
          });
        }));
  std::vector<ember::optim::OptimizerParamGroup> eg{ember::optim::OptimizerParamGroup({ep}),
                                                     ember::optim::OptimizerParamGroup({ember::ones({1}).requires_grad_()})};
  std::vector<torch::optim::OptimizerParamGroup> tg{torch::optim::OptimizerParamGroup({tp}),
                                                     torch::optim::OptimizerParamGroup({torch::ones({1}).requires_grad_()})};
  REQUIRE(ember_text([&] { ember::optim::LBFGS l(eg); }) == torch_text([&] { torch::optim::LBFGS l(tg); }));
}
