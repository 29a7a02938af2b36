// ember's CPU random streams against libtorch's for the same seeds (Note [Random
// generators]): every dtype, several sizes, the in-place fills, generators, nn::init,
// dropout and the Box-Muller cache carried between calls.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

#include "torch_crosscheck_util.h"

using crosscheck::as_torch;
using crosscheck::to_torch;

namespace {

const ember::ScalarType kFloating[] = {ember::kHalf, ember::kBFloat16, ember::kFloat, ember::kDouble};

// Seeds both libraries, runs each side, and compares the results elementwise.
void same_stream(const std::string& what, uint64_t seed, const std::function<ember::Tensor()>& ours,
                 const std::function<torch::Tensor()>& theirs, double atol = 0, double rtol = 0) {
  INFO(what << ", seed " << seed);
  ember::manual_seed(seed);
  torch::manual_seed(seed);
  const ember::Tensor e = ours();
  const torch::Tensor t = theirs();
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  REQUIRE(crosscheck::kTorchTypes[static_cast<int>(e.dtype())] == t.scalar_type());
  const torch::Tensor got = as_torch(e).to(torch::kDouble), want = t.to(torch::kDouble);
  const bool same = atol == 0 && rtol == 0 ? torch::equal(got, want) : torch::allclose(got, want, rtol, atol);
  if (!same) {
    const torch::Tensor diff = (got - want).abs();
    INFO("max difference " << diff.max().item<double>() << " at " << diff.argmax().item<int64_t>());
    CHECK(same);
  }
}

}  // namespace

TEST_CASE("crosscheck random: rand of every floating dtype and several sizes") {
  for (ember::ScalarType dt : kFloating) {
    for (int64_t n : {1, 5, 16, 17, 1000}) {
      same_stream(
          "rand " + std::string(ember::name(dt)) + " " + std::to_string(n), 3 + uint64_t(n),
          [&] { return ember::rand({n}, dt); }, [&] { return torch::rand({n}, to_torch(dt)); });
    }
  }
  // The documented first values after manual_seed(0).
  ember::manual_seed(0);
  const ember::Tensor r = ember::rand({5});
  CHECK(r[0].item<float>() == Approx(0.4963).margin(1e-4));
  CHECK(r[4].item<float>() == Approx(0.3074).margin(1e-4));
}

TEST_CASE("crosscheck random: randn, small (one at a time, cached pair) and large (16 at a time)") {
  for (ember::ScalarType dt : kFloating) {
    for (int64_t n : {1, 3, 15, 16, 17, 33, 1000}) {
      // libtorch's AVX2 path for float32 of 16 or more uses approximate log and sincos:
      // within a few float32 ulp of the exact path that ember follows.
      // The 16-bit types round each intermediate as c10's arithmetic does, within an ulp or two.
      const double atol = dt == ember::kFloat && n >= 16 ? 4e-6
                          : dt == ember::kHalf           ? 1e-3
                          : dt == ember::kBFloat16       ? 1e-2
                                                         : 0;
      const double rtol = dt == ember::kHalf ? 2e-3 : dt == ember::kBFloat16 ? 1.6e-2 : 0;
      same_stream(
          "randn " + std::string(ember::name(dt)) + " " + std::to_string(n), 40 + uint64_t(n),
          [&] { return ember::randn({n}, dt); }, [&] { return torch::randn({n}, to_torch(dt)); }, atol, rtol);
    }
  }
  // The second value of a Box-Muller pair waits in the generator for the next call.
  same_stream(
      "randn 3, 3 and 5 in a row", 9,
      [] {
        return ember::cat(
            {ember::randn({3}), ember::randn({3}), ember::randn({5}, ember::kDouble).to(ember::kFloat)});
      },
      [] {
        return torch::cat(
            {torch::randn({3}), torch::randn({3}), torch::randn({5}, torch::kDouble).to(torch::kFloat)});
      });
  // manual_seed forgets the cached value.
  same_stream(
      "randn after a reseed", 10,
      [] {
        ember::randn({1});
        ember::manual_seed(10);
        return ember::randn({2});
      },
      [] {
        torch::randn({1});
        torch::manual_seed(10);
        return torch::randn({2});
      });
}

