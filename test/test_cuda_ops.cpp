// CUDA backend: every op family on cuda:0 against the CPU on random inputs (contiguous,
// strided, broadcast, Scalar operands, every registered dtype), copies, cuBLAS matmul,
// seeded random parity, streams and events. Tests that need a GPU skip with a printed
// reason when cuda::device_count() == 0; the no-GPU behaviour is checked everywhere.
#include <catch2/catch.hpp>

#include "cuda_test_util.h"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ember/cuda.h"
#include "ember/ember.h"
#include "ember/registry.h"

using namespace ember;

namespace {

const Device kGpu(kCUDA, 0);
const Device kCpu(kCPU, 0);

uint64_t test_seed() {
  static const uint64_t seed = std::random_device{}();
  return seed;
}

const std::vector<ScalarType> kAllTypes = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64,
                                           kHalf, kBFloat16, kFloat, kDouble};
const std::vector<ScalarType> kFloatTypes = {kHalf, kBFloat16, kFloat, kDouble};

bool in(const std::vector<ScalarType>& v, ScalarType t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// Random values of dtype on the CPU, never all zero: floats in [lo, hi), integers in
// [0, 10) for unsigned and [-5, 6) for signed, bool half true.
Tensor random_cpu(IntArrayRef sizes, ScalarType dtype, double lo = -2, double hi = 2) {
  if (dtype == kBool) return randint(0, 2, sizes, TensorOptions(kInt64)).to(kBool);
  if (dtype == kUInt8) return randint(0, 10, sizes, TensorOptions(kUInt8));
  if (is_integral(dtype)) return randint(-5, 6, sizes, TensorOptions(dtype));
  return (rand(sizes, TensorOptions(kDouble)) * (hi - lo) + lo).to(dtype);
}

struct Tolerance {
  double rtol, atol;
};
Tolerance tolerance(ScalarType t) {
  switch (t) {
    case kHalf: return {1e-2, 1e-3};
    case kBFloat16: return {2e-2, 1e-2};
    case kFloat: return {1e-5, 1e-6};
    case kDouble: return {1e-12, 1e-12};
    default: return {0, 0};  // integers and bool: exact
  }
}

// Compares a GPU result with the CPU one element by element (in float64, NaNs equal).
void check_close(const Tensor& gpu, const Tensor& cpu, const std::string& what, Tolerance tol) {
  INFO(what << " (seed " << test_seed() << ")");
  REQUIRE(gpu.device() == kGpu);
  REQUIRE(gpu.dtype() == cpu.dtype());
  REQUIRE(std::vector<int64_t>(gpu.sizes().begin(), gpu.sizes().end()) ==
          std::vector<int64_t>(cpu.sizes().begin(), cpu.sizes().end()));
  Tensor g = gpu.cpu().to(kDouble).contiguous(), c = cpu.to(kDouble).contiguous();
  const double* gp = g.data_ptr<double>();
  const double* cp = c.data_ptr<double>();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const double x = gp[i], y = cp[i];
    const bool ok = (std::isnan(x) && std::isnan(y)) || x == y || std::abs(x - y) <= tol.atol + tol.rtol * std::abs(y);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad) INFO("first mismatch at " << first << ": gpu " << gp[first] << " cpu " << cp[first]);
  CHECK(bad == 0);
}
void check_close(const Tensor& gpu, const Tensor& cpu, const std::string& what) {
  check_close(gpu, cpu, what, tolerance(cpu.dtype()));
}

// The layouts each op runs on: contiguous, transposed (strided), sliced with a step.
struct Layout {
  const char* name;
  std::function<Tensor(const Tensor&)> view;
};
const std::vector<Layout> kLayouts = {
    {"contiguous", [](const Tensor& t) { return t; }},
    {"transposed", [](const Tensor& t) { return t.t(); }},
    {"sliced", [](const Tensor& t) { return t.slice(1, 1, std::nullopt, 2); }},
};

// The broadcast shapes an elementwise launcher must handle, as views of a [R, C] tensor:
// one element, zero-dim, row, column, and a size-1 middle dim ([R, 1, C]).
struct BroadcastShape {
  const char* name;
  std::function<Tensor(const Tensor&)> view;
};
const std::vector<BroadcastShape> kBroadcastShapes = {
    {"one element", [](const Tensor& t) { return t.reshape({-1}).slice(0, 0, 1); }},
    {"zero-dim", [](const Tensor& t) { return t.reshape({-1}).select(0, 0); }},
    {"row", [](const Tensor& t) { return t.slice(0, 0, 1); }},
    {"column", [](const Tensor& t) { return t.slice(1, 0, 1); }},
    {"middle dim", [](const Tensor& t) { return t.unsqueeze(1); }},
};
// The full-size partner of a broadcast view: [R, C], or [R, 4, C] for the middle dim.
Tensor partner(const Tensor& full, const Tensor& view) {
  return view.dim() == 3 ? full.unsqueeze(1).expand({full.size(0), 4, full.size(1)}).contiguous() : full;
}

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

// Runs fn on each layout of a random [37, 70] input of every dtype the op takes on CUDA.
void compare_unary(const char* name, Op op, const Unary& fn, double lo = -2, double hi = 2) {
  for (ScalarType dt : kAllTypes) {
    if (!has_kernel(op, kCUDA, dt)) continue;
    CHECK(has_kernel(op, kCPU, dt));  // same dtype sets on both backends
    Tensor x = random_cpu({37, 70}, dt, lo, hi);
    Tensor xg = x.to(kGpu);
    for (const Layout& l : kLayouts)
      check_close(fn(l.view(xg)), fn(l.view(x)), std::string(name) + " " + ember::name(dt) + " " + l.name);
  }
}

