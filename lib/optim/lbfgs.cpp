// LBFGS (torch::optim::LBFGS of libtorch 1.13), ported step for step: the two-loop
// recursion over a limited history, a fixed step or the strong-Wolfe line search with
// cubic interpolation (Nocedal & Wright, algorithms 3.5 / 3.6, as torch/optim's Lua
// polyinterp). Like libtorch it works on the parameters flattened into one vector with
// ordinary ops: each iteration is a handful of vector ops and closure calls, where a fused
// kernel would save nothing.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "ember/optim/serialize.h"
#include "optim/fused_step.h"
#include "optim/state_form.h"
#include "tensor/tensor_factory.h"

namespace ember::optim {

namespace {

constexpr int64_t kMaxHistoryIndex = int64_t(1) << 20;  // a bound for checkpoint indices only

double val(const Tensor& t) { return t.item<double>(); }

// The history deques a checkpoint names "old_dirs.<k>" and so on; nullptr for other names.
std::deque<Tensor>* history_field(LBFGSParamState& s, const std::string& name, int64_t& k) {
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return nullptr;
  const std::string base = name.substr(0, dot);
  char* end = nullptr;
  k = std::strtoll(name.c_str() + dot + 1, &end, 10);
  if (*end != '\0' || k < 0 || name[dot + 1] == '-' || name[dot + 1] == '+') return nullptr;
  if (base == "old_dirs") return &s.old_dirs();
  if (base == "old_stps") return &s.old_stps();
  if (base == "ro") return &s.ro();
  return nullptr;
}

double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  // The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to bounds
  // (by default the interval between the points); their midpoint when the cubic has none.
  const auto [xmin_bound, xmax_bound] = bounds ? *bounds : std::pair<double, double>(std::minmax(x1, x2));
  const double d1 = (g1 + g2) - (3 * (f1 - f2) / (x1 - x2));
  const double d2_square = std::pow(d1, 2) - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    double min_pos = 0;
    if (x1 <= x2) {
      min_pos = x2 - ((x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)));
    } else {
      min_pos = x1 - ((x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2)));
    }
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2;
}

using ObjFunc =
    std::function<std::tuple<double, Tensor>(const std::vector<Tensor>& x, double t, const Tensor& d)>;