TEST_CASE("crosscheck random: randint and random_ of every dtype") {
  for (int i = 0; i < 10; ++i) {
    const ember::ScalarType dt = crosscheck::kTypes[i];
    if (dt == ember::kBool) continue;
    same_stream(
        "randint(-5, 90) " + std::string(ember::name(dt)), 21,
        [&] { return ember::randint(dt == ember::kUInt8 ? 0 : -5, 90, {300}, dt); },
        [&] { return torch::randint(dt == ember::kUInt8 ? 0 : -5, 90, {300}, to_torch(dt)); });
    same_stream(
        "random_() " + std::string(ember::name(dt)), 22, [&] { return ember::empty({200}, dt).random_(); },
        [&] { return torch::empty({200}, to_torch(dt)).random_(); });
    same_stream(
        "random_(7) " + std::string(ember::name(dt)), 23, [&] { return ember::empty({200}, dt).random_(7); },
        [&] { return torch::empty({200}, to_torch(dt)).random_(7); });
    same_stream(
        "random_(2, nullopt) " + std::string(ember::name(dt)), 24,
        [&] { return ember::empty({200}, dt).random_(2, std::optional<int64_t>()); },
        [&] { return torch::empty({200}, to_torch(dt)).random_(2, c10::optional<int64_t>()); });
  }
  same_stream(
      "random_ bool", 25, [] { return ember::empty({200}, ember::kBool).random_(); },
      [] { return torch::empty({200}, torch::kBool).random_(); });
  // Ranges of 2^32 and more draw 64 bits.
  same_stream(
      "randint wide", 26, [] { return ember::randint(-(int64_t(1) << 40), int64_t(1) << 40, {100}); },
      [] { return torch::randint(-(int64_t(1) << 40), int64_t(1) << 40, {100}); });
  same_stream(
      "random_ full int64 range into float64", 28,
      [] {
        return ember::empty({50}, ember::kDouble)
            .random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>());
      },
      [] {
        return torch::empty({50}, torch::kDouble)
            .random_(std::numeric_limits<int64_t>::min(), c10::optional<int64_t>());
      });
  same_stream(
      "random_ full int64 range", 27,
      [] {
        return ember::empty({50}, ember::kInt64)
            .random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>());
      },
      [] {
        return torch::empty({50}, torch::kInt64)
            .random_(std::numeric_limits<int64_t>::min(), c10::optional<int64_t>());
      });
}