void compare_binary(const char* name, Op op, const Binary& fn) {
  for (ScalarType dt : kAllTypes) {
    if (!has_kernel(op, kCUDA, dt)) continue;
    CHECK(has_kernel(op, kCPU, dt));
    const std::string tag = std::string(name) + " " + ember::name(dt);
    Tensor a = random_cpu({33, 70}, dt), b = random_cpu({33, 70}, dt);
    if (op == Op::Remainder || op == Op::Div) b = where(eq(b, 0), ones_like(b), b);  // no division by zero
    Tensor ag = a.to(kGpu), bg = b.to(kGpu);
    for (const Layout& l : kLayouts) check_close(fn(l.view(ag), l.view(bg)), fn(l.view(a), l.view(b)), tag + " " + l.name);
    // Broadcast: a column against a row, then every broadcast shape on either side.
    Tensor col = a.slice(1, 0, 1), row = b.slice(0, 0, 1);
    check_close(fn(col.to(kGpu), row.to(kGpu)), fn(col, row), tag + " broadcast");
    for (const BroadcastShape& bs : kBroadcastShapes) {
      const Tensor bv = bs.view(b), bvg = bs.view(bg), av = bs.view(a), avg = bs.view(ag);
      check_close(fn(partner(ag, bvg), bvg), fn(partner(a, bv), bv), tag + " " + bs.name + " on the right");
      check_close(fn(avg, partner(bg, avg)), fn(av, partner(b, av)), tag + " " + bs.name + " on the left");
    }
    // Unaligned contiguous views take the strided kernel.
    Tensor a1 = a.view({-1}).slice(0, 1), b1 = b.view({-1}).slice(0, 1);
    check_close(fn(ag.view({-1}).slice(0, 1), bg.view({-1}).slice(0, 1)), fn(a1, b1), tag + " unaligned");
  }
}

}  // namespace

TEST_CASE("cuda: no GPU means zero devices and clear errors") {
  if (cuda::device_count() > 0) {
    SUCCEED("a GPU is present: the no-GPU behaviour is not observable here");
    return;
  }
  CHECK_FALSE(cuda::is_available());
  CHECK(list_physical_devices(kCUDA).empty());
  CHECK_NOTHROW(cuda::synchronize());
  CHECK_THROWS_WITH(cuda::current_stream(), Catch::Contains("no CUDA device"));
  CHECK_THROWS_AS(cuda::new_stream(), InvalidArgument);
  cuda::Event e;
  CHECK(e.query());
  CHECK_THROWS_AS(e.record(cuda::Stream()), InvalidArgument);
  CHECK_THROWS_AS(ones({2}).to(kGpu), InvalidArgument);
  // Kernels are registered whether or not a GPU is present, with the CPU's dtype sets.
  CHECK(has_kernel(Op::Add, kCUDA, kFloat));
  CHECK(has_kernel(Op::Copy, kCUDA, kBool));
  CHECK(has_kernel(Op::MatMul, kCUDA, kBFloat16));
  CHECK_FALSE(has_kernel(Op::MatMul, kCUDA, kInt32));
  CHECK_FALSE(has_kernel(Op::Exp, kCUDA, kInt64));
}

TEST_CASE("cuda: registered dtypes match the CPU's for elementwise ops") {
  for (int i = 0; i < static_cast<int>(Op::Sum); ++i) {
    const Op op = static_cast<Op>(i);
    // randperm has no CUDA kernel: it shuffles on the CPU (its generator seeded from the
    // device's counters) and copies the result over (random_ops.cpp).
    if (op == Op::RandPerm) {
      CHECK_FALSE(has_kernel(op, kCUDA, kInt64));
      continue;
    }
    for (ScalarType dt : kAllTypes) {
      INFO(op_name(op) << " " << name(dt));
      CHECK(has_kernel(op, kCUDA, dt) == has_kernel(op, kCPU, dt));
    }
  }
}

TEST_CASE("cuda: copies between host and device, and dtype casts on the device") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  for (ScalarType from : kAllTypes) {
    Tensor x = random_cpu({5, 300}, from, 0, 100);  // non-negative: float -> uint8 is defined
    Tensor xg = x.to(kGpu);
    check_close(xg, x, std::string("round trip ") + name(from), {0, 0});
    check_close(xg.t().contiguous(), x.t().contiguous(), std::string("strided copy ") + name(from), {0, 0});
    for (ScalarType to : kAllTypes)
      check_close(xg.to(to), x.to(to), std::string("cast ") + name(from) + " -> " + name(to), {0, 0});
  }
  Tensor big = rand({1 << 20});
  Tensor back = big.to(kGpu).clone().cpu();
  check_close(back.to(kGpu), big, "1M floats D2D + D2H", {0, 0});
}

TEST_CASE("cuda: pin_memory gives page-locked host memory that copies to the GPU") {
  EMBER_REQUIRE_GPU();
  const Tensor x = arange(6.0).view({2, 3}).t();  // a strided source
  CHECK_FALSE(x.is_pinned());
  const Tensor pinned = x.pin_memory();
  CHECK((pinned.is_pinned() && pinned.is_cpu() && pinned.strides() == x.strides()));
  CHECK(pinned.pin_memory().is_same(pinned));
  check_close(pinned, x, "pinned copy", {0, 0});
  const Tensor on_gpu = pinned.to(kGpu, /*non_blocking=*/true);
  check_close(on_gpu, x, "pinned to the GPU without blocking", {0, 0});
  CHECK_FALSE(on_gpu.is_pinned());
  CHECK_THROWS_WITH(on_gpu.pin_memory(), "cannot pin 'CUDADoubleType' only dense CPU tensors can be pinned");
  const Tensor w = ones({3}, requires_grad());
  (w.pin_memory() * 2).sum().backward();
  check_close(w.grad(), full({3}, 2.0f), "the gradient passes through pin_memory", {0, 0});
}

