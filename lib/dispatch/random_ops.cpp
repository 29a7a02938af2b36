// Random ops: rand, randn, randint, randperm, normal, bernoulli, the *_like forms and the
// in-place fills (uniform_, normal_, random_, bernoulli_, exponential_, cauchy_, log_normal_,
// geometric_).
//
// Note [Random generators]: the CPU draws from libtorch's generator (ember/generator.h):
// one mt19937 consumed serially under the generator's lock, with libtorch 1.13's
// transformations (random_kernels.cpp), so a seeded program gets libtorch's numbers on the
// CPU, the in-place fills and nn::init included. Ops that libtorch builds from these
// draws are built the same way here: bernoulli_(p) compares float64 uniforms with p,
// exponential_ is -log(1 - u) / lambda of float64 uniforms, cauchy_ and geometric_ are
// libtorch's transforms of float64 uniforms, log_normal_ exponentiates normal_distribution
// <double> draws element by element (its cached second value included), dropout is
// bernoulli_(1 - p).
// Accelerators reserve counters from a counter-based generator and hash (seed, counter),
// so their values do not depend on the launch shape. libtorch's own AVX2 path for float
// randn of 16 or more elements uses approximate log/sincos: its values there differ from
// ember's (and from libtorch's default-capability path) in the last bits.
#include "dispatch/random_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include "autograd/meta.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/kernel_table.h"
#include "ember/autograd.h"
#include "ember/cpu_generator.h"
#include "ember/detail_random.h"
#include "ember/ops.h"
#include "ember/registry.h"
#include "iter/elementwise_iter.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace detail {

GeneratorImpl* generator_for(const std::optional<Generator>& gen, Device device, const char* op) {
  if (!gen || !gen->defined()) {
    const Generator& fallback = device.is_cpu() ? detail::getDefaultCPUGenerator()
                                                : detail::getDefaultAcceleratorGenerator(device.type());
    return fallback.unsafeGetGeneratorImpl();
  }
  GeneratorImpl* g = gen->unsafeGetGeneratorImpl();
  // The kernels know two engines: the CPU's, and the counter-based one of accelerators.
  const bool known = device.is_cpu() ? dynamic_cast<CPUGeneratorImpl*>(g) != nullptr
                                     : dynamic_cast<CounterGeneratorImpl*>(g) != nullptr;
  EMBER_CHECK_ARG(
      known && g->device().type() == device.type(),
      "{}: Expected a generator of the tensor's device type but found one of '{}' (the tensor is on {})", op,
      g->device().str(), device.str());
  return g;
}

Generator cpu_generator_for_device(const std::optional<Generator>& gen, Device device, const char* op) {
  GeneratorImpl* g = generator_for(gen, device, op);
  const auto [seed, offset] = static_cast<CounterGeneratorImpl*>(g)->reserve(2);
  return createCPUGenerator(random_bits(seed, offset));
}

}  // namespace detail

using detail::DeviceEntry;
using detail::generator_for;

