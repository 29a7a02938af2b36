// LBFGS: libtorch 1.13's algorithm re-derived by hand in float64 (two-loop recursion,
// history shift, fixed step), convergence with the strong-Wolfe line search, its state,
// checkpoints that resume bit for bit, and its errors.
#include <ember/optim.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <deque>

#include "test_util.h"

using namespace ember;
using namespace ember::optim;
using Catch::Contains;
using ember_test::dvalues;
using ember_test::TempDir;

namespace {

using Vec = std::vector<double>;

// f(x) = sum(0.5 a x^2 - b x + 0.1 x^4): smooth, not quadratic, minimum inside.
const Vec kA = {1.0, 2.0, 4.0}, kB = {1.0, -1.0, 2.0}, kX0 = {0.5, -1.25, 2.0};

double f_ref(const Vec& x) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i)
    s += 0.5 * kA[i] * x[i] * x[i] - kB[i] * x[i] + 0.1 * std::pow(x[i], 4);
  return s;
}
Vec g_ref(const Vec& x) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) g[i] = kA[i] * x[i] - kB[i] + 0.4 * std::pow(x[i], 3);
  return g;
}
double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
double max_abs(const Vec& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

// libtorch's LBFGS::step without line search, written out on plain vectors.
struct LbfgsReference {
  LbfgsReference(double lr, int max_iter, int history_size)
      : lr(lr), max_iter(max_iter), history_size(history_size) {}
  double lr;
  int max_iter, history_size;
  Vec x = kX0, d, prev_g;
  double t = 0, prev_loss = 0, h_diag = 1;
  std::deque<Vec> old_dirs, old_stps;
  std::deque<double> ro;
  int n_iter_total = 0, func_evals = 0;

  double step() {
    const double tolerance_grad = 1e-7, tolerance_change = 1e-9;
    const int max_eval = max_iter * 5 / 4;
    const double orig_loss = f_ref(x);
    double loss = orig_loss;
    Vec g = g_ref(x);
    int current_evals = 1;
    ++func_evals;
    if (max_abs(g) <= tolerance_grad) return orig_loss;
    for (int n_iter = 1; n_iter <= max_iter; ++n_iter) {
      ++n_iter_total;
      if (n_iter_total == 1) {
        d = g;
        for (double& v : d) v = -v;
        h_diag = 1;
      } else {
        Vec y(x.size()), s(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          y[i] = g[i] - prev_g[i];
          s[i] = d[i] * t;
        }
        const double ys = dot(y, s);
        if (ys > 1e-10) {
          if (int(old_dirs.size()) == history_size) {
            old_dirs.pop_front();
            old_stps.pop_front();
            ro.pop_front();
          }
          old_dirs.push_back(y);
          old_stps.push_back(s);
          ro.push_back(1 / ys);
          h_diag = ys / dot(y, y);
        }
        Vec q = g, al(old_dirs.size());
        for (double& v : q) v = -v;
        for (int i = int(old_dirs.size()) - 1; i >= 0; --i) {
          al[i] = dot(old_stps[i], q) * ro[i];
          for (size_t k = 0; k < q.size(); ++k) q[k] -= al[i] * old_dirs[i][k];
        }
        for (double& v : q) v *= h_diag;
        for (size_t i = 0; i < old_dirs.size(); ++i) {
          const double be = dot(old_dirs[i], q) * ro[i];
          for (size_t k = 0; k < q.size(); ++k) q[k] += (al[i] - be) * old_stps[i][k];
        }
        d = q;
      }
      prev_g = g;
      prev_loss = loss;
      double gsum = 0;
      for (double v : g) gsum += std::abs(v);
      t = n_iter_total == 1 ? std::min(1.0, 1.0 / gsum) * lr : lr;
      if (dot(g, d) > -tolerance_change) break;
      for (size_t k = 0; k < x.size(); ++k) x[k] += t * d[k];
      int ls = 0;
      if (n_iter != max_iter) {
        loss = f_ref(x);
        g = g_ref(x);
        ls = 1;
      }
      current_evals += ls;
      func_evals += ls;
      if (n_iter == max_iter || current_evals >= max_eval || max_abs(g) <= tolerance_grad) break;
      Vec dt = d;
      for (double& v : dt) v *= t;
      if (max_abs(dt) <= tolerance_change || std::abs(loss - prev_loss) < tolerance_change) break;
    }
    return orig_loss;
  }
};

// The same objective on an ember tensor; its closure counts its calls.
struct Problem {
  Tensor x;
  int calls = 0;
  explicit Problem(ScalarType dt = kDouble) : x(tensor(kX0, TensorOptions(dt)).requires_grad_()) {}
  Optimizer::LossClosure closure(Optimizer& opt) {
    return [this, &opt] {
      ++calls;
      opt.zero_grad();
      Tensor a = tensor(kA, TensorOptions(x.dtype())), b = tensor(kB, TensorOptions(x.dtype()));
      Tensor loss = (0.5 * a * x * x - b * x + 0.1 * x.pow(4)).sum();
      loss.backward();
      return loss;
    };
  }
};

void check_close(const Vec& got, const Vec& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

}  // namespace

TEST_CASE("optim: LBFGS without line search follows libtorch's iterations, history shift included") {
  for (int history : {1, 2, 10}) {
    INFO("history_size " << history);
    LbfgsReference ref{0.5, 4, history};
    Problem prob;
    LBFGS opt({prob.x}, LBFGSOptions(0.5).max_iter(4).history_size(history));
    for (int s = 0; s < 4; ++s) {
      const double want_loss = ref.step();
      const Tensor loss = opt.step(prob.closure(opt));
      CHECK(std::abs(loss.item<double>() - want_loss) <= 1e-12 * (1 + std::abs(want_loss)));
      check_close(dvalues(prob.x), ref.x, 1e-12);
    }
    const auto st = opt.state_tensors();
    CHECK(st.at("state.0.0.n_iter").item<int64_t>() == ref.n_iter_total);
    CHECK(st.at("state.0.0.func_evals").item<int64_t>() == ref.func_evals);
    CHECK(prob.calls == ref.func_evals);
    CHECK(int(opt.state().size()) == 1);
    size_t kept = 0;
    while (st.count("state.0.0.old_dirs." + std::to_string(kept))) ++kept;
    CHECK(kept == ref.old_dirs.size());
    if (history < 10) CHECK(int(kept) == history);  // full: the oldest pairs were dropped
    CHECK(std::abs(st.at("state.0.0.t").item<double>() - ref.t) <= 1e-15);
  }
  // The first iteration worked out: t = min(1, 1 / |g|_1) * lr and x1 = x0 - t * g0.
  Problem prob;
  LBFGS one({prob.x}, LBFGSOptions(1).max_iter(1));
  one.step(prob.closure(one));
  // g0 = a x0 - b + 0.4 x0^3 = {-0.45, -2.28125, 9.2}.
  const double t = std::min(1.0, 1.0 / (0.45 + 2.28125 + 9.2));
  check_close(dvalues(prob.x), {0.5 + t * 0.45, -1.25 + t * 2.28125, 2.0 - t * 9.2}, 1e-15);
  CHECK(prob.calls == 1);  // the last iteration does not re-evaluate
}

TEST_CASE("optim: LBFGS with the strong-Wolfe line search minimises a smooth function and Rosenbrock's") {
  Problem prob;
  // A tiny tolerance_change: the search runs until the gradient is below tolerance_grad.
  LBFGS opt({prob.x}, LBFGSOptions(1).max_iter(50).tolerance_change(1e-15).line_search_fn("strong_wolfe"));
  const double first = opt.step(prob.closure(opt)).item<double>();
  CHECK(first == f_ref(kX0));
  CHECK(max_abs(g_ref(dvalues(prob.x))) < 1e-6);  // a minimiser
  CHECK(opt.state_tensors().at("state.0.0.n_iter").item<int64_t>() < 50);
  CHECK(f_ref(dvalues(prob.x)) < first);

  Tensor xy = tensor({-1.5, 2.0}, kDouble).requires_grad_();
  LBFGS ros({xy}, LBFGSOptions(1).max_iter(200).history_size(10).tolerance_change(1e-15).line_search_fn(
                      "strong_wolfe"));
  int calls = 0;
  auto closure = [&] {
    ++calls;
    ros.zero_grad();
    Tensor x = xy.select(0, 0), y = xy.select(0, 1);
    Tensor loss = (1 - x).pow(2) + 100 * (y - x * x).pow(2);
    loss.backward();
    return loss;
  };
  CHECK(ros.step(closure).item<double>() == 2.5 * 2.5 + 100 * 0.25 * 0.25);
  check_close(dvalues(xy), {1.0, 1.0}, 1e-5);
  const auto st = ros.state_tensors();
  CHECK(st.at("state.0.0.func_evals").item<int64_t>() == calls);
  CHECK(calls <= 250 + 25);  // max_eval = 200 * 5 / 4, plus at most one line search past it
  CHECK(st.at("state.0.0.n_iter").item<int64_t>() > 10);
}

TEST_CASE("optim: LBFGS gathers several parameters, those without a gradient as zeros") {
  Tensor w = tensor({0.5, -1.0, 2.0, 0.25}, kDouble).reshape({2, 2}).requires_grad_();
  Tensor bias = tensor({0.3}, kDouble).requires_grad_();
  Tensor frozen = tensor({7.0}, kDouble).requires_grad_();  // never in the loss: no gradient
  LBFGS opt({w, bias, frozen}, LBFGSOptions(1).max_iter(30).line_search_fn("strong_wolfe"));
  Tensor target = tensor({1.0, 2.0, -1.0, 0.5}, kDouble).reshape({2, 2});
  auto closure = [&] {
    opt.zero_grad();
    Tensor loss = ((w - target).pow(2).sum() + (bias - 3).pow(2).sum());
    loss.backward();
    return loss;
  };
  opt.step(closure);
  check_close(dvalues(w), dvalues(target), 1e-7);
  check_close(dvalues(bias), {3.0}, 1e-7);
  CHECK(dvalues(frozen) == Vec{7.0});
  CHECK(opt.state_tensors().at("state.0.0.d").sizes().vec() == std::vector<int64_t>{6});
}

TEST_CASE("optim: LBFGS options and errors follow libtorch's") {
  Tensor p = tensor(kX0, kDouble).requires_grad_();
  const LBFGSOptions d;
  CHECK(d.lr() == 1);
  CHECK(d.max_iter() == 20);
  CHECK_FALSE(d.max_eval().has_value());
  CHECK(d.tolerance_grad() == 1e-7);
  CHECK(d.tolerance_change() == 1e-9);
  CHECK(d.history_size() == 100);
  CHECK_FALSE(d.line_search_fn().has_value());
  LBFGS opt({p}, LBFGSOptions().max_iter(8));
  CHECK(static_cast<const LBFGSOptions&>(opt.defaults()).max_eval() == 10);
  CHECK(static_cast<const LBFGSOptions&>(opt.param_groups()[0].options()).max_eval() == 10);
  CHECK(LBFGSOptions().max_eval(3).max_eval() == 3);

  CHECK_THROWS_AS(opt.step(nullptr), InvalidArgument);
  CHECK_THROWS_WITH(opt.step(nullptr), "LBFGS requires a closure function");
  Optimizer& base = opt;
  CHECK_THROWS_WITH(base.step(), "LBFGS requires a closure function");
  CHECK(opt.state().empty());
  CHECK_THROWS_WITH(LBFGS({p}, LBFGSOptions().line_search_fn("backtracking")),
                    "only 'strong_wolfe' is supported");
  CHECK_THROWS_WITH(LBFGS({p}, LBFGSOptions().history_size(0)),
                    "LBFGS: history_size must be positive, got 0");
  std::vector<OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{p});
  groups.emplace_back(std::vector<Tensor>{tensor({1.0}, kDouble).requires_grad_()});
  CHECK_THROWS_WITH(LBFGS(groups), "LBFGS doesn't support per-parameter options (parameter groups)");
  opt.add_param_group(OptimizerParamGroup({tensor({1.0}, kDouble).requires_grad_()}));
  int calls = 0;
  CHECK_THROWS_WITH(opt.step([&] { return ++calls, p.sum(); }),
                    "LBFGS doesn't support per-parameter options (parameter groups)");
  CHECK(calls == 0);
  Tensor ip = tensor({1, 2}, kInt64);
  LBFGS iopt({ip});
  CHECK_THROWS_WITH(iopt.step([&] { return ip.sum(); }),
                    Contains("LBFGS: parameter 0 of group 0 has dtype int64"));
  // A closure that throws inside the line search.
  Problem prob;
  LBFGS ls({prob.x}, LBFGSOptions(1).line_search_fn("strong_wolfe"));
  auto good = prob.closure(ls);
  int n = 0;
  CHECK_THROWS_WITH(ls.step([&] {
    if (++n == 2) throw InvalidArgument("closure failed");
    return good();
  }),
                    "closure failed");
  // As libtorch: the trial point stays, and the state keeps the iteration begun (the cross-check
  // follows the steps after such a failure).
  const auto st = ls.state_tensors();
  CHECK(st.at("state.0.0.n_iter").item<int64_t>() == 1);
  CHECK(st.at("state.0.0.func_evals").item<int64_t>() == 1);
  const Vec trial = dvalues(tensor(kX0, kDouble) + st.at("state.0.0.d") * st.at("state.0.0.t").item<double>());
  const Vec moved = dvalues(prob.x);
  for (size_t i = 0; i < kX0.size(); ++i) CHECK(moved[i] == Approx(trial[i]).epsilon(1e-14));
  CHECK(moved != kX0);
  // A gradient already below tolerance_grad: one evaluation, no move.
  Tensor flat = tensor({1.0, 1.0}, kDouble).requires_grad_();
  LBFGS done({flat});
  Tensor loss = done.step([&] {
    done.zero_grad();
    Tensor l = (flat * 0).sum();
    l.backward();
    return l;
  });
  CHECK(loss.item<double>() == 0);
  CHECK(dvalues(flat) == Vec{1.0, 1.0});
  CHECK(done.state_tensors().at("state.0.0.func_evals").item<int64_t>() == 1);
}

