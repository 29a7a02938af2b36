// Cross-checks the edge cases of issue 18 against libtorch: unary ops over every dtype
// (result dtype, values, or both failing), NaN bounds and NaN-propagating maximum /
// minimum, isclose / allclose with infinities and NaN, out= ops resizing an empty output,
// and the printed text of random tensors of every dtype and rank. (REQUIRE, not CHECK:
// libtorch's glog defines its own CHECK.)
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

const ember::ScalarType kAll[] = {ember::kBool, ember::kUInt8, ember::kInt8,     ember::kInt16, ember::kInt32,
                                  ember::kInt64, ember::kHalf,  ember::kBFloat16, ember::kFloat, ember::kDouble};

torch::ScalarType to_torch(ember::ScalarType t) {
  static const torch::ScalarType types[] = {torch::kBool,  torch::kUInt8, torch::kInt8,     torch::kInt16, torch::kInt32,
                                            torch::kInt64, torch::kHalf,  torch::kBFloat16, torch::kFloat, torch::kDouble};
  return types[static_cast<int>(t)];
}

// The same values in both libraries, through float64.
torch::Tensor to_torch(const ember::Tensor& e) {
  ember::Tensor d = e.to(ember::kDouble).contiguous();
  return torch::from_blob(d.data_ptr(), d.sizes().vec(), torch::kDouble).clone().to(to_torch(e.dtype()));
}

ember::Tensor from_values(const std::vector<double>& v, std::vector<int64_t> sizes, ember::ScalarType dt) {
  return ember::tensor(v, ember::kDouble).reshape(sizes).to(dt);
}

// Same dtype, shape and values (NaN where the other has NaN).
void check_same(const ember::Tensor& e, const torch::Tensor& t, double tol = 0) {
  REQUIRE(to_torch(e.dtype()) == t.scalar_type());
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  ember::Tensor ed = e.to(ember::kDouble).contiguous();
  torch::Tensor td = t.to(torch::kDouble).contiguous();
  for (int64_t i = 0; i < ed.numel(); ++i) {
    const double a = ed.data_ptr<double>()[i], b = td.data_ptr<double>()[i];
    INFO("element " << i << ": ember " << a << ", libtorch " << b);
    if (std::isnan(a) || std::isnan(b)) {
      REQUIRE(std::isnan(a) == std::isnan(b));
      continue;
    }
    if (a != b) REQUIRE(std::abs(a - b) <= tol * (1 + std::abs(b)));
  }
}

double tol_for(ember::ScalarType t) {
  return t == ember::kHalf ? 2e-3 : t == ember::kBFloat16 ? 1e-2 : t == ember::kFloat ? 1e-6 : 1e-12;
}

template <class E, class T>
void check_call(E ember_call, T torch_call, double tol) {
  std::string torch_error;
  torch::Tensor t;
  try {
    t = torch_call();
  } catch (const c10::Error& err) {
    torch_error = err.what_without_backtrace();
  }
  if (!torch_error.empty()) {
    INFO("libtorch: " << torch_error);
    CHECK_THROWS_AS(ember_call(), ember::Error);
    return;
  }
  check_same(ember_call(), t, tol);
}

