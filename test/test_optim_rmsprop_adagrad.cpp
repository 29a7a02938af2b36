// RMSprop and Adagrad against libtorch 1.13's formulas evaluated by hand in float64 (every
// option), 16-bit parameters, their state, checkpoints that resume bit for bit, the test
// accelerator, and their errors.
#include <ember/optim.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using namespace ember::optim;
using Catch::Contains;
using ember_test::dvalues;
using ember_test::TempDir;

namespace {

const std::vector<double> kInit = {0.5, -1.25, 2.0};
const std::vector<std::vector<double>> kGrads = {
    {0.1, -0.2, 0.3}, {-0.5, 0.25, 1.5}, {2.0, 0.0, -0.75}, {0.05, -1.0, 0.6}, {0.1, -0.2, 0.3}};

Tensor param(ScalarType dt = kDouble) { return tensor(kInit, TensorOptions(dt)).requires_grad_(); }
void set_grad(Tensor& p, size_t step) { p.mutable_grad() = tensor(kGrads[step], TensorOptions(p.dtype())); }

struct RmsCfg {
  double lr, alpha, eps, wd, momentum;
  bool centered;
};

// libtorch 1.13's RMSprop::step, element by element, in double.
std::vector<double> rmsprop_reference(const RmsCfg& c, size_t steps) {
  std::vector<double> p = kInit, sq(3), buf(3), ga(3);
  for (size_t s = 0; s < steps; ++s)
    for (size_t i = 0; i < 3; ++i) {
      const double g = kGrads[s][i] + c.wd * p[i];
      sq[i] = sq[i] * c.alpha + (1 - c.alpha) * g * g;
      double avg;
      if (c.centered) {
        ga[i] = ga[i] * c.alpha + (1 - c.alpha) * g;
        avg = std::sqrt(sq[i] - ga[i] * ga[i]) + c.eps;
      } else {
        avg = std::sqrt(sq[i]) + c.eps;
      }
      if (c.momentum > 0) {
        buf[i] = buf[i] * c.momentum + g / avg;
        p[i] -= c.lr * buf[i];
      } else {
        p[i] -= c.lr * g / avg;
      }
    }
  return p;
}

struct AdagradCfg {
  double lr, lr_decay, wd, init, eps;
};

// libtorch 1.13's Adagrad::step in double.
std::vector<double> adagrad_reference(const AdagradCfg& c, size_t steps) {
  std::vector<double> p = kInit, sum(3, c.init);
  for (size_t s = 0; s < steps; ++s) {
    const double clr = c.lr / (1 + double(s) * c.lr_decay);
    for (size_t i = 0; i < 3; ++i) {
      const double g = kGrads[s][i] + c.wd * p[i];
      sum[i] += g * g;
      p[i] -= clr * g / (std::sqrt(sum[i]) + c.eps);
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

// Runs `steps` steps of a fresh optimizer on fresh parameters from the same start.
template <class Opt, class Options>
std::pair<Tensor, std::unique_ptr<Opt>> run(Options options, size_t from, size_t to, Tensor p = Tensor()) {
  if (!p.defined()) p = param();
  auto opt = std::make_unique<Opt>(std::vector<Tensor>{p}, options);
  for (size_t s = from; s < to; ++s) {
    set_grad(p, s);
    opt->step();
  }
  return {p, std::move(opt)};
}

}  // namespace

TEST_CASE("optim: RMSprop follows libtorch's update for every option combination") {
  for (double momentum : {0.0, 0.9})
    for (double wd : {0.0, 0.05})
      for (bool centered : {false, true}) {
        INFO("momentum " << momentum << " wd " << wd << " centered " << centered);
        const RmsCfg c{0.02, 0.9, 1e-6, wd, momentum, centered};
        const auto got = run_steps<RMSprop>(
            RMSpropOptions(c.lr).alpha(c.alpha).eps(c.eps).weight_decay(wd).momentum(momentum).centered(
                centered),
            5);
        check_close(got, rmsprop_reference(c, 5), 1e-13);
      }
  // libtorch's defaults, and one first step worked out: square_avg = 0.01 * 0.1^2, so the
  // step is lr * 0.1 / (0.01 + 1e-8).
  const RMSpropOptions d;
  CHECK(d.lr() == 1e-2);
  CHECK(d.alpha() == 0.99);
  CHECK(d.eps() == 1e-8);
  CHECK(d.weight_decay() == 0);
  CHECK(d.momentum() == 0);
  CHECK_FALSE(d.centered());
  const auto first = run_steps<RMSprop>(RMSpropOptions(), 1);
  CHECK(std::abs(first[0] - 0.4000000999999) < 1e-14);
  check_close(first, rmsprop_reference({0.01, 0.99, 1e-8, 0, 0, false}, 1), 1e-15);
}

TEST_CASE("optim: Adagrad follows libtorch's update (lr_decay, weight decay, initial accumulator)") {
  for (double lr_decay : {0.0, 0.1})
    for (double wd : {0.0, 0.05})
      for (double init : {0.0, 0.5}) {
        INFO("lr_decay " << lr_decay << " wd " << wd << " init " << init);
        const AdagradCfg c{0.1, lr_decay, wd, init, 1e-9};
        const auto got = run_steps<Adagrad>(
            AdagradOptions(c.lr).lr_decay(lr_decay).weight_decay(wd).initial_accumulator_value(init).eps(
                c.eps),
            5);
        check_close(got, adagrad_reference(c, 5), 1e-13);
      }
  const AdagradOptions d;
  CHECK(d.lr() == 1e-2);
  CHECK(d.lr_decay() == 0);
  CHECK(d.initial_accumulator_value() == 0);
  CHECK(d.eps() == 1e-10);
  // The first step of plain Adagrad moves by lr * g / (|g| + eps): 0.01 * 0.1 / (0.1 + 1e-10).
  const auto first = run_steps<Adagrad>(AdagradOptions(), 1);
  CHECK(std::abs(first[0] - 0.49000000001) < 1e-14);
}

TEST_CASE("optim: RMSprop and Adagrad update 16-bit and float32 parameters in float math") {
  const RmsCfg rc{0.02, 0.9, 1e-6, 0.05, 0.9, true};
  const auto rms = rmsprop_reference(rc, 5);
  const auto ropts =
      RMSpropOptions(0.02).alpha(0.9).eps(1e-6).weight_decay(0.05).momentum(0.9).centered(true);
  check_close(run_steps<RMSprop>(ropts, 5, kFloat), rms, 2e-6);
  check_close(run_steps<RMSprop>(ropts, 5, kHalf), rms, 4e-3);
  check_close(run_steps<RMSprop>(ropts, 5, kBFloat16), rms, 3e-2);
  const AdagradCfg ac{0.1, 0.1, 0.05, 0.5, 1e-9};
  const auto ada = adagrad_reference(ac, 5);
  const auto aopts =
      AdagradOptions(0.1).lr_decay(0.1).weight_decay(0.05).initial_accumulator_value(0.5).eps(1e-9);
  check_close(run_steps<Adagrad>(aopts, 5, kFloat), ada, 1e-6);
  check_close(run_steps<Adagrad>(aopts, 5, kHalf), ada, 4e-3);
  check_close(run_steps<Adagrad>(aopts, 5, kBFloat16), ada, 3e-2);
}

TEST_CASE("optim: RMSprop keeps momentum and grad_avg buffers only when its options use them") {
  Tensor p = param();
  RMSprop plain({p}, RMSpropOptions(0.01));
  CHECK(plain.state().empty());
  set_grad(p, 0);
  plain.step();
  auto st = plain.state_tensors();
  CHECK(st.at("state.0.0.step").item<int64_t>() == 1);
  check_close(dvalues(st.at("state.0.0.square_avg")), {0.01 * 0.01, 0.01 * 0.04, 0.01 * 0.09}, 1e-15);
  CHECK(st.count("state.0.0.momentum_buffer") == 0);
  CHECK(st.count("state.0.0.grad_avg") == 0);
  // Turning momentum and centering on later starts their buffers at zero.
  plain.param_groups()[0].options().set_value("momentum", 0.5);
  static_cast<RMSpropOptions&>(plain.param_groups()[0].options()).centered(true);
  set_grad(p, 1);
  plain.step();
  st = plain.state_tensors();
  CHECK(st.at("state.0.0.step").item<int64_t>() == 2);
  CHECK(st.count("state.0.0.momentum_buffer") == 1);
  check_close(dvalues(st.at("state.0.0.grad_avg")), {0.01 * -0.5, 0.01 * 0.25, 0.01 * 1.5}, 1e-15);
}

TEST_CASE("optim: Adagrad makes every parameter's state at construction, from its group's options") {
  Tensor a = param(), b = param();
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{a});
  groups.emplace_back(std::vector<Tensor>{b},
                      std::make_unique<AdagradOptions>(AdagradOptions(0.5).initial_accumulator_value(2)));
  Adagrad opt(groups, AdagradOptions(0.1).initial_accumulator_value(0.25));
  REQUIRE(opt.state().size() == 2);
  const auto st = opt.state_tensors();
  CHECK(st.at("state.0.0.step").item<int64_t>() == 0);
  CHECK(dvalues(st.at("state.0.0.sum")) == std::vector<double>{0.25, 0.25, 0.25});
  CHECK(dvalues(st.at("state.1.0.sum")) == std::vector<double>{2, 2, 2});
  set_grad(b, 0);
  opt.step();  // a has no gradient: untouched, its state too
  CHECK(dvalues(a) == kInit);
  CHECK(opt.state_tensors().at("state.0.0.step").item<int64_t>() == 0);
  check_close(dvalues(b), adagrad_reference({0.5, 0, 0, 2, 1e-10}, 1), 1e-15);
  // A group added later gets its state at its first step.
  Tensor c = param();
  opt.add_param_group(OptimizerParamGroup({c}, std::make_unique<AdagradOptions>(AdagradOptions(0.1))));
  CHECK(opt.state().size() == 2);
  set_grad(c, 0);
  opt.step();
  CHECK(opt.state().size() == 3);
  check_close(dvalues(c), adagrad_reference({0.1, 0, 0, 0, 1e-10}, 1), 1e-15);
}

TEST_CASE("optim: RMSprop and Adagrad return the closure's loss") {
  Tensor p = param();
  RMSprop r({p}, RMSpropOptions(0.01));
  Tensor loss = r.step([&] {
    r.zero_grad();
    Tensor l = (p * p).sum();
    l.backward();
    return l;
  });
  CHECK(loss.item<double>() == 0.25 + 1.5625 + 4.0);
  Tensor q = param();
  Adagrad a({q}, AdagradOptions(0.1));
  loss = a.step([&] {
    a.zero_grad();
    Tensor l = (q * q * q).sum();
    l.backward();
    return l;
  });
  CHECK(loss.item<double>() == 0.125 - 1.953125 + 8.0);
  // d/dq q^3 = 3 q^2 > 0: each element moves by lr (the first Adagrad step's size).
  check_close(dvalues(q), {0.4, -1.35, 1.9}, 1e-9);
  CHECK_FALSE(a.step().defined());
}

TEST_CASE("optim: RMSprop and Adagrad raise libtorch's option errors and change nothing on a bad gradient") {
  Tensor p = param();
  CHECK_THROWS_AS(RMSprop({p}, RMSpropOptions(-1)), InvalidArgument);
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions(-1)), "Invalid learning rate: -1");
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions().eps(-1e-8)), "Invalid epsilon value: -1e-08");
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions().momentum(-0.5)), "Invalid momentum value: -0.5");
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions().weight_decay(-0.5)), "Invalid weight_decay value: -0.5");
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions().alpha(-0.5)), "Invalid alpha value: -0.5");
  CHECK_THROWS_WITH(Adagrad({p}, AdagradOptions(-1)), "Invalid learning rate: -1");
  CHECK_THROWS_WITH(Adagrad({p}, AdagradOptions().lr_decay(-1)), "Invalid lr_decay value: -1");
  CHECK_THROWS_WITH(Adagrad({p}, AdagradOptions().weight_decay(-1)), "Invalid weight_decay value: -1");
  CHECK_THROWS_WITH(Adagrad({p}, AdagradOptions().initial_accumulator_value(-1)),
                    "Invalid initial_accumulator_value value: -1");
  CHECK_THROWS_WITH(Adagrad({p}, AdagradOptions().eps(-1)), "Invalid epsilon value: -1");

  RMSprop r({p}, RMSpropOptions(0.1).momentum(0.9).centered(true));
  set_grad(p, 0);
  r.step();
  const auto before = r.state_tensors();
  const auto pbefore = dvalues(p);
  p.mutable_grad() = tensor({1.0, 2.0}, kDouble);
  CHECK_THROWS_WITH(r.step(),
                    "RMSprop: the gradient of parameter 0 of group 0 has shape [2], but the parameter has "
                    "shape [3]");
  p.mutable_grad() = tensor({1.0f, 2.0f, 3.0f}, kFloat);
  CHECK_THROWS_WITH(r.step(), Contains("has dtype float32, but the parameter has dtype float64"));
  CHECK(dvalues(p) == pbefore);
  const auto after = r.state_tensors();
  REQUIRE(after.size() == before.size());
  for (const auto& [k, v] : before) CHECK(dvalues(after.at(k)) == dvalues(v));

  Tensor q = param();
  Adagrad a({q}, AdagradOptions(0.1));
  q.mutable_grad() = tensor({1.0, 2.0}, kDouble);
  CHECK_THROWS_WITH(a.step(), Contains("Adagrad: the gradient of parameter 0 of group 0 has shape [2]"));
  CHECK(a.state_tensors().at("state.0.0.step").item<int64_t>() == 0);
  Tensor ip = tensor({1, 2, 3}, kInt64);
  ip.mutable_grad() = tensor({1, 1, 1}, kInt64);
  Adagrad ia({ip}, AdagradOptions(0.1));
  CHECK_THROWS_WITH(ia.step(), Contains("Adagrad: parameter 0 of group 0 has dtype int64"));
  CHECK_THROWS_WITH(RMSprop({p}, RMSpropOptions())
                        .add_param_group(OptimizerParamGroup(
                            {param()}, std::make_unique<AdagradOptions>(AdagradOptions()))),
                    "RMSprop: a parameter group's options must be RMSpropOptions");
}