namespace {

// Runs a random kernel over `t`, a fresh contiguous tensor, drawing from `g`.
void run_random(Op op, const Tensor& t, const detail::OpParams& p, GeneratorImpl* g) {
  auto kernel = detail::lookup_kernel<ElementwiseKernel>(op, t.device().type(), t.dtype());
  ElementwiseArgs args;
  args.dtype = args.out_dtype = t.dtype();
  for (int i = 0; i < 3; ++i) args.param[i] = p.param[i], args.has_param[i] = p.has_param[i];
  detail::build_elementwise(args, t, nullptr, 0);
  if (!args.numel) return;
  if (t.device().is_cpu()) {
    std::lock_guard<std::mutex> lock(g->mutex_);
    args.generator = static_cast<CPUGeneratorImpl*>(g);
    kernel(args);
    return;
  }
  // Normal takes two counters an element; the spare two keep calls apart.
  std::tie(args.seed, args.offset) =
      static_cast<CounterGeneratorImpl*>(g)->reserve(2 * uint64_t(args.numel) + 2);
  kernel(args);
}

Tensor with_grad(Tensor t, const TensorOptions& o) {
  if (__builtin_expect(o.requires_grad(), 0)) t.requires_grad_();
  return t;
}

// A new tensor of `sizes` on the op's device, filled by the random kernel of `op`.
Tensor generate(Op op, IntArrayRef sizes, const TensorOptions& o, const detail::OpParams& p,
                const std::optional<Generator>& gen, const char* name) {
  detail::check_sizes(sizes, name);
  DeviceEntry& dev = detail::place_creation(o, op);
  if (detail::g_log_placement.load(std::memory_order_relaxed)) detail::log_op(op, dev);
  GeneratorImpl* g = generator_for(gen, dev.device, name);
  Tensor t = detail::empty_on(sizes, o.dtype(), dev);
  run_random(op, t, p, g);
  return with_grad(std::move(t), o);
}

detail::OpParams params(double a, double b) {
  detail::OpParams p;
  p.param[0].f = a;
  p.param[1].f = b;
  return p;
}

detail::OpParams int_params(int64_t base, int64_t end, int64_t mode) {
  detail::OpParams p;
  p.param[0].i = base;
  p.param[1].i = end;
  p.param[2].i = mode;
  p.has_param[2] = true;
  return p;
}

TensorOptions with_default_dtype(TensorOptions o, ScalarType t) { return o.has_dtype() ? o : o.dtype(t); }

void check_floating(ScalarType t, const char* op) {
  EMBER_CHECK_ARG(is_floating_point(t),
                  "{}: expected a floating point dtype (Float, Double, Half, BFloat16), got {}", op, name(t));
}

// Writes a random tensor made by `make` (options: self's device and dtype; sizes: those of
// the target; perm: how the target permutes self's dims) into self through copy_, which bumps the version and
// handles views and autograd as every in-place write does. A non-contiguous self is filled in memory order,
// as libtorch's TensorIterator walks it: the target is self with its dims by falling stride.
template <class Make>
Tensor& fill_from(const Tensor& self, const char* op, Make make) {
  EMBER_CHECK_ARG(self.defined(), "{}: undefined tensor", op);
  // copy_ refuses a leaf that requires grad and an inference tensor outside InferenceMode;
  // refuse them before drawing, so that a failed fill leaves the generator where it was.
  detail::check_writable(self);
  if (GradMode::is_enabled()) autograd::detail::check_inplace(self);
  Tensor target = self;
  std::vector<int64_t> perm;  // empty: self's own order
  if (!self.is_contiguous()) {
    perm.resize(size_t(self.dim()));
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return self.stride(a) > self.stride(b); });
    target = self.permute(perm);
  }
  Tensor r;
  {
    NoGradGuard no_grad;
    r = make(TensorOptions(self.dtype()).device(self.device()), target.sizes(), perm);
  }
  target.copy_(r);
  return const_cast<Tensor&>(self);
}

// The largest integer random_ may produce into dtype t, as libtorch's random_ bounds.
int64_t dtype_max_for_random(ScalarType t) {
  switch (t) {
    case kBool:
      return 1;
    case kUInt8:
      return 255;
    case kInt8:
      return 127;
    case kInt16:
      return 32767;
    case kInt32:
      return 2147483647;
    case kInt64:
      return std::numeric_limits<int64_t>::max();
    case kHalf:
      return int64_t(1) << 11;
    case kBFloat16:
      return int64_t(1) << 8;
    case kFloat:
      return int64_t(1) << 24;
    default:
      return int64_t(1) << 53;
  }
}
int64_t dtype_min_for_random(ScalarType t) {
  switch (t) {
    case kBool:
    case kUInt8:
      return 0;
    case kInt8:
      return -128;
    case kInt16:
      return -32768;
    case kInt32:
      return -2147483648LL;
    case kInt64:
      return std::numeric_limits<int64_t>::min();
    default:
      return -dtype_max_for_random(t);
  }
}

// [from, to) must hold values dtype t represents exactly (libtorch's from/to checks).
void check_random_range(ScalarType t, int64_t from, int64_t to) {
  EMBER_CHECK_ARG(
      from >= dtype_min_for_random(t) && to - 1 <= dtype_max_for_random(t),
      "random_ expects [from, to) within the values dtype {} holds exactly ([{}, {}]), got from={} to={}",
      name(t), dtype_min_for_random(t), dtype_max_for_random(t), from, to);
}

}  // namespace

// ---- new tensors

