// Gradients of every differentiable op: gradcheck in float64 (central differences against
// the analytic Jacobian) on fresh random inputs, broadcast and strided ones included, plus
// value tests with known numbers and second derivatives where the formula is differentiable.

#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>
#include <functional>
#include <vector>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

namespace {

// Values in [lo, hi) with a random sign: away from the kinks of abs, relu, clamp at 0.
Tensor away_from_zero(IntArrayRef sizes, double lo = 0.2, double hi = 1) {
  Tensor mag = rand(sizes, kDouble) * (hi - lo) + lo;
  Tensor sgn = where(rand(sizes, kDouble) > 0.5, 1.0, -1.0);
  return (mag * sgn).requires_grad_();
}
// A strided (transposed) leaf: the op sees non-contiguous memory.
Tensor transposed(int64_t rows, int64_t cols, double lo = -1, double hi = 1) {
  return (rand({cols, rows}, kDouble) * (hi - lo) + lo).t().requires_grad_();
}

}  // namespace

TEST_CASE("gradcheck: unary elementwise ops, contiguous and strided") {
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> any_sign = {
      {"neg", [](const variable_list& v) { return neg(v[0]); }},
      {"exp", [](const variable_list& v) { return exp(v[0]); }},
      {"expm1", [](const variable_list& v) { return expm1(v[0]); }},
      {"square", [](const variable_list& v) { return square(v[0]); }},
      {"sin", [](const variable_list& v) { return sin(v[0]); }},
      {"cos", [](const variable_list& v) { return cos(v[0]); }},
      {"tan", [](const variable_list& v) { return tan(v[0]); }},
      {"tanh", [](const variable_list& v) { return tanh(v[0]); }},
      {"sigmoid", [](const variable_list& v) { return sigmoid(v[0]); }},
      {"gelu", [](const variable_list& v) { return gelu(v[0]); }},
      {"abs", [](const variable_list& v) { return abs(v[0]); }},
      {"relu", [](const variable_list& v) { return relu(v[0]); }},
      {"clamp", [](const variable_list& v) { return clamp(v[0], -0.5, 0.5); }},
      {"clamp_min", [](const variable_list& v) { return clamp_min(v[0], 0.5); }},
      {"clamp_max", [](const variable_list& v) { return clamp_max(v[0], -0.5); }},
  };
  for (const auto& [name, f] : any_sign) {
    INFO(name);
    CHECK(check(f, {away_from_zero({3, 4})}));
    Tensor t = transposed(3, 4);
    {
      NoGradGuard no_grad;
      t.abs_().add_(0.2);  // away from 0 and +-0.5, the kinks
      t.mul_(where(rand({3, 4}, kDouble) > 0.5, 1.0, -1.0));
    }
    CHECK(check(f, {t}));
  }
  const std::vector<std::pair<const char*, Fn>> positive = {
      {"log", [](const variable_list& v) { return log(v[0]); }},
      {"log1p", [](const variable_list& v) { return log1p(v[0]); }},
      {"sqrt", [](const variable_list& v) { return sqrt(v[0]); }},
      {"rsqrt", [](const variable_list& v) { return rsqrt(v[0]); }},
      {"reciprocal", [](const variable_list& v) { return reciprocal(v[0]); }},
  };
  for (const auto& [name, f] : positive) {
    INFO(name);
    CHECK(check(f, {input({2, 3}, 0.5, 2)}));
    CHECK(check(f, {transposed(2, 3, 0.5, 2)}));
  }
}

TEST_CASE("gradcheck: unary values, piecewise-constant ops and in-place forms") {
  Tensor x = tensor({-1.5, 0.5, 2.0}, kFloat).requires_grad_();
  (exp(x) + relu(x) * 3 + floor(x) + sign(x) + round(x) + ceil(x) + trunc(x)).sum().backward();
  std::vector<double> g = dvalues(x.grad());
  CHECK(std::abs(g[0] - std::exp(-1.5)) < 1e-6);
  CHECK(std::abs(g[1] - (std::exp(0.5) + 3)) < 1e-5);
  CHECK(std::abs(g[2] - (std::exp(2.0) + 3)) < 1e-5);
  // An in-place op on an intermediate differentiates like its out-of-place form.
  for (auto f : std::vector<Fn>{
           [](const variable_list& v) { Tensor h = v[0] * 2; h.exp_(); return h; },
           [](const variable_list& v) { Tensor h = v[0] * 2; h.tanh_(); return h; },
           [](const variable_list& v) { Tensor h = v[0] * 2; h.sigmoid_(); return h; },
           [](const variable_list& v) { Tensor h = v[0] + 3.5; h.log_().sqrt_(); return h; },
           [](const variable_list& v) { Tensor h = v[0] * 2; h.mul_(v[0]).add_(v[0], 0.5).div_(1.5); return h; },
           [](const variable_list& v) { Tensor h = v[0] * 1; h.abs_().neg_(); return h; },
       })
    CHECK(check(f, {away_from_zero({5})}));
}