TEST_CASE("cuda: fill and arange / linspace match the CPU") {
  EMBER_REQUIRE_GPU();
  for (ScalarType dt : kAllTypes) {
    const std::string n = name(dt);
    check_close(full({3, 77}, 3, TensorOptions(dt).device(kGpu)), full({3, 77}, 3, TensorOptions(dt)), "full " + n, {0, 0});
    Tensor z = zeros({8, 9}, TensorOptions(dt).device(kGpu));
    z.t().fill_(1);  // strided fill
    check_close(z, ones({8, 9}, TensorOptions(dt)), "strided fill " + n, {0, 0});
    if (dt == kBool) continue;
    check_close(arange(0, 100, 3, TensorOptions(dt).device(kGpu)), arange(0, 100, 3, TensorOptions(dt)), "arange " + n, {0, 0});
  }
  for (ScalarType dt : kFloatTypes)
    check_close(linspace(-3, 7, 1001, TensorOptions(dt).device(kGpu)), linspace(-3, 7, 1001, TensorOptions(dt)),
                std::string("linspace ") + name(dt), {0, 0});
}

// The CPU draws libtorch's mt19937 stream and the GPU a counter-based Philox stream (as
// PyTorch), so the devices agree on what the draws satisfy, not on values: each GPU stream
// is reproducible for a seed, and element i depends on its counter only, not on the launch.
TEST_CASE("cuda: rand, randn and randint are reproducible Philox streams, independent of the launch") {
  EMBER_REQUIRE_GPU();
  auto same = [](const Tensor& a, const Tensor& b, const std::string& what) {
    INFO(what);
    REQUIRE(a.sizes().vec() == b.sizes().vec());
    CHECK(a.cpu().to(kDouble).eq(b.cpu().to(kDouble)).all().item<bool>());
  };
  for (ScalarType dt : kFloatTypes) {
    const TensorOptions o = TensorOptions(dt).device(kGpu);
    manual_seed(1234);
    const Tensor u = rand({4097}, o), n = randn({4097}, o);
    manual_seed(1234);
    const Tensor u2 = rand({4097}, o), n2 = randn({4097}, o);
    same(u, u2, std::string("rand again ") + name(dt));
    same(n, n2, std::string("randn again ") + name(dt));
    manual_seed(1234);
    same(rand({100}, o), u.narrow(0, 0, 100), std::string("rand prefix ") + name(dt));
    manual_seed(4321);
    CHECK_FALSE(rand({4097}, o).cpu().eq(u.cpu()).all().item<bool>());  // another seed, another stream
    const Tensor ud = u.cpu().to(kDouble), nd = n.cpu().to(kDouble);
    INFO(name(dt) << ": rand mean " << ud.mean().item<double>() << ", randn mean " << nd.mean().item<double>()
                  << " std " << nd.std().item<double>());
    CHECK(ud.ge(0).logical_and(ud.lt(1)).all().item<bool>());
    CHECK(std::abs(ud.mean().item<double>() - 0.5) < 0.02);  // 4.4 standard errors
    CHECK(std::abs(nd.mean().item<double>()) < 0.07);
    CHECK(std::abs(nd.std().item<double>() - 1) < 0.07);
  }
  for (ScalarType dt : kAllTypes) {
    if (dt == kBool) continue;
    const TensorOptions o = TensorOptions(dt == kUInt8 ? kInt16 : dt).device(kGpu);
    manual_seed(99);
    const Tensor r = randint(-3, 100, {1000}, o);
    manual_seed(99);
    same(randint(-3, 100, {1000}, o), r, std::string("randint again ") + name(dt));
    const Tensor rc = r.cpu().to(kInt64);
    INFO("randint " << name(dt));
    CHECK(rc.ge(-3).logical_and(rc.lt(100)).all().item<bool>());
    CHECK(rc.eq(-3).any().item<bool>());
    CHECK(rc.eq(99).any().item<bool>());
  }
}

TEST_CASE("cuda: unary ops match the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  compare_unary("exp", Op::Exp, [](const Tensor& x) { return exp(x); });
  compare_unary("log", Op::Log, [](const Tensor& x) { return log(x); }, 0.1, 4);
  compare_unary("log1p", Op::Log1p, [](const Tensor& x) { return log1p(x); }, 0, 4);
  compare_unary("expm1", Op::Expm1, [](const Tensor& x) { return expm1(x); });
  compare_unary("sqrt", Op::Sqrt, [](const Tensor& x) { return sqrt(x); }, 0.1, 4);
  compare_unary("rsqrt", Op::Rsqrt, [](const Tensor& x) { return rsqrt(x); }, 0.1, 4);
  compare_unary("sin", Op::Sin, [](const Tensor& x) { return sin(x); });
  compare_unary("cos", Op::Cos, [](const Tensor& x) { return cos(x); });
  compare_unary("tan", Op::Tan, [](const Tensor& x) { return tan(x); }, -1, 1);
  compare_unary("tanh", Op::Tanh, [](const Tensor& x) { return tanh(x); });
  compare_unary("sigmoid", Op::Sigmoid, [](const Tensor& x) { return sigmoid(x); });
  compare_unary("gelu", Op::Gelu, [](const Tensor& x) { return gelu(x); });
  compare_unary("erf", Op::Erf, [](const Tensor& x) { return erf(x); });
  compare_unary("erfc", Op::Erfc, [](const Tensor& x) { return erfc(x); });
  compare_unary(
      "erfinv", Op::Erfinv, [](const Tensor& x) { return erfinv(x); }, -0.99, 0.99);
  compare_unary(
      "lgamma", Op::Lgamma, [](const Tensor& x) { return lgamma(x); }, 0.1, 8);
  compare_unary(
      "digamma", Op::Digamma, [](const Tensor& x) { return digamma(x); }, 0.1, 8);
  compare_unary(
      "polygamma 1", Op::Trigamma, [](const Tensor& x) { return polygamma(1, x); }, 0.1, 8);
  compare_unary(
      "i0", Op::I0, [](const Tensor& x) { return i0(x); }, -12, 12);
  compare_unary(
      "i0e", Op::I0e, [](const Tensor& x) { return special::i0e(x); }, -12, 12);
  compare_unary(
      "i1", Op::I1, [](const Tensor& x) { return special::i1(x); }, -12, 12);
  compare_unary(
      "i1e", Op::I1e, [](const Tensor& x) { return special::i1e(x); }, -12, 12);
  compare_unary("reciprocal", Op::Reciprocal, [](const Tensor& x) { return reciprocal(x); }, 0.5, 3);
  compare_unary("neg", Op::Neg, [](const Tensor& x) { return neg(x); });
  compare_unary("abs", Op::Abs, [](const Tensor& x) { return abs(x); });
  compare_unary("sign", Op::Sign, [](const Tensor& x) { return sign(x); });
  compare_unary("square", Op::Square, [](const Tensor& x) { return square(x); });
  compare_unary("relu", Op::Relu, [](const Tensor& x) { return relu(x); });
  compare_unary("floor", Op::Floor, [](const Tensor& x) { return floor(x); }, -20, 20);
  compare_unary("ceil", Op::Ceil, [](const Tensor& x) { return ceil(x); }, -20, 20);
  compare_unary("round", Op::Round, [](const Tensor& x) { return round(x); }, -20, 20);
  compare_unary("trunc", Op::Trunc, [](const Tensor& x) { return trunc(x); }, -20, 20);
  compare_unary("clamp", Op::Clamp, [](const Tensor& x) { return clamp(x, -1, 1); });
  compare_unary("clamp_min", Op::Clamp, [](const Tensor& x) { return clamp_min(x, 0); });
  compare_unary("clamp_max", Op::Clamp, [](const Tensor& x) { return clamp_max(x, 2); });
  compare_unary("clamp with a NaN bound", Op::Clamp, [](const Tensor& x) { return clamp(x, -1, NAN); });
  compare_unary("isnan", Op::IsNan, [](const Tensor& x) { return isnan(log(x.to(kFloat))); });
  compare_unary("isinf", Op::IsInf, [](const Tensor& x) { return isinf(reciprocal(x.to(kFloat))); });
  compare_unary("logical_not", Op::LogicalNot, [](const Tensor& x) { return logical_not(x); });
}

