// Optimizers: SGD, Adam and AdamW against libtorch 1.13's formulas evaluated by hand in
// float64, 16-bit and strided parameters, param groups, zero_grad, StepLR, the checkpoint
// view, GradScaler, the errors, a user's own optimizer on the base class, and
// ReduceLROnPlateauScheduler (RMSprop, Adagrad and LBFGS have files of their own).
#include <catch2/catch.hpp>

#include <cmath>
#include <ember/optim.h>
#include <iostream>
#include <sstream>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using namespace ember::optim;
using Catch::Contains;
using ember_test::dvalues;

namespace {

const std::vector<double> kInit = {0.5, -1.25, 2.0};
// One gradient per step; the last repeats the first, so momentum and moments see reuse.
const std::vector<std::vector<double>> kGrads = {{0.1, -0.2, 0.3}, {-0.5, 0.25, 1.5}, {2.0, 0.0, -0.75},
                                                 {0.05, -1.0, 0.6}, {0.1, -0.2, 0.3}};

Tensor param(ScalarType dt = kDouble) { return tensor(kInit, TensorOptions(dt)).requires_grad_(); }
void set_grad(Tensor& p, size_t step) { p.mutable_grad() = tensor(kGrads[step], TensorOptions(p.dtype())); }

struct SgdCfg {
  double lr, momentum, dampening, wd;
  bool nesterov;
};

// libtorch 1.13's SGD::step, element by element, in double.
std::vector<double> sgd_reference(const SgdCfg& c, size_t steps) {
  std::vector<double> p = kInit, buf(3);
  for (size_t s = 0; s < steps; ++s)
    for (size_t i = 0; i < 3; ++i) {
      double d = kGrads[s][i] + c.wd * p[i];
      if (c.momentum != 0) {
        buf[i] = s == 0 ? d : buf[i] * c.momentum + (1 - c.dampening) * d;
        d = c.nesterov ? d + c.momentum * buf[i] : buf[i];
      }
      p[i] -= c.lr * d;
    }
  return p;
}

struct AdamCfg {
  double lr, b1, b2, eps, wd;
  bool amsgrad, decoupled;
};

// libtorch 1.13's Adam::step / AdamW::step in double.
std::vector<double> adam_reference(const AdamCfg& c, size_t steps) {
  std::vector<double> p = kInit, m(3), v(3), vmax(3);
  for (size_t s = 0; s < steps; ++s) {
    const double t = double(s + 1), bc1 = 1 - std::pow(c.b1, t), bc2 = 1 - std::pow(c.b2, t);
    for (size_t i = 0; i < 3; ++i) {
      double g = kGrads[s][i];
      if (c.decoupled) p[i] *= 1 - c.lr * c.wd;
      else g += c.wd * p[i];
      m[i] = m[i] * c.b1 + (1 - c.b1) * g;
      v[i] = v[i] * c.b2 + (1 - c.b2) * g * g;
      vmax[i] = std::max(vmax[i], v[i]);
      const double denom = std::sqrt(c.amsgrad ? vmax[i] : v[i]) / std::sqrt(bc2) + c.eps;
      p[i] -= c.lr / bc1 * m[i] / denom;
    }
  }
  return p;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

template <class Opt, class Options>
std::vector<double> run_steps(Options options, size_t steps, ScalarType dt = kDouble) {
  Tensor p = param(dt);
  Opt opt({p}, options);
  for (size_t s = 0; s < steps; ++s) {
    set_grad(p, s);
    opt.step();
  }
  return dvalues(p);
}

}  // namespace

TEST_CASE("optim: SGD follows libtorch's update for every option combination") {
  for (double momentum : {0.0, 0.9})
    for (double dampening : {0.0, 0.1})
      for (double wd : {0.0, 0.01})
        for (bool nesterov : {false, true}) {
          if (nesterov && (momentum == 0 || dampening != 0)) continue;
          const SgdCfg c{0.1, momentum, dampening, wd, nesterov};
          INFO("momentum " << momentum << " dampening " << dampening << " wd " << wd << " nesterov " << nesterov);
          const auto got = run_steps<SGD>(
              SGDOptions(c.lr).momentum(momentum).dampening(dampening).weight_decay(wd).nesterov(nesterov), 5);
          check_close(got, sgd_reference(c, 5), 1e-14);
        }
}

TEST_CASE("optim: Adam and AdamW follow libtorch's update (amsgrad, weight decay)") {
  for (bool amsgrad : {false, true})
    for (double wd : {0.0, 0.1}) {
      INFO("amsgrad " << amsgrad << " wd " << wd);
      const auto adam = run_steps<Adam>(AdamOptions(0.05).betas({0.8, 0.95}).eps(1e-6).weight_decay(wd).amsgrad(amsgrad), 5);
      check_close(adam, adam_reference({0.05, 0.8, 0.95, 1e-6, wd, amsgrad, false}, 5), 1e-13);
      const auto adamw =
          run_steps<AdamW>(AdamWOptions(0.05).betas({0.8, 0.95}).eps(1e-6).weight_decay(wd).amsgrad(amsgrad), 5);
      check_close(adamw, adam_reference({0.05, 0.8, 0.95, 1e-6, wd, amsgrad, true}, 5), 1e-13);
    }
  // AdamW decays by default (1e-2); Adam does not.
  CHECK(AdamWOptions().weight_decay() == 1e-2);
  CHECK(AdamOptions().weight_decay() == 0);
  CHECK(AdamOptions().lr() == 1e-3);
  check_close(run_steps<AdamW>(AdamWOptions(0.1), 3), adam_reference({0.1, 0.9, 0.999, 1e-8, 1e-2, false, true}, 3),
              1e-13);
}

TEST_CASE("optim: float32, float16 and bfloat16 parameters update in float math") {
  const AdamCfg c{0.05, 0.9, 0.999, 1e-8, 0.01, true, false};
  const auto want = adam_reference(c, 5);
  check_close(run_steps<Adam>(AdamOptions(0.05).weight_decay(0.01).amsgrad(true), 5, kFloat), want, 1e-6);
  check_close(run_steps<Adam>(AdamOptions(0.05).weight_decay(0.01).amsgrad(true), 5, kHalf), want, 4e-3);
  check_close(run_steps<Adam>(AdamOptions(0.05).weight_decay(0.01).amsgrad(true), 5, kBFloat16), want, 3e-2);
  const auto sgd = sgd_reference({0.1, 0.9, 0, 0.01, true}, 5);
  check_close(run_steps<SGD>(SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(true), 5, kFloat), sgd, 1e-6);
  check_close(run_steps<SGD>(SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(true), 5, kBFloat16), sgd, 3e-2);
}

TEST_CASE("optim: a strided parameter and a large one update in place") {
  Tensor base = zeros({3, 2}, kDouble);
  base.select(1, 0).copy_(tensor(kInit, kDouble));
  base.requires_grad_();
  Tensor p = base;  // the leaf; its gradient is strided too
  SGD opt({p}, SGDOptions(0.1).momentum(0.9));
  for (size_t s = 0; s < 3; ++s) {
    Tensor g = zeros({2, 3}, kDouble);
    g.select(0, 0).copy_(tensor(kGrads[s], kDouble));
    p.mutable_grad() = g.t();  // non-contiguous gradient
    opt.step();
  }
  check_close(dvalues(p.select(1, 0)), sgd_reference({0.1, 0.9, 0, 0, false}, 3), 1e-14);
  check_close(dvalues(p.select(1, 1)), {0, 0, 0}, 0);

  // Above the parallel grain: every element gets the same update as a small tensor's.
  Tensor big = full({100000}, 2.0, kFloat).requires_grad_();
  Adam adam({big}, AdamOptions(0.1));
  big.mutable_grad() = full({100000}, 0.5, kFloat);
  adam.step();
  const auto v = dvalues(big);
  CHECK(std::abs(v.front() - (2.0 - 0.1)) < 1e-6);  // first Adam step moves by lr
  CHECK(v.front() == v.back());
  CHECK(v[54321] == v.front());
}

TEST_CASE("optim: param groups keep their own options; parameters without gradients are skipped") {
  Tensor a = param(), b = param(), c = param();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<SGDOptions>(SGDOptions(0.5)));
  SGD opt(groups, SGDOptions(0.1));
  opt.add_param_group(OptimizerParamGroup({c}, std::make_unique<SGDOptions>(SGDOptions(0.01).momentum(0.9))));
  CHECK(opt.param_groups().size() == 3);
  CHECK(opt.size() == 3);
  CHECK(opt.param_groups()[0].options().get_lr() == 0.1);
  CHECK(opt.param_groups()[1].options().get_lr() == 0.5);
  set_grad(a, 0);
  set_grad(b, 0);
  opt.step();  // c has no gradient: untouched, no state
  check_close(dvalues(a), sgd_reference({0.1, 0, 0, 0, false}, 1), 1e-15);
  check_close(dvalues(b), sgd_reference({0.5, 0, 0, 0, false}, 1), 1e-15);
  check_close(dvalues(c), kInit, 0);
  CHECK(opt.state().empty());
  CHECK_THROWS_WITH(opt.add_param_group(OptimizerParamGroup({a})),
                    Contains("some parameters appear in more than one parameter group"));
  Tensor nonleaf = param() * 2;
  CHECK_THROWS_WITH(opt.add_param_group(OptimizerParamGroup({nonleaf})), "can't optimize a non-leaf Tensor");
  CHECK_THROWS_WITH(opt.add_param_group(OptimizerParamGroup({param()}, std::make_unique<SGDOptions>(-1.0))),
                    "Invalid learning rate: -1");
  CHECK(opt.param_groups().size() == 3);
}

