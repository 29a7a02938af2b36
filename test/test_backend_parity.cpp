// Backend parity (as ggml's test-backend-ops): every Op, through the public API, on
// every device type other than the CPU that has a device and a kernel for the dtype
// (CUDA where a GPU exists, a PrivateUse1 backend when one is registered), against the
// CPU on the same random inputs. The table below maps each Op to a call that runs it;
// with no accelerator the table itself is checked (every Op covered, each call really
// runs its op, as the placement log shows) and the test says no accelerator was found.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim.h"
#include "optim/fused_step.h"
#include "ember/registry.h"

using namespace ember;
using ember::indexing::Slice;

namespace {

const std::vector<ScalarType> kDtypes = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64,
                                         kHalf, kBFloat16, kFloat, kDouble};

uint64_t parity_seed() {
  static const uint64_t seed = std::random_device{}();
  return seed;
}

// Random CPU values of dtype, never all zero: floats in [lo, hi), integers in [0, 10)
// unsigned and [-5, 6) signed, bool about half true.
Tensor random_of(IntArrayRef sizes, ScalarType dt, double lo = -2, double hi = 2) {
  if (dt == kBool) return randint(0, 2, sizes, TensorOptions(kInt64)).to(kBool);
  if (dt == kUInt8) return randint(0, 10, sizes, TensorOptions(kUInt8));
  if (is_integral(dt)) return randint(-5, 6, sizes, TensorOptions(dt));
  return (rand(sizes, TensorOptions(kDouble)) * (hi - lo) + lo).to(dt);
}

// Inputs are made on the CPU; `on` runs a call on a device (inputs copied there).
struct Ctx {
  ScalarType dt;
  Device device;
  Tensor in(const Tensor& cpu) const { return cpu.to(device); }
  TensorOptions opts() const { return TensorOptions(dt).device(device); }
};

// One call per Op: makes its inputs (from the seeded generator) on the CPU, moves them to
// ctx.device, and returns the results. Called twice with the same seed (CPU, device).
using Call = std::function<std::vector<Tensor>(const Ctx&)>;

struct Tolerance {
  double rtol, atol;
};
// Per dtype; `loose` for ops that accumulate (reductions, matmul, softmax, cumsum), whose
// accelerator kernels may sum in float and in another order (CUDA does).
Tolerance tolerance(ScalarType t, bool loose) {
  switch (t) {
    case kHalf: return {2e-2, 2e-2};
    case kBFloat16: return {4e-2, 4e-2};
    case kFloat: return loose ? Tolerance{1e-3, 1e-4} : Tolerance{1e-5, 1e-6};
    case kDouble: return loose ? Tolerance{1e-9, 1e-10} : Tolerance{1e-12, 1e-12};
    default: return {0, 0};
  }
}

// Unary elementwise calls on a [37, 70] input, contiguous and transposed.
Call unary(std::function<Tensor(const Tensor&)> f, double lo = -2, double hi = 2) {
  return [f, lo, hi](const Ctx& c) {
    Tensor x = c.in(random_of({37, 70}, c.dt, lo, hi));
    return std::vector<Tensor>{f(x), f(x.t())};
  };
}
// Views of t (on its device) in each broadcast shape an elementwise launcher must
// handle: one element, zero-dim, row, column and a size-1 middle dim.
std::vector<Tensor> broadcast_views(const Tensor& t) {
  const Tensor flat = t.reshape({-1});
  return {flat.slice(0, 0, 1), flat.select(0, 0), t.slice(0, 0, 1), t.slice(1, 0, 1), t.unsqueeze(1)};
}
// Binary calls: same shape, transposed, then every broadcast shape on either side
// against the full [33, 70] operand ([33, 1, 70] against [33, 4, 70]); b avoids zero
// when asked.
Call binary(std::function<Tensor(const Tensor&, const Tensor&)> f, bool nonzero_b = false) {
  return [f, nonzero_b](const Ctx& c) {
    Tensor a = random_of({33, 70}, c.dt), b = random_of({33, 70}, c.dt);
    if (nonzero_b) b = where(eq(b, 0), ones_like(b), b);
    Tensor ad = c.in(a), bd = c.in(b);
    std::vector<Tensor> out{f(ad, bd), f(ad.t(), bd.t())};
    const std::vector<Tensor> av = broadcast_views(ad), bv = broadcast_views(bd);
    for (size_t i = 0; i < av.size(); ++i) {
      const bool middle = av[i].dim() == 3;  // [33, 1, 70]: pair it with a [33, 4, 70] operand
      out.push_back(f(middle ? ad.unsqueeze(1).expand({33, 4, 70}).contiguous() : ad, bv[i]));
      out.push_back(f(av[i], middle ? bd.unsqueeze(1).expand({33, 4, 70}).contiguous() : bd));
    }
    return out;
  };
}
// Reductions: over everything, each dim of a [67, 300] input, and a short inner dim.
Call reduction(std::function<Tensor(const Tensor&, std::optional<int64_t>)> f, double lo = -2, double hi = 2) {
  return [f, lo, hi](const Ctx& c) {
    Tensor x = c.in(random_of({67, 300}, c.dt, lo, hi));
    Tensor s = c.in(random_of({300, 8}, c.dt, lo, hi));
    return std::vector<Tensor>{f(x, std::nullopt), f(x, 0), f(x, 1), f(x.t(), 1), f(s, 1)};
  };
}
Call along_dim(std::function<Tensor(const Tensor&, int64_t)> f, double lo = -2, double hi = 2) {
  return [f, lo, hi](const Ctx& c) {
    Tensor x = c.in(random_of({23, 300}, c.dt, lo, hi));
    return std::vector<Tensor>{f(x, 0), f(x, 1), f(x.t(), 1)};
  };
}
std::vector<Tensor> tuple_vec(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }

