// autograd::gradcheck: the analytic Jacobian (one backward per output element) against
// central finite differences in float64 (libtorch's Python gradcheck, without its modes).
#include <cmath>

#include "autograd/meta.h"
#include "core/check.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {

std::vector<double> flat(const Tensor& t) {
  Tensor c = t.detach().to(Device(kCPU, 0), kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// fn's outputs, flattened into one vector, with input `i` element `k` moved by `delta`.
std::vector<double> perturbed(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
                              size_t i, int64_t k, double delta) {
  // Fresh leaves that require grad like the originals: fn may itself call grad() (gradgradcheck).
  variable_list moved(inputs.size());
  for (size_t j = 0; j < inputs.size(); ++j) {
    if (!inputs[j].defined()) continue;
    NoGradGuard no_grad;
    Tensor host = inputs[j].detach().to(Device(kCPU, 0), inputs[j].dtype(), false, true).contiguous();
    if (j == i) host.data_ptr<double>()[k] += delta;
    moved[j] = host.to(inputs[j].device());
    if (inputs[j].requires_grad()) moved[j].requires_grad_();
  }
  std::vector<double> out;
  for (const Tensor& o : fn(moved)) {
    if (!o.defined() || !is_floating_point(o.dtype())) continue;
    std::vector<double> v = flat(o);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace

bool gradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs, double eps,
               double atol, double rtol) {
  std::vector<size_t> checked;
  variable_list diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    EMBER_CHECK_ARG(inputs[i].dtype() == kDouble, "gradcheck: input {} requires grad but is {}; use float64 inputs",
                    i, name(inputs[i].dtype()));
    checked.push_back(i);
    diff.push_back(inputs[i]);
  }
  EMBER_CHECK_ARG(!diff.empty(), "gradcheck: no input requires grad");
  const variable_list outputs = fn(inputs);

  // Analytic Jacobian, row by row: J[input][k][flat output index].
  std::vector<std::vector<std::vector<double>>> analytic(diff.size());
  for (size_t i = 0; i < diff.size(); ++i)
    analytic[i].assign(size_t(diff[i].numel()), {});
  for (const Tensor& o : outputs) {
    if (!o.defined() || !is_floating_point(o.dtype())) continue;
    for (int64_t j = 0; j < o.numel(); ++j) {
      variable_list g;
      if (o.requires_grad()) {
        Tensor seed = zeros({o.numel()}, TensorOptions(o.dtype()).device(o.device()));
        {
          NoGradGuard no_grad;
          seed.narrow(0, j, 1).fill_(1);
        }
        g = grad({o}, diff, {seed.view(o.sizes())}, true, false, true);
      }
      for (size_t i = 0; i < diff.size(); ++i) {
        std::vector<double> gi = g.size() && g[i].defined() ? flat(g[i]) : std::vector<double>(size_t(diff[i].numel()), 0.0);
        for (size_t k = 0; k < gi.size(); ++k) analytic[i][k].push_back(gi[k]);
      }
    }
  }

  for (size_t i = 0; i < diff.size(); ++i) {
    for (int64_t k = 0; k < diff[i].numel(); ++k) {
      std::vector<double> plus = perturbed(fn, inputs, checked[i], k, eps);
      std::vector<double> minus = perturbed(fn, inputs, checked[i], k, -eps);
      const std::vector<double>& a = analytic[i][size_t(k)];
      EMBER_CHECK_ARG(plus.size() == a.size(), "gradcheck: fn returned {} output elements, then {}", a.size(),
                      plus.size());
      for (size_t j = 0; j < a.size(); ++j) {
        const double numeric = (plus[j] - minus[j]) / (2 * eps);
        EMBER_CHECK_ARG(std::abs(a[j] - numeric) <= atol + rtol * std::abs(numeric),
                        "gradcheck: Jacobian mismatch for output element {} with respect to input {} element {}: "
                        "numerical {} but analytical {}",
                        j, checked[i], k, numeric, a[j]);
      }
    }
  }
  return true;
}

}  // namespace ember::autograd