TEST_CASE("gradcheck: binary ops with broadcasting, scalars and alpha") {
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"add", [](const variable_list& v) { return add(v[0], v[1], 2.5); }},
      {"sub", [](const variable_list& v) { return sub(v[0], v[1], -1.5); }},
      {"mul", [](const variable_list& v) { return v[0] * v[1]; }},
      {"div", [](const variable_list& v) { return v[0] / v[1]; }},
      {"pow", [](const variable_list& v) { return pow(v[0], v[1]); }},
      {"maximum", [](const variable_list& v) { return maximum(v[0], v[1]); }},
      {"minimum", [](const variable_list& v) { return minimum(v[0], v[1]); }},
      {"atan2", [](const variable_list& v) { return atan2(v[0], v[1]); }},
      {"remainder", [](const variable_list& v) { return remainder(v[0], v[1]); }},
  };
  for (const auto& [name, f] : fns) {
    INFO(name);
    CHECK(check(f, {input({3, 4}, 0.5, 1.5), input({3, 4}, 2, 3)}));
    CHECK(check(f, {input({3, 1}, 0.5, 1.5), input({4}, 2, 3)}));          // both broadcast
    CHECK(check(f, {transposed(4, 3, 0.5, 1.5), input({1, 3}, 2, 3)}));   // strided and broadcast
    Tensor expanded = (rand({4, 1}, kDouble) + 0.5).expand({4, 3}).requires_grad_();  // stride-0 leaf
    CHECK(check(f, {expanded, input({3}, 2, 3)}));
  }
  const std::vector<std::pair<const char*, Fn>> scalar_fns = {
      {"add scalar", [](const variable_list& v) { return v[0] + 2; }},
      {"scalar - t", [](const variable_list& v) { return 2 - v[0]; }},
      {"mul scalar", [](const variable_list& v) { return v[0] * 3; }},
      {"div scalar", [](const variable_list& v) { return v[0] / 3; }},
      {"scalar / t", [](const variable_list& v) { return 3 / v[0]; }},
      {"pow scalar", [](const variable_list& v) { return pow(v[0], 2.5); }},
      {"scalar pow", [](const variable_list& v) { return pow(2.5, v[0]); }},
      {"remainder scalar", [](const variable_list& v) { return remainder(v[0], 0.7); }},
  };
  for (const auto& [name, f] : scalar_fns) {
    INFO(name);
    CHECK(check(f, {input({2, 3}, 0.5, 1.5)}));
  }
  // values: d(a*b)/da = b, summed over the broadcast dim
  Tensor a = tensor({1.0, 2.0}, kFloat).view({2, 1}).requires_grad_();
  Tensor b = tensor({3.0, 4.0, 5.0}, kFloat).requires_grad_();
  (a * b).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{12, 12});
  CHECK(dvalues(b.grad()) == std::vector<double>{3, 3, 3});
  CHECK(a.grad().sizes() == std::vector<int64_t>{2, 1});
  // maximum of equal values shares the gradient, as libtorch
  Tensor p = tensor({1.0, 2.0}, kFloat).requires_grad_();
  Tensor q = tensor({1.0, 3.0}, kFloat).requires_grad_();
  maximum(p, q).sum().backward();
  CHECK(dvalues(p.grad()) == std::vector<double>{0.5, 0});
  CHECK(dvalues(q.grad()) == std::vector<double>{0.5, 1});
}