TEST_CASE("optim: RMSprop and Adagrad resumed from a checkpoint file equal the uninterrupted run") {
  TempDir dir;
  const auto ropts = RMSpropOptions(0.02).alpha(0.9).weight_decay(0.01).momentum(0.8).centered(true);
  auto [straight, s_opt] = run<RMSprop>(ropts, 0, 5);
  auto [first, f_opt] = run<RMSprop>(ropts, 0, 2);
  f_opt->save(dir / "rmsprop.safetensors");
  Tensor resumed = first.detach().clone().requires_grad_();
  RMSprop r_opt({resumed}, RMSpropOptions(0.5));  // the options come back from the file too
  r_opt.load(dir / "rmsprop.safetensors");
  CHECK(r_opt.param_groups()[0].options().get_lr() == 0.02);
  CHECK(static_cast<const RMSpropOptions&>(r_opt.param_groups()[0].options()).centered());
  for (size_t s = 2; s < 5; ++s) {
    set_grad(resumed, s);
    r_opt.step();
  }
  CHECK(dvalues(resumed) == dvalues(straight));
  CHECK(r_opt.state_tensors().at("state.0.0.step").item<int64_t>() == 5);

  const auto aopts = AdagradOptions(0.1).lr_decay(0.2).weight_decay(0.01).initial_accumulator_value(0.1);
  auto [a_straight, as_opt] = run<Adagrad>(aopts, 0, 5);
  auto [a_first, af_opt] = run<Adagrad>(aopts, 0, 3);
  af_opt->save(dir / "adagrad.safetensors");
  Tensor a_resumed = a_first.detach().clone().requires_grad_();
  Adagrad ar_opt({a_resumed}, AdagradOptions(0.7));
  ar_opt.load(dir / "adagrad.safetensors");
  for (size_t s = 3; s < 5; ++s) {
    set_grad(a_resumed, s);
    ar_opt.step();
  }
  CHECK(dvalues(a_resumed) == dvalues(a_straight));  // step (hence the lr decay) came back too
  // A fresh Adagrad without the state decays from step 1 again and drifts.
  Tensor cold = a_first.detach().clone().requires_grad_();
  run<Adagrad>(aopts, 3, 5, cold);
  CHECK(dvalues(cold) != dvalues(a_straight));

  // An RMSprop checkpoint is not an Adagrad one: refused, nothing changed.
  CHECK_THROWS_WITH(ar_opt.load(dir / "rmsprop.safetensors"), Contains("missing 'param_groups.0.lr_decay'"));
  CHECK(ar_opt.state_tensors().at("state.0.0.step").item<int64_t>() == 5);
}