TEST_CASE("cuda: binary ops match the CPU, with broadcast and Scalar operands") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  compare_binary("add", Op::Add, [](const Tensor& a, const Tensor& b) { return add(a, b); });
  compare_binary("add alpha", Op::Sub, [](const Tensor& a, const Tensor& b) { return add(a, b, 3); });
  compare_binary("sub", Op::Sub, [](const Tensor& a, const Tensor& b) { return sub(a, b); });
  compare_binary("mul", Op::Mul, [](const Tensor& a, const Tensor& b) { return mul(a, b); });
  compare_binary("div", Op::Div, [](const Tensor& a, const Tensor& b) { return div(a, b); });
  compare_binary("remainder", Op::Remainder, [](const Tensor& a, const Tensor& b) { return remainder(a, b); });
  compare_binary("pow", Op::Pow, [](const Tensor& a, const Tensor& b) { return pow(abs(a), b); });
  compare_binary("maximum", Op::Maximum, [](const Tensor& a, const Tensor& b) { return maximum(a, b); });
  compare_binary("minimum", Op::Minimum, [](const Tensor& a, const Tensor& b) { return minimum(a, b); });
  compare_binary("atan2", Op::Atan2, [](const Tensor& a, const Tensor& b) { return atan2(a, b); });
  compare_binary("eq", Op::Eq, [](const Tensor& a, const Tensor& b) { return eq(a, b); });
  compare_binary("ne", Op::Ne, [](const Tensor& a, const Tensor& b) { return ne(a, b); });
  compare_binary("lt", Op::Lt, [](const Tensor& a, const Tensor& b) { return lt(a, b); });
  compare_binary("le", Op::Le, [](const Tensor& a, const Tensor& b) { return le(a, b); });
  compare_binary("gt", Op::Gt, [](const Tensor& a, const Tensor& b) { return gt(a, b); });
  compare_binary("ge", Op::Ge, [](const Tensor& a, const Tensor& b) { return ge(a, b); });
  compare_binary("logical_and", Op::LogicalAnd, [](const Tensor& a, const Tensor& b) { return logical_and(a, b); });
  compare_binary("logical_or", Op::LogicalOr, [](const Tensor& a, const Tensor& b) { return logical_or(a, b); });
  compare_binary("logical_xor", Op::LogicalXor, [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); });
  compare_binary("isclose", Op::IsClose, [](const Tensor& a, const Tensor& b) { return isclose(a, b, 0.5, 0.5); });
  compare_binary("bitwise_and", Op::BitwiseAnd,
                 [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); });
  compare_binary("bitwise_or", Op::BitwiseOr,
                 [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); });
  compare_binary("bitwise_xor", Op::BitwiseXor,
                 [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); });
  compare_binary("left shift", Op::LeftShift,
                 [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); });
  compare_binary("right shift", Op::RightShift,
                 [](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); });
  compare_binary("gcd", Op::Gcd, [](const Tensor& a, const Tensor& b) { return gcd(a, b); });
  compare_binary("lcm", Op::Lcm, [](const Tensor& a, const Tensor& b) { return lcm(a, b); });
  compare_binary("nextafter", Op::Nextafter,
                 [](const Tensor& a, const Tensor& b) { return nextafter(a, b); });
  compare_unary("bitwise_not", Op::BitwiseNot, [](const Tensor& x) { return bitwise_not(x); });
  // Scalar operands (passed by value to the kernel), on both sides.
  for (ScalarType dt : {kInt32, kHalf, kFloat, kDouble}) {
    Tensor a = random_cpu({40, 50}, dt), ag = a.to(kGpu);
    const std::string n = name(dt);
    check_close(ag + 3, a + 3, "tensor + scalar " + n);
    check_close(2 - ag, 2 - a, "scalar - tensor " + n);
    check_close(mul(ag.t(), 5), mul(a.t(), 5), "strided tensor * scalar " + n);
    check_close(gt(ag, 0), gt(a, 0), "tensor > scalar " + n);
    check_close(pow(abs(ag), 2), pow(abs(a), 2), "pow scalar exponent " + n);
  }
}