std::string printed(const ember::Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
std::string printed(const torch::Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace

TEST_CASE("crosscheck parity: unary ops take bool and integer inputs as libtorch does") {
  using EF = std::function<ember::Tensor(const ember::Tensor&)>;
  using TF = std::function<torch::Tensor(const torch::Tensor&)>;
  const std::vector<std::tuple<const char*, EF, TF>> ops = {
      {"neg", [](auto& x) { return ember::neg(x); }, [](auto& x) { return torch::neg(x); }},
      {"abs", [](auto& x) { return ember::abs(x); }, [](auto& x) { return torch::abs(x); }},
      {"sign", [](auto& x) { return ember::sign(x); }, [](auto& x) { return torch::sign(x); }},
      {"exp", [](auto& x) { return ember::exp(x); }, [](auto& x) { return torch::exp(x); }},
      {"log", [](auto& x) { return ember::log(x); }, [](auto& x) { return torch::log(x); }},
      {"log1p", [](auto& x) { return ember::log1p(x); }, [](auto& x) { return torch::log1p(x); }},
      {"expm1", [](auto& x) { return ember::expm1(x); }, [](auto& x) { return torch::expm1(x); }},
      {"sqrt", [](auto& x) { return ember::sqrt(x); }, [](auto& x) { return torch::sqrt(x); }},
      {"rsqrt", [](auto& x) { return ember::rsqrt(x); }, [](auto& x) { return torch::rsqrt(x); }},
      {"square", [](auto& x) { return ember::square(x); }, [](auto& x) { return torch::square(x); }},
      {"sin", [](auto& x) { return ember::sin(x); }, [](auto& x) { return torch::sin(x); }},
      {"cos", [](auto& x) { return ember::cos(x); }, [](auto& x) { return torch::cos(x); }},
      {"tan", [](auto& x) { return ember::tan(x); }, [](auto& x) { return torch::tan(x); }},
      {"tanh", [](auto& x) { return ember::tanh(x); }, [](auto& x) { return torch::tanh(x); }},
      {"sigmoid", [](auto& x) { return ember::sigmoid(x); }, [](auto& x) { return torch::sigmoid(x); }},
      {"relu", [](auto& x) { return ember::relu(x); }, [](auto& x) { return torch::relu(x); }},
      {"gelu", [](auto& x) { return ember::gelu(x); }, [](auto& x) { return torch::gelu(x); }},
      {"floor", [](auto& x) { return ember::floor(x); }, [](auto& x) { return torch::floor(x); }},
      {"ceil", [](auto& x) { return ember::ceil(x); }, [](auto& x) { return torch::ceil(x); }},
      {"round", [](auto& x) { return ember::round(x); }, [](auto& x) { return torch::round(x); }},
      {"trunc", [](auto& x) { return ember::trunc(x); }, [](auto& x) { return torch::trunc(x); }},
      {"reciprocal", [](auto& x) { return ember::reciprocal(x); }, [](auto& x) { return torch::reciprocal(x); }},
      {"isnan", [](auto& x) { return ember::isnan(x); }, [](auto& x) { return torch::isnan(x); }},
      {"isinf", [](auto& x) { return ember::isinf(x); }, [](auto& x) { return torch::isinf(x); }},
      {"logical_not", [](auto& x) { return ember::logical_not(x); }, [](auto& x) { return torch::logical_not(x); }},
      {"clamp(0, 2)", [](auto& x) { return ember::clamp(x, 0, 2); }, [](auto& x) { return torch::clamp(x, 0, 2); }},
      {"clamp_min(0.5)", [](auto& x) { return ember::clamp_min(x, 0.5); },
       [](auto& x) { return torch::clamp_min(x, 0.5); }},
      {"clamp_max(true)", [](auto& x) { return ember::clamp_max(x, true); },
       [](auto& x) { return torch::clamp_max(x, true); }},
  };
  for (ember::ScalarType dt : kAll) {
    const ember::Tensor x = from_values({0, 1, 2, 3}, {4}, dt);
    for (const auto& [op, ef, tf] : ops) {
      INFO(op << " of " << ember::name(dt));
      // libtorch 1.13 lacks most Half CPU kernels that 2.x (and ember) have.
      if (dt == ember::kHalf) {
        bool torch_half_ok = true;
        try {
          tf(to_torch(x));
        } catch (const c10::Error&) {
          torch_half_ok = false;
        }
        if (!torch_half_ok) continue;
      }
      check_call([&] { return ef(x); }, [&] { return tf(to_torch(x)); }, tol_for(ember::kFloat) * 10 + tol_for(dt));
    }
  }
}

TEST_CASE("crosscheck parity: a NaN bound propagates, maximum and minimum propagate NaN") {
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble, ember::kBFloat16, ember::kInt64, ember::kInt32}) {
    INFO(ember::name(dt));
    const bool fl = ember::is_floating_point(dt);
    const ember::Tensor x =
        fl ? from_values({-20, 0, 5, NAN, INFINITY, -INFINITY}, {6}, dt) : from_values({-20, 0, 5}, {3}, dt);
    const torch::Tensor t = to_torch(x);
    check_same(ember::clamp_max(x, NAN), torch::clamp_max(t, NAN));
    check_same(ember::clamp_min(x, NAN), torch::clamp_min(t, NAN));
    check_same(ember::clamp(x, -10, NAN), torch::clamp(t, -10, NAN));
    check_same(ember::clamp(x, NAN, 10), torch::clamp(t, NAN, 10));
    check_same(ember::clamp(x, 10, -10), torch::clamp(t, 10, -10));
    check_same(ember::clamp(x, -10, 10), torch::clamp(t, -10, 10));
    const ember::Tensor y = fl ? from_values({NAN, 1, -INFINITY, NAN, 0, -0.0}, {6}, dt) : from_values({7, -30, 5}, {3}, dt);
    check_same(ember::maximum(x, y), torch::maximum(t, to_torch(y)));
    check_same(ember::minimum(x, y), torch::minimum(t, to_torch(y)));
    if (fl) {  // reductions propagate NaN too, and arg-reductions point at it
      check_same(ember::max(y), torch::max(to_torch(y)));
      check_same(ember::amin(y, {0}), torch::amin(to_torch(y), {0}));
      check_same(ember::argmax(y), torch::argmax(to_torch(y)));
      check_same(ember::argmin(y), torch::argmin(to_torch(y)));
      check_same(std::get<1>(ember::max(y, 0)), std::get<1>(torch::max(to_torch(y), 0)));
    }
  }
}

