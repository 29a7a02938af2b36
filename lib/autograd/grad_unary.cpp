// Backward formulas of the unary elementwise ops (exp, tanh, clamp, ...): one line each,
// in ordinary ember ops, so create_graph differentiates them again.
#include <cctype>
#include <cmath>

#include "autograd/hooks.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember::autograd::detail {

namespace {

enum class Uses : uint8_t { None, Input, Output };

Uses uses(Op op) {
  switch (op) {
    case Op::Exp: case Op::Expm1: case Op::Sqrt: case Op::Rsqrt: case Op::Tan: case Op::Tanh:
    case Op::Sigmoid:
    case Op::Relu:
    case Op::Reciprocal:
    case Op::Erfinv:
      return Uses::Output;
    case Op::Abs: case Op::Log: case Op::Log1p: case Op::Square: case Op::Sin: case Op::Cos:
    case Op::Gelu:
    case Op::Clamp:
    case Op::Erf:
    case Op::Erfc:
    case Op::Lgamma:
    case Op::Digamma:
    case Op::Trigamma:
    case Op::I0:
    case Op::I0e:
    case Op::I1:
    case Op::I1e:
    case Op::Erfcx:
      return Uses::Input;
    default:
      return Uses::None;
  }
}

using G = variable_list;
using N = FormulaNode;

// The formula and libtorch's node name for op; `p` carries clamp's bounds.
std::shared_ptr<FormulaNode> make(Op op, const Tensor& x, Tensor& y, const OpParams& p) {
  const Tensor* in = &x;
  switch (op) {
    case Op::Neg: return record("NegBackward0", {in}, {&y}, [](N&, G& g) -> G { return {neg(g[0])}; });
    case Op::Abs: return record("AbsBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * sign(n.saved(0))}; });
    case Op::Sign: case Op::Floor: case Op::Ceil: case Op::Round: case Op::Trunc: {
      static const char* names[] = {"SignBackward0", "FloorBackward0", "CeilBackward0", "RoundBackward0",
                                    "TruncBackward0"};
      const int k = op == Op::Sign ? 0 : op == Op::Floor ? 1 : op == Op::Ceil ? 2 : op == Op::Round ? 3 : 4;
      return record(names[k], {in}, {&y}, [](N&, G& g) -> G { return {zeros_like(g[0])}; });
    }
    case Op::Exp: return record("ExpBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * n.saved(0)}; });
    case Op::Log: return record("LogBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] / n.saved(0)}; });
    case Op::Log1p:
      return record("Log1PBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] / (n.saved(0) + 1)}; });
    case Op::Expm1:
      return record("Expm1Backward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * (n.saved(0) + 1)}; });
    case Op::Sqrt:
      return record("SqrtBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] / (2 * n.saved(0))}; });
    case Op::Rsqrt:
      return record("RsqrtBackward0", {in}, {&y},
                    [](N& n, G& g) -> G { return {g[0] * pow(n.saved(0), 3) * -0.5}; });
    case Op::Square:
      return record("PowBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * (2 * n.saved(0))}; });
    case Op::Sin: return record("SinBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * cos(n.saved(0))}; });
    case Op::Cos:
      return record("CosBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {g[0] * -sin(n.saved(0))}; });
    case Op::Tan: return record("TanBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        Tensor t = n.saved(0);
        return {g[0] * (t * t + 1)};
      });
    case Op::Tanh: return record("TanhBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        Tensor t = n.saved(0);
        return {g[0] * (1 - t * t)};
      });
    case Op::Sigmoid: return record("SigmoidBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        Tensor s = n.saved(0);
        return {g[0] * (s * (1 - s))};
      });
    case Op::Relu:
      return record("ReluBackward0", {in}, {&y}, [](N& n, G& g) -> G { return {where(n.saved(0) > 0, g[0], 0.0)}; });
    case Op::Gelu:
      return record("GeluBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        // d/dx x*Phi(x) = Phi(x) + x*phi(x).
        Tensor v = n.saved(0);
        Tensor cdf = (erf(v * M_SQRT1_2) + 1) * 0.5;
        Tensor pdf = exp(v * v * -0.5) * (1.0 / std::sqrt(2.0 * M_PI));
        return {g[0] * (cdf + v * pdf)};
      });
    case Op::Erf:
      return record("ErfBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        const Tensor v = n.saved(0);
        return {g[0] * (exp(-(v * v)) * M_2_SQRTPI)};
      });
    case Op::Erfc:
      return record("ErfcBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        const Tensor v = n.saved(0);
        return {g[0] * (exp(-(v * v)) * -M_2_SQRTPI)};
      });
    case Op::Erfinv:
      return record("ErfinvBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        const Tensor r = n.saved(0);
        return {g[0] * (exp(r * r) * (0.5 * std::sqrt(M_PI)))};
      });
    case Op::Lgamma:
      return record("LgammaBackward0", {in}, {&y},
                    [](N& n, G& g) -> G { return {g[0] * digamma(n.saved(0))}; });
    case Op::Digamma:
      return record("DigammaBackward0", {in}, {&y},
                    [](N& n, G& g) -> G { return {g[0] * polygamma(1, n.saved(0))}; });
    case Op::Trigamma:
      return record("PolygammaBackward0", {in}, {&y},
                    [](N& n, G& g) -> G { return {g[0] * polygamma(2, n.saved(0))}; });
    case Op::I0:
      return record("I0Backward0", {in}, {&y},
                    [](N& n, G& g) -> G { return {g[0] * special::i1(n.saved(0))}; });
    case Op::I0e:
      return record("SpecialI0EBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        const Tensor v = n.saved(0);
        return {g[0] * (special::i1e(v) - sgn(v) * special::i0e(v))};
      });
    case Op::I1:
    case Op::I1e:
      return record(
          op == Op::I1 ? "SpecialI1Backward0" : "SpecialI1EBackward0", {in}, {&y}, [op](N& n, G& g) -> G {
            // libtorch's form: 0.5 within machine epsilon of 0, where the quotient would be 0/0.
            const Tensor v = n.saved(0);
            const double eps = v.dtype() == kDouble ? 2.220446049250313e-16 : 1.1920928955078125e-07;
            const Tensor not_tiny = abs(v) > eps;
            const Tensor safe = where(not_tiny, v, eps);
            const Tensor slope =
                op == Op::I1 ? special::i0(safe) - special::i1(safe) / safe
                             : special::i0e(safe) - special::i1e(safe) * (sgn(safe) + reciprocal(safe));
            return {g[0] * where(not_tiny, slope, 0.5)};
          });
    case Op::Erfcx:
      // d/dx erfcx(x) = 2 x erfcx(x) - 2 / sqrt(pi). erfcx(x) is recomputed from the saved input
      // (one node saves one tensor here), where libtorch saves both.
      return record("SpecialErfcxBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        const Tensor x = n.saved(0);
        return {g[0] * (2 * x * special::erfcx(x) - M_2_SQRTPI)};
      });
    case Op::Reciprocal: return record("ReciprocalBackward0", {in}, {&y}, [](N& n, G& g) -> G {
        Tensor r = n.saved(0);
        return {g[0] * -(r * r)};
      });
    case Op::Clamp: {
      const std::optional<double> lo = p.has_param[0] ? std::optional<double>(p.param[0].f) : std::nullopt;
      const std::optional<double> hi = p.has_param[1] ? std::optional<double>(p.param[1].f) : std::nullopt;
      const char* name = lo && hi ? "ClampBackward1" : lo ? "ClampMinBackward0" : "ClampMaxBackward0";
      return record(name, {in}, {&y}, [lo, hi](N& n, G& g) -> G {
        Tensor v = n.saved(0);
        Tensor keep = lo ? ge(v, *lo) : ones_like(v, kBool);
        if (hi) keep = logical_and(keep, le(v, *hi));
        return {where(keep, g[0], 0.0)};
      });
    }
    case Op::Copy: return record("ToCopyBackward0", {in}, {&y}, [](N&, G& g) -> G { return {g[0]}; });
    default: return nullptr;
  }
}

}  // namespace

std::string lower_op_name(Op op) {
  std::string s = op_name(op);
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Tensor unary(Op op, const Tensor& x, ComputeType ct, const OpParams& p, Tensor* out) {
  if (!requires_grad(x) || ct == ComputeType::BoolOut) {
    NoGradGuard no_grad;
    return ember::detail::run_unary(op, x, ct, p, out);
  }
  if (out && !out->is_same(x)) throw_out_requires_grad(lower_op_name(op).c_str());
  if (out) check_inplace(x);
  // An in-place op overwrites its input: keep a (recorded) copy when the formula reads it.
  const Tensor self = out && uses(op) == Uses::Input ? x.clone() : x;
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::detail::run_unary(op, x, ct, p, out);
  }
  if (!is_floating_point(y.dtype())) return y;
  auto node = make(op, self, y, p);
  if (!node) return y;
  if (uses(op) == Uses::Input) node->saved_[0] = SavedVariable(self, false);
  if (uses(op) == Uses::Output) node->saved_[0] = SavedVariable(y, true);
  if (out) rebase_view(y, node);
  return y;
}

}  // namespace ember::autograd::detail