TEST_CASE("crosscheck random: randperm, bernoulli, exponential_, uniform_ and normal_") {
  for (int64_t n : {0, 1, 2, 10, 1000}) {
    same_stream(
        "randperm " + std::to_string(n), 30, [&] { return ember::randperm(n); },
        [&] { return torch::randperm(n); });
  }
  same_stream(
      "randperm float", 31, [] { return ember::randperm(50, ember::kFloat); },
      [] { return torch::randperm(50, torch::kFloat); });
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble, ember::kInt64, ember::kBool}) {
    same_stream(
        "bernoulli_(0.3) " + std::string(ember::name(dt)), 32,
        [&] { return ember::empty({300}, dt).bernoulli_(0.3); },
        [&] { return torch::empty({300}, to_torch(dt)).bernoulli_(0.3); });
  }
  for (ember::ScalarType pt : {ember::kFloat, ember::kDouble}) {
    same_stream(
        "bernoulli(p) " + std::string(ember::name(pt)), 33,
        [&] { return ember::bernoulli(ember::linspace(0, 1, 200, pt)); },
        [&] { return torch::bernoulli(torch::linspace(0, 1, 200, to_torch(pt))); });
  }
  for (ember::ScalarType dt : kFloating) {
    same_stream(
        "exponential_ " + std::string(ember::name(dt)), 34,
        [&] { return ember::empty({100}, dt).exponential_(2.5); },
        [&] { return torch::empty({100}, to_torch(dt)).exponential_(2.5); });
    same_stream(
        "uniform_ " + std::string(ember::name(dt)), 35,
        [&] { return ember::empty({100}, dt).uniform_(-0.7, 2.3); },
        [&] { return torch::empty({100}, to_torch(dt)).uniform_(-0.7, 2.3); });
    same_stream(
        "normal_ small " + std::string(ember::name(dt)), 36,
        [&] { return ember::empty({7}, dt).normal_(1.5, 0.5); },
        [&] { return torch::empty({7}, to_torch(dt)).normal_(1.5, 0.5); });
  }
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
    same_stream(
        "normal_ large " + std::string(ember::name(dt)), 38,
        [&] { return ember::empty({40}, dt).normal_(1.5, 0.5); },
        [&] { return torch::empty({40}, to_torch(dt)).normal_(1.5, 0.5); }, dt == ember::kFloat ? 4e-6 : 0);
  }
  // A transposed (non-contiguous) target: libtorch draws one normal_distribution per element.
  same_stream(
      "normal_ on a transposed tensor", 37,
      [] {
        return ember::empty({8, 4}, ember::kDouble).t().normal_();
      },
      [] {
        return torch::empty({8, 4}, torch::kDouble).t().normal_();
      });
  same_stream(
      "uniform_ on a stepped slice", 39,
      [] {
        return ember::empty({6, 5}).slice(1, 0, 5, 2).uniform_();
      },
      [] {
        return torch::empty({6, 5}).slice(1, 0, 5, 2).uniform_();
      });
  same_stream(
      "bernoulli_(p) on a transposed tensor", 40,
      [] {
        return ember::empty({5, 3}).t().bernoulli_(ember::linspace(0, 1, 5));
      },
      [] {
        return torch::empty({5, 3}).t().bernoulli_(torch::linspace(0, 1, 5));
      });
}

TEST_CASE("crosscheck random: cauchy_, log_normal_, geometric_, poisson and binomial") {
  for (ember::ScalarType dt : kFloating) {
    const std::string n = ember::name(dt);
    same_stream(
        "cauchy_ " + n, 41, [&] { return ember::empty({100}, dt).cauchy_(0.5, 2.0); },
        [&] { return torch::empty({100}, to_torch(dt)).cauchy_(0.5, 2.0); });
    // Odd sizes leave a cached Box-Muller value, which the next call uses first.
    same_stream(
        "log_normal_ twice " + n, 42,
        [&] {
          ember::Tensor a = ember::empty({33}, dt).log_normal_(0.25, 0.5);
          return ember::cat({a, ember::empty({18}, dt).log_normal_()});
        },
        [&] {
          torch::Tensor a = torch::empty({33}, to_torch(dt)).log_normal_(0.25, 0.5);
          return torch::cat({a, torch::empty({18}, to_torch(dt)).log_normal_()});
        },
        0, 1e-15);  // a cached value's mean + std * z may round once differently
  }
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble, ember::kInt64, ember::kInt32, ember::kUInt8}) {
    same_stream(
        "geometric_ " + std::string(ember::name(dt)), 43,
        [&] { return ember::empty({200}, dt).geometric_(0.3); },
        [&] { return torch::empty({200}, to_torch(dt)).geometric_(0.3); });
  }
  same_stream(
      "cauchy_ on a transposed tensor", 44,
      [] {
        return ember::empty({6, 4}, ember::kDouble).t().cauchy_();
      },
      [] {
        return torch::empty({6, 4}, torch::kDouble).t().cauchy_();
      });
  // Rates on both sides of 10 (products of uniforms below, PTRS above), 0, and large ones.
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
    same_stream(
        "poisson " + std::string(ember::name(dt)), 45,
        [&] {
          return ember::poisson(ember::linspace(0, 30, 301, dt).view({7, 43}).t());
        },
        [&] {
          return torch::poisson(torch::linspace(0, 30, 301, to_torch(dt)).view({7, 43}).t());
        });
  }
  same_stream(
      "poisson of large rates", 46, [] { return ember::poisson(ember::full({50}, 1e4)); },
      [] { return torch::poisson(torch::full({50}, 1e4)); });
  // count * min(p, 1 - p) below 10 (inversion) and above (BTRS), p on both sides of 1/2.
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
    same_stream(
        "binomial " + std::string(ember::name(dt)), 47,
        [&] {
          const ember::Tensor count = ember::tensor({0.0, 1.0, 5.0, 12.0, 40.0, 100.0, 1000.0, 3.0e4}, dt);
          return ember::binomial(count.repeat({21}),
                                 ember::repeat_interleave(ember::linspace(0, 1, 21, dt), 8));
        },
        [&] {
          const torch::Tensor count =
              torch::tensor({0.0, 1.0, 5.0, 12.0, 40.0, 100.0, 1000.0, 3.0e4}, to_torch(dt));
          return torch::binomial(count.repeat({21}),
                                 torch::linspace(0, 1, 21, to_torch(dt)).repeat_interleave(8));
        });
  }
  same_stream(
      "binomial with a broadcast probability", 48,
      [] {
        return ember::binomial(ember::full({4, 30}, 50.0),
                               ember::tensor({0.1f, 0.5f, 0.7f, 0.95f}).view({4, 1}));
      },
      [] {
        return torch::binomial(
            torch::full({4, 30}, 50.0),
            torch::tensor({0.1f, 0.5f, 0.7f, 0.95f}).view({4, 1}).expand({4, 30}).contiguous());
      });
}