struct OpEntry {
  Call call;
  bool loose = false;  // accumulating op: tolerance(dt, true)
};

// The table: one entry per Op of EMBER_FORALL_OPS (checked below).
std::vector<OpEntry> make_table() {
  std::vector<OpEntry> t(kNumOps);
  auto set = [&](Op op, Call call, bool loose = false) { t[size_t(op)] = {std::move(call), loose}; };
  using V = std::vector<Tensor>;
  // nullary
  set(Op::Fill, [](const Ctx& c) { return V{full({5, 33}, 3, c.opts()), zeros({7}, c.opts())}; });
  set(Op::Arange, [](const Ctx& c) { return V{arange(0, 100, 3, c.opts())}; });
  // Random ops: the CPU draws libtorch's stream and accelerators a counter-based one, so
  // the devices agree on what the draws satisfy (range, moments, a permutation), not on values.
  set(Op::Uniform, [](const Ctx& c) {
    manual_seed(parity_seed());
    Tensor r = rand({40000}, c.opts()).to(kDouble);
    return V{r.ge(0).logical_and(r.lt(1)).all(), (r.mean() - 0.5).abs().lt(0.01)};
  });
  set(Op::Normal, [](const Ctx& c) {
    manual_seed(parity_seed());
    Tensor r = randn({40000}, c.opts()).to(kDouble);
    return V{r.mean().abs().lt(0.03), (r.std() - 1).abs().lt(0.03)};
  });
  set(Op::RandInt, [](const Ctx& c) {
    manual_seed(parity_seed());
    const int64_t lo = c.dt == kBool ? 0 : 3, hi = c.dt == kBool ? 2 : 100;  // within the dtype
    Tensor r = randint(lo, hi, {1000}, c.opts());
    return V{r.ge(lo).logical_and(r.lt(hi)).all(), r.eq(lo).any(), r.eq(hi - 1).any()};
  });
  set(Op::RandPerm, [](const Ctx& c) {
    manual_seed(parity_seed());
    return V{std::get<0>(randperm(120, c.opts()).sort())};  // exact in every dtype but bool
  });
  // unary
  set(Op::Copy, [](const Ctx& c) {
    Tensor x = c.in(random_of({37, 70}, c.dt, 0, 100));
    return V{x.t().contiguous(), x.to(kFloat), x.to(kInt32), x.to(kBool)};
  });
  set(Op::Neg, unary([](const Tensor& x) { return neg(x); }));
  set(Op::Abs, unary([](const Tensor& x) { return abs(x); }));
  set(Op::Sign, unary([](const Tensor& x) { return sign(x); }));
  set(Op::Exp, unary([](const Tensor& x) { return exp(x); }));
  set(Op::Log, unary([](const Tensor& x) { return log(x); }, 0.1, 4));
  set(Op::Log1p, unary([](const Tensor& x) { return log1p(x); }, 0, 4));
  set(Op::Expm1, unary([](const Tensor& x) { return expm1(x); }));
  set(Op::Sqrt, unary([](const Tensor& x) { return sqrt(x); }, 0.1, 4));
  set(Op::Rsqrt, unary([](const Tensor& x) { return rsqrt(x); }, 0.1, 4));
  set(Op::Square, [](const Ctx& c) {
    Tensor x = c.in(random_of({37, 70}, c.dt));
    return V{square(x), square(x.t()), square(ne(x, 0))};  // a bool input squares in int64
  });
  set(Op::Sin, unary([](const Tensor& x) { return sin(x); }));
  set(Op::Cos, unary([](const Tensor& x) { return cos(x); }));
  set(Op::Tan, unary([](const Tensor& x) { return tan(x); }, -1, 1));
  set(Op::Tanh, unary([](const Tensor& x) { return tanh(x); }));
  set(Op::Sigmoid, unary([](const Tensor& x) { return sigmoid(x); }));
  set(Op::Relu, unary([](const Tensor& x) { return relu(x); }));
  set(Op::Gelu, unary([](const Tensor& x) { return gelu(x); }));
  set(Op::Floor, unary([](const Tensor& x) { return floor(x); }, -20, 20));
  set(Op::Ceil, unary([](const Tensor& x) { return ceil(x); }, -20, 20));
  set(Op::Round, unary([](const Tensor& x) { return round(x); }, -20, 20));
  set(Op::Trunc, unary([](const Tensor& x) { return trunc(x); }, -20, 20));
  set(Op::Reciprocal, unary([](const Tensor& x) { return reciprocal(x); }, 0.5, 3));
  set(Op::Erf, unary([](const Tensor& x) { return erf(x); }, -3, 3));
  set(Op::Erfc, unary([](const Tensor& x) { return erfc(x); }, -3, 3));
  set(Op::Erfinv, unary([](const Tensor& x) { return erfinv(x); }, -0.99, 0.99));
  set(Op::Lgamma, unary([](const Tensor& x) { return lgamma(x); }, -4.5, 8));
  set(Op::Digamma, unary([](const Tensor& x) { return digamma(x); }, -4.5, 8));
  set(Op::Trigamma, unary([](const Tensor& x) { return polygamma(1, x); }, -4.5, 8));
  set(Op::I0, unary([](const Tensor& x) { return i0(x); }, -12, 12));
  set(Op::I0e, unary([](const Tensor& x) { return special::i0e(x); }, -12, 12));
  set(Op::I1, unary([](const Tensor& x) { return special::i1(x); }, -12, 12));
  set(Op::I1e, unary([](const Tensor& x) { return special::i1e(x); }, -12, 12));
  set(Op::AiryAi, unary([](const Tensor& x) { return special::airy_ai(x); }, -5, 5));
  set(Op::BesselJ0, unary([](const Tensor& x) { return special::bessel_j0(x); }, -20, 20));
  set(Op::BesselJ1, unary([](const Tensor& x) { return special::bessel_j1(x); }, -20, 20));
  set(Op::BesselY0, unary([](const Tensor& x) { return special::bessel_y0(x); }, 0.1, 20));
  set(Op::BesselY1, unary([](const Tensor& x) { return special::bessel_y1(x); }, 0.1, 20));
  set(Op::ModifiedBesselI0, unary([](const Tensor& x) { return special::modified_bessel_i0(x); }, -12, 12));
  set(Op::ModifiedBesselI1, unary([](const Tensor& x) { return special::modified_bessel_i1(x); }, -12, 12));
  set(Op::ModifiedBesselK0, unary([](const Tensor& x) { return special::modified_bessel_k0(x); }, 0.1, 12));
  set(Op::ModifiedBesselK1, unary([](const Tensor& x) { return special::modified_bessel_k1(x); }, 0.1, 12));
  set(Op::ScaledModifiedBesselK0,
      unary([](const Tensor& x) { return special::scaled_modified_bessel_k0(x); }, 0.1, 12));
  set(Op::ScaledModifiedBesselK1,
      unary([](const Tensor& x) { return special::scaled_modified_bessel_k1(x); }, 0.1, 12));
  set(Op::SphericalBesselJ0, unary([](const Tensor& x) { return special::spherical_bessel_j0(x); }, -20, 20));
  set(Op::Erfcx, unary([](const Tensor& x) { return special::erfcx(x); }, -3, 10));
  set(Op::BitwiseNot, unary([](const Tensor& x) { return bitwise_not(x); }));
  set(Op::IsNan, unary([](const Tensor& x) { return isnan(x); }));
  set(Op::IsInf, unary([](const Tensor& x) { return isinf(x); }));
  set(Op::LogicalNot, unary([](const Tensor& x) { return logical_not(x); }));
  set(Op::Clamp, [](const Ctx& c) {
    Tensor x = c.in(random_of({37, 70}, c.dt));
    V r{clamp(x, -1, 1), clamp(x.t(), -1, 1)};
    if (is_floating_point(c.dt)) r.insert(r.end(), {clamp_max(x, NAN), clamp(x, NAN, 1), clamp(x, -1, NAN)});
    return r;
  });
  // binary
  set(Op::Add, binary([](const Tensor& a, const Tensor& b) { return add(a, b); }));
  set(Op::Sub, binary([](const Tensor& a, const Tensor& b) { return sub(a, b, 2); }));
  set(Op::Mul, binary([](const Tensor& a, const Tensor& b) { return mul(a, b); }));
  set(Op::Div, binary([](const Tensor& a, const Tensor& b) { return div(a, b); }, true));
  set(Op::Remainder, binary([](const Tensor& a, const Tensor& b) { return remainder(a, b); }, true));
  set(Op::Pow, binary([](const Tensor& a, const Tensor& b) { return pow(abs(a), b); }));
  set(Op::Maximum, binary([](const Tensor& a, const Tensor& b) { return maximum(a, b); }));
  set(Op::Minimum, binary([](const Tensor& a, const Tensor& b) { return minimum(a, b); }));
  set(Op::Atan2, binary([](const Tensor& a, const Tensor& b) { return atan2(a, b); }));
  set(Op::Eq, binary([](const Tensor& a, const Tensor& b) { return eq(a, b); }));
  set(Op::Ne, binary([](const Tensor& a, const Tensor& b) { return ne(a, b); }));
  set(Op::Lt, binary([](const Tensor& a, const Tensor& b) { return lt(a, b); }));
  set(Op::Le, binary([](const Tensor& a, const Tensor& b) { return le(a, b); }));
  set(Op::Gt, binary([](const Tensor& a, const Tensor& b) { return gt(a, b); }));
  set(Op::Ge, binary([](const Tensor& a, const Tensor& b) { return ge(a, b); }));
  set(Op::LogicalAnd, binary([](const Tensor& a, const Tensor& b) { return logical_and(a, b); }));
  set(Op::LogicalOr, binary([](const Tensor& a, const Tensor& b) { return logical_or(a, b); }));
  set(Op::LogicalXor, binary([](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }));
  set(Op::BitwiseAnd, binary([](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }));
  set(Op::BitwiseOr, binary([](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }));
  set(Op::BitwiseXor, binary([](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }));
  // Counts from -5 to 10: negative ones and, for int8, ones past the width.
  set(Op::LeftShift, binary([](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }));
  set(Op::RightShift, binary([](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }));
  set(Op::Gcd, binary([](const Tensor& a, const Tensor& b) { return gcd(a, b); }));
  set(Op::Lcm, binary([](const Tensor& a, const Tensor& b) { return lcm(a, b); }));
  set(Op::Nextafter, binary([](const Tensor& a, const Tensor& b) { return nextafter(a, b); }));
  // x > 1 and q > 0: the finite half of the Hurwitz zeta function.
  set(Op::Zeta,
      binary([](const Tensor& a, const Tensor& b) { return special::zeta(a.abs() + 1.5, b.abs() + 0.25); }));
  // The polynomials at x in [-1.2, 1.2] (inside and just outside the intervals) of degree 0 to 9.
  using Poly = Tensor (*)(const Tensor&, const Tensor&);
  const std::pair<Op, Poly> polynomials[] = {
      {Op::ChebyshevT, special::chebyshev_polynomial_t},
      {Op::ChebyshevU, special::chebyshev_polynomial_u},
      {Op::ChebyshevV, special::chebyshev_polynomial_v},
      {Op::ChebyshevW, special::chebyshev_polynomial_w},
      {Op::ShiftedChebyshevT, special::shifted_chebyshev_polynomial_t},
      {Op::ShiftedChebyshevU, special::shifted_chebyshev_polynomial_u},
      {Op::ShiftedChebyshevV, special::shifted_chebyshev_polynomial_v},
      {Op::ShiftedChebyshevW, special::shifted_chebyshev_polynomial_w},
      {Op::HermiteH, special::hermite_polynomial_h},
      {Op::HermiteHe, special::hermite_polynomial_he},
      {Op::LaguerreL, special::laguerre_polynomial_l},
      {Op::LegendreP, special::legendre_polynomial_p},
  };
  for (const auto& [op, fn] : polynomials)
    set(op, binary([fn = fn](const Tensor& a, const Tensor& b) {
          return fn((a * 0.6).clamp(-1.2, 1.2), b.abs() * 5);
        }));
  // a > 0 and x >= 0: the domain of the incomplete gamma functions.
  set(Op::Igamma,
      binary([](const Tensor& a, const Tensor& b) { return igamma(a.abs() * 3 + 0.1, b.abs() * 4); }));
  set(Op::Igammac,
      binary([](const Tensor& a, const Tensor& b) { return igammac(a.abs() * 3 + 0.1, b.abs() * 4); }));
  set(Op::IsClose, [](const Ctx& c) {
    Tensor a = random_of({33, 70}, c.dt), b = random_of({33, 70}, c.dt);
    if (is_floating_point(c.dt)) {  // NaN and infinities in some places of both
      a = where(lt(rand({33, 70}), 0.1), full({}, NAN, c.dt), a);
      b = where(lt(rand({33, 70}), 0.1), full({}, INFINITY, c.dt), b);
    }
    Tensor ad = c.in(a), bd = c.in(b);
    return V{isclose(ad, bd, 0.5, 0.5), isclose(ad.t(), bd.t(), 0, 1, true), isclose(ad, ad), isclose(ad, bd.slice(0, 0, 1))};
  });
  // ternary
  set(Op::Where, [](const Ctx& c) {
    Tensor m = c.in(random_of({30, 41}, kBool)), a = c.in(random_of({30, 41}, c.dt)), b = c.in(random_of({30, 41}, c.dt));
    V out{where(m, a, b), where(m.t(), a.t(), b.t()), where(m, 3, b), where(m, a, -2)};
    for (const Tensor& mb : broadcast_views(m)) {  // a broadcast condition, and broadcast values
      out.push_back(where(mb, a, b));
      out.push_back(where(mb, 3, b));
      out.push_back(where(m, broadcast_views(a)[0], b));
    }
    return out;
  });
  set(Op::Lerp, [](const Ctx& c) {
    Tensor a = c.in(random_of({30, 41}, c.dt)), b = c.in(random_of({30, 41}, c.dt)), w = c.in(random_of({30, 41}, c.dt, 0, 1));
    V out{lerp(a, b, 0.25), lerp(a, b, w)};
    for (const Tensor& wb : broadcast_views(w)) out.push_back(lerp(a, b, wb));
    for (const Tensor& bb : broadcast_views(b)) out.push_back(lerp(a, bb, 0.75));
    return out;
  });
  set(Op::Addcmul, [](const Ctx& c) {
    Tensor s = c.in(random_of({30, 41}, c.dt)), a = c.in(random_of({30, 41}, c.dt)), b = c.in(random_of({30, 41}, c.dt));
    V out{addcmul(s, a, b, 2), addcmul(s.t(), a.t(), b.slice(0, 0, 1).t())};
    for (const Tensor& bb : broadcast_views(b)) out.push_back(addcmul(s, a, bb, 2));
    for (const Tensor& sb : broadcast_views(s)) out.push_back(addcmul(sb, a, b));
    return out;
  });
  set(Op::Addcdiv, [](const Ctx& c) {
    Tensor s = c.in(random_of({30, 41}, c.dt)), a = c.in(random_of({30, 41}, c.dt)), d = c.in(random_of({30, 41}, c.dt, 0.5, 2));
    V out{addcdiv(s, a, d, 0.5)};
    for (const Tensor& db : broadcast_views(d)) out.push_back(addcdiv(s, a, db, 0.5));
    return out;
  });
  // reductions (the dtype the kernel reads is c.dt)
  auto dims = [](std::optional<int64_t> d) { return d ? std::vector<int64_t>{*d} : std::vector<int64_t>{}; };
  set(Op::Sum, reduction([=](const Tensor& x, std::optional<int64_t> d) {
        return is_floating_point(x.dtype()) && d ? mean(x, dims(d)) : sum(x, dims(d));
      }, 0.5, 1.5), true);  // positive: no cancellation, so float rounding stays relative
  set(Op::Prod, reduction([](const Tensor& x, std::optional<int64_t> d) { return d ? prod(x, *d) : prod(x); }, 0.9, 1.1),
      true);
  set(Op::Max, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 300}, c.dt));
    V r = tuple_vec(max(x, 1));
    return V{max(x), amax(x, {0}), r[0], r[1]};
  });
  set(Op::Min, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 300}, c.dt));
    V r = tuple_vec(min(x, 0));
    return V{min(x), amin(x, {1}), r[0], r[1]};
  });
  set(Op::ArgMax, reduction([](const Tensor& x, std::optional<int64_t> d) { return argmax(x, d); }));
  set(Op::ArgMin, reduction([](const Tensor& x, std::optional<int64_t> d) { return argmin(x, d); }));
  set(Op::All, reduction([](const Tensor& x, std::optional<int64_t> d) { return d ? all(x, *d) : all(x); }));
  set(Op::Any, reduction([](const Tensor& x, std::optional<int64_t> d) { return d ? any(x, *d) : any(x); }));
  set(Op::Var, reduction([=](const Tensor& x, std::optional<int64_t> d) {
        return d ? ember::std(x, dims(d), false) : var(x);
      }), true);
  set(Op::Norm, [=](const Ctx& c) {
    Tensor x = c.in(random_of({67, 300}, c.dt));
    V out;
    for (double p : {2.0, 1.0, 0.0, 3.0, double(INFINITY), -double(INFINITY)}) {
      out.push_back(norm(x, p));
      out.push_back(norm(x, p, {1}));
    }
    return out;
  }, true);
  set(Op::LogSumExp, reduction([=](const Tensor& x, std::optional<int64_t> d) { return logsumexp(x, dims(d)); }), true);
  // along one dim
  set(Op::Softmax, along_dim([](const Tensor& x, int64_t d) { return softmax(x, d); }), true);
  set(Op::LogSoftmax, along_dim([](const Tensor& x, int64_t d) { return log_softmax(x, d); }), true);
  set(Op::Cumsum, along_dim([](const Tensor& x, int64_t d) { return cumsum(x, d, x.dtype()); }, 0, 1), true);
  // linear algebra
  set(Op::MatMul, [](const Ctx& c) {
    Tensor a = c.in(random_of({67, 45}, c.dt)), b = c.in(random_of({45, 29}, c.dt));
    Tensor ba = c.in(random_of({3, 67, 45}, c.dt));
    return V{matmul(a, b), matmul(b.t(), a.t()), matmul(ba, b)};
  }, true);
  // selection: strided self, expanded (broadcast) and distinct indices, duplicates summed
  set(Op::Gather, [](const Ctx& c) {
    Tensor x = c.in(random_of({40, 70}, c.dt)).t();
    Tensor idx = c.in(randint(0, 40, {70, 55}));
    Tensor row = c.in(randint(0, 70, {1, 40})).expand({30, 40});
    return V{gather(x, 1, idx), gather(x, 0, row)};
  });
  set(Op::Scatter, [](const Ctx& c) {
    Tensor x = c.in(random_of({40, 70}, c.dt));
    Tensor src = c.in(random_of({30, 70}, c.dt));
    Tensor distinct = c.in(argsort(rand({40, 70}), 0).narrow(0, 0, 30));
    Tensor dup = c.in(randint(0, 40, {30, 70}));
    Tensor inplace = x.clone();
    inplace.t().scatter_(1, distinct.t(), src.t());
    return V{scatter(x, 0, distinct, src),
             scatter(x, 0, distinct, 1),
             inplace,
             scatter_add(x, 0, dup, src),
             scatter_reduce(x, 0, dup, src, "amax"),
             scatter_reduce(x, 0, dup, src, "amin", false)};
  }, true);
  set(Op::Sort, [](const Ctx& c) {
    Tensor x = c.in(random_of({23, 300}, c.dt));
    auto [v0, i0] = sort(x, 0);
    auto [v1, i1] = sort(x.t(), 0, true);
    return V{v0, i0, v1, i1, std::get<0>(topk(x, 5))};
  });
  // selection (advanced indexing stands on these)
  set(Op::IndexSelect, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 30}, c.dt)), idx = c.in(randint(0, 30, {45}, TensorOptions(kInt64)));
    Tensor rows = c.in(randint(-67, 67, {5, 7}, TensorOptions(kInt64)));
    return V{index_select(x, 1, idx), index_select(x.t(), 0, idx), x.index({rows}), x.index({rows, Slice(2, 9)})};
  });
  set(Op::IndexCopy, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 30}, c.dt)), v = c.in(random_of({30}, c.dt));
    x.index_put_({c.in(tensor({3, 0, -1, 40}))}, v);
    x.index_put_({Slice(), c.in(tensor({29, 1}))}, c.in(random_of({67, 1}, c.dt)));
    return V{x};
  });
  set(Op::IndexAdd, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 30}, c.dt)), src = c.in(random_of({67, 40}, c.dt));
    Tensor idx = c.in(randint(0, 30, {40}, TensorOptions(kInt64)));
    Tensor y = c.in(random_of({67, 30}, c.dt));
    y.index_put_({c.in(tensor({3, 3, 7})), c.in(tensor({1, 1, 2}))}, c.in(random_of({3}, c.dt)), true);
    return V{x.index_add_(1, idx, src), y};
  });
  set(Op::Nonzero, [](const Ctx& c) {
    Tensor x = c.in(random_of({67, 300}, c.dt));
    return V{nonzero(x), masked_select(x, x.ne(0)), x.index({x.ne(0)})};
  });
  // optimizer steps: three fused updates of a [67, 300] parameter (and its state)
  set(Op::SgdStep, [](const Ctx& c) {
    Tensor p = c.in(random_of({67, 300}, c.dt)).detach().requires_grad_();
    optim::SGD opt({p}, optim::SGDOptions(0.1).momentum(0.9).weight_decay(0.01).nesterov(true));
    for (int s = 0; s < 3; ++s) {
      p.mutable_grad() = c.in(random_of({67, 300}, c.dt));
      opt.step();
    }
    return V{p.detach(), opt.state_tensors().at("state.0.0.momentum_buffer")};
  });
  set(Op::AdamStep, [](const Ctx& c) {
    Tensor p = c.in(random_of({67, 300}, c.dt)).detach().requires_grad_();
    optim::AdamW opt({p}, optim::AdamWOptions(0.01).amsgrad(true));
    for (int s = 0; s < 3; ++s) {
      p.mutable_grad() = c.in(random_of({67, 300}, c.dt));
      opt.step();
    }
    return V{p.detach(), opt.state_tensors().at("state.0.0.exp_avg_sq")};
  });
  set(Op::RmspropStep, [](const Ctx& c) {
    Tensor p = c.in(random_of({67, 300}, c.dt)).detach().requires_grad_();
    optim::RMSprop opt({p}, optim::RMSpropOptions(0.01).momentum(0.9).centered(true).weight_decay(0.01));
    for (int s = 0; s < 3; ++s) {
      p.mutable_grad() = c.in(random_of({67, 300}, c.dt));
      opt.step();
    }
    const auto st = opt.state_tensors();
    return V{p.detach(), st.at("state.0.0.square_avg"), st.at("state.0.0.momentum_buffer"), st.at("state.0.0.grad_avg")};
  }, true);  // centred: sqrt(square_avg - grad_avg^2) cancels, so the devices' roundings grow
  set(Op::AdagradStep, [](const Ctx& c) {
    Tensor p = c.in(random_of({67, 300}, c.dt)).detach().requires_grad_();
    optim::Adagrad opt({p}, optim::AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.01).initial_accumulator_value(0.1));
    for (int s = 0; s < 3; ++s) {
      p.mutable_grad() = c.in(random_of({67, 300}, c.dt));
      opt.step();
    }
    return V{p.detach(), opt.state_tensors().at("state.0.0.sum")};
  });
  set(Op::AmpUnscale, [](const Ctx& c) {
    Tensor g = c.in(random_of({67, 300}, c.dt)) * 1024;
    Tensor flag = zeros({1}, TensorOptions(kFloat).device(c.device));
    optim::detail::run_amp_unscale(g, 1.0 / 1024, flag);
    return V{g, flag};
  });
  // library kernels (oneDNN, cuDNN): a strided, padded, grouped convolution and its gradients
  set(Op::Convolution, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt)), w = c.in(random_of({6, 2, 3, 2}, c.dt));
    Tensor b = c.in(random_of({6}, c.dt));
    return V{conv2d(x, w, b, {2, 1}, {1, 0}, 1, 2), conv1d(x.select(2, 0), w.select(3, 0), {}, 1, 1, 2, 2)};
  }, true);
  set(Op::ConvolutionBackward, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt)).requires_grad_();
    Tensor w = c.in(random_of({6, 2, 3, 2}, c.dt)).requires_grad_(), b = c.in(random_of({6}, c.dt)).requires_grad_();
    Tensor g = c.in(random_of({3, 6, 6, 8}, c.dt));
    conv2d(x, w, b, {2, 1}, {1, 0}, 1, 2).backward(g);
    return V{x.grad(), w.grad(), b.grad()};
  }, true);
  set(Op::MaxPool2d, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt));
    auto [v, i] = max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 1}, {1, 2}, true);
    return V{v, i, max_pool2d(x.transpose(2, 3), 2)};
  });
  set(Op::MaxPool2dBackward, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt)).requires_grad_();
    max_pool2d(x, {3, 2}, {1, 2}, {1, 1}).backward(c.in(random_of({3, 4, 11, 5}, c.dt)));
    return V{x.grad()};
  }, true);
  set(Op::AdaptiveAvgPool2d, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt));
    return V{adaptive_avg_pool2d(x, {4, 5}), adaptive_avg_pool2d(x.transpose(2, 3), {3, 3})};
  }, true);
  set(Op::AdaptiveAvgPool2dBackward, [](const Ctx& c) {
    Tensor x = c.in(random_of({3, 4, 11, 9}, c.dt)).requires_grad_();
    adaptive_avg_pool2d(x, {4, 5}).backward(c.in(random_of({3, 4, 4, 5}, c.dt)));
    return V{x.grad()};
  }, true);
  set(Op::BatchNormStats, [](const Ctx& c) {
    Tensor x = c.in(random_of({6, 5, 7, 3}, c.dt));
    Tensor rm = c.in(zeros({5}, c.dt)), rv = c.in(ones({5}, c.dt));
    return V{batch_norm(x, {}, {}, rm, rv, true, 0.5, 1e-5), rm, rv};
  }, true);
  set(Op::BatchNormBackwardReduce, [](const Ctx& c) {
    Tensor x = c.in(random_of({6, 5, 7, 3}, c.dt)).requires_grad_();
    Tensor w = c.in(random_of({5}, c.dt)).requires_grad_(), b = c.in(random_of({5}, c.dt)).requires_grad_();
    batch_norm(x, w, b, {}, {}, true, 0.1, 1e-5).backward(c.in(random_of({6, 5, 7, 3}, c.dt)));
    return V{x.grad(), w.grad(), b.grad()};
  }, true);
  return t;
}