TEST_CASE("crosscheck parity: isclose and allclose with infinities, NaN and integers") {
  const ember::Tensor a = from_values({INFINITY, 1, INFINITY, -INFINITY, NAN, NAN, 1, 1, 0, 1e-8}, {10}, ember::kFloat);
  const ember::Tensor b = from_values({-INFINITY, INFINITY, INFINITY, -INFINITY, NAN, 1, 1.00001, 1.0001, 1e-9, 0}, {10},
                                      ember::kFloat);
  const torch::Tensor ta = to_torch(a), tb = to_torch(b);
  for (bool equal_nan : {false, true}) {
    check_same(ember::isclose(a, b, 1e-5, 1e-8, equal_nan), torch::isclose(ta, tb, 1e-5, 1e-8, equal_nan));
    check_same(ember::isclose(b, a, 1e-5, 1e-8, equal_nan), torch::isclose(tb, ta, 1e-5, 1e-8, equal_nan));
    check_same(ember::isclose(a, b, 0, 0, equal_nan), torch::isclose(ta, tb, 0, 0, equal_nan));
  }
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      INFO(i << " against " << j);
      const ember::Tensor x = a.slice(0, i, i + 1), y = b.slice(0, j, j + 1);
      REQUIRE(ember::allclose(x, y) == torch::allclose(to_torch(x), to_torch(y)));
      REQUIRE(ember::allclose(x, y, 1e-5, 1e-8, true) == torch::allclose(to_torch(x), to_torch(y), 1e-5, 1e-8, true));
    }
  }
  // Integers (small enough that libtorch's float arithmetic is exact), bool, half; broadcasting.
  for (ember::ScalarType dt : {ember::kInt64, ember::kInt32, ember::kInt8, ember::kUInt8, ember::kBool, ember::kHalf}) {
    INFO(ember::name(dt));
    const ember::Tensor x = from_values({100, 0, 27, 1, 5, 0}, {2, 3}, dt), y = from_values({101, 1, 100, 1, 0, 0}, {2, 3}, dt);
    for (double atol : {0.0, 1.0, 1.5, 73.0}) {
      check_same(ember::isclose(x, y, 0.01, atol), torch::isclose(to_torch(x), to_torch(y), 0.01, atol));
      check_same(ember::isclose(x, y.slice(0, 0, 1), 0, atol), torch::isclose(to_torch(x), to_torch(y).slice(0, 0, 1), 0, atol));
    }
  }
  // The same errors: mixed dtypes, negative tolerances, shapes that do not broadcast.
  check_call([&] { return ember::isclose(a, b.to(ember::kDouble)); }, [&] { return torch::isclose(ta, tb.to(torch::kDouble)); }, 0);
  check_call([&] { return ember::isclose(a, b, -1, 0); }, [&] { return torch::isclose(ta, tb, -1, 0); }, 0);
  check_call([&] { return ember::isclose(a, b, 0, -1); }, [&] { return torch::isclose(ta, tb, 0, -1); }, 0);
  check_call([&] { return ember::isclose(a, b.slice(0, 0, 3)); }, [&] { return torch::isclose(ta, tb.slice(0, 0, 3)); }, 0);
}

