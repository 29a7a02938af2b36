// Backward formulas of the binary and ternary elementwise ops (add ... atan2, where, lerp,
// addcmul, addcdiv). Broadcasting and type promotion are undone by the engine, which sums
// each gradient back to its input's shape and casts it to the input's dtype.
#include <cmath>

#include "autograd/hooks.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "tensor/inference.h"

namespace ember::autograd::detail {

namespace {

using G = variable_list;
using N = FormulaNode;

// The saved slots (bit i: saved_[i]; slot 2 is the output) that op's formulas read for the
// gradient of input 0 and of input 1. As libtorch, only what a needed gradient reads is
// saved: the rest is neither kept alive, nor version-checked, nor refused as an inference
// tensor (Note [Inference tensors]).
struct SavedSlots {
  unsigned for_a, for_b;
};
SavedSlots saved_slots(Op op) {
  switch (op) {
    case Op::Mul:
      return {0b010, 0b001};
    case Op::Div:
      return {0b010, 0b011};
    case Op::Pow:
      return {0b011, 0b111};
    case Op::Maximum:
    case Op::Minimum:
    case Op::Atan2:
      return {0b011, 0b011};
    case Op::Zeta:
      return {0b000, 0b011};  // no derivative in x (as libtorch)
    case Op::Igamma:
    case Op::Igammac:
      return {0b000, 0b011};  // no derivative in a (as libtorch)
    case Op::Remainder:
      return {0b000, 0b011};
    default:
      return {0, 0};  // Add, Sub: the gradient is the incoming one
  }
}

// The same for the ternary ops, from the gradients node needs (libtorch's saved sets).
unsigned ternary_saved_slots(Op op, const FormulaNode& n, bool scalar_weight) {
  switch (op) {
    case Op::Where:
      return 0b001;  // the condition
    case Op::Lerp:
      if (scalar_weight) return 0;
      return (n.needs(0) || n.needs(1) ? 0b100u : 0u) | (n.needs(2) ? 0b011u : 0u);
    case Op::Addcmul:
      return (n.needs(1) ? 0b100u : 0u) | (n.needs(2) ? 0b010u : 0u);
    case Op::Addcdiv:
      return (n.needs(1) ? 0b100u : 0u) | (n.needs(2) ? 0b110u : 0u);
    default:
      return 0b111;
  }
}

Tensor max_min_grad(const Tensor& g, const Tensor& self, const Tensor& other, bool self_wins_when_greater) {
  Tensor wins = self_wins_when_greater ? gt(self, other) : lt(self, other);
  return where(eq(self, other), g / 2, where(wins, g, 0.0));
}

// The node for op on (a, b) where one side may be the number s (a or b undefined).
std::shared_ptr<FormulaNode> make(Op op, const Tensor& a, const Tensor& b, std::optional<double> s, Tensor& y,
                                  const OpParams& p) {
  const Tensor* ia = a.defined() ? &a : nullptr;
  const Tensor* ib = b.defined() ? &b : nullptr;
  const bool scalar = s.has_value();
  const double alpha = p.param[0].f;
  switch (op) {
    case Op::Add:
      return record(scalar ? "AddBackward1" : "AddBackward0", {ia, ib}, {&y}, [alpha](N& n, G& g) -> G {
        return {g[0], n.needs(1) ? (alpha == 1 ? g[0] : g[0] * alpha) : Tensor()};
      });
    case Op::Sub:
      return record(scalar && ia ? "SubBackward1" : scalar ? "RsubBackward1" : "SubBackward0", {ia, ib}, {&y},
                    [alpha](N& n, G& g) -> G { return {g[0], n.needs(1) ? g[0] * -alpha : Tensor()}; });
    case Op::Mul:
      return record(scalar ? "MulBackward1" : "MulBackward0", {ia, ib}, {&y}, [s](N& n, G& g) -> G {
        Tensor ga, gb;
        if (n.needs(0)) ga = s ? g[0] * *s : g[0] * n.saved(1);
        if (n.needs(1)) gb = s ? g[0] * *s : g[0] * n.saved(0);
        return {ga, gb};
      });
    case Op::Div:
      return record(scalar && ia ? "DivBackward1" : "DivBackward0", {ia, ib}, {&y}, [s](N& n, G& g) -> G {
        Tensor ga, gb;
        if (n.needs(0)) ga = s ? g[0] / *s : g[0] / n.saved(1);
        if (n.needs(1)) {
          Tensor d = n.saved(1);
          gb = -g[0] * (s ? full_like(d, *s) : n.saved(0)) / (d * d);
        }
        return {ga, gb};
      });
    case Op::Pow:
      if (scalar && ia)
        return record("PowBackward0", {ia, ib}, {&y}, [e = *s](N& n, G& g) -> G {
          if (e == 0) return {zeros_like(g[0])};
          return {g[0] * (pow(n.saved(0), e - 1) * e)};
        });
      return record(scalar ? "PowBackward2" : "PowBackward1", {ia, ib}, {&y}, [s](N& n, G& g) -> G {
        Tensor ga, gb;
        Tensor out = n.saved(2);
        if (n.needs(0)) {
          Tensor base = n.saved(0), e = n.saved(1);
          ga = g[0] * e * pow(base, e - 1);
        }
        if (n.needs(1)) {
          if (s) {
            gb = g[0] * out * std::log(*s);
          } else {
            Tensor base = n.saved(0), e = n.saved(1);
            // 0 ** e for e >= 0 has no log term (libtorch masks it the same way).
            gb = where(logical_and(eq(base, 0), ge(e, 0)), zeros_like(out), g[0] * out * log(base));
          }
        }
        return {ga, gb};
      });
    case Op::Maximum: case Op::Minimum: {
      const bool is_max = op == Op::Maximum;
      return record(is_max ? "MaximumBackward0" : "MinimumBackward0", {ia, ib}, {&y}, [is_max](N& n, G& g) -> G {
        Tensor x = n.saved(0), o = n.saved(1);
        return {n.needs(0) ? max_min_grad(g[0], x, o, is_max) : Tensor(),
                n.needs(1) ? max_min_grad(g[0], o, x, is_max) : Tensor()};
      });
    }
    case Op::Atan2:
      return record("Atan2Backward0", {ia, ib}, {&y}, [](N& n, G& g) -> G {
        Tensor x = n.saved(0), o = n.saved(1);
        Tensor r = x * x + o * o;
        return {n.needs(0) ? g[0] * o / r : Tensor(), n.needs(1) ? g[0] * -x / r : Tensor()};
      });
    case Op::Zeta:
      // d/dq zeta(x, q) = -x zeta(x + 1, q); libtorch has no derivative in x either.
      return record(scalar && ia ? "SpecialZetaBackward2"
                    : scalar     ? "SpecialZetaBackward1"
                                 : "SpecialZetaBackward0",
                    {ia, ib}, {&y}, [s](N& n, G& g) -> G {
                      EMBER_CHECK_TYPED(!n.needs(0), NotImplemented,
                                        "the derivative for 'zeta' is not implemented.");
                      Tensor gb;
                      if (n.needs(1)) {
                        const Tensor q = n.saved(1);
                        const Tensor x = s ? full_like(q, *s) : n.saved(0);
                        gb = g[0] * -x * special::zeta(x + 1, q);
                      }
                      return {Tensor(), gb};
                    });
    case Op::Igamma:
    case Op::Igammac: {
      // d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), in logs; Q = 1 - P.
      const bool lower = op == Op::Igamma;
      return record(lower ? "IgammaBackward0" : "IgammacBackward0", {ia, ib}, {&y}, [lower](N& n, G& g) -> G {
        EMBER_CHECK_TYPED(!n.needs(0), NotImplemented, "the derivative for '{}: input' is not implemented.",
                          lower ? "igamma" : "igammac");
        const Tensor a = n.saved(0), x = n.saved(1);
        const Tensor density = exp((a - 1) * log(x) - x - lgamma(a));
        return {Tensor(), lower ? g[0] * density : -g[0] * density};
      });
    }
    case Op::Remainder:
      return record(scalar && ia ? "RemainderBackward1" : "RemainderBackward0", {ia, ib}, {&y},
                    [s](N& n, G& g) -> G {
                      Tensor gb;
                      if (n.needs(1)) {
                        Tensor o = n.saved(1);
                        gb = -g[0] * floor((s ? full_like(o, *s) : n.saved(0)) / o);
                      }
                      return {g[0], gb};
                    });
    default:
      return nullptr;
  }
}

}  // namespace

Tensor binary(Op op, const Tensor* a, const Tensor* b, const Scalar* s, ComputeType ct, const OpParams& p,
              Tensor* out) {
  auto forward = [&] {
    NoGradGuard no_grad;
    if (!a) return ember::detail::run_binary(op, *s, *b, ct, p, out);
    if (!b) return ember::detail::run_binary(op, *a, *s, ct, p, out);
    return ember::detail::run_binary(op, *a, *b, ct, p, out);
  };
  const Tensor ta = a ? *a : Tensor(), tb = b ? *b : Tensor();
  if (!(requires_grad(ta) || requires_grad(tb)) || ct == ComputeType::BoolOut) {
    if (out) check_inplace(*out);
    return forward();
  }
  if (out && !(a && out->is_same(*a))) throw_out_requires_grad(lower_op_name(op).c_str());
  if (out) {
    ember::detail::check_writable(*out);
    check_inplace(*out);
  }
  const SavedSlots slots = saved_slots(op);
  const unsigned keep = (requires_grad(ta) ? slots.for_a : 0) | (requires_grad(tb) ? slots.for_b : 0);
  // Refused before an in-place forward writes anything; an in-place self that a formula
  // reads is saved as it was.
  if (keep & 1) check_savable(ta);
  if (keep & 2) check_savable(tb);
  const Tensor self = out && (keep & 1) ? ta.clone() : ta;
  Tensor y = forward();
  if (!is_floating_point(y.dtype())) return y;
  std::optional<double> sv;
  if (s) sv = s->to_double();
  auto node = make(op, self, tb, sv, y, p);
  if (!node) return y;
  // An in-place op's self is its output: saved as one, without the grad_fn that would
  // make node -> self -> node a cycle (a leak).
  if ((keep & 1) && self.defined()) node->saved_[0] = SavedVariable(self, self.is_same(y));
  if ((keep & 2) && tb.defined()) node->saved_[1] = SavedVariable(tb, tb.is_same(y));
  if ((keep & 4) && op == Op::Pow && !(s && a)) node->saved_[2] = SavedVariable(y, true);
  if (out) rebase_view(y, node);
  return y;
}

Tensor ternary(Op op, const Tensor* inputs, const std::optional<Scalar>* scalars, ComputeType ct, const OpParams& p) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::detail::run_ternary(op, inputs, scalars, ct, p);
  }
  const Tensor *i0 = scalars[0] ? nullptr : &inputs[0], *i1 = scalars[1] ? nullptr : &inputs[1],
               *i2 = scalars[2] ? nullptr : &inputs[2];
  if (!any_requires_grad({i0, i1, i2}) || !is_floating_point(y.dtype())) return y;
  std::shared_ptr<FormulaNode> node;
  const double v = p.param[0].f;
  switch (op) {
    case Op::Where:
      node = record("WhereBackward0", {nullptr, i1, i2}, {&y}, [](N& n, G& g) -> G {
        Tensor c = n.saved(0);
        return {Tensor(), n.needs(1) ? where(c, g[0], 0.0) : Tensor(), n.needs(2) ? where(c, 0.0, g[0]) : Tensor()};
      });
      break;
    case Op::Lerp:
      if (scalars[2]) {
        const double w = scalars[2]->to_double();
        node = record("LerpBackward0", {i0, i1, nullptr}, {&y}, [w](N&, G& g) -> G {
          return {g[0] * (1 - w), g[0] * w, Tensor()};
        });
      } else {
        node = record("LerpBackward1", {i0, i1, i2}, {&y}, [](N& n, G& g) -> G {
          Tensor w = n.saved(2);
          return {n.needs(0) ? g[0] * (1 - w) : Tensor(), n.needs(1) ? g[0] * w : Tensor(),
                  n.needs(2) ? g[0] * (n.saved(1) - n.saved(0)) : Tensor()};
        });
      }
      break;
    case Op::Addcmul:
      node = record("AddcmulBackward0", {i0, i1, i2}, {&y}, [v](N& n, G& g) -> G {
        return {g[0], n.needs(1) ? g[0] * n.saved(2) * v : Tensor(), n.needs(2) ? g[0] * n.saved(1) * v : Tensor()};
      });
      break;
    case Op::Addcdiv:
      node = record("AddcdivBackward0", {i0, i1, i2}, {&y}, [v](N& n, G& g) -> G {
        Tensor t2 = n.saved(2);
        return {g[0], n.needs(1) ? g[0] * v / t2 : Tensor(),
                n.needs(2) ? -g[0] * v * n.saved(1) / (t2 * t2) : Tensor()};
      });
      break;
    default:
      return y;
  }
  const unsigned keep = ternary_saved_slots(op, *node, scalars[2].has_value());
  for (int i = 0; i < 3; ++i)
    if (!scalars[i] && (keep >> i & 1)) node->saved_[size_t(i)] = SavedVariable(inputs[i], false);
  return y;
}

}  // namespace ember::autograd::detail