TEST_CASE("optim: the RMSprop and Adagrad fused steps run on the test accelerator and match the CPU") {
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  REQUIRE(has_kernel(Op::RmspropStep, kPrivateUse1, kFloat));
  REQUIRE(has_kernel(Op::AdagradStep, kPrivateUse1, kFloat));
  Tensor rc = param(kFloat), rd = param(kFloat).to(npu).detach().requires_grad_();
  Tensor ac = param(kFloat), ad = param(kFloat).to(npu).detach().requires_grad_();
  const auto ropts = RMSpropOptions(0.05).momentum(0.9).centered(true);
  const auto aopts = AdagradOptions(0.05).lr_decay(0.1).initial_accumulator_value(0.1);
  RMSprop r1({rc}, ropts), r2({rd}, ropts);
  Adagrad a1({ac}, aopts), a2({ad}, aopts);
  for (size_t s = 0; s < 5; ++s) {
    set_grad(rc, s);
    set_grad(ac, s);
    rd.mutable_grad() = tensor(kGrads[s], kFloat).to(npu);
    ad.mutable_grad() = tensor(kGrads[s], kFloat).to(npu);
    r1.step();
    r2.step();
    a1.step();
    a2.step();
  }
  CHECK(rd.device() == npu);
  CHECK(r2.state_tensors().at("state.0.0.grad_avg").device() == npu);
  CHECK(a2.state_tensors().at("state.0.0.sum").device() == npu);
  CHECK(dvalues(rc) == dvalues(rd));
  CHECK(dvalues(ac) == dvalues(ad));
}
