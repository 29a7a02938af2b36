// Statistics, integration and windows (cov, corrcoef, trapezoid, cumulative_trapezoid,
// hann/hamming/blackman/bartlett): libtorch 1.13's values, gradients and errors.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

TEST_CASE("statistics: cov, corrcoef, trapezoid and windows give libtorch's values") {
  const Tensor obs = tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.5}});
  CHECK(cov(obs).dtype() == kFloat);  // a literal of doubles is float, as libtorch's
  CHECK_THAT(dvalues(cov(obs)),
             Catch::Matchers::Approx(std::vector<double>{1.0, -0.75, -0.75, 0.583333333333}).epsilon(1e-6));
  CHECK_THAT(
      dvalues(cov(obs, 0, tensor({1, 2, 1}), tensor({0.5, 1.0, 2.0}))),
      Catch::Matchers::Approx(std::vector<double>{0.444444444, -0.296296296, -0.296296296, 0.209876543})
          .epsilon(1e-6));
  CHECK(cov(tensor({0.0, 1.0, 2.0})).item<double>() == Approx(1.0));
  CHECK(cov(tensor({1, 2, 4})).dtype() == kFloat);
  CHECK(cov(tensor({1, 2, 4})).item<float>() == Approx(2.33333f));
  CHECK_THAT(dvalues(corrcoef(obs)),
             Catch::Matchers::Approx(std::vector<double>{1, -0.981980506, -0.981980506, 1}).epsilon(1e-6));
  CHECK(trapz(tensor({1.0, 2.0, 4.0}), tensor({0.0, 1.0, 3.0})).item<double>() == 7.5);
  CHECK(trapz(tensor({1.0, 2.0, 4.0}), 0.5).item<double>() == 2.25);
  CHECK(trapezoid(tensor({1, 2, 4})).item<float>() == 4.5f);
  CHECK(dvalues(cumulative_trapezoid(tensor({1.0, 2.0, 4.0}))) == std::vector<double>{1.5, 4.5});
  CHECK(dvalues(cumulative_trapezoid(tensor({{1.0, 2.0, 4.0}}), tensor({0.0, 1.0, 3.0}))) ==
        std::vector<double>{1.5, 7.5});
  CHECK(check([](const variable_list& v) { return cov(v[0]); }, {input({3, 5})}));
  CHECK(check([](const variable_list& v) { return corrcoef(v[0]); }, {input({3, 5})}));
  CHECK(check([](const variable_list& v) { return trapezoid(v[0], v[1].cumsum(1), 1); },
              {input({2, 5}), input({2, 5}, 0.1, 1)}));

  CHECK_THAT(dvalues(hann_window(5)), Catch::Matchers::Approx(std::vector<double>{0, 0.345491502, 0.904508497,
                                                                                  0.904508497, 0.345491502})
                                          .margin(1e-7));
  CHECK_THAT(dvalues(hann_window(5, false)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5, 0}).margin(1e-7));
  CHECK_THAT(dvalues(hamming_window(4, true, 0.5, 0.5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.5, 1, 0.5}).margin(1e-7));
  CHECK_THAT(dvalues(blackman_window(5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.20077014, 0.84922986, 0.84922986, 0.20077014})
                 .margin(1e-7));
  CHECK_THAT(dvalues(bartlett_window(5)),
             Catch::Matchers::Approx(std::vector<double>{0, 0.4, 0.8, 0.8, 0.4}).margin(1e-7));
  CHECK(dvalues(hann_window(1)) == std::vector<double>{1});
  CHECK(hann_window(0).numel() == 0);
  CHECK(hann_window(4, kDouble).dtype() == kDouble);
}

TEST_CASE("statistics: errors name what was received") {
  const Tensor m = arange(12.0).reshape({3, 4});
  CHECK_THROWS_WITH(cov(ones({2, 2, 2})), Catch::Contains("two or fewer dimensions"));
  CHECK_THROWS_WITH(cov(m, 1, ones({4})), Catch::Contains("fweights to have integral dtype"));
  CHECK_THROWS_WITH(cov(m, 1, tensor({1, 1, 1})), Catch::Contains("same numel as there are observations"));
  CHECK_THROWS_WITH(cov(m, 1, tensor({1, -1, 1, 1})), Catch::Contains("fweights cannot be negative"));
  CHECK_THROWS_WITH(cov(m, 1, {}, tensor({1, 1, 1, 1})),
                    Catch::Contains("aweights to have floating point dtype"));
  CHECK_THROWS_WITH(hann_window(3, kLong),
                    Catch::Contains("hann_window expects floating point dtypes, got: Long"));
  CHECK_THROWS_WITH(hann_window(-1), Catch::Contains("non-negative window_length"));
  CHECK_THROWS_WITH(trapz(m, ones({3})), Catch::Contains("one `x` value for each sample point"));
  CHECK_THROWS_WITH(cov(tensor({true, false})),
                    Catch::Contains("cov(): bool dtype is not supported for input."));
  CHECK_THROWS_WITH(cov(m, 1, {}, zeros({4}, kDouble)),
                    Catch::Contains("cov(): weights sum to zero, can't be normalized"));
}