TEST_CASE("cuda: integer remainder by zero writes 0 on the GPU (the CPU throws)") {
  EMBER_REQUIRE_GPU();
  Tensor a = arange(1, 6, TensorOptions(kInt32).device(kGpu));
  Tensor r = remainder(a, zeros({5}, TensorOptions(kInt32).device(kGpu)));
  check_close(r, zeros({5}, TensorOptions(kInt32)), "remainder by zero", {0, 0});
  CHECK_THROWS_AS(remainder(a.cpu(), zeros({5}, TensorOptions(kInt32))), InvalidArgument);
}

TEST_CASE("cuda: where, lerp, addcmul and addcdiv match the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  for (ScalarType dt : kAllTypes) {
    const std::string n = name(dt);
    Tensor c = random_cpu({30, 41}, kBool), a = random_cpu({30, 41}, dt), b = random_cpu({30, 41}, dt);
    Tensor cg = c.to(kGpu), ag = a.to(kGpu), bg = b.to(kGpu);
    check_close(where(cg, ag, bg), where(c, a, b), "where " + n);
    check_close(where(cg.t(), ag.t(), bg.t()), where(c.t(), a.t(), b.t()), "where strided " + n);
    check_close(where(cg, ag, 1), where(c, a, 1), "where scalar " + n);
    for (const BroadcastShape& bs : kBroadcastShapes) {
      const std::string tag = std::string(" ") + bs.name + " " + n;
      check_close(where(bs.view(cg), ag, bg), where(bs.view(c), a, b), "where, broadcast condition" + tag);
      check_close(where(bs.view(cg), 2, bg), where(bs.view(c), 2, b), "where(cond, scalar, tensor)" + tag);
      check_close(where(cg, bs.view(ag), bg), where(c, bs.view(a), b), "where, broadcast value" + tag);
      if (has_kernel(Op::Addcmul, kCUDA, dt)) {
        Tensor s = random_cpu({30, 41}, dt), sg = s.to(kGpu);
        check_close(addcmul(sg, ag, bs.view(bg), 2), addcmul(s, a, bs.view(b), 2), "addcmul" + tag);
        check_close(addcmul(bs.view(sg), ag, bg), addcmul(bs.view(s), a, b), "addcmul, broadcast self" + tag);
      }
      if (in(kFloatTypes, dt)) {
        Tensor w = random_cpu({30, 41}, dt, 0, 1), wg = w.to(kGpu);
        Tensor d = random_cpu({30, 41}, dt, 0.5, 2), dg = d.to(kGpu);
        check_close(lerp(ag, bg, bs.view(wg)), lerp(a, b, bs.view(w)), "lerp, broadcast weight" + tag);
        check_close(lerp(ag, bs.view(bg), 0.75), lerp(a, bs.view(b), 0.75), "lerp, broadcast end" + tag);
        check_close(addcdiv(ag, bg, bs.view(dg), 0.5), addcdiv(a, b, bs.view(d), 0.5), "addcdiv" + tag);
      }
    }
    if (has_kernel(Op::Addcmul, kCUDA, dt)) {
      Tensor s = random_cpu({30, 41}, dt), sg = s.to(kGpu);
      check_close(addcmul(sg, ag, bg, 2), addcmul(s, a, b, 2), "addcmul " + n);
      check_close(addcmul(sg.t(), ag.t(), bg.slice(0, 0, 1).t()), addcmul(s.t(), a.t(), b.slice(0, 0, 1).t()),
                  "addcmul strided broadcast " + n);
    }
    if (in(kFloatTypes, dt)) {
      Tensor w = random_cpu({30, 41}, dt, 0, 1), wg = w.to(kGpu);
      check_close(lerp(ag, bg, 0.25), lerp(a, b, 0.25), "lerp scalar weight " + n);
      check_close(lerp(ag, bg, wg), lerp(a, b, w), "lerp tensor weight " + n);
      Tensor d = random_cpu({30, 41}, dt, 0.5, 2), dg = d.to(kGpu);
      check_close(addcdiv(ag, bg, dg, 0.5), addcdiv(a, b, d, 0.5), "addcdiv " + n);
    }
  }
}

TEST_CASE("cuda: matmul through cuBLAS matches the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  cuda::set_allow_tf32(false);
  for (ScalarType dt : kFloatTypes) {
    const std::string n = name(dt);
    const Tolerance tol = dt == kDouble ? Tolerance{1e-10, 1e-10}
                          : dt == kFloat ? Tolerance{1e-4, 1e-4}
                                         : Tolerance{3e-2, 1e-1};
    Tensor a = random_cpu({67, 45}, dt), b = random_cpu({45, 29}, dt);
    Tensor ag = a.to(kGpu), bg = b.to(kGpu);
    check_close(matmul(ag, bg), matmul(a, b), "matmul " + n, tol);
    Tensor at = random_cpu({45, 67}, dt), bt = random_cpu({29, 45}, dt);
    check_close(matmul(at.to(kGpu).t(), bt.to(kGpu).t()), matmul(at.t(), bt.t()), "matmul transposed " + n, tol);
    check_close(matmul(ag, bt.to(kGpu).t()), matmul(a, bt.t()), "matmul B transposed " + n, tol);
    Tensor ba = random_cpu({3, 67, 45}, dt), bb = random_cpu({3, 45, 29}, dt);
    check_close(matmul(ba.to(kGpu), bb.to(kGpu)), matmul(ba, bb), "batched matmul " + n, tol);
    check_close(matmul(ba.to(kGpu), bg), matmul(ba, b), "batched matmul, broadcast B " + n, tol);
    check_close(matmul(ag, bb.to(kGpu)), matmul(a, bb), "batched matmul, broadcast A " + n, tol);
  }
  CHECK_THROWS_AS(matmul(ones({2, 2}, TensorOptions(kInt32).device(kGpu)), ones({2, 2}, TensorOptions(kInt32).device(kGpu))),
                  NotImplemented);
  cuda::set_allow_tf32(true);
  Tensor a = random_cpu({256, 256}, kFloat), b = random_cpu({256, 256}, kFloat);
  check_close(matmul(a.to(kGpu), b.to(kGpu)), matmul(a, b), "matmul tf32", {2e-2, 5e-2});
  cuda::set_allow_tf32(false);
}