// libtorch's _strong_wolfe: returns (f_new, g_new, t, function evaluations).
std::tuple<double, Tensor, double, int64_t> strong_wolfe(const ObjFunc& obj_func,
                                                         const std::vector<Tensor>& x, double t,
                                                         const Tensor& d, double f, Tensor g,
                                                         const Tensor& gtd, double c1 = 1e-4, double c2 = 0.9,
                                                         double tolerance_change = 1e-9, double max_ls = 25) {
  const double d_norm = val(d.abs().max());
  g = g.clone();
  // evaluate objective and gradient using initial step
  auto [f_new, g_new] = obj_func(x, t, d);
  int64_t ls_func_evals = 1;
  Tensor gtd_new = g_new.dot(d);

  // bracket an interval containing a point satisfying the Wolfe criteria
  double t_prev = 0;
  double f_prev = f;
  Tensor g_prev = g;
  Tensor gtd_prev = gtd;
  bool done = false;
  int ls_iter = 0;
  std::vector<double> bracket, bracket_f;
  std::vector<Tensor> bracket_g, bracket_gtd;
  while (ls_iter < max_ls) {
    if ((f_new > (f + c1 * t * val(gtd))) || (ls_iter > 1 && (f_new >= f_prev))) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(val(gtd_new)) <= (-c2 * val(gtd))) {
      bracket = {t, t};
      bracket_f = {f_new, f_new};
      bracket_g = {g_new, g_new};
      done = true;
      break;
    }
    if (val(gtd_new) >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // interpolate
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, val(gtd_prev), t, f_new, val(gtd_new),
                          std::make_pair(min_step, max_step));
    // next step
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new.clone();
    gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d);
    ls_iter += 1;
  }
  // reached max number of iterations?
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  // zoom phase: we now have a point satisfying the criteria, or a bracket around it; refine
  // the bracket until we find the exact point satisfying the criteria
  bool insuf_progress = false;
  auto [low_pos, high_pos] = bracket_f[0] <= bracket_f[1] ? std::make_tuple(0, 1) : std::make_tuple(1, 0);
  while (!done && (ls_iter < max_ls)) {
    // compute new trial value
    t = cubic_interpolate(bracket[0], bracket_f[0], val(bracket_gtd[0]), bracket[1], bracket_f[1],
                          val(bracket_gtd[1]));
    // A t close to the bracket's ends (within 10% of its length) after an earlier such step,
    // or at an end, moves 10% inside: the search keeps making progress.
    const double bracket_max = std::max(bracket[0], bracket[1]);
    const double bracket_min = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (bracket_max - bracket_min);
    if (std::min(bracket_max - t, t - bracket_min) < eps) {
      // interpolation close to boundary
      if (insuf_progress || (t >= bracket_max) || (t <= bracket_min)) {
        // evaluate at 0.1 away from boundary
        t = (std::abs(t - bracket_max) < std::abs(t - bracket_min)) ? bracket_max - eps : bracket_min + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }

    // Evaluate new point
    std::tie(f_new, g_new) = obj_func(x, t, d);
    ls_func_evals += 1;
    gtd_new = g_new.dot(d);
    ls_iter += 1;

    if ((f_new > (f + c1 * t * val(gtd))) || (f_new >= bracket_f[low_pos])) {
      // Armijo condition not satisfied or not lower than lowest point
      bracket[high_pos] = t;
      bracket_f[high_pos] = f_new;
      bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      std::tie(low_pos, high_pos) =
          bracket_f[0] <= bracket_f[1] ? std::make_tuple(0, 1) : std::make_tuple(1, 0);
    } else {
      if (val(gtd_new.abs()) <= (-c2 * val(gtd))) {
        // Wolfe conditions satisfied
        done = true;
      } else if ((val(gtd_new) * (bracket[high_pos] - bracket[low_pos])) >= 0) {
        // old high becomes new low
        bracket[high_pos] = bracket[low_pos];
        bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos];
        bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      // new point becomes new low
      bracket[low_pos] = t;
      bracket_f[low_pos] = f_new;
      bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }

    // line-search bracket is so small
    if ((std::abs(bracket[1] - bracket[0]) * d_norm) < tolerance_change) break;
  }

  t = bracket[low_pos];
  f_new = bracket_f[low_pos];
  g_new = bracket_g[low_pos];
  return std::make_tuple(f_new, g_new, t, ls_func_evals);
}

}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

std::vector<std::pair<std::string, double>> LBFGSOptions::values() const {
  return {{"lr", lr()},
          {"max_iter", double(max_iter())},
          {"max_eval", max_eval() ? double(*max_eval()) : -1.0},
          {"tolerance_grad", tolerance_grad()},
          {"tolerance_change", tolerance_change()},
          {"history_size", double(history_size())},
          {"line_search_fn", line_search_fn() ? (*line_search_fn() == "strong_wolfe" ? 1.0 : 2.0) : 0.0}};
}

bool LBFGSOptions::set_value(const std::string& name, double value) {
  if (name == "lr")
    lr(value);
  else if (name == "max_iter")
    max_iter(int64_t(value));
  else if (name == "max_eval")
    max_eval(value < 0 ? std::nullopt : std::optional<int64_t>(int64_t(value)));
  else if (name == "tolerance_grad")
    tolerance_grad(value);
  else if (name == "tolerance_change")
    tolerance_change(value);
  else if (name == "history_size")
    history_size(int64_t(value));
  else if (name == "line_search_fn")  // any code but 0 and 1 names no search: check_options refuses it
    line_search_fn(value == 0 ? std::nullopt
                              : std::optional<std::string>(value == 1 ? "strong_wolfe" : "unknown"));
  else
    return false;
  return true;
}