TEST_CASE("optim: LBFGS resumed from a checkpoint file equals the uninterrupted run") {
  TempDir dir;
  for (bool wolfe : {false, true}) {
    INFO("strong_wolfe " << wolfe);
    auto options = LBFGSOptions(0.4).max_iter(3).history_size(2);
    if (wolfe) options.line_search_fn("strong_wolfe");
    Problem straight, first;
    LBFGS s_opt({straight.x}, options), f_opt({first.x}, options);
    for (int s = 0; s < 4; ++s) s_opt.step(straight.closure(s_opt));
    for (int s = 0; s < 2; ++s) f_opt.step(first.closure(f_opt));
    f_opt.save(dir / "lbfgs.safetensors");
    Problem resumed;
    resumed.x.detach().copy_(first.x.detach());
    LBFGS r_opt({resumed.x}, LBFGSOptions(2.0));
    r_opt.load(dir / "lbfgs.safetensors");
    CHECK(static_cast<const LBFGSOptions&>(r_opt.param_groups()[0].options()).line_search_fn().has_value() ==
          wolfe);
    CHECK(static_cast<const LBFGSOptions&>(r_opt.param_groups()[0].options()).history_size() == 2);
    for (int s = 2; s < 4; ++s) r_opt.step(resumed.closure(r_opt));
    CHECK(dvalues(resumed.x) == dvalues(straight.x));
    const auto a = r_opt.state_tensors(), b = s_opt.state_tensors();
    REQUIRE(a.size() == b.size());
    for (const auto& [k, v] : b) {
      INFO(k);
      CHECK(dvalues(a.at(k)) == dvalues(v));
    }
    // Without the history the same resume drifts.
    Problem cold;
    cold.x.detach().copy_(first.x.detach());
    LBFGS c_opt({cold.x}, options);
    for (int s = 2; s < 4; ++s) c_opt.step(cold.closure(c_opt));
    CHECK(dvalues(cold.x) != dvalues(straight.x));
  }
}