const std::vector<OpEntry>& table() {
  static const std::vector<OpEntry> t = make_table();
  return t;
}

// Runs an Op's call with the placement log captured; returns the log lines.
std::vector<std::string> run_logged(const OpEntry& e, const Ctx& c, std::vector<Tensor>& out) {
  std::vector<std::string> lines;
  set_placement_log_sink([&](const std::string& l) { lines.push_back(l); });
  set_log_device_placement(true);
  try {
    out = e.call(c);
  } catch (...) {
    set_log_device_placement(false);
    set_placement_log_sink(nullptr);
    throw;
  }
  set_log_device_placement(false);
  set_placement_log_sink(nullptr);
  return lines;
}

// Copy (to(), contiguous(), clone()) is a tensor method, not a placed op: it logs no line.
bool mentions_op(const std::vector<std::string>& lines, Op op, const Device& d) {
  if (op == Op::Copy) return true;
  const std::string want = std::string("Executing op ") + op_name(op) + " in device " + d.tf_str();
  for (const std::string& l : lines)
    if (l == want) return true;
  return false;
}

void check_same(const Tensor& dev, const Tensor& cpu, Tolerance tol, DeviceType type, const std::string& what) {
  INFO(what << " (seed " << parity_seed() << ")");
  REQUIRE(dev.defined() == cpu.defined());
  if (!cpu.defined()) return;
  CHECK(dev.device().type() == type);
  REQUIRE(dev.dtype() == cpu.dtype());
  REQUIRE(dev.sizes().vec() == cpu.sizes().vec());
  Tensor d = dev.cpu().to(kDouble).contiguous(), c = cpu.to(kDouble).contiguous();
  const double* dp = d.data_ptr<double>();
  const double* cp = c.data_ptr<double>();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < d.numel(); ++i) {
    const double x = dp[i], y = cp[i];
    const bool ok = (std::isnan(x) && std::isnan(y)) || x == y || std::abs(x - y) <= tol.atol + tol.rtol * std::abs(y);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad) INFO(bad << " mismatches, the first at " << first << ": device " << dp[first] << ", cpu " << cp[first]);
  CHECK(bad == 0);
}