std::unique_ptr<OptimizerParamState> LBFGSParamState::clone() const {
  auto s = std::make_unique<LBFGSParamState>(*this);
  auto deep = [](std::deque<Tensor>& q) {
    for (Tensor& t : q) t = t.clone();
  };
  if (d().defined()) s->d(d().clone());
  if (H_diag().defined()) s->H_diag(H_diag().clone());
  if (prev_flat_grad().defined()) s->prev_flat_grad(prev_flat_grad().clone());
  deep(s->old_dirs());
  deep(s->old_stps());
  deep(s->ro());
  if (s->al())
    for (Tensor& t : *s->al())
      if (t.defined()) t = t.clone();
  return s;
}

std::vector<std::pair<std::string, Tensor>> LBFGSParamState::tensors() const {
  std::vector<std::pair<std::string, Tensor>> out{{"func_evals", scalar_tensor(func_evals(), kInt64)},
                                                  {"n_iter", scalar_tensor(n_iter(), kInt64)},
                                                  {"t", scalar_tensor(t(), kDouble)},
                                                  {"prev_loss", scalar_tensor(prev_loss(), kDouble)}};
  if (d().defined()) out.emplace_back("d", d());
  if (H_diag().defined()) out.emplace_back("H_diag", H_diag());
  if (prev_flat_grad().defined()) out.emplace_back("prev_flat_grad", prev_flat_grad());
  const std::pair<const char*, const std::deque<Tensor>*> history[] = {
      {"old_dirs", &old_dirs()}, {"old_stps", &old_stps()}, {"ro", &ro()}};
  for (const auto& [base, q] : history)
    for (size_t k = 0; k < q->size(); ++k)
      out.emplace_back(std::string(base) + "." + std::to_string(k), (*q)[k]);
  return out;
}

bool LBFGSParamState::set_tensor(const std::string& name, const Tensor& value) {
  int64_t k = 0;
  if (name == "func_evals")
    func_evals(value.item<int64_t>());
  else if (name == "n_iter")
    n_iter(value.item<int64_t>());
  else if (name == "t")
    t(value.item<double>());
  else if (name == "prev_loss")
    prev_loss(value.item<double>());
  else if (name == "d")
    d(value);
  else if (name == "H_diag")
    H_diag(value);
  else if (name == "prev_flat_grad")
    prev_flat_grad(value);
  else if (std::deque<Tensor>* q = history_field(*this, name, k)) {
    if (k >= kMaxHistoryIndex) return false;
    if (int64_t(q->size()) <= k) q->resize(size_t(k) + 1);
    (*q)[size_t(k)] = value;
  } else {
    return false;
  }
  return true;
}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  EMBER_CHECK_ARG(param_groups_.size() == 1,
                  "LBFGS doesn't support per-parameter options (parameter groups)");
  check_all_options();
  // An unset max_eval is max_iter * 5 / 4, in the defaults and in the group (from its own
  // max_iter: libtorch leaves a group's own unset max_eval unset, then reads it).
  for (OptimizerOptions* o : {defaults_.get(), &param_groups_[0].options()}) {
    auto& lo = static_cast<LBFGSOptions&>(*o);
    if (!lo.max_eval()) lo.max_eval(lo.max_iter() * 5 / 4);
  }
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void LBFGS::check_options(const OptimizerOptions& options) const {
  const auto* o = dynamic_cast<const LBFGSOptions*>(&options);
  EMBER_CHECK_ARG(o != nullptr, "LBFGS: a parameter group's options must be LBFGSOptions");
  EMBER_CHECK_ARG(!o->line_search_fn() || *o->line_search_fn() == "strong_wolfe",
                  "only 'strong_wolfe' is supported");
  // libtorch pops from an empty history when history_size is 0.
  EMBER_CHECK_ARG(o->history_size() > 0, "LBFGS: history_size must be positive, got {}", o->history_size());
}

std::unique_ptr<OptimizerParamState> LBFGS::make_state() const { return std::make_unique<LBFGSParamState>(); }