TEST_CASE("gradcheck: where, lerp, addcmul, addcdiv") {
  manual_seed(ember_test::fresh_seed());
  Tensor cond = rand({3, 4}) > 0.5;
  CHECK(check([&](const variable_list& v) { return where(cond, v[0], v[1]); }, {input({3, 4}), input({4})}));
  CHECK(check([&](const variable_list& v) { return where(cond, v[0], 0.5); }, {transposed(3, 4)}));
  CHECK(check([](const variable_list& v) { return lerp(v[0], v[1], 0.3); }, {input({3, 4}), input({3, 1})}));
  CHECK(check([](const variable_list& v) { return lerp(v[0], v[1], v[2]); },
              {input({3, 4}), input({4}), input({3, 1})}));
  CHECK(check([](const variable_list& v) { return addcmul(v[0], v[1], v[2], 0.5); },
              {input({3, 4}), transposed(3, 4), input({4})}));
  CHECK(check([](const variable_list& v) { return addcdiv(v[0], v[1], v[2], -2); },
              {input({3, 4}), input({3, 1}), input({4}, 1, 2)}));
  Tensor s = tensor({1.0, 2.0}, kFloat).requires_grad_();
  Tensor e = tensor({5.0, 6.0}, kFloat).requires_grad_();
  lerp(s, e, 0.25).sum().backward();
  CHECK(dvalues(s.grad()) == std::vector<double>{0.75, 0.75});
  CHECK(dvalues(e.grad()) == std::vector<double>{0.25, 0.25});
}

TEST_CASE("gradcheck: reductions over all and some dims, with and without keepdim") {
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"sum", [](const variable_list& v) { return v[0].sum(); }},
      {"sum dims", [](const variable_list& v) { return v[0].sum({0, 2}); }},
      {"sum keepdim", [](const variable_list& v) { return v[0].sum(-1, true); }},
      {"mean", [](const variable_list& v) { return v[0].mean(); }},
      {"mean dims", [](const variable_list& v) { return v[0].mean({1}, true); }},
      {"prod", [](const variable_list& v) { return v[0].prod(); }},
      {"prod dim", [](const variable_list& v) { return v[0].prod(1); }},
      {"amax", [](const variable_list& v) { return v[0].amax({0, 2}); }},
      {"amin", [](const variable_list& v) { return v[0].amin(1, true); }},
      {"max", [](const variable_list& v) { return v[0].max(); }},
      {"min", [](const variable_list& v) { return v[0].min(); }},
      {"max dim", [](const variable_list& v) { return std::get<0>(v[0].max(1)); }},
      {"min dim keepdim", [](const variable_list& v) { return std::get<0>(v[0].min(2, true)); }},
      {"var", [](const variable_list& v) { return v[0].var(); }},
      {"var dim biased", [](const variable_list& v) { return v[0].var(1, false, true); }},
      {"std", [](const variable_list& v) { return v[0].std(); }},
      {"std dims", [](const variable_list& v) { return v[0].std({0, 2}); }},
      {"norm", [](const variable_list& v) { return v[0].norm(); }},
      {"norm 1", [](const variable_list& v) { return v[0].norm(1); }},
      {"norm 3 dims", [](const variable_list& v) { return v[0].norm(3, {1}, true); }},
      {"logsumexp", [](const variable_list& v) { return v[0].logsumexp({1}); }},
      {"softmax", [](const variable_list& v) { return v[0].softmax(1); }},
      {"log_softmax", [](const variable_list& v) { return v[0].log_softmax(-1); }},
      {"cumsum", [](const variable_list& v) { return v[0].cumsum(1); }},
  };
  for (const auto& [name, f] : fns) {
    INFO(name);
    CHECK(check(f, {away_from_zero({2, 3, 4}, 0.3, 1)}));
    Tensor strided = (rand({4, 3, 2}, kDouble) + 0.3).permute({2, 1, 0}).requires_grad_();
    CHECK(check(f, {strided}));
  }
  // values: prod with one zero gives the others' product to the zero
  Tensor z = tensor({2.0, 0.0, 3.0}, kFloat).requires_grad_();
  z.prod().backward();
  CHECK(dvalues(z.grad()) == std::vector<double>{0, 6, 0});
  // amax splits among ties; max(dim) sends all to the index
  Tensor t = tensor({1.0, 3.0, 3.0}, kFloat).requires_grad_();
  t.amax(0).backward();
  CHECK(dvalues(t.grad()) == std::vector<double>{0, 0.5, 0.5});
  Tensor u = tensor({1.0, 3.0, 2.0}, kFloat).requires_grad_();
  std::get<0>(u.max(0)).backward();
  CHECK(dvalues(u.grad()) == std::vector<double>{0, 1, 0});
  Tensor m = tensor({1.0, 2.0, 3.0, 4.0}, kFloat).requires_grad_();
  m.mean().backward();
  CHECK(dvalues(m.grad()) == std::vector<double>{0.25, 0.25, 0.25, 0.25});
}