TEST_CASE("crosscheck random: multinomial with and without replacement, 1-D and 2-D, every CPU dtype") {
  // Weights made once with their own generator, a third of them zero (ties among zeros
  // follow libtorch's topk); a transposed matrix draws its exponentials in memory order.
  struct Shape {
    std::vector<int64_t> sizes;
    bool transposed;
  };
  const Shape shapes[] = {
      {{7}, false}, {{3, 10}, false}, {{2, 300}, false}, {{5, 4}, true}, {{1, 64}, false}};
  ember::Generator weights_gen = ember::make_generator<ember::CPUGeneratorImpl>(77);
  uint64_t seed = 50;
  for (const Shape& shape : shapes) {
    ember::Tensor w = ember::rand(shape.sizes, weights_gen, ember::kDouble);
    w = ember::where(ember::rand(shape.sizes, weights_gen).lt(1.0 / 3), 0.0, w);
    const int64_t n_cat = shape.transposed ? w.size(0) : w.size(-1);
    for (ember::ScalarType dt : {ember::kFloat, ember::kDouble, ember::kBFloat16}) {
      // The same values in the same layout: a transposed case transposes both sides.
      const ember::Tensor pe = shape.transposed ? w.to(dt).t() : w.to(dt);
      const torch::Tensor pt =
          shape.transposed ? crosscheck::as_torch(w.to(dt)).t() : crosscheck::as_torch(w.to(dt));
      const int64_t nonzero = pe.gt(0).sum(-1).min().item<int64_t>();
      struct Draw {
        int64_t n;
        bool replacement;
      };
      const std::vector<Draw> draws = {{1, true},
                                       {5, true},
                                       {40, true},
                                       {1, false},
                                       {std::min<int64_t>(3, n_cat), false},
                                       {n_cat, false},
                                       {std::max<int64_t>(nonzero, 1), false}};
      for (const Draw& d : draws) {
        const std::string what = "multinomial " + std::string(ember::name(dt)) + " shape " +
                                 std::to_string(shape.sizes[0]) +
                                 (shape.sizes.size() > 1 ? "x" + std::to_string(shape.sizes[1]) : "") +
                                 (shape.transposed ? " transposed" : "") + " n " + std::to_string(d.n) +
                                 (d.replacement ? " with" : " without") + " replacement";
        // The samples, then where the stream stands afterwards.
        same_stream(
            what, seed++,
            [&] {
              return ember::cat({ember::multinomial(pe, d.n, d.replacement).reshape({-1}).to(ember::kDouble),
                                 ember::rand({2}, ember::kDouble)});
            },
            [&] {
              return torch::cat({torch::multinomial(pt, d.n, d.replacement).reshape({-1}).to(torch::kDouble),
                                 torch::rand({2}, torch::kDouble)});
            });
      }
    }
  }
  // Mostly zeros and few samples against many categories: libtorch's partial_sort path,
  // which must order the tied zeros it picks as libtorch does.
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble}) {
    ember::Tensor sparse = ember::zeros({2, 300}, dt);
    sparse.index_put_({0, 17}, 0.5);
    sparse.index_put_({1, 250}, 2.0);
    same_stream(
        "multinomial mostly zero " + std::string(ember::name(dt)), seed++,
        [&] { return ember::multinomial(sparse, 4); },
        [&] { return torch::multinomial(crosscheck::as_torch(sparse), 4); });
  }
  // An explicit generator, and the method form.
  ember::Generator g = ember::make_generator<ember::CPUGeneratorImpl>(9);
  auto tg = at::make_generator<at::CPUGeneratorImpl>(9);
  const ember::Tensor pe = ember::linspace(0.1, 1, 12, ember::kFloat).view({3, 4});
  const torch::Tensor pt = crosscheck::as_torch(pe);
  for (bool replacement : {true, false}) {
    const ember::Tensor e = pe.multinomial(4, replacement, g);
    const torch::Tensor t = pt.multinomial(4, replacement, tg);
    CHECK(torch::equal(crosscheck::as_torch(e), t));
  }
}