std::map<std::string, Tensor> LBFGS::legacy_state_tensors(serialize::InputArchive& archive) const {
  detail::warn_legacy_format("LBFGS",
                             "The func_evals and n_iter value in state will be set to 0, ro will be set to an "
                             "empty deque and al will be set to c10::nullopt because the old LBFGS optimizer didn't "
                             "save these values.");
  // LBFGS's state is global; as in libtorch it is kept as the first parameter's.
  std::map<std::string, Tensor> out = detail::group_entries(param_groups_);
  const std::string sp = "state.0.0.";
  for (const char* field : {"d", "t", "H_diag", "prev_flat_grad", "prev_loss"}) {
    Tensor value;
    archive.read(field, value, /*is_buffer=*/true);
    if (value.defined()) out[sp + field] = value;  // an optimizer that never stepped saved none
  }
  std::deque<Tensor> dirs, stps;
  serialize(archive, "old_dirs", dirs);
  serialize(archive, "old_stps", stps);
  for (size_t k = 0; k < dirs.size(); ++k) out[sp + "old_dirs." + std::to_string(k)] = dirs[k];
  for (size_t k = 0; k < stps.size(); ++k) out[sp + "old_stps." + std::to_string(k)] = stps[k];
  // libtorch leaves ro empty (its next step then reads past it); each entry is 1 / (y . s) of
  // the history pair it belongs to, so it is recomputed and the run resumes as it was.
  if (dirs.size() == stps.size()) {
    NoGradGuard no_grad;
    for (size_t k = 0; k < dirs.size(); ++k) {
      const Tensor &y = dirs[k], &s = stps[k];
      if (!y.defined() || !s.defined() || y.dim() != 1 || y.sizes() != s.sizes() || y.dtype() != s.dtype()) continue;
      out[sp + "ro." + std::to_string(k)] = y.dot(s).reciprocal();
    }
  }
  return out;
}

void LBFGS::check_state_tensor(const std::string& key, const std::string& field, const Tensor& value,
                               const Tensor& param) const {
  (void)param;
  const char* op = "load_state_tensors";
  int64_t k = 0;
  LBFGSParamState probe;
  const bool history = history_field(probe, field, k) != nullptr;
  if (history)
    EMBER_CHECK_ARG(k < kMaxHistoryIndex, "{}: '{}' names history entry {}, beyond any LBFGS history", op,
                    key, k);
  const bool scalar = field == "func_evals" || field == "n_iter" || field == "t" || field == "prev_loss";
  const bool number = field == "H_diag" || field.rfind("ro.", 0) == 0;
  const bool vector = field == "d" || field == "prev_flat_grad" || (history && !number);
  if (scalar) {
    EMBER_CHECK_ARG(value.numel() == 1, "{}: '{}' must hold one number, got shape {}", op, key,
                    ember::detail::shape_str(value.sizes()));
    return;
  }
  // The flat vectors share the gradients' dtype: the parameters' dtypes promoted.
  ScalarType flat = param_groups_[0].params()[0].dtype();
  for (const Tensor& p : param_groups_[0].params()) flat = promote_types(flat, p.dtype());
  if (number) {
    EMBER_CHECK_ARG(
        value.dim() == 0 && (value.dtype() == flat || (field == "H_diag" && value.dtype() == kInt64)),
        "{}: '{}' has shape {} and dtype {}; expected one number (0-dim) of dtype {}", op, key,
        ember::detail::shape_str(value.sizes()), name(value.dtype()), name(flat));
  } else if (vector) {
    EMBER_CHECK_ARG(
        value.dim() == 1 && value.size(0) == numel() && value.dtype() == flat,
        "{}: '{}' has shape {} and dtype {}; expected the flattened parameters' shape [{}] and dtype {}", op,
        key, ember::detail::shape_str(value.sizes()), name(value.dtype()), numel(), name(flat));
  }
}

void LBFGS::check_loaded_state(const OptimizerParamState& state) const {
  const auto& s = static_cast<const LBFGSParamState&>(state);
  const size_t n = s.old_dirs().size();
  bool complete = s.old_stps().size() == n && s.ro().size() == n;
  for (const auto* q : {&s.old_dirs(), &s.old_stps(), &s.ro()})
    for (const Tensor& t : *q) complete = complete && t.defined();
  EMBER_CHECK_ARG(
      complete,
      "load_state_tensors: the LBFGS history has {} old_dirs, {} old_stps and {} ro entries; expected "
      "as many of each, numbered from 0 without gaps",
      s.old_dirs().size(), s.old_stps().size(), s.ro().size());
}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const Tensor& p : param_groups_.at(0).params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_.at(0).params()) {
    if (!p.grad().defined())
      views.push_back(zeros({p.numel()}, p.options()));
    else
      views.push_back(p.grad().reshape({-1}));
  }
  return cat(views, 0);  // a new tensor: later closure calls may reuse the gradients
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (Tensor& p : param_groups_.at(0).params()) {
    const int64_t n = p.numel();
    p.add_(update.narrow(0, offset, n).view_as(p), step_size);
    offset += n;
  }
}

