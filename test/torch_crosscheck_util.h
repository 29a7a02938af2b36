#pragma once
// Shared by the libtorch cross-check files: ember's dtypes beside libtorch's, an ember
// tensor's values as a libtorch tensor of the same dtype and shape, and the comparisons of
// the layer cross-checks (values, gradients, error texts).
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace crosscheck {

inline const ember::ScalarType kTypes[] = {ember::kBool,  ember::kUInt8, ember::kInt8, ember::kInt16,
                                           ember::kInt32, ember::kInt64, ember::kHalf, ember::kBFloat16,
                                           ember::kFloat, ember::kDouble};
inline const torch::ScalarType kTorchTypes[] = {torch::kBool,  torch::kUInt8, torch::kInt8, torch::kInt16,
                                                torch::kInt32, torch::kInt64, torch::kHalf, torch::kBFloat16,
                                                torch::kFloat, torch::kDouble};

inline torch::ScalarType to_torch(ember::ScalarType t) { return kTorchTypes[static_cast<int>(t)]; }

/// The same values in libtorch (through float64, exact for every value the checks use).
inline torch::Tensor as_torch(const ember::Tensor& e) {
  ember::Tensor d = e.to(ember::kDouble).contiguous();
  return torch::from_blob(d.data_ptr(), d.sizes().vec(), torch::kDouble).clone().to(to_torch(e.dtype()));
}

inline uint64_t fresh_seed() {
  static std::random_device rd;
  return (uint64_t(rd()) << 32) | rd();
}

/// Same shape and dtype, and every element within tol of libtorch's relative to
/// |libtorch's| + 1.
inline void check_close(const ember::Tensor& e, const torch::Tensor& t, double tol, const std::string& what) {
  INFO(what);
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  CHECK(to_torch(e.dtype()) == t.scalar_type());
  const torch::Tensor d = (as_torch(e).to(torch::kDouble) - t.to(torch::kDouble)).abs();
  const torch::Tensor scale = t.to(torch::kDouble).abs() + 1;
  const double worst = d.numel() == 0 ? 0 : (d / scale).max().item<double>();
  INFO("largest difference relative to |libtorch's| + 1: " << worst);
  CHECK(worst <= tol);
}

/// Within `ulps` units in the last place of libtorch's value (relative to it), NaN where it is NaN;
/// same sizes and dtype.
inline void check_ulps(const ember::Tensor& e, const torch::Tensor& t, double ulps, const std::string& what) {
  INFO(what);
  const torch::Tensor mine = as_torch(e);
  REQUIRE(mine.sizes() == t.sizes());
  REQUIRE(mine.scalar_type() == t.scalar_type());
  const double eps = t.scalar_type() == torch::kDouble  ? 2.220446049250313e-16
                     : t.scalar_type() == torch::kFloat ? 1.1920928955078125e-07
                                                        : 7.8125e-3;
  const torch::Tensor a = mine.to(torch::kDouble), b = t.to(torch::kDouble);
  const torch::Tensor both_nan = torch::logical_and(a.isnan(), b.isnan());
  const torch::Tensor close = torch::logical_or(a.eq(b), (a - b).abs() <= b.abs() * (ulps * eps));
  const torch::Tensor differ = torch::logical_not(torch::logical_or(close, both_nan));
  INFO("first mismatches: " << torch::masked_select(mine, differ).slice(0, 0, 4) << " vs "
                            << torch::masked_select(t, differ).slice(0, 0, 4));
  CHECK(differ.sum().item<int64_t>() == 0);
}

/// Runs both sides on the same leaves (views applied inside the functions), then backward
/// with the same random gradient, and compares the results and every leaf's gradient.
inline void same_forward_backward(
    const std::string& what, const std::vector<ember::Tensor>& leaves,
    const std::function<ember::Tensor(const std::vector<ember::Tensor>&)>& ours,
    const std::function<torch::Tensor(const std::vector<torch::Tensor>&)>& theirs, double tol) {
  std::vector<torch::Tensor> tleaves;
  for (const ember::Tensor& e : leaves)
    tleaves.push_back(e.defined() ? as_torch(e.detach()).requires_grad_(e.requires_grad()) : torch::Tensor());
  const ember::Tensor y = ours(leaves);
  const torch::Tensor ty = theirs(tleaves);
  check_close(y, ty, tol, what + ": forward");
  const ember::Tensor g = ember::randn(y.sizes(), y.dtype());
  y.backward(g);
  ty.backward(as_torch(g));
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].defined() && leaves[i].requires_grad())
      check_close(leaves[i].grad(), tleaves[i].grad(), tol, what + ": grad " + std::to_string(i));
}

/// A module's printed form, libtorch's "torch::nn::" prefix written as ember's, so that
/// both libraries' modules compare equal when they print alike.
template <class T>
std::string printed(const T& m) {
  std::ostringstream s;
  s << m;
  std::string r = s.str();
  for (size_t p; (p = r.find("torch::nn::")) != std::string::npos;) r.replace(p, 5, "ember");
  return r;
}

/// The message of the ember::Error that f throws, or "<no error>".
inline std::string ember_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ember::Error& e) {
    return e.what();
  }
  return "<no error>";
}

/// The message (without backtrace) of the c10::Error that f throws, or "<no error>".
inline std::string torch_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "<no error>";
}

/// Ember's message contains the first line of libtorch's (ember may name the op first).
inline void same_error(const std::function<void()>& ours, const std::function<void()>& theirs) {
  const std::string mine = ember_error(ours), reference = torch_error(theirs);
  INFO("ember: " << mine << "\nlibtorch: " << reference);
  CHECK(reference != "<no error>");
  CHECK(mine.find(reference.substr(0, reference.find('\n'))) != std::string::npos);
}

/// One function on random leaves (uniform in [-3, 3)), both libraries, float64 and float32.
struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;  // one leaf per shape
  std::function<ember::Tensor(const std::vector<ember::Tensor>&)> ours;
  std::function<torch::Tensor(const std::vector<torch::Tensor>&)> theirs;
  double f32_tol = 2e-5;  // relative to |libtorch's| + 1; float64 uses 1e-10
};

inline void run_cases(const std::vector<Case>& cases) {
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    for (const Case& c : cases) {
      INFO(c.name);
      std::vector<ember::Tensor> leaves;
      for (const auto& s : c.shapes)
        leaves.push_back((ember::rand(s, ember::kDouble) * 6 - 3).to(dt).requires_grad_());
      same_forward_backward(c.name + (dt == ember::kDouble ? " (float64)" : " (float32)"), leaves, c.ours,
                            c.theirs, dt == ember::kDouble ? 1e-10 : c.f32_tol);
    }
  }
}

}  // namespace crosscheck