// Device types other than the CPU that have at least one device.
std::vector<DeviceType> accelerator_types() {
  std::vector<DeviceType> types;
  for (int i = 0; i < kNumDeviceTypes; ++i) {
    const DeviceType type = static_cast<DeviceType>(i);
    if (type != kCPU && !list_logical_devices(type).empty()) types.push_back(type);
  }
  return types;
}

}  // namespace

TEST_CASE("parity: the table covers every Op and every Op has a CPU kernel") {
  REQUIRE(int(table().size()) == kNumOps);
  for (int i = 0; i < kNumOps; ++i) {
    const Op op = static_cast<Op>(i);
    INFO(op_name(op));
    CHECK(bool(table()[size_t(i)].call));
    bool any = false;
    for (ScalarType dt : kDtypes) any = any || has_kernel(op, kCPU, dt);
    // Library kernels are optional (Note [Library kernels]): oneDNN's, when the build has it.
    CHECK(any == (op_family(op) != OpFamily::Conv || onednn_available()));
  }
  // The families partition the enum in order: elementwise, reduce, dim, matmul, then selection.
  CHECK(op_family(Op::Fill) == OpFamily::Elementwise);
  CHECK(op_family(Op::Addcdiv) == OpFamily::Elementwise);
  CHECK(op_family(Op::Sum) == OpFamily::Reduce);
  CHECK(op_family(Op::LogSumExp) == OpFamily::Reduce);
  CHECK(op_family(Op::Softmax) == OpFamily::Dim);
  CHECK(op_family(Op::Cumsum) == OpFamily::Dim);
  CHECK(op_family(Op::MatMul) == OpFamily::Matmul);
  CHECK(op_family(Op::Gather) == OpFamily::Select);
  CHECK(op_family(Op::Scatter) == OpFamily::Select);
  CHECK(op_family(Op::Sort) == OpFamily::Sort);
  CHECK(op_family(Op::IndexSelect) == OpFamily::Index);
  CHECK(op_family(Op::Nonzero) == OpFamily::Index);
  CHECK(op_family(Op::SgdStep) == OpFamily::Optim);
  CHECK(op_family(Op::AdamStep) == OpFamily::Optim);
  CHECK(op_family(Op::RmspropStep) == OpFamily::Optim);
  CHECK(op_family(Op::AdagradStep) == OpFamily::Optim);
  CHECK(op_family(Op::AmpUnscale) == OpFamily::Optim);
  CHECK(op_family(Op::Convolution) == OpFamily::Conv);
  CHECK(op_family(Op::ConvolutionBackward) == OpFamily::Conv);
  CHECK(op_family(Op::MaxPool2d) == OpFamily::Pool);
  CHECK(op_family(Op::AdaptiveAvgPool2dBackward) == OpFamily::Pool);
  CHECK(op_family(Op::BatchNormStats) == OpFamily::Norm);
  CHECK(op_family(Op::BatchNormBackwardReduce) == OpFamily::Norm);
}