TEST_CASE("gradcheck: matmul in every rank and broadcast case, mm, bmm, mv, dot, outer, addmm, linear") {
  manual_seed(ember_test::fresh_seed());
  auto mm_fn = [](const variable_list& v) { return matmul(v[0], v[1]); };
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3}, {3}}, {{2, 3}, {3}}, {{3}, {3, 2}}, {{2, 3}, {3, 4}}, {{2, 2, 3}, {3, 4}},
      {{3}, {2, 3, 4}}, {{2, 1, 2, 3}, {3, 3, 2}}, {{2, 3}, {2, 3, 1}}, {{2, 2, 3}, {3}}, {{2, 1, 2, 3}, {3, 2}},
  };
  for (const auto& [sa, sb] : shapes) {
    INFO(sa.size() << "-D x " << sb.size() << "-D");
    CHECK(check(mm_fn, {input(sa), input(sb)}));
  }
  CHECK(check(mm_fn, {transposed(2, 3), transposed(3, 4)}));
  // A 3-D input that is not contiguous (its batch dims fold into rows through a copy).
  CHECK(check([](const variable_list& v) { return matmul(v[0].transpose(0, 1), v[1]); }, {input({3, 2, 4}), input({4, 2})}));
  CHECK(check([](const variable_list& v) { return mm(v[0], v[1]); }, {input({2, 3}), transposed(3, 2)}));
  CHECK(check([](const variable_list& v) { return bmm(v[0], v[1]); }, {input({2, 2, 3}), input({2, 3, 2})}));
  CHECK(check([](const variable_list& v) { return mv(v[0], v[1]); }, {transposed(2, 3), input({3})}));
  CHECK(check([](const variable_list& v) { return dot(v[0], v[1]); }, {input({4}), input({4})}));
  CHECK(check([](const variable_list& v) { return outer(v[0], v[1]); }, {input({3}), input({2})}));
  CHECK(check([](const variable_list& v) { return addmm(v[0], v[1], v[2], 0.5, -2); },
              {input({4}), input({2, 3}), input({3, 4})}));
  CHECK(check([](const variable_list& v) { return addmm(v[0], v[1], v[2]); },
              {input({2, 4}), transposed(2, 3), transposed(3, 4)}));
  CHECK(check([](const variable_list& v) { return addmm(v[0], v[1], v[2], 1, 3); },
              {input({4}), transposed(2, 3), transposed(3, 4)}));
  CHECK(check([](const variable_list& v) { return linear(v[0], v[1], v[2]); },
              {input({2, 3}), input({4, 3}), input({4})}));
  CHECK(check([](const variable_list& v) { return linear(v[0], v[1], v[2]); },
              {input({2, 2, 3}), input({4, 3}), input({4})}));
  CHECK(check([](const variable_list& v) { return linear(v[0], v[1]); }, {input({2, 3}), input({4, 3})}));
  // values: d(sum(A B))/dA = 1 B^T
  Tensor A = tensor({1.0, 2.0, 3.0, 4.0}, kFloat).view({2, 2}).requires_grad_();
  Tensor B = tensor({5.0, 6.0, 7.0, 8.0}, kFloat).view({2, 2}).requires_grad_();
  A.mm(B).sum().backward();
  CHECK(dvalues(A.grad()) == std::vector<double>{11, 15, 11, 15});
  CHECK(dvalues(B.grad()) == std::vector<double>{4, 4, 6, 6});
}

