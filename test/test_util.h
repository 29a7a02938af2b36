#pragma once
// Helpers shared by the test files: a tensor's values as float64, a fresh random seed.

#include <ember/ember.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
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

}  // namespace ember_test