TEST_CASE("cuda: streams, stream guards and events") {
  EMBER_REQUIRE_GPU();
  CHECK(cuda::is_available());
  CHECK(cuda::current_stream(0).handle() == nullptr);  // the default stream
  cuda::Stream s = cuda::new_stream(0);
  CHECK(s.handle() != nullptr);
  CHECK(s.device_index() == 0);
  Tensor x = rand({1 << 20}).to(kGpu);
  cuda::Event start, end;
  Tensor y;
  {
    cuda::StreamGuard guard(s);
    CHECK(cuda::current_stream(0) == s);
    start.record(s);
    y = x * 2 + 1;
    end.record(s);
  }
  CHECK(cuda::current_stream(0).handle() == nullptr);  // restored
  end.synchronize();
  CHECK(end.query());
  CHECK(s.query());
  CHECK(start.elapsed_ms(end) >= 0);
  s.synchronize();
  check_close(y, x.cpu() * 2 + 1, "work on a side stream");
  cuda::synchronize();
  cuda::synchronize(0);
  CHECK_THROWS_AS(cuda::current_stream(cuda::device_count()), InvalidArgument);
  cuda::Event unrecorded;
  CHECK(unrecorded.query());
  CHECK_THROWS_AS(unrecorded.elapsed_ms(end), InvalidArgument);
}

TEST_CASE("cuda: device info is filled in") {
  EMBER_REQUIRE_GPU();
  auto devs = list_physical_devices(kCUDA);
  REQUIRE(int(devs.size()) == cuda::device_count());
  CHECK_FALSE(devs[0].name.empty());
  CHECK(devs[0].memory_total > devs[0].memory_limit);
  CHECK(devs[0].cc_major >= 5);
  CHECK(devs[0].multiprocessors > 0);
  CHECK(devs[0].pci_bus_id.size() >= 7);
}

TEST_CASE("cuda: registered dtypes match the CPU's for reductions and along-dim ops") {
  for (int i = static_cast<int>(Op::Sum); i < static_cast<int>(Op::MatMul); ++i) {
    const Op op = static_cast<Op>(i);
    for (ScalarType dt : kAllTypes) {
      INFO(op_name(op) << " " << name(dt));
      CHECK(has_kernel(op, kCUDA, dt) == has_kernel(op, kCPU, dt));
    }
  }
}

namespace {

// Reductions sum in float on the GPU (double on the CPU): float results get a looser rtol.
Tolerance reduce_tolerance(ScalarType t) {
  switch (t) {
    case kHalf: return {2e-2, 2e-2};
    case kBFloat16: return {4e-2, 4e-2};
    case kFloat: return {1e-4, 1e-4};
    case kDouble: return {1e-10, 1e-10};
    default: return {0, 0};
  }
}

// Each reduction over: everything (the two-pass split), the inner dim (a warp per row),
// the outer dim of a wide matrix (a thread per output), a short inner dim (a thread per
// output), a transposed view and a dim list.
void compare_reduce(const char* name, Op op, const std::function<Tensor(const Tensor&, std::optional<int64_t>)>& fn,
                    double lo = -2, double hi = 2) {
  for (ScalarType dt : kAllTypes) {
    if (!has_kernel(op, kCUDA, dt)) continue;
    const std::string tag = std::string(name) + " " + ember::name(dt);
    const Tolerance tol = reduce_tolerance(dt);
    Tensor x = random_cpu({67, 3001}, dt, lo, hi), xg = x.to(kGpu);
    check_close(fn(xg, std::nullopt), fn(x, std::nullopt), tag + " all", tol);
    check_close(fn(xg, 1), fn(x, 1), tag + " inner dim", tol);
    check_close(fn(xg, 0), fn(x, 0), tag + " outer dim", tol);
    check_close(fn(xg.t(), 1), fn(x.t(), 1), tag + " transposed", tol);
    Tensor w = random_cpu({40, 70000}, dt, lo, hi);
    check_close(fn(w.to(kGpu), 0), fn(w, 0), tag + " outer dim, many outputs", tol);
    Tensor s = random_cpu({1000, 7}, dt, lo, hi);
    check_close(fn(s.to(kGpu), 1), fn(s, 1), tag + " short dim", tol);
  }
}

}  // namespace