TEST_CASE("mm backward: a column-major operand gets its gradient in its own layout") {
  // Note [Gradient layout of mm]: linear's weight enters addmm as w.t(); its gradient
  // reaches the leaf contiguous, so AccumulateGrad keeps the product instead of copying it.
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, kFloat).view({2, 3});
  Tensor w = tensor({1.0, 0.0, -1.0, 2.0, 1.0, 0.5}, kFloat).view({2, 3}).requires_grad_();
  Tensor b = tensor({0.5, -0.5}, kFloat).requires_grad_();
  Tensor g = tensor({1.0, 2.0, -1.0, 3.0}, kFloat).view({2, 2});
  Tensor gw = autograd::grad({linear(x, w, b)}, {w}, {g})[0];  // as AccumulateGrad receives it
  CHECK(gw.is_contiguous());
  // dW = g^T x: rows (1*1 + -1*4, 1*2 + -1*5, 1*3 + -1*6) and (2*1 + 3*4, 2*2 + 3*5, 2*3 + 3*6)
  CHECK(dvalues(gw) == std::vector<double>{-3, -3, -3, 14, 19, 24});
  linear(x, w, b).backward(g);
  CHECK(dvalues(w.grad()) == std::vector<double>{-3, -3, -3, 14, 19, 24});
  CHECK(dvalues(b.grad()) == std::vector<double>{0, 5});
  // with alpha != 1 the gradient is scaled and keeps its layout
  Tensor ga = autograd::grad({addmm(b, x, w.t(), 1, 2)}, {w}, {g})[0];
  CHECK(ga.is_contiguous());
  CHECK(dvalues(ga) == std::vector<double>{-6, -6, -6, 28, 38, 48});

  // A column-major leaf gets a column-major gradient, which AccumulateGrad keeps (same strides).
  Tensor base = tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, kFloat).view({3, 2});
  Tensor a = tensor({1.0, 1.0, 2.0, 0.0, -1.0, 1.0}, kFloat).view({2, 3});
  Tensor bt = base.t().requires_grad_();  // [2, 3] with strides (1, 2)
  Tensor gbt = autograd::grad({mm(bt, a.t()).sum()}, {bt})[0];
  CHECK(gbt.strides().vec() == std::vector<int64_t>{1, 2});
  CHECK(dvalues(gbt) == std::vector<double>{1, 0, 3, 1, 0, 3});  // ones(2, 2) @ a
  mm(bt, a.t()).sum().backward();
  CHECK(bt.grad().strides().vec() == std::vector<int64_t>{1, 2});
  CHECK(dvalues(bt.grad()) == std::vector<double>{1, 0, 3, 1, 0, 3});
}

TEST_CASE("gradcheck: views, joins and copies") {
  manual_seed(ember_test::fresh_seed());
  const std::vector<std::pair<const char*, Fn>> fns = {
      {"view", [](const variable_list& v) { return v[0].contiguous().view({4, 3}) * 2; }},
      {"reshape copy", [](const variable_list& v) { return v[0].reshape({12}) * 2; }},
      {"transpose", [](const variable_list& v) { return v[0].transpose(0, 1) * 2; }},
      {"t", [](const variable_list& v) { return v[0].t().matmul(v[0]); }},
      {"permute", [](const variable_list& v) { return v[0].unsqueeze(0).permute({2, 0, 1}) * 2; }},
      {"expand", [](const variable_list& v) { return v[0].unsqueeze(1).expand({3, 2, 4}) * 2; }},
      {"narrow", [](const variable_list& v) { return v[0].narrow(1, 1, 2); }},
      {"slice step", [](const variable_list& v) { return v[0].slice(1, 0, 4, 3) * 1; }},
      {"slice step tail", [](const variable_list& v) { return v[0].slice(1, 1, std::nullopt, 2) * 1; }},
      {"select", [](const variable_list& v) { return v[0].select(0, -1) * 1; }},
      {"squeeze", [](const variable_list& v) { return v[0].narrow(0, 0, 1).squeeze() * 1; }},
      {"squeeze dim", [](const variable_list& v) { return v[0].narrow(0, 1, 1).squeeze(0) * 1; }},
      {"flatten", [](const variable_list& v) { return v[0].flatten() * 1; }},
      {"index", [](const variable_list& v) {
         using namespace indexing;
         return v[0].index({Slice(1, None), None, 2}) * 1;
       }},
      {"cat", [](const variable_list& v) { return cat({v[0], v[0].narrow(1, 0, 2) * 2}, 1); }},
      {"stack", [](const variable_list& v) { return stack({v[0], v[0].sin()}, 1); }},
      {"split", [](const variable_list& v) { auto p = v[0].split(3, 1); return p[0] * p[1].sum(); }},
      {"chunk", [](const variable_list& v) { auto p = v[0].chunk(2, 0); return p[0] - p[1].exp(); }},
      {"unbind", [](const variable_list& v) { auto p = v[0].unbind(1); return p[0] * p[3]; }},
      {"clone", [](const variable_list& v) { return v[0].clone() * v[0]; }},
      {"contiguous", [](const variable_list& v) { return v[0].contiguous().view({-1}); }},
  };
  for (const auto& [name, f] : fns) {
    INFO(name);
    CHECK(check(f, {input({3, 4})}));
    CHECK(check(f, {transposed(3, 4)}));
  }
  // cat of tensors with different dtypes and a cast: gradients come back in each dtype
  Tensor a = tensor({1.0, 2.0}, kFloat).requires_grad_();
  Tensor b = tensor({3.0}, kDouble).requires_grad_();
  Tensor c = cat({a, b});
  CHECK(c.dtype() == kDouble);
  (c * tensor({1.0, 2.0, 3.0}, kDouble)).sum().backward();
  CHECK(a.grad().dtype() == kFloat);
  CHECK(dvalues(a.grad()) == std::vector<double>{1, 2});
  CHECK(dvalues(b.grad()) == std::vector<double>{3});
  Tensor d = tensor({1.5, 2.5}, kFloat).requires_grad_();
  (d.to(kDouble) * 4).sum().backward();
  CHECK(d.grad().dtype() == kFloat);
  CHECK(dvalues(d.grad()) == std::vector<double>{4, 4});
  // copy_ sends the destination's gradient to the source, summed over broadcast dims
  Tensor src = tensor({1.0, 2.0}, kFloat).requires_grad_();
  Tensor dst = zeros({3, 2});
  dst.copy_(src);
  CHECK(dst.grad_fn()->name() == "CopyBackwards");
  (dst * 2).sum().backward();
  CHECK(dvalues(src.grad()) == std::vector<double>{6, 6});
}