TEST_CASE("optim: zero_grad sets gradients to none or to zeros") {
  Tensor p = param();
  SGD opt({p}, SGDOptions(0.1));
  (p * p).sum().backward();
  REQUIRE(p.grad().defined());
  opt.zero_grad();  // libtorch 1.13's default: zeros
  REQUIRE(p.grad().defined());
  check_close(dvalues(p.grad()), {0, 0, 0}, 0);
  (p * p).sum().backward();  // accumulates into the zeroed gradient
  check_close(dvalues(p.grad()), {1.0, -2.5, 4.0}, 0);
  opt.zero_grad(/*set_to_none=*/true);
  CHECK_FALSE(p.grad().defined());
}

TEST_CASE("optim: step with a closure returns its loss, computed with gradients on") {
  Tensor p = param();
  SGD opt({p}, SGDOptions(0.1));
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (p * p).sum();
    l.backward();
    return l;
  });
  CHECK(loss.item<double>() == 0.25 + 1.5625 + 4.0);
  check_close(dvalues(p), {0.5 - 0.1, -1.25 + 0.25, 2.0 - 0.4}, 1e-15);
  CHECK_FALSE(opt.step().defined());
}

TEST_CASE("optim: StepLR multiplies each group's lr by gamma as libtorch's C++ scheduler") {
  Tensor a = param(), b = param();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<SGDOptions>(SGDOptions(1.0)));
  SGD opt(groups, SGDOptions(0.1));
  StepLR sched(opt, 2, 0.5);
  std::vector<double> lr0, lr1;
  for (int i = 0; i < 6; ++i) {
    sched.step();
    lr0.push_back(opt.param_groups()[0].options().get_lr());
    lr1.push_back(opt.param_groups()[1].options().get_lr());
  }
  // libtorch 1.13 C++: no decay on the first call; then every step_size calls.
  CHECK(lr0 == std::vector<double>{0.1, 0.1, 0.05, 0.05, 0.025, 0.025});
  CHECK(lr1 == std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.25, 0.25});
  CHECK_THROWS_WITH(StepLR(opt, 0), Contains("step_size must be positive"));
}