TEST_CASE("cuda: reductions match the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  auto dims = [](std::optional<int64_t> d) { return d ? std::vector<int64_t>{*d} : std::vector<int64_t>{}; };
  // Positive values for sums: no cancellation, so the float rounding stays relative.
  compare_reduce("sum", Op::Sum, [&](const Tensor& x, std::optional<int64_t> d) { return sum(x, dims(d)); }, 0.5, 1.5);
  compare_reduce("mean", Op::Sum, [&](const Tensor& x, std::optional<int64_t> d) {
    return is_floating_point(x.dtype()) ? mean(x, dims(d)) : sum(x, dims(d), true);
  }, 0.5, 1.5);
  compare_reduce("prod", Op::Prod, [](const Tensor& x, std::optional<int64_t> d) {
    Tensor y = x.slice(-1, 0, 20);  // few factors: no overflow to compare
    return d ? prod(y, *d) : prod(y);
  }, 0.5, 1.5);
  compare_reduce("amax", Op::Max, [&](const Tensor& x, std::optional<int64_t> d) { return d ? amax(x, dims(d)) : max(x); });
  compare_reduce("amin", Op::Min, [&](const Tensor& x, std::optional<int64_t> d) { return d ? amin(x, dims(d)) : min(x); });
  compare_reduce("max values", Op::Max, [](const Tensor& x, std::optional<int64_t> d) { return std::get<0>(max(x, d.value_or(0))); });
  compare_reduce("max indices", Op::Max, [](const Tensor& x, std::optional<int64_t> d) { return std::get<1>(max(x, d.value_or(1))); });
  compare_reduce("min indices", Op::Min, [](const Tensor& x, std::optional<int64_t> d) { return std::get<1>(min(x, d.value_or(1))); });
  compare_reduce("argmax", Op::ArgMax, [](const Tensor& x, std::optional<int64_t> d) { return argmax(x, d); });
  compare_reduce("argmin", Op::ArgMin, [](const Tensor& x, std::optional<int64_t> d) { return argmin(x, d, true); });
  compare_reduce("all", Op::All, [](const Tensor& x, std::optional<int64_t> d) { return d ? all(x, *d) : all(x); });
  compare_reduce("any", Op::Any, [](const Tensor& x, std::optional<int64_t> d) { return d ? any(x, *d) : any(x); });
  compare_reduce("var", Op::Var, [&](const Tensor& x, std::optional<int64_t> d) { return var(x, dims(d)); });
  compare_reduce("std biased", Op::Var, [&](const Tensor& x, std::optional<int64_t> d) { return ember::std(x, dims(d), false); });
  for (double p : {0.0, 1.0, 2.0, 3.5, double(INFINITY), -double(INFINITY)})
    compare_reduce("norm", Op::Norm, [&](const Tensor& x, std::optional<int64_t> d) { return norm(x, p, dims(d)); });
  compare_reduce("logsumexp", Op::LogSumExp, [&](const Tensor& x, std::optional<int64_t> d) { return logsumexp(x, dims(d)); });
}

TEST_CASE("cuda: reductions on special values, empty dims and large inputs") {
  EMBER_REQUIRE_GPU();
  const double nan = std::nan("");
  Tensor x = tensor({1.0, nan, 3.0, 3.0, -1.0, nan}).view({2, 3});
  Tensor xg = x.to(kGpu);
  check_close(amax(xg, {1}), amax(x, {1}), "amax with NaN", {0, 0});
  check_close(argmax(xg, 1), argmax(x, 1), "argmax with NaN", {0, 0});
  check_close(argmin(xg), argmin(x), "argmin with NaN", {0, 0});
  Tensor ties = tensor({2, 5, 5, 1, 5}, TensorOptions(kInt32));
  check_close(argmax(ties.to(kGpu)), argmax(ties), "argmax ties: the first index", {0, 0});
  check_close(logsumexp(tensor({-INFINITY, -INFINITY}).to(kGpu), {0}), logsumexp(tensor({-INFINITY, -INFINITY}), {0}),
              "logsumexp of -inf", {0, 0});
  check_close(all(tensor({-0.0, 1.0}).to(kGpu)), all(tensor({-0.0, 1.0})), "all(-0.0)", {0, 0});
  check_close(any(tensor({nan, 0.0}).to(kGpu)), any(tensor({nan, 0.0})), "any(NaN)", {0, 0});
  Tensor e = zeros({3, 0}, TensorOptions(kFloat));
  check_close(sum(e.to(kGpu), {1}), sum(e, {1}), "sum over an empty dim", {0, 0});
  check_close(prod(e.to(kGpu), 1), prod(e, 1), "prod over an empty dim", {0, 0});
  Tensor big = rand({1 << 24});  // 16M elements: the two-pass full reduction
  Tensor bg = big.to(kGpu);
  check_close(sum(bg), sum(big), "16M sum", {1e-5, 0});
  check_close(max(bg), max(big), "16M max", {0, 0});
  check_close(argmin(bg), argmin(big), "16M argmin", {0, 0});
  check_close(var(bg), var(big), "16M var", {1e-4, 0});
  Tensor ib = randint(-100, 100, {1 << 22}, TensorOptions(kInt64));
  check_close(sum(ib.to(kGpu)), sum(ib), "4M int64 sum", {0, 0});
}

TEST_CASE("cuda: column reductions, 16-byte-load reductions and tiled transposes match the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  // Few columns over many rows: the coalesced column kernel with splits and a second pass.
  for (ScalarType dt : {kHalf, kFloat, kDouble, kInt32}) {
    const std::string n = name(dt);
    Tensor x = random_cpu({5000, 40}, dt, 0.5, 1.5), xg = x.to(kGpu);
    check_close(sum(xg, {0}), sum(x, {0}), "sum(0) of 5000 x 40 " + n, reduce_tolerance(dt));
    check_close(amax(xg, {0}), amax(x, {0}), "amax(0) of 5000 x 40 " + n, {0, 0});
    check_close(var(xg.to(kDouble), {0}), var(x.to(kDouble), {0}), "var(0) " + n, reduce_tolerance(kDouble));
  }
  // Many columns (a partial last block of 32) over rows that leave a remainder after the
  // four-row unrolled loads of each warp.
  Tensor wide = random_cpu({1237, 3000}, kFloat, 0.5, 1.5);
  check_close(sum(wide.to(kGpu), {0}), sum(wide, {0}), "sum(0) of 1237 x 3000", reduce_tolerance(kFloat));
  check_close(amin(wide.to(kGpu), {0}), amin(wide, {0}), "amin(0) of 1237 x 3000", {0, 0});
  // Ties everywhere: each path must return the first index of the extreme.
  Tensor ties = randint(0, 3, {3000, 70}, TensorOptions(kInt32)), tg = ties.to(kGpu);
  check_close(argmax(tg, 0), argmax(ties, 0), "argmax(0) with ties (columns)", {0, 0});
  check_close(argmin(tg, 1), argmin(ties, 1), "argmin(1) with ties", {0, 0});
  Tensor flat_ties = randint(0, 3, {1 << 20}, TensorOptions(kInt8));
  check_close(argmax(flat_ties.to(kGpu)), argmax(flat_ties), "argmax with ties (16-byte loads, splits)", {0, 0});
  // Contiguous reductions that start off a 16-byte boundary and end mid-vector.
  for (ScalarType dt : {kInt8, kHalf, kFloat, kDouble}) {
    Tensor big = random_cpu({(1 << 20) + 7}, dt, 0.5, 1.5), bg = big.to(kGpu);
    for (int64_t off : {1, 3, 5}) {
      const std::string tag = std::string(name(dt)) + " from element " + std::to_string(off);
      check_close(sum(bg.slice(0, off)), sum(big.slice(0, off)), "sum " + tag, reduce_tolerance(dt));
      check_close(max(bg.slice(0, off)), max(big.slice(0, off)), "max " + tag, {0, 0});
      Tensor rows = big.slice(0, off, off + 999 * 1000).view({999, 1000});
      check_close(sum(rows.to(kGpu), {1}), sum(rows, {1}), "row sums " + tag, reduce_tolerance(dt));
    }
  }
  // Transposing copies of every element size, whole and from a sliced view.
  for (ScalarType dt : {kBool, kInt16, kFloat, kDouble}) {
    Tensor x = random_cpu({100, 333}, dt), xg = x.to(kGpu);
    const std::string n = name(dt);
    check_close(xg.t().contiguous(), x.t().contiguous(), "transpose-copy " + n, {0, 0});
    check_close(xg.slice(1, 1, 300).t().contiguous(), x.slice(1, 1, 300).t().contiguous(), "sliced transpose " + n, {0, 0});
    Tensor dst = zeros({100, 333}, TensorOptions(dt).device(kGpu)).t();
    dst.copy_(xg.t().contiguous());  // a transposed destination, a contiguous source
    check_close(dst, x.t(), "copy_ into a transposed tensor " + n, {0, 0});
  }
}