TEST_CASE("optim: an LBFGS checkpoint with a broken history is refused and changes nothing") {
  Problem prob;
  LBFGS opt({prob.x}, LBFGSOptions(0.4).max_iter(4).history_size(3));
  opt.step(prob.closure(opt));
  const auto saved = opt.state_tensors();
  REQUIRE(saved.count("state.0.0.old_dirs.2") == 1);
  REQUIRE(saved.at("state.0.0.H_diag").dtype() == kDouble);

  Problem other;
  LBFGS fresh({other.x}, LBFGSOptions(0.1));
  auto bad = saved;
  bad["state.0.0.old_dirs.0"] = zeros({4}, kDouble);
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad),
                    Contains("'state.0.0.old_dirs.0' has shape [4] and dtype float64; expected the flattened "
                             "parameters' shape [3] and dtype float64"));
  bad = saved;
  bad.erase("state.0.0.old_stps.0");
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad),
                    Contains("expected as many of each, numbered from 0 without gaps"));
  bad = saved;
  bad.erase("state.0.0.ro.1");
  bad.erase("state.0.0.ro.2");
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad),
                    Contains("the LBFGS history has 3 old_dirs, 3 old_stps and 1 ro entries"));
  bad = saved;
  bad["state.0.0.ro.0"] = zeros({1}, kDouble);
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad), Contains("expected one number (0-dim) of dtype float64"));
  bad = saved;
  bad["state.0.0.old_dirs.99999999"] = zeros({3}, kDouble);
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad), Contains("beyond any LBFGS history"));
  bad = saved;
  bad["state.0.0.old_grads.0"] = zeros({3}, kDouble);
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad),
                    Contains("'old_grads.0' is not a state field of this optimizer"));
  bad = saved;
  bad["param_groups.0.line_search_fn"] = scalar_tensor(5.0, kDouble);
  CHECK_THROWS_WITH(fresh.load_state_tensors(bad), "only 'strong_wolfe' is supported");
  CHECK(fresh.state().empty());
  CHECK(fresh.param_groups()[0].options().get_lr() == 0.1);
  fresh.load_state_tensors(saved);
  CHECK(fresh.state_tensors().size() == saved.size());
}