TEST_CASE("crosscheck random: explicit generators and their states") {
  ember::Generator g = ember::make_generator<ember::CPUGeneratorImpl>(123);
  auto tg = at::make_generator<at::CPUGeneratorImpl>(123);
  const ember::Tensor a = ember::rand({20}, g);
  const torch::Tensor b = torch::rand({20}, tg);
  CHECK(torch::equal(as_torch(a), b));
  // A saved state replays the same draws, the cached normal included.
  ember::randn({3}, g);
  const ember::Tensor state = g.get_state();
  const ember::Tensor first = ember::randn({5}, g);
  g.set_state(state);
  CHECK(ember::randn({5}, g).equal(first));
  torch::randn({3}, tg);
  CHECK(torch::allclose(as_torch(first), torch::randn({5}, tg)));
  // The default generator was not touched by either.
  ember::manual_seed(5);
  torch::manual_seed(5);
  ember::rand({3}, g);
  CHECK(torch::equal(as_torch(ember::rand({4})), torch::rand({4})));
}

TEST_CASE("crosscheck random: nn layers initialise and dropout as libtorch for a seed") {
  ember::manual_seed(11);
  torch::manual_seed(11);
  ember::nn::Linear ours(5, 3);
  torch::nn::Linear theirs(5, 3);
  CHECK(torch::allclose(as_torch(ours->weight), theirs->weight, 0, 1e-7));
  CHECK(torch::allclose(as_torch(ours->bias), theirs->bias, 0, 1e-7));
  same_stream(
      "dropout(0.25)", 12,
      [] {
        return ember::nn::functional::dropout(
            ember::ones({64}), ember::nn::functional::DropoutFuncOptions().p(0.25).training(true));
      },
      [] { return torch::dropout(torch::ones({64}), 0.25, true); });
  same_stream(
      "kaiming_normal_", 13,
      [] {
        return ember::nn::init::kaiming_normal_(ember::empty({4, 6}));
      },
      [] {
        return torch::nn::init::kaiming_normal_(torch::empty({4, 6}));
      },
      1e-6);
}