void LBFGS::set_param(const std::vector<Tensor>& params_data) {
  auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(params_data[i]);
}

std::vector<Tensor> LBFGS::clone_param() const {
  std::vector<Tensor> result;
  for (const Tensor& p : param_groups_.at(0).params()) result.push_back(p.clone());
  return result;
}

std::tuple<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure,
                                                       const std::vector<Tensor>& x, double t,
                                                       const Tensor& d) {
  // A closure that throws leaves the trial point behind, as libtorch's does; step() then stores
  // the state of the iterations so far, so the next step continues as libtorch's would.
  add_grad(t, d);
  double loss = 0;
  {
    AutoGradMode enable_grad(true);
    loss = closure().item<double>();
  }
  Tensor flat_grad = gather_flat_grad();
  set_param(x);
  return std::make_tuple(loss, flat_grad);
}

Tensor LBFGS::step(LossClosure closure) {
  NoGradGuard no_grad;
  EMBER_CHECK_ARG(closure != nullptr, "LBFGS requires a closure function");
  EMBER_CHECK_ARG(param_groups_.size() == 1,
                  "LBFGS doesn't support per-parameter options (parameter groups)");
  auto& params = param_groups_[0].params();
  EMBER_CHECK_ARG(!params.empty(), "LBFGS: the parameter group holds no parameters");
  for (size_t i = 0; i < params.size(); ++i) detail::check_param(params[i], "LBFGS", 0, i);
  const auto& options = static_cast<const LBFGSOptions&>(param_groups_[0].options());
  check_options(options);  // libtorch checks line_search_fn here too, after evaluating
  const double lr = options.lr();
  const int64_t max_iter = options.max_iter();
  const int64_t max_eval = options.max_eval().value_or(max_iter * 5 / 4);
  const double tolerance_grad = options.tolerance_grad();
  const double tolerance_change = options.tolerance_change();
  const bool strong_wolfe_search = options.line_search_fn().has_value();
  const int64_t history_size = options.history_size();

  // LBFGS has only global state, kept under the first parameter as libtorch does. It is
  // worked on as a copy (no tensor of it is written in place) and stored back at the end, or
  // when the closure throws: the parameters have moved by then, and libtorch's state, updated
  // in place, has recorded every iteration up to the throw.
  auto it = state_.find(params[0].unsafe_impl());
  LBFGSParamState state;
  if (it != state_.end()) state = static_cast<const LBFGSParamState&>(*it->second);
  auto store = [&] {
    auto& slot = state_[params[0].unsafe_impl()];
    if (!slot) slot = std::make_unique<LBFGSParamState>();
    static_cast<LBFGSParamState&>(*slot) = state;
  };

  try {
    // evaluate initial f(x) and df/dx
    Tensor orig_loss;
    {
      AutoGradMode enable_grad(true);
      orig_loss = closure();
    }
    double loss = val(orig_loss);
    int64_t current_evals = 1;
    state.func_evals(state.func_evals() + 1);
    Tensor flat_grad = gather_flat_grad();
    bool opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
    // optimal condition
    if (opt_cond) {
      store();
      return orig_loss;
    }

    Tensor& d = state.d();
    double& t = state.t();
    auto& old_dirs = state.old_dirs();
    auto& old_stps = state.old_stps();
    auto& ro = state.ro();
    Tensor& H_diag = state.H_diag();
    Tensor& prev_flat_grad = state.prev_flat_grad();
    double& prev_loss = state.prev_loss();

    int64_t n_iter = 0;
    // optimize for a max of max_iter iterations
    while (n_iter < max_iter) {
      n_iter += 1;
      state.n_iter(state.n_iter() + 1);

      // compute gradient descent direction
      if (state.n_iter() == 1) {
        d = flat_grad.neg();
        H_diag = scalar_tensor(
            1, TensorOptions(kInt64).device(flat_grad.device()));  // libtorch's torch::tensor(1)
        old_dirs.clear();
        old_stps.clear();
        ro.clear();
      } else {
        // do lbfgs update (update memory)
        Tensor y = flat_grad.sub(prev_flat_grad);
        Tensor s = d.mul(t);
        Tensor ys = y.dot(s);  // y*s
        if (val(ys) > 1e-10) {
          // updating memory
          if (int64_t(old_dirs.size()) == history_size) {
            // shift history by one (limited-memory)
            old_dirs.pop_front();
            old_stps.pop_front();
            ro.pop_front();
          }
          // store new direction/step
          old_dirs.push_back(y);
          old_stps.push_back(s);
          ro.push_back(ys.reciprocal());  // 1. / ys
          // update scale of initial Hessian approximation
          H_diag = ys / y.dot(y);  // (y*y)
        }

        // compute the approximate (L-BFGS) inverse Hessian multiplied by the gradient
        const int64_t num_old = int64_t(old_dirs.size());
        if (!state.al()) state.al(std::vector<Tensor>(size_t(history_size)));
        auto& al = *state.al();
        if (int64_t(al.size()) < num_old) al.resize(size_t(num_old));  // history_size lowered since

        // iteration in L-BFGS loop collapsed to use just one buffer
        Tensor q = flat_grad.neg();
        for (int64_t i = num_old - 1; i > -1; i--) {
          al[i] = old_stps[i].dot(q) * ro[i];
          q.add_(old_dirs[i], -val(al[i]));
        }

        // multiply by initial Hessian; r/d is the final direction
        Tensor r = mul(q, H_diag);
        d = r;
        for (int64_t i = 0; i < num_old; ++i) {
          Tensor be_i = old_dirs[i].dot(r) * ro[i];
          r.add_(old_stps[i], val(al[i] - be_i));
        }
      }

      prev_flat_grad =
          flat_grad.clone();  // libtorch copies into it; a new tensor keeps the stored state intact
      prev_loss = loss;

      // compute step length: reset initial guess for step size
      if (state.n_iter() == 1) {
        t = std::min(1., 1. / val(flat_grad.abs().sum())) * lr;
      } else {
        t = lr;
      }

      // directional derivative
      Tensor gtd = flat_grad.dot(d);  // g * d
      // directional derivative is below tolerance
      if (val(gtd) > -tolerance_change) break;

      // optional line search: user function
      int64_t ls_func_evals = 0;
      if (strong_wolfe_search) {
        const std::vector<Tensor> x_init = clone_param();
        ObjFunc obj_func = [&](const std::vector<Tensor>& x, double step, const Tensor& dir) {
          return directional_evaluate(closure, x, step, dir);
        };
        std::tie(loss, flat_grad, t, ls_func_evals) =
            strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd);
        add_grad(t, d);
        opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
      } else {
        // no line search, simply move with fixed-step
        add_grad(t, d);
        if (n_iter != max_iter) {
          // re-evaluate function only if not in last iteration (in a stochastic setting there
          // is no use re-evaluating it there)
          {
            AutoGradMode enable_grad(true);
            loss = val(closure());
          }
          flat_grad = gather_flat_grad();
          opt_cond = val(flat_grad.abs().max()) <= tolerance_grad;
          ls_func_evals = 1;
        }
      }
      // update func eval
      current_evals += ls_func_evals;
      state.func_evals(state.func_evals() + ls_func_evals);

      // check conditions
      if (n_iter == max_iter) break;
      if (current_evals >= max_eval) break;
      // optimal condition
      if (opt_cond) break;
      // lack of progress
      if (val(d.mul(t).abs().max()) <= tolerance_change) break;
      if (std::abs(loss - prev_loss) < tolerance_change) break;
    }
    store();
    return orig_loss;
  } catch (...) {
    store();
    throw;
  }
}

}  // namespace ember::optim