TEST_CASE("crosscheck parity: out= ops resize an empty output") {
  const ember::Tensor a = from_values({1, 2, 3, 4, 5, 6}, {2, 3}, ember::kFloat), b = from_values({10, 20, 30}, {3}, ember::kFloat);
  const torch::Tensor ta = to_torch(a), tb = to_torch(b);
  {
    ember::Tensor out = ember::zeros({0});
    torch::Tensor tout = torch::zeros({0});
    ember::add_out(out, a, b, 2);
    torch::add_out(tout, ta, tb, 2);
    check_same(out, tout);
  }
  {
    ember::Tensor out = ember::zeros({0, 5}, ember::kDouble);
    torch::Tensor tout = torch::zeros({0, 5}, torch::kDouble);
    ember::mul_out(out, a, b);
    torch::mul_out(tout, ta, tb);
    check_same(out, tout);
  }
  for (auto shapes : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 3}, {3, 4}}, {{3}, {3, 4}}, {{4, 2, 3}, {3, 5}}, {{3}, {3}}}) {
    INFO(shapes.first.size() << "-D by " << shapes.second.size() << "-D");
    ember::manual_seed(18);
    const ember::Tensor x = ember::rand(shapes.first), y = ember::rand(shapes.second);
    ember::Tensor out = ember::empty({0});
    torch::Tensor tout = torch::empty({0});
    ember::matmul_out(out, x, y);
    torch::matmul_out(tout, to_torch(x), to_torch(y));
    check_same(out, tout, 1e-5);
  }
}

TEST_CASE("crosscheck parity: printed text of random tensors is libtorch's") {
#if TORCH_VERSION_MAJOR >= 2
  // ember prints as Debian's libtorch 1.13, the reference. libtorch 2.x (seen with 2.11 on
  // the GPU machine) indents 3-D rows one space less, prints 0-dim floats with every digit
  // of their double and scale factors as "100000 *" instead of "1e+05 *".
  WARN("skipped: the printed-text reference is libtorch 1.13, this is libtorch " << TORCH_VERSION_MAJOR << "."
                                                                                  << TORCH_VERSION_MINOR);
  return;
#endif
  ember::manual_seed(1818);
  const std::vector<std::vector<int64_t>> shapes = {{}, {1}, {5}, {3, 4}, {2, 13}, {3, 30}, {2, 3, 4}, {2, 2, 3, 17}, {0, 3}};
  for (ember::ScalarType dt : kAll) {
    for (const auto& shape : shapes) {
      for (int magnitude : {-12, -5, -4, -1, 0, 1, 4, 5, 6, 9, 11}) {
        ember::Tensor v = (ember::rand(shape, ember::kDouble) - 0.3) * std::pow(10.0, magnitude);
        if (!ember::is_floating_point(dt)) {
          if (magnitude > 5 || magnitude < 0) continue;  // beyond 6 digits ember prints integers exactly
          v = v.round();
        } else if (magnitude == 1 && v.numel() > 2) {
          v = ember::where(ember::lt(ember::rand(shape, ember::kDouble), 0.2), ember::full({}, NAN, ember::kDouble), v);
          v.view({-1}).slice(0, 0, 1).fill_(-INFINITY);
        }
        const ember::Tensor e = v.to(dt);
        INFO(ember::name(dt) << " of shape " << e.sizes().size() << "-D, magnitude 1e" << magnitude);
        // libtorch's float64 -> bfloat16 conversion can set a NaN's sign bit ("-nan"): use its own NaN.
        torch::Tensor t = to_torch(e);
        if (t.is_floating_point()) t = torch::where(torch::isnan(t), torch::full({}, NAN, t.options()), t);
        REQUIRE(printed(e) == printed(t));
        if (e.dim() >= 2) REQUIRE(printed(e.transpose(0, 1)) == printed(t.transpose(0, 1)));
      }
    }
  }
}