TEST_CASE("optim: invalid options and gradients raise libtorch's errors and change nothing") {
  Tensor p = param();
  CHECK_THROWS_AS(SGD({p}, SGDOptions(-0.1)), InvalidArgument);
  CHECK_THROWS_WITH(SGD({p}, SGDOptions(-0.1)), "Invalid learning rate: -0.1");
  CHECK_THROWS_WITH(SGD({p}, SGDOptions(0.1).momentum(-1)), "Invalid momentum value: -1");
  CHECK_THROWS_WITH(SGD({p}, SGDOptions(0.1).weight_decay(-1)), "Invalid weight_decay value: -1");
  CHECK_THROWS_WITH(SGD({p}, SGDOptions(0.1).nesterov(true)), "Nesterov momentum requires a momentum and zero dampening");
  CHECK_THROWS_WITH(SGD({p}, SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
                    "Nesterov momentum requires a momentum and zero dampening");
  CHECK_THROWS_WITH(Adam({p}, AdamOptions(-1)), "Invalid learning rate: -1");
  CHECK_THROWS_WITH(Adam({p}, AdamOptions().eps(-1)), "Invalid epsilon value: -1");
  CHECK_THROWS_WITH(Adam({p}, AdamOptions().betas({1.0, 0.9})), "Invalid beta parameter at index 0: 1");
  CHECK_THROWS_WITH(AdamW({p}, AdamWOptions().betas({0.9, -0.5})), "Invalid beta parameter at index 1: -0.5");
  CHECK_THROWS_WITH(AdamW({p}, AdamWOptions().weight_decay(-1)), "Invalid weight_decay value: -1");

  Adam adam({p}, AdamOptions(0.1));
  p.mutable_grad() = tensor({1.0, 2.0}, kDouble);
  CHECK_THROWS_WITH(adam.step(), "Adam: the gradient of parameter 0 of group 0 has shape [2], but the parameter has "
                                 "shape [3]");
  p.mutable_grad() = tensor({1.0f, 2.0f, 3.0f}, kFloat);
  CHECK_THROWS_WITH(adam.step(), Contains("has dtype float32, but the parameter has dtype float64"));
  check_close(dvalues(p), kInit, 0);
  CHECK(adam.state().empty());  // a failed first step leaves no state behind

  SGD sgd({p}, SGDOptions(0.1).momentum(0.9));
  CHECK_THROWS_AS(sgd.step(), InvalidArgument);
  CHECK(sgd.state().empty());

  Tensor ip = tensor({1, 2, 3}, kInt64);
  ip.mutable_grad() = tensor({1, 1, 1}, kInt64);
  SGD isgd({ip}, SGDOptions(0.1));
  CHECK_THROWS_WITH(isgd.step(), Contains("SGD: parameter 0 of group 0 has dtype int64"));
}

TEST_CASE("optim: state_tensors round-trips and load_state_tensors validates") {
  Tensor p = param(), q = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Adam a({p, q}, AdamOptions(0.05).amsgrad(true));
  for (size_t s = 0; s < 2; ++s) {
    set_grad(p, s);
    q.mutable_grad() = tensor({0.5, -0.5}, kDouble);
    a.step();
  }
  const auto saved = a.state_tensors();
  CHECK(saved.at("state.0.0.step").item<int64_t>() == 2);
  CHECK(saved.count("state.0.1.max_exp_avg_sq") == 1);
  CHECK(saved.at("param_groups.0.lr").item<double>() == 0.05);
  CHECK(saved.at("param_groups.0.size").item<int64_t>() == 2);

  // A fresh optimizer on copies of the parameters continues exactly as the original.
  Tensor p2 = p.detach().clone().requires_grad_(), q2 = q.detach().clone().requires_grad_();
  Adam b({p2, q2}, AdamOptions(0.5));
  b.load_state_tensors(saved);
  CHECK(b.param_groups()[0].options().get_lr() == 0.05);
  for (size_t s = 2; s < 5; ++s) {
    set_grad(p, s);
    set_grad(p2, s);
    q.mutable_grad() = q2.mutable_grad() = tensor({0.25, 1.0}, kDouble);
    a.step();
    b.step();
  }
  CHECK(dvalues(p) == dvalues(p2));
  CHECK(dvalues(q) == dvalues(q2));
  check_close(dvalues(p), adam_reference({0.05, 0.9, 0.999, 1e-8, 0, true, false}, 5), 1e-13);

  // Errors name the problem and leave the optimizer as it was.
  Tensor r = param().requires_grad_();
  Adam c({r}, AdamOptions(0.3));
  auto bad = saved;
  CHECK_THROWS_WITH(c.load_state_tensors(bad), Contains("parameter group 0 of the checkpoint has 2 parameters, "
                                                                 "but the optimizer's has 1"));
  Adam d({p2, q2}, AdamOptions(0.3));
  bad = saved;
  bad["state.0.1.exp_avg"] = zeros({3}, kDouble);
  CHECK_THROWS_WITH(d.load_state_tensors(bad), Contains("'state.0.1.exp_avg' has shape [3] and dtype float64, "
                                                                 "but its parameter has shape [2] and dtype float64"));
  bad = saved;
  bad["state.0.0.momentum"] = zeros({3}, kDouble);
  CHECK_THROWS_WITH(d.load_state_tensors(bad), Contains("'momentum' is not a state field of this optimizer"));
  bad = saved;
  bad["weights"] = zeros({3}, kDouble);
  CHECK_THROWS_WITH(d.load_state_tensors(bad), Contains("unexpected key 'weights'"));
  bad = saved;
  bad["param_groups.0.lr"] = scalar_tensor(-1.0, kDouble);
  CHECK_THROWS_WITH(d.load_state_tensors(bad), "Invalid learning rate: -1");
  bad = saved;
  bad.erase("param_groups.0.eps");
  CHECK_THROWS_WITH(d.load_state_tensors(bad), Contains("missing 'param_groups.0.eps'"));
  CHECK(d.state().empty());
  CHECK(d.param_groups()[0].options().get_lr() == 0.3);

  // SGD's momentum buffers round-trip too.
  Tensor s1 = param();
  SGD sgd({s1}, SGDOptions(0.1).momentum(0.9));
  set_grad(s1, 0);
  sgd.step();
  const auto st = sgd.state_tensors();
  REQUIRE(st.count("state.0.0.momentum_buffer") == 1);
  check_close(dvalues(st.at("state.0.0.momentum_buffer")), kGrads[0], 0);
  CHECK(st.at("param_groups.0.momentum").item<double>() == 0.9);
}

TEST_CASE("optim: GradScaler scales, unscales, skips non-finite steps and adapts the scale") {
  GradScaler scaler;
  CHECK(scaler.get_scale() == 65536.0);
  Tensor p = tensor({1.0f, 2.0f}, kFloat).requires_grad_();
  SGD opt({p}, SGDOptions(1.0));
  Tensor loss = scaler.scale((p * p).sum());
  CHECK(loss.item<float>() == 5.0f * 65536.0f);
  loss.backward();
  check_close(dvalues(p.grad()), {2.0 * 65536, 4.0 * 65536}, 0);
  scaler.unscale_(opt);
  check_close(dvalues(p.grad()), {2.0, 4.0}, 0);
  CHECK_THROWS_WITH(scaler.unscale_(opt), "unscale_() has already been called on this optimizer since the last update().");
  CHECK(scaler.step(opt).defined() == false);  // SGD without closure returns no loss
  check_close(dvalues(p), {-1.0, -2.0}, 0);
  CHECK_THROWS_WITH(scaler.step(opt), "step() has already been called since the last update().");
  scaler.update();
  CHECK(scaler.get_scale() == 65536.0);
  CHECK(scaler.get_growth_tracker() == 1);

  // An inf gradient: the step is skipped and the scale backs off.
  p.mutable_grad() = tensor({INFINITY, 1.0f}, kFloat);
  scaler.step(opt);
  check_close(dvalues(p), {-1.0, -2.0}, 0);
  scaler.update();
  CHECK(scaler.get_scale() == 32768.0);
  CHECK(scaler.get_growth_tracker() == 0);
  p.mutable_grad() = tensor({NAN, 1.0f}, kFloat);
  scaler.step(opt);
  scaler.update();
  CHECK(scaler.get_scale() == 16384.0);

  // growth_interval clean steps in a row double the scale.
  GradScaler grow(GradScalerOptions().init_scale(8.0).growth_interval(3));
  for (int i = 0; i < 3; ++i) {
    p.mutable_grad() = tensor({8.0f, 8.0f}, kFloat);
    grow.step(opt);
    grow.update();
  }
  CHECK(grow.get_scale() == 16.0);
  grow.update(4.0);
  CHECK(grow.get_scale() == 4.0);

  // A large, strided gradient (the threaded, copied-back path) with one NaN at its end.
  Tensor big = zeros({2, 50000}, kFloat).requires_grad_();
  Tensor bg = full({50000, 2}, 64.0f, kFloat);
  bg.index_put_({-1, 0}, NAN);
  big.mutable_grad() = bg.t();
  SGD bopt({big}, SGDOptions(1.0));
  GradScaler bs(GradScalerOptions().init_scale(32.0));
  bs.unscale_(bopt);
  const auto bv = dvalues(big.grad());
  CHECK(bv[0] == 2.0);
  CHECK(bv[50000] == 2.0);
  CHECK(std::isnan(bv[49999]));
  CHECK(bs.step(bopt).defined() == false);
  CHECK(dvalues(big)[0] == 0.0);  // skipped
  bs.update();
  CHECK(bs.get_scale() == 16.0);

  GradScaler off(GradScalerOptions().enabled(false));
  CHECK(off.get_scale() == 1.0);
  CHECK(off.scale(p).data_ptr() == p.data_ptr());

  Tensor h = tensor({1.0f}, kHalf).requires_grad_();
  h.mutable_grad() = tensor({1.0f}, kHalf);
  SGD hopt({h}, SGDOptions(0.1));
  CHECK_THROWS_WITH(scaler.unscale_(hopt), "GradScaler::unscale_: Attempting to unscale FP16 gradients.");
  CHECK_THROWS_WITH(GradScaler(GradScalerOptions().growth_factor(0.5)), Contains("The growth factor must be > 1.0"));
  GradScaler fresh;
  CHECK_THROWS_WITH(fresh.update(), "No inf checks were recorded prior to update.");
}

TEST_CASE("optim: the fused steps run on the test accelerator and match the CPU") {
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  REQUIRE(has_kernel(Op::AdamStep, kPrivateUse1, kFloat));
  Tensor pc = param(kFloat), pd = param(kFloat).to(npu).detach().requires_grad_();
  AdamW a({pc}, AdamWOptions(0.05).amsgrad(true));
  AdamW b({pd}, AdamWOptions(0.05).amsgrad(true));
  for (size_t s = 0; s < 5; ++s) {
    set_grad(pc, s);
    pd.mutable_grad() = tensor(kGrads[s], kFloat).to(npu);
    a.step();
    b.step();
  }
  CHECK(pd.device() == npu);
  CHECK(b.state_tensors().at("state.0.0.exp_avg").device() == npu);
  CHECK(dvalues(pc) == dvalues(pd));
}

namespace {

// A user's optimizer written as for libtorch: options and state through the Cloneable
// helpers, the update with ordinary ops.
struct SignSGDOptions : public OptimizerCloneableOptions<SignSGDOptions> {
  explicit SignSGDOptions(double lr) : lr_(lr) {}
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  double lr_;
};

struct SignSGDState : public OptimizerCloneableParamState<SignSGDState> {
  int64_t steps = 0;
};

class SignSGD : public Optimizer {
 public:
  SignSGD(std::vector<Tensor> params, SignSGDOptions defaults)
      : Optimizer(std::move(params), std::make_unique<SignSGDOptions>(defaults)) {}
  Tensor step(LossClosure closure = nullptr) override {
    NoGradGuard no_grad;
    Tensor loss = closure ? closure() : Tensor();
    for (auto& group : param_groups())
      for (auto& p : group.params()) {
        if (!p.grad().defined()) continue;
        p.add_(p.grad().sign(), -group.options().get_lr());
        auto& slot = state()[p.unsafe_impl()];
        if (!slot) slot = std::make_unique<SignSGDState>();
        static_cast<SignSGDState&>(*slot).steps += 1;
      }
    return loss;
  }
};

struct NoLrOptions : public OptimizerCloneableOptions<NoLrOptions> {};

}  // namespace

TEST_CASE("optim: the Optimizer base takes a user's optimizer written for libtorch") {
  Tensor p = param();
  SignSGD opt({p}, SignSGDOptions(0.5));
  set_grad(p, 0);
  opt.step();
  check_close(dvalues(p), {0.0, -0.75, 1.5}, 0);
  StepLR sched(opt, 1, 0.5);
  sched.step();
  sched.step();
  CHECK(opt.param_groups()[0].options().get_lr() == 0.25);
  const Optimizer& c = opt;
  REQUIRE(c.state().size() == 1);
  CHECK(static_cast<const SignSGDState&>(*c.state().begin()->second).steps == 1);
  auto copy = c.state().begin()->second->clone();
  CHECK(dynamic_cast<SignSGDState*>(copy.get()) != nullptr);
  CHECK(opt.param_groups()[0].options().clone()->get_lr() == 0.25);
  // Its state has no checkpoint form: saving writes the options' count only, loading refuses.
  const auto st = opt.state_tensors();
  CHECK(st.count("param_groups.0.size") == 1);
  auto bad = st;
  bad["state.0.0.steps"] = scalar_tensor(int64_t(1), kInt64);
  CHECK_THROWS_WITH(opt.load_state_tensors(bad), Contains("this optimizer keeps no state a checkpoint can set"));

  CHECK_THROWS_WITH(NoLrOptions().get_lr(), Contains("double get_lr() has not been overidden"));
  CHECK_THROWS_WITH(NoLrOptions().set_lr(1), Contains("double set_lr() has not been overidden"));
  CHECK_THROWS_WITH(OptimizerOptions().clone(), Contains("Subclass ember::optim::OptimizerCloneableOptions"));
  CHECK_THROWS_WITH(OptimizerParamState().clone(), Contains("Subclass ember::optim::OptimizerCloneableParamState"));
}

TEST_CASE("optim: add_parameters appends to the first group; parameters() and state() as libtorch") {
  struct Deprecations : WarningHandler {
    std::vector<std::string> seen;
    void process(const Warning& w) override { seen.push_back(w.msg()); }
  } deprecations;
  WarningUtils::WarningHandlerGuard guard(&deprecations);
  Tensor a = param(), b = param();
  SGD opt({a}, SGDOptions(0.1));
  CHECK(deprecations.seen.empty());
  opt.add_parameters({b});
  CHECK(deprecations.seen ==
        std::vector<std::string>{"Optimizer::add_parameters() will be removed in PyTorch 1.6"});
  REQUIRE(opt.param_groups().size() == 1);
  CHECK(opt.parameters().size() == 2);
  CHECK(opt.size() == 2);
  CHECK_THROWS_WITH(opt.add_parameters({a}), "some parameters appear in more than one parameter group");
  Tensor nonleaf = param() * 2;
  CHECK_THROWS_WITH(opt.add_parameters({nonleaf}), "can't optimize a non-leaf Tensor");
  CHECK(opt.parameters().size() == 2);
  set_grad(b, 0);
  opt.step();
  check_close(dvalues(b), sgd_reference({0.1, 0, 0, 0, false}, 1), 1e-15);
  std::vector<Tensor>& ps = opt.parameters();  // the non-const overload: the group's own list
  ps.pop_back();
  CHECK(opt.size() == 1);
  const SGD& c = opt;
  CHECK(c.parameters().size() == 1);
  CHECK(c.state().empty());
}

TEST_CASE("optim: ReduceLROnPlateauScheduler lowers the lr after patience bad epochs, as libtorch's") {
  Tensor p = zeros({1});
  Adam opt({p}, AdamOptions().lr(1e-3));
  ReduceLROnPlateauScheduler sched(opt, ReduceLROnPlateauScheduler::SchedulerMode::min, 0.5, 20);
  std::vector<double> lrs;
  for (int i = 0; i < 45; ++i) {
    opt.step();  // no gradient: nothing moves
    sched.step(5.0f);
    lrs.push_back(opt.param_groups()[0].options().get_lr());
  }
  // The first call sets the best; 21 bad epochs later (call 22) the lr halves, then again 21 later.
  CHECK(lrs[20] == 1e-3);
  CHECK(lrs[21] == 5e-4);
  CHECK(lrs[41] == 5e-4);
  CHECK(lrs[42] == 2.5e-4);

  // factor is a float, as libtorch's: 1.0 * 0.1f, not 0.1.
  SGD sgd({param()}, SGDOptions(1.0));
  ReduceLROnPlateauScheduler fast(sgd, ReduceLROnPlateauScheduler::min, 0.1f, 0);
  fast.step(1.0f);
  fast.step(1.0f);
  CHECK(sgd.param_groups()[0].options().get_lr() == double(0.1f));
}

TEST_CASE("optim: ReduceLROnPlateauScheduler's thresholds, modes, cooldown, min_lr and eps") {
  auto lr_after = [](ReduceLROnPlateauScheduler::SchedulerMode mode, ReduceLROnPlateauScheduler::ThresholdMode tm,
                     double threshold, std::vector<float> metrics, int cooldown = 0) {
    SGD opt({param()}, SGDOptions(1.0));
    ReduceLROnPlateauScheduler s(opt, mode, 0.5f, 0, threshold, tm, cooldown);
    std::vector<double> lrs;
    for (float m : metrics) {
      s.step(m);
      lrs.push_back(opt.param_groups()[0].options().get_lr());
    }
    return lrs;
  };
  using S = ReduceLROnPlateauScheduler;
  // patience 0: every epoch that does not improve halves the lr.
  CHECK(lr_after(S::min, S::rel, 1e-4, {1.0f, 0.5f, 0.49999f, 0.4f}) == std::vector<double>{1, 1, 0.5, 0.5});
  CHECK(lr_after(S::min, S::abs, 0.1, {1.0f, 0.95f, 0.85f, 0.8f}) == std::vector<double>{1, 0.5, 0.5, 0.25});
  CHECK(lr_after(S::max, S::rel, 0.1, {1.0f, 1.05f, 1.2f}) == std::vector<double>{1, 0.5, 0.5});
  CHECK(lr_after(S::max, S::abs, 0.1, {1.0f, 1.05f, 1.2f}) == std::vector<double>{1, 0.5, 0.5});
  CHECK(lr_after(S::max, S::abs, 0.1, {-5.0f, -4.0f, -3.0f}) == std::vector<double>{1, 1, 1});  // improving
  // cooldown 2: after a reduction two epochs pass uncounted.
  CHECK(lr_after(S::min, S::rel, 1e-4, {1, 1, 1, 1, 1, 1, 1, 1}, 2) ==
        std::vector<double>{1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125});

  // min_lr per group, and eps: no change smaller than eps.
  Tensor a = param(), b = param();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b}, std::make_unique<SGDOptions>(SGDOptions(1e-9)));
  SGD opt(groups, SGDOptions(1.0));
  ReduceLROnPlateauScheduler s(opt, S::min, 0.5f, 0, 1e-4, S::rel, 0, {0.3f, 0.0f}, 1e-8);
  for (int i = 0; i < 4; ++i) s.step(2.0f);
  CHECK(opt.param_groups()[0].options().get_lr() == double(0.3f));  // 1, 0.5, then held at min_lr
  CHECK(opt.param_groups()[1].options().get_lr() == 1e-9);         // halving would change it by < eps

  CHECK_THROWS_AS(ReduceLROnPlateauScheduler(opt, S::min, 1.5f), InvalidArgument);
  CHECK_THROWS_WITH(ReduceLROnPlateauScheduler(opt, S::min, 1.0f), "Factor should be < 1.0.");
  CHECK_THROWS_WITH(ReduceLROnPlateauScheduler(opt, S::min, 0.1f, 10, 1e-4, S::rel, 0, {0.1f}),
                    "Number of learning rates not equal to the number of param groups\n"
                    "Number of learning rates given: 1\nNumber of param groups: 2");
}