TEST_CASE("cuda: softmax, log_softmax and cumsum match the CPU") {
  EMBER_REQUIRE_GPU();
  manual_seed(test_seed());
  for (ScalarType dt : kAllTypes) {
    const std::string n = name(dt);
    const Tolerance tol = reduce_tolerance(dt);
    for (std::vector<int64_t> shape : {std::vector<int64_t>{37, 300}, std::vector<int64_t>{5, 9000}, std::vector<int64_t>{4, 4096},
                                       std::vector<int64_t>{7, 1500}, std::vector<int64_t>{2, 12288},
                                       std::vector<int64_t>{3, 20, 33}}) {
      Tensor x = random_cpu(shape, dt), xg = x.to(kGpu);
      for (int64_t d = 0; d < x.dim(); ++d) {
        const std::string tag = n + " dim " + std::to_string(d) + " of " + std::to_string(x.numel());
        if (has_kernel(Op::Softmax, kCUDA, dt)) {
          check_close(softmax(xg, d), softmax(x, d), "softmax " + tag, tol);
          check_close(log_softmax(xg, d), log_softmax(x, d), "log_softmax " + tag, tol);
        }
        Tensor p = random_cpu(shape, dt, 0, 1), pg = p.to(kGpu);  // positive: relative rounding
        check_close(cumsum(pg, d), cumsum(p, d), "cumsum " + tag, tol);
        check_close(cumsum(pg, d, dt), cumsum(p, d, dt), "cumsum in dtype " + tag, tol);
      }
    }
  }
  Tensor inf = tensor({1.0f, INFINITY, 2.0f});
  check_close(softmax(inf.to(kGpu), 0), softmax(inf, 0), "softmax with inf", {0, 0});
}

TEST_CASE("cuda: writes into overlapping memory are refused as on the CPU") {
  EMBER_REQUIRE_GPU();
  Tensor a = arange(10, TensorOptions(kFloat).device(kGpu));
  CHECK_THROWS_WITH(a.narrow(0, 0, 9).add_(a.narrow(0, 1, 9)),
                    Catch::Contains("some elements of the input tensor and the written-to tensor refer to a single"));
  CHECK_THROWS_WITH(a.narrow(0, 1, 9).copy_(a.narrow(0, 0, 9)), Catch::Contains("copy_: unsupported operation"));
  CHECK_THROWS_WITH(a.narrow(0, 0, 3).expand({4, 3}).add_(1),
                    Catch::Contains("more than one element of the written-to tensor refers to a single memory"));
  CHECK(a.cpu().equal(arange(10, kFloat)));
  a.add_(a);
  a.narrow(0, 0, 5).add_(a.narrow(0, 5, 5));
  CHECK(a.cpu().equal(tensor({10.0f, 14.0f, 18.0f, 22.0f, 26.0f, 10.0f, 12.0f, 14.0f, 16.0f, 18.0f})));
}

TEST_CASE(
    "cuda: torch::special's float-only functions name the CUDA kernel, and a CPU scalar joins a GPU tensor") {
  EMBER_REQUIRE_GPU();
  const Tensor bf = ones({2}, TensorOptions(kBFloat16).device(kGpu));
  CHECK_THROWS_MATCHES(special::bessel_j0(bf), NotImplemented,
                       Catch::Message("\"bessel_j0_cuda\" not implemented for 'BFloat16'"));
  CHECK_THROWS_MATCHES(special::chebyshev_polynomial_t(tensor(0.5), bf), NotImplemented,
                       Catch::Message("\"chebyshev_polynomial_t_cuda\" not implemented for 'BFloat16'"));
  // A 0-dim CPU degree with GPU points runs on the GPU, with the CPU's values.
  const Tensor x = linspace(-1, 1, 9, kDouble);
  CHECK(allclose(special::legendre_polynomial_p(x.to(kGpu), tensor(3.0, kDouble)).cpu(),
                 special::legendre_polynomial_p(x, 3), 1e-14, 1e-14));
  CHECK(allclose(igamma(full({9}, 2.5, kDouble).to(kGpu), x.abs().to(kGpu) * 4).cpu(),
                 igamma(full({9}, 2.5, kDouble), x.abs() * 4), 1e-14, 1e-14));
}
