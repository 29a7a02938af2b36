// torch::poisson and torch::binomial: libtorch 1.13's rejection samplers (Poisson: products
// of uniforms below a rate of 10, Hormann's PTRS above; binomial: geometric inversion when
// count * min(p, 1 - p) < 10, Kachitvichyanukul and Schmeiser's BTRS above), drawing float64
// uniforms from the CPU generator element by element in row-major order under its lock,
// so a seed gives libtorch's samples (Note [Random generators]). Other devices sample on
// the host from a CPU generator their counter-based one seeds (as multinomial does).
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/random_ops.h"
#include "ember/autograd.h"
#include "ember/cpu_generator.h"
#include "ember/ops.h"

namespace ember {

namespace {

// libtorch's uniform_real_distribution<double>(0, 1): 53 bits of one 64-bit draw.
struct StandardUniform {
  CPUGeneratorImpl& g;
  double operator()() const { return double(g.random64() & ((uint64_t(1) << 53) - 1)) * 0x1p-53; }
};

int64_t sample_poisson(double rate, const StandardUniform& uniform) {
  if (rate >= 10) {  // transformed rejection with squeeze (PTRS)
    const double slam = std::sqrt(rate), loglam = std::log(rate);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    const double v_r = 0.9277 - 3.6224 / (b - 2);
    while (true) {
      const double u = uniform() - 0.5;
      const double v = uniform();
      const double us = 0.5 - std::fabs(u);
      const int64_t k = int64_t(std::floor((2 * a / us + b) * u + rate + 0.43));
      if (us >= 0.07 && v <= v_r) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
          -rate + double(k) * loglam - std::lgamma(double(k) + 1))
        return k;
    }
  }
  if (rate == 0) return 0;
  const double limit = std::exp(-rate);
  int64_t x = 0;
  double product = 1.0;
  while (true) {
    product *= uniform();
    if (product <= limit) return x;
    ++x;
  }
}

// log(k!) minus Stirling's approximation of it.
double stirling_tail(double k) {
  static constexpr double kSmall[10] = {
      0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
      0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kSmall[int(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Counts geometric waiting times until they pass `count`.
template <class T>
T binomial_inversion(T count, T prob, const StandardUniform& uniform) {
  double waited = 0;
  T successes = 0;
  const double log_q = std::log1p(-double(prob));
  while (true) {
    waited += std::ceil(std::log(uniform()) / log_q);
    if (waited > double(count)) return successes;
    successes = successes + 1;
  }
}

// Transformed rejection with a squeeze (BTRS), for count * prob >= 10 and prob <= 1/2. T's
// arithmetic where libtorch's is in T (float inputs round there as they do in libtorch).
template <class T>
T binomial_btrs(T count, T prob, const StandardUniform& uniform) {
  const double stddev = std::sqrt(double(count * prob * (1 - prob)));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * double(prob);
  const double c = double(count * prob) + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = double(prob / (1 - prob));
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor(double((count + 1) * prob));
  const double n = double(count);
  while (true) {
    const double u = uniform() - 0.5;
    double v = uniform();
    const double us = 0.5 - std::fabs(u);
    const T k = T(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    const double kd = double(k);
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (n - m + 1))) +
                         (n + 1) * std::log((n - m + 1) / (n - kd + 1)) +
                         (kd + 0.5) * std::log(r * (n - kd + 1) / (kd + 1)) + stirling_tail(m) +
                         stirling_tail(n - m) - stirling_tail(kd) - stirling_tail(n - kd);
    if (v <= bound) return k;
  }
}

template <class T>
T sample_binomial(T count, T prob, const StandardUniform& uniform) {
  if (count <= 0 || prob <= 0) return T(0);
  if (prob >= 1) return count;
  if (prob <= T(0.5))
    return count * prob >= 10 ? binomial_btrs(count, prob, uniform)
                              : binomial_inversion(count, prob, uniform);
  if (prob > T(0.5)) {
    const T q = T(1.0 - prob);
    return count -
           (count * q >= 10 ? binomial_btrs(count, q, uniform) : binomial_inversion(count, q, uniform));
  }
  return T(NAN);
}

// libtorch's CPU kernels: poisson for float, double and bfloat16, binomial for float and double.
void check_sampler_dtype(const Tensor& t, const char* kernel, bool bfloat16) {
  const ScalarType d = t.dtype();
  EMBER_CHECK_TYPED(d == kFloat || d == kDouble || (bfloat16 && d == kBFloat16), NotImplemented,
                    "\"{}_cpu\" not implemented for '{}'", kernel, detail::torch_name(d));
}

// The CPU generator to draw from: the given or default one on the CPU, else a CPU generator
// seeded from the device's counter-based one.
Generator host_generator(const std::optional<Generator>& gen, Device device, const char* op) {
  if (!device.is_cpu()) return detail::cpu_generator_for_device(gen, device, op);
  detail::generator_for(gen, device, op);  // refuses a generator of another device type
  return gen && gen->defined() ? *gen : detail::getDefaultCPUGenerator();
}

}  // namespace

Tensor poisson(const Tensor& rates, std::optional<Generator> generator) {
  EMBER_CHECK_ARG(rates.defined(), "poisson: undefined tensor");
  check_sampler_dtype(rates, "poisson", true);
  const Tensor host = rates.detach().to(Device(kCPU)).contiguous();
  // Checked before any draw, so a refused call leaves the generator where it was.
  EMBER_CHECK_ARG(host.ge(0).all().item<bool>(), "invalid Poisson rate, expected rate to be non-negative");
  const Generator gen = host_generator(generator, rates.device(), "poisson");
  auto* g = static_cast<CPUGeneratorImpl*>(gen.unsafeGetGeneratorImpl());
  const Tensor r64 = host.to(kDouble);
  Tensor samples = empty(host.sizes(), TensorOptions(kDouble));
  {
    std::lock_guard<std::mutex> lock(g->mutex_);
    const StandardUniform uniform{*g};
    const double* r = r64.data_ptr<double>();
    double* out = samples.data_ptr<double>();
    for (int64_t i = 0, n = host.numel(); i < n; ++i) out[i] = double(sample_poisson(r[i], uniform));
  }
  Tensor y = samples.to(rates.device(), rates.dtype());
  if (GradMode::is_enabled() && rates.requires_grad()) {  // libtorch's zero gradient
    autograd::record("PoissonBackward0", {&rates}, {&y},
                     [](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                       return {zeros_like(g[0])};
                     });
  }
  return y;
}

Tensor binomial(const Tensor& count, const Tensor& prob, std::optional<Generator> generator) {
  EMBER_CHECK_ARG(count.defined() && prob.defined(), "binomial: undefined tensor");
  check_sampler_dtype(count, "binomial", false);
  EMBER_CHECK_ARG(prob.dtype() == count.dtype(), "Found dtype {} but expected {}",
                  detail::torch_name(prob.dtype()), detail::torch_name(count.dtype()));
  const Tensor n_host = count.detach().to(Device(kCPU)).contiguous();
  const Tensor p_host = prob.detach().to(Device(kCPU)).expand(count.sizes()).contiguous();
  const Generator gen = host_generator(generator, count.device(), "binomial");
  auto* g = static_cast<CPUGeneratorImpl*>(gen.unsafeGetGeneratorImpl());
  Tensor samples = empty(n_host.sizes(), TensorOptions(count.dtype()));
  auto draw_all = [&](auto zero) {
    using T = decltype(zero);
    std::lock_guard<std::mutex> lock(g->mutex_);
    const StandardUniform uniform{*g};
    const T* n = n_host.data_ptr<T>();
    const T* p = p_host.data_ptr<T>();
    T* out = samples.data_ptr<T>();
    for (int64_t i = 0, e = samples.numel(); i < e; ++i) out[i] = sample_binomial<T>(n[i], p[i], uniform);
  };
  if (count.dtype() == kDouble)
    draw_all(0.0);
  else
    draw_all(0.0f);
  Tensor y = samples.to(count.device());
  if (GradMode::is_enabled() && (count.requires_grad() || prob.requires_grad())) {
    autograd::record("NotImplemented", {&count, &prob}, {&y},
                     [](autograd::FormulaNode&, autograd::variable_list&) -> autograd::variable_list {
                       EMBER_THROW(NotImplemented, "the derivative for 'binomial' is not implemented.");
                     });
  }
  return y;
}

}  // namespace ember