TEST_CASE("gradcheck: across devices: to(device) and placement copies differentiate") {
  ember::testing::ensure_fake_accelerator();
  CHECK(check([](const variable_list& v) { return (v[0].to(Device("npu:0")).exp() * 2).to(Device(kCPU, 0)); },
              {input({2, 3})}));
  CHECK(check(
      [](const variable_list& v) {
        DeviceScope scope("npu:1");
        return matmul(v[0], v[1]).tanh().sum(0);
      },
      {input({2, 3}), input({3, 2})}));
}

TEST_CASE("gradcheck: second derivatives of pow, tanh, matmul, softmax and in-place ops on views") {
  manual_seed(ember_test::fresh_seed());
  CHECK(check_second([](const variable_list& v) { return pow(v[0], 3); }, {input({4}, 0.5, 1.5)}));
  CHECK(check_second([](const variable_list& v) { return pow(v[0], v[1]); }, {input({3}, 0.5, 1.5), input({3}, 1, 2)}));
  CHECK(check_second([](const variable_list& v) { return tanh(v[0]); }, {input({2, 3})}));
  CHECK(check_second([](const variable_list& v) { return matmul(v[0], v[1]).pow(2); }, {input({2, 3}), input({3, 2})}));
  CHECK(check_second([](const variable_list& v) { return softmax(v[0], 1); }, {input({2, 4})}));
  CHECK(check_second([](const variable_list& v) { return log_softmax(v[0], 0); }, {input({3, 2})}));
  CHECK(check_second([](const variable_list& v) { return (v[0].narrow(1, 1, 2) * v[0].select(1, 0).unsqueeze(1)).sigmoid(); },
                     {input({2, 3})}));
  const Tensor mask = tensor({true, false, true, false, false, true}, kBool).reshape({2, 3});
  CHECK(check_second([&](const variable_list& v) { return masked_select(v[0] * v[0], mask); }, {input({2, 3})}));
  CHECK(check_second([&](const variable_list& v) { return (v[0] * v[0]).masked_fill(mask, v[1]) * v[1]; },
                     {input({3}), input({})}));
  // through an in-place op on a view (CopySlices) and a view whose base changed since
  CHECK(check_second(
      [](const variable_list& v) {
        Tensor a = v[0] * 1;
        a.narrow(0, 1, 2).mul_(v[0].narrow(0, 0, 2));
        return a * a;
      },
      {input({4})}));
  CHECK(check_second(
      [](const variable_list& v) {
        Tensor a = v[0] * 1;
        Tensor head = a.narrow(1, 0, 2);
        a.mul_(v[1]);
        return head.pow(2);
      },
      {input({2, 3}), input({3})}));
  // a stepped slice of a view of a view: the region's positions in the base
  CHECK(check_second(
      [](const variable_list& v) {
        Tensor a = v[0] * 1;
        a.select(0, 1).slice(0, 0, 4, 2).mul_(v[0].select(0, 0).slice(0, 1, 3));
        return a.pow(2);
      },
      {input({2, 4})}));
}
