#pragma once
// Helpers shared by the test files: a tensor's values as float64, a fresh random seed.

#include <dirent.h>
#include <ember/ember.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ember_test {

/// The tensor's elements, converted to float64, in row-major order.
inline std::vector<double> dvalues(const ember::Tensor& t) {
  ember::Tensor c = t.to(ember::Device(ember::kCPU, 0), ember::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

/// A seed from the OS: inputs are fresh each run (print it with INFO on failure).
inline uint64_t fresh_seed() {
  static std::random_device rd;
  return (uint64_t(rd()) << 32) | rd();
}

/// True when `c` and `reference`, two computations of the product a @ b (float32 or
/// float64), agree within twice the classical GEMM bound: each entry of a computed
/// product is within gamma_k * (|a| @ |b|) of the exact one, gamma_k = k u / (1 - k u).
/// BLAS libraries block and order the k sums differently with the thread count and the
/// instruction set, so products are never compared bit for bit.
inline bool within_gemm_bound(const ember::Tensor& c, const ember::Tensor& reference, const ember::Tensor& a,
                              const ember::Tensor& b) {
  const double u = a.scalar_type() == ember::kDouble ? std::numeric_limits<double>::epsilon() / 2
                                                     : std::numeric_limits<float>::epsilon() / 2;
  const double k = double(a.size(-1));
  const double gamma = k * u / (1 - k * u);
  const std::vector<double> got = dvalues(c), want = dvalues(reference);
  const std::vector<double> scale = dvalues(ember::matmul(a.to(ember::kDouble).abs(), b.to(ember::kDouble).abs()));
  if (got.size() != want.size() || got.size() != scale.size()) return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(got[i] - want[i]) <= 2 * gamma * scale[i])) return false;
  return true;
}

/// The default process group, initialized over MPI on first use (the mpi test files,
/// run under mpirun).
inline ember::distributed::ProcessGroup& mpi_group() {
  if (!ember::distributed::is_initialized())
    ember::distributed::init_process_group(ember::distributed::Backend::MPI);
  return ember::distributed::default_group();
}

/// Same sizes, and every element within tol * (1 + max |want|) of want's (compared in
/// float64 on the CPU): results of different summation orders, devices or dtypes.
inline void check_close(const ember::Tensor& got, const ember::Tensor& want, double tol,
                        const std::string& what) {
  INFO(what);
  REQUIRE(got.sizes() == want.sizes());
  const ember::Tensor g = got.cpu().to(ember::kDouble), w = want.cpu().to(ember::kDouble);
  CHECK((g - w).abs().max().item<double>() <= tol * (1 + w.abs().max().item<double>()));
}

/// Runs f and checks that it throws E with a message containing `text` (Catch's
/// CHECK_THROWS_MATCHES matches exception objects, not their what()).
template <class E, class F>
void expect_throw(F&& f, const std::string& text) {
  try {
    f();
  } catch (const E& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains(text));
    return;
  }
  FAIL_CHECK("no exception; expected one containing: " << text);
}

/// A fresh directory under /tmp, removed with its files (not subdirectories) afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ember_serialize_XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    for (const auto& f : files()) std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  std::vector<std::string> files() const {
    std::vector<std::string> r;
    DIR* d = opendir(path.c_str());
    while (dirent* e = d ? readdir(d) : nullptr)
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) r.push_back(e->d_name);
    if (d) closedir(d);
    return r;
  }
};

/// Float64 gradcheck helpers shared by the autograd test files.
namespace grad {
using Fn = std::function<ember::Tensor(const ember::autograd::variable_list&)>;

/// A float64 leaf of `sizes` with values in [lo, hi).
inline ember::Tensor input(ember::IntArrayRef sizes, double lo = -1, double hi = 1) {
  return (ember::rand(sizes, ember::kDouble) * (hi - lo) + lo).requires_grad_();
}

/// gradcheck of a one-output function.
inline bool check(const Fn& f, const ember::autograd::variable_list& inputs, double atol = 1e-5,
                  double rtol = 1e-3) {
  return ember::autograd::gradcheck(
      [&](const ember::autograd::variable_list& v) -> ember::autograd::variable_list { return {f(v)}; },
      inputs, 1e-6, atol, rtol);
}

/// gradgradcheck: the first derivative (weighted by a fixed random cotangent) is itself
/// differentiable, so its own gradient matches finite differences of it.
inline bool check_second(const Fn& f, const ember::autograd::variable_list& inputs) {
  const ember::Tensor weights = ember::rand(f(inputs).sizes(), ember::kDouble);
  return ember::autograd::gradcheck(
      [&](const ember::autograd::variable_list& v) -> ember::autograd::variable_list {
        return ember::autograd::grad({(f(v) * weights).sum()}, v, {}, true, true, true);
      },
      inputs, 1e-6, 1e-4, 1e-3);
}
}  // namespace grad

}  // namespace ember_test