Tensor rand(IntArrayRef sizes, const TensorOptions& o) { return rand(sizes, std::nullopt, o); }
Tensor rand(IntArrayRef sizes, std::optional<Generator> gen, const TensorOptions& o) {
  const TensorOptions opts = with_default_dtype(o, get_default_dtype());
  check_floating(opts.dtype(), "rand");
  return generate(Op::Uniform, sizes, opts, params(0, 1), gen, "rand");
}

Tensor randn(IntArrayRef sizes, const TensorOptions& o) { return randn(sizes, std::nullopt, o); }
Tensor randn(IntArrayRef sizes, std::optional<Generator> gen, const TensorOptions& o) {
  const TensorOptions opts = with_default_dtype(o, get_default_dtype());
  check_floating(opts.dtype(), "randn");
  return generate(Op::Normal, sizes, opts, params(0, 1), gen, "randn");
}

Tensor normal(double mean, double std, IntArrayRef sizes, std::optional<Generator> gen,
              const TensorOptions& o) {
  EMBER_CHECK_ARG(std >= 0, "normal expects std >= 0.0, but found std {}", std);
  const TensorOptions opts = with_default_dtype(o, get_default_dtype());
  check_floating(opts.dtype(), "normal");
  return generate(Op::Normal, sizes, opts, params(mean, std), gen, "normal");
}

Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& o) {
  return randint(0, high, sizes, std::nullopt, o);
}
Tensor randint(int64_t high, IntArrayRef sizes, std::optional<Generator> gen, const TensorOptions& o) {
  return randint(0, high, sizes, std::move(gen), o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& o) {
  return randint(low, high, sizes, std::nullopt, o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, std::optional<Generator> gen,
               const TensorOptions& o) {
  EMBER_CHECK_ARG(low < high, "random_ expects 'from' to be less than 'to', but got from={} >= to={}", low,
                  high);
  check_random_range(with_default_dtype(o, kInt64).dtype(), low, high);
  return generate(Op::RandInt, sizes, with_default_dtype(o, kInt64), int_params(low, high, kRandFromTo), gen,
                  "randint");
}

Tensor randperm(int64_t n, const TensorOptions& o) { return randperm(n, std::nullopt, o); }
Tensor randperm(int64_t n, std::optional<Generator> gen, const TensorOptions& o) {
  EMBER_CHECK_ARG(n >= 0, "Trying to create tensor with negative dimension {}: [{}]", n, n);
  const TensorOptions opts = with_default_dtype(o, kInt64);
  const ScalarType t = opts.dtype();
  EMBER_CHECK_ARG(t != kBool, "randperm: \"randperm\" not implemented for 'Bool'");
  // Every value 0 .. n-1 must be exact in the dtype (libtorch's check).
  EMBER_CHECK_ARG(n == 0 || n - 1 <= dtype_max_for_random(t),
                  "randperm: n is too large for result tensor type: '{}' (n = {}, largest exact value {})",
                  name(t), n, dtype_max_for_random(t));
  DeviceEntry& dev = detail::place_creation(opts, Op::RandPerm);
  if (dev.device.is_cpu() || has_kernel(Op::RandPerm, dev.device.type(), t)) {
    return generate(Op::RandPerm, IntArrayRef(&n, 1), opts, {}, gen, "randperm");
  }
  // No kernel there (CUDA): shuffle on the CPU with a generator seeded from the device's
  // counters, so the CPU's own stream is not consumed, then move.
  Generator local = detail::cpu_generator_for_device(gen, dev.device, "randperm");
  return randperm(n, local, opts.device(Device(kCPU, 0)).requires_grad(false)).to(dev.device);
}

Tensor bernoulli(const Tensor& p, std::optional<Generator> gen) {
  EMBER_CHECK_ARG(p.defined(), "bernoulli: undefined tensor");
  return empty_like(p).bernoulli_(p, std::move(gen));
}
Tensor bernoulli(const Tensor& self, double p, std::optional<Generator> gen) {
  EMBER_CHECK_ARG(self.defined(), "bernoulli: undefined tensor");
  return empty_like(self).bernoulli_(p, std::move(gen));
}

// ---- in place

Tensor& Tensor::uniform_(double from, double to, std::optional<Generator> gen) const {
  check_floating(defined() ? dtype() : kFloat, "uniform_");
  EMBER_CHECK_ARG(from <= to, "uniform_ expects to return a [from, to) range, but found from={} > to={}",
                  from, to);
  return fill_from(*this, "uniform_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     return generate(Op::Uniform, shape, o, params(from, to), gen, "uniform_");
                   });
}

Tensor& Tensor::normal_(double mean, double std, std::optional<Generator> gen) const {
  check_floating(defined() ? dtype() : kFloat, "normal_");
  EMBER_CHECK_ARG(std >= 0, "normal expects std >= 0.0, but found std {}", std);
  detail::OpParams p = params(mean, std);
  // libtorch fills a non-contiguous tensor element by element (a different stream).
  p.has_param[2] = defined() && !is_contiguous();
  return fill_from(*this, "normal_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     return generate(Op::Normal, shape, o, p, gen, "normal_");
                   });
}

