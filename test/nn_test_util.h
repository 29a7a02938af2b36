#pragma once
// Helpers of the nn layer tests: gradcheck of a one-output function, values within a
// relative tolerance, a module's printed form, and an error's type and exact text.
#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace nn_test {

template <class Fn>
bool check(Fn f, const ember::autograd::variable_list& inputs) {
  return ember::autograd::gradcheck(
      [&](const ember::autograd::variable_list& v) -> ember::autograd::variable_list { return {f(v)}; },
      inputs);
}

inline void expect_values(const ember::Tensor& got, const std::vector<double>& want, double rel) {
  const auto g = ember_test::dvalues(got);
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Approx(want[i]).epsilon(rel).margin(1e-12));
}

template <class T>
std::string printed(const T& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

/// f throws E with exactly `text`; `input`, when given, is left unchanged by the failure.
template <class E = ember::InvalidArgument>
void expect_error(const std::function<void()>& f, const std::string& text, const ember::Tensor& input = {}) {
  const ember::Tensor before = input.defined() ? input.clone() : ember::Tensor();
  CHECK_THROWS_AS(f(), E);
  CHECK_THROWS_WITH(f(), Catch::Matchers::Equals(text));
  if (input.defined()) CHECK(ember::equal(input, before));
}

}  // namespace nn_test