TEST_CASE("parity: each table entry runs its Op on the CPU, deterministically") {
  const Device cpu(kCPU, 0);
  for (int i = 0; i < kNumOps; ++i) {
    const Op op = static_cast<Op>(i);
    for (ScalarType dt : kDtypes) {
      if (!has_kernel(op, kCPU, dt)) continue;
      INFO(op_name(op) << " " << name(dt));
      const Ctx c{dt, cpu};
      std::vector<Tensor> first, second;
      manual_seed(parity_seed() + uint64_t(i));
      const auto lines = run_logged(table()[size_t(i)], c, first);
      CHECK(mentions_op(lines, op, cpu));  // the call really runs this Op
      manual_seed(parity_seed() + uint64_t(i));
      second = table()[size_t(i)].call(c);
      REQUIRE(first.size() == second.size());
      CHECK_FALSE(first.empty());
      for (size_t k = 0; k < first.size(); ++k)
        check_same(first[k], second[k], {0, 0}, kCPU, std::string(op_name(op)) + " result " + std::to_string(k));
    }
  }
}

TEST_CASE("parity: every Op on every accelerator device type matches the CPU") {
  const std::vector<DeviceType> types = accelerator_types();
  if (types.empty()) {
    WARN("no accelerator device type has a device (no GPU, no PrivateUse1 backend): "
         "only the CPU side of the parity table was checked");
    SUCCEED();
    return;
  }
  for (DeviceType type : types) {
    const Device dev = list_logical_devices(type).front().device;
    int covered = 0;
    for (int i = 0; i < kNumOps; ++i) {
      const Op op = static_cast<Op>(i);
      const OpEntry& e = table()[size_t(i)];
      for (ScalarType dt : kDtypes) {
        if (!has_kernel(op, type, dt)) continue;
        INFO(op_name(op) << " " << name(dt) << " on " << dev.str());
        // An accelerator never takes a dtype the CPU lacks, except through a vendor library
        // (Note [Library kernels]): the CPU side then runs the portable form.
        const bool library = op_family(op) == OpFamily::Conv;
        if (!library) CHECK(has_kernel(op, kCPU, dt));
        if (!library && !has_kernel(op, kCPU, dt)) continue;
        manual_seed(parity_seed() + uint64_t(i));
        std::vector<Tensor> on_dev;
        const auto lines = run_logged(e, Ctx{dt, dev}, on_dev);
        CHECK(mentions_op(lines, op, dev));
        manual_seed(parity_seed() + uint64_t(i));
        const std::vector<Tensor> on_cpu = e.call(Ctx{dt, Device(kCPU, 0)});
        REQUIRE(on_dev.size() == on_cpu.size());
        for (size_t k = 0; k < on_cpu.size(); ++k)
          check_same(on_dev[k], on_cpu[k], tolerance(dt, e.loose), type,
                     std::string(op_name(op)) + " " + name(dt) + " result " + std::to_string(k));
        ++covered;
      }
    }
    INFO("device type " << dev.str());
    CHECK(covered > 0);
  }
}