Tensor& Tensor::random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> gen) const {
  EMBER_CHECK_ARG(defined(), "random_: undefined tensor");
  const ScalarType t = dtype();
  if (!to) {
    // From `from` to the dtype's largest value; every int64 when from is the smallest (that
    // 64-bit path first: its `from` is below every other dtype's range).
    if (from == std::numeric_limits<int64_t>::min()) {
      EMBER_CHECK_ARG(
          t == kInt64 || t == kDouble || t == kFloat || t == kBFloat16,
          "random_: the full 64-bit range is only supported for Long, Double, Float and BFloat16, got {}",
          name(t));
      return fill_from(
          *this, "random_", [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
            // Counter kernels know bounded ranges only: all but the largest int64 there.
            const detail::OpParams p =
                o.device().is_cpu() ? int_params(from, from, kRandFullRange)
                                    : int_params(from, std::numeric_limits<int64_t>::max(), kRandFromTo);
            return generate(Op::RandInt, shape, o, p, gen, "random_");
          });
    }
    EMBER_CHECK_ARG(from >= dtype_min_for_random(t) && from <= dtype_max_for_random(t),
                    "random_ expects 'from' to be within [{}, {}] for dtype {}, but got from={}",
                    dtype_min_for_random(t), dtype_max_for_random(t), name(t), from);
    const int64_t last = dtype_max_for_random(t);
    return fill_from(
        *this, "random_", [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
          return generate(Op::RandInt, shape, o, int_params(from, int64_t(uint64_t(last) + 1), kRandFromTo),
                          gen, "random_");
        });
  }
  EMBER_CHECK_ARG(from < *to, "random_ expects 'from' to be less than 'to', but got from={} >= to={}", from,
                  *to);
  check_random_range(t, from, *to);
  return fill_from(
      *this, "random_", [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
        return generate(Op::RandInt, shape, o, int_params(from, *to, kRandFromTo), gen, "random_");
      });
}

Tensor& Tensor::random_(int64_t to, std::optional<Generator> gen) const {
  return random_(0, to, std::move(gen));
}

Tensor& Tensor::random_(std::optional<Generator> gen) const {
  EMBER_CHECK_ARG(defined(), "random_: undefined tensor");
  const ScalarType t = dtype();
  return fill_from(*this, "random_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     if (o.device().is_cpu())
                       return generate(Op::RandInt, shape, o, int_params(0, 0, kRandDefault), gen, "random_");
                     // The counter kernels know bounded ranges only: [0, max] is the same set of values.
                     const int64_t end = int64_t(uint64_t(dtype_max_for_random(t)) + 1);
                     return generate(Op::RandInt, shape, o, int_params(0, end, kRandFromTo), gen, "random_");
                   });
}

Tensor& Tensor::bernoulli_(double p, std::optional<Generator> gen) const {
  EMBER_CHECK_ARG(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p={}", p);
  return fill_from(*this, "bernoulli_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     // libtorch: a float64 uniform per element, compared with p.
                     return generate(Op::Uniform, shape, o.dtype(kDouble), params(0, 1), gen, "bernoulli_")
                         .lt(p)
                         .to(o.dtype());
                   });
}