TEST_CASE("optim: a verbose ReduceLROnPlateauScheduler prints libtorch's line") {
  SGD opt({param()}, SGDOptions(0.1));
  ReduceLROnPlateauScheduler s(opt, ReduceLROnPlateauScheduler::min, 0.5f, 0, 1e-4, ReduceLROnPlateauScheduler::rel, 0,
                               {}, 1e-8, true);
  std::ostringstream out;
  std::streambuf* old = std::cout.rdbuf(out.rdbuf());
  const auto precision = std::cout.precision();
  s.step(1.0f);
  s.step(1.0f);
  std::cout.rdbuf(old);
  CHECK(out.str() == "Epoch 2: reducing learning rate of group 0 to 0.05\n");
  CHECK(std::cout.precision() == precision);
}

TEST_CASE("optim: options and param states compare by value, as libtorch's operator==") {
  CHECK(SGDOptions(0.1).momentum(0.9) == SGDOptions(0.1).momentum(0.9));
  CHECK(SGDOptions(0.1) != SGDOptions(0.1).nesterov(true));
  CHECK(AdamOptions(1e-3).betas(std::make_tuple(0.8, 0.9)) != AdamOptions(1e-3));
  CHECK(AdamWOptions() == AdamWOptions());
  AdamParamState x, y;
  x.step(2);
  y.step(2);
  x.exp_avg(tensor({1.0, 2.0}));
  y.exp_avg(tensor({1.0, 2.0}));
  CHECK(x == y);
  y.exp_avg(tensor({1.0, 3.0}));
  CHECK(x != y);
  y.exp_avg(tensor({1.0, 2.0}));
  y.step(3);
  CHECK(x != y);
}