Tensor& Tensor::bernoulli_(const Tensor& p, std::optional<Generator> gen) const {
  EMBER_CHECK_ARG(defined(), "bernoulli_: undefined tensor");
  EMBER_CHECK_ARG(p.defined(), "bernoulli_: the probability tensor is undefined");
  EMBER_CHECK_ARG(ember::is_floating_point(p.dtype()),
                  "bernoulli_: expected a floating point probability tensor, got {}", name(p.dtype()));
  Tensor probs = p.to(device()).expand(sizes());  // InvalidArgument when p does not broadcast to self
  EMBER_CHECK_ARG(probs.ge(0).logical_and(probs.le(1)).all().item<bool>(),
                  "bernoulli_: all elements of the probability tensor must be in [0, 1]");
  return fill_from(*this, "bernoulli_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     // libtorch: float64 uniforms for float64 probabilities, float32 ones otherwise.
                     const ScalarType u = p.dtype() == kDouble ? kDouble : kFloat;
                     Tensor draws = generate(Op::Uniform, shape, o.dtype(u), params(0, 1), gen, "bernoulli_");
                     return draws.lt((perm.empty() ? probs : probs.permute(perm)).to(u)).to(o.dtype());
                   });
}

Tensor Tensor::bernoulli(std::optional<Generator> gen) const {
  return ember::bernoulli(*this, std::move(gen));
}
Tensor Tensor::bernoulli(double p, std::optional<Generator> gen) const {
  return ember::bernoulli(*this, p, std::move(gen));
}

Tensor& Tensor::exponential_(double lambd, std::optional<Generator> gen) const {
  check_floating(defined() ? dtype() : kFloat, "exponential_");
  EMBER_CHECK_ARG(lambd >= 0, "exponential_ expects lambda >= 0.0, but found lambda={}", lambd);
  return fill_from(*this, "exponential_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>& perm) {
                     Tensor u =
                         generate(Op::Uniform, shape, o.dtype(kDouble), params(0, 1), gen, "exponential_");
                     return (1 - u).log().mul(-1.0 / lambd).to(o.dtype());
                   });
}

namespace {

// libtorch's text for an in-place fill without a kernel for the dtype ("cauchy_cpu" not
// implemented for 'Long').
void check_fill_dtype(const Tensor& self, const char* kernel, bool integers_too) {
  EMBER_CHECK_ARG(self.defined(), "{}: undefined tensor", kernel);
  const ScalarType t = self.dtype();
  EMBER_CHECK_TYPED(is_floating_point(t) || (integers_too && t != kBool), NotImplemented,
                    "\"{}_{}\" not implemented for '{}'", kernel, self.device().is_cpu() ? "cpu" : "cuda",
                    detail::torch_name(t));
}

// float64 uniforms in [0, 1) of self's target shape on self's device, one per element in
// libtorch's order.
Tensor uniforms_for(const TensorOptions& o, IntArrayRef shape, const std::optional<Generator>& gen,
                    const char* op) {
  return generate(Op::Uniform, shape, o.dtype(kDouble), params(0, 1), gen, op);
}

}  // namespace

Tensor& Tensor::cauchy_(double median, double sigma, std::optional<Generator> gen) const {
  check_fill_dtype(*this, "cauchy", false);
  return fill_from(*this, "cauchy_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>&) {
                     const Tensor u = uniforms_for(o, shape, gen, "cauchy_");
                     return (u - 0.5).mul_(M_PI).tan().mul_(sigma).add_(median).to(o.dtype());
                   });
}

Tensor& Tensor::log_normal_(double mean, double std, std::optional<Generator> gen) const {
  check_fill_dtype(*this, "log_normal", false);
  EMBER_CHECK_ARG(std > 0.0, "log_normal_ expects std > 0.0, but found std={}", std);
  return fill_from(
      *this, "log_normal_", [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>&) {
        detail::OpParams p = params(mean, std);
        p.has_param[2] = true;  // one normal_distribution<double> draw per element
        return generate(Op::Normal, shape, o.dtype(kDouble), p, gen, "log_normal_").exp_().to(o.dtype());
      });
}

Tensor& Tensor::geometric_(double p, std::optional<Generator> gen) const {
  check_fill_dtype(*this, "geometric", true);
  EMBER_CHECK_ARG(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p={}", p);
  return fill_from(*this, "geometric_",
                   [&](const TensorOptions& o, IntArrayRef shape, const std::vector<int64_t>&) {
                     const Tensor u = uniforms_for(o, shape, gen, "geometric_");
                     return u.log().div_(std::log1p(-p)).ceil().to(o.dtype());
                   });
}

}  // namespace ember
