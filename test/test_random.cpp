// Random numbers (Note [Random generators]): the CPU's values are libtorch's for a seed
// (the constants below were printed by libtorch 1.13; torch_crosscheck_random.cpp compares
// whole streams), generators and their states, the in-place fills and their errors.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <limits>
#include <mutex>
#include <vector>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember_test::expect_throw;

TEST_CASE("random: libtorch's values for a seed") {
  manual_seed(0);
  CHECK(dvalues(rand({5})) ==
        std::vector<double>{0x1.fc2abp-2, 0x1.89545ep-1, 0x1.6a675p-4, 0x1.0e66p-3, 0x1.3acd0cp-2});
  manual_seed(0);
  const std::vector<double> n = dvalues(randn({5}, kDouble));
  const std::vector<double> want{0x1.8a7eb8902be3ap+0, -0x1.2c78a087c6feap-2, -0x1.16e2920a70ee5p+1,
                                 0x1.23096ca3e350dp-1, -0x1.15a341987e136p+0};
  for (size_t i = 0; i < 5; ++i) CHECK(n[i] == Approx(want[i]).epsilon(1e-15));
  manual_seed(0);
  CHECK(dvalues(randint(10, {8})) == std::vector<double>{4, 9, 3, 0, 3, 9, 7, 3});
  manual_seed(6);
  CHECK(dvalues(randperm(10)) == std::vector<double>{0, 7, 5, 1, 8, 3, 9, 2, 4, 6});
  manual_seed(1);
  CHECK(dvalues(empty({10}).bernoulli_(0.5)) == std::vector<double>{1, 1, 1, 1, 0, 1, 1, 0, 0, 1});
  // libtorch's default seed, for programs that never seed.
  CHECK(detail::createCPUGenerator().current_seed() == 67280421310721ull);
  Generator fresh = detail::createCPUGenerator();
  CHECK(dvalues(rand({3}, fresh)) == std::vector<double>{0x1.11b5d8p-2, 0x1.bebc08p-1, 0x1.5755f4p-2});
}

TEST_CASE("random: the stream is consumed in order and a reseed restarts it") {
  manual_seed(42);
  const std::vector<double> all = dvalues(rand({10}));
  manual_seed(42);
  std::vector<double> parts = dvalues(rand({4}));
  for (double v : dvalues(rand({6}))) parts.push_back(v);
  CHECK(parts == all);
  // A cached Box-Muller value is forgotten by manual_seed.
  manual_seed(7);
  const double first = randn({1}).item<double>();
  randn({1});
  manual_seed(7);
  CHECK(randn({1}).item<double>() == first);
}

TEST_CASE("random: generators are independent, copies share, clones and states replay") {
  Generator g = make_generator<CPUGeneratorImpl>(99);
  Generator same = g;
  const std::vector<double> a = dvalues(rand({3}, g));
  const std::vector<double> b = dvalues(rand({3}, same));  // continues g's stream
  Generator h = make_generator<CPUGeneratorImpl>(99);
  std::vector<double> six = dvalues(rand({6}, h));
  CHECK(std::vector<double>(six.begin(), six.begin() + 3) == a);
  CHECK(std::vector<double>(six.begin() + 3, six.end()) == b);

  randn({3}, g);  // leaves a cached normal
  Generator c = g.clone();
  const Tensor state = g.get_state();
  CHECK(state.dtype() == kUInt8);
  const std::vector<double> next = dvalues(randn({5}, g));
  CHECK(dvalues(randn({5}, c)) == next);
  g.set_state(state);
  CHECK(dvalues(randn({5}, g)) == next);
  CHECK(g.current_seed() == 99);
  g.set_current_seed(5);
  CHECK(g.current_seed() == 5);
  CHECK(dvalues(rand({2}, g)) == dvalues(rand({2}, make_generator<CPUGeneratorImpl>(5))));
  CHECK(g.get<CPUGeneratorImpl>() != nullptr);
  CHECK(g.device() == Device(kCPU, 0));
  CHECK(g != h);
  CHECK(g == same);
}

TEST_CASE("random: a damaged state is rejected and leaves the generator as it was") {
  Generator g = make_generator<CPUGeneratorImpl>(3);
  const Tensor good = g.get_state();
  const std::vector<double> expected = dvalues(rand({4}, g.clone()));
  expect_throw<InvalidArgument>(
      [&] { g.set_state(zeros({4}, kUInt8)); },
      "set_state: the state (4 bytes) is not a CPU generator's state from get_state()");
  expect_throw<InvalidArgument>([&] { g.set_state(good.to(kInt64)); },
                                "set_state: expected a CPU uint8 (Byte) tensor, got int64");
  Tensor cut = good.narrow(0, 0, good.numel() - 40).clone();
  expect_throw<InvalidArgument>([&] { g.set_state(cut); }, "engine part is damaged");
  Tensor counter_state = detail::getDefaultAcceleratorGenerator().get_state();
  expect_throw<InvalidArgument>([&] { g.set_state(counter_state); }, "is not a CPU generator's state");
  CHECK(dvalues(rand({4}, g)) == expected);
  expect_throw<InvalidArgument>([] { Generator().current_seed(); }, "Generator: this generator is undefined");
}

TEST_CASE("random: in-place fills write through views and keep the tensor's identity") {
  manual_seed(1);
  Tensor x = zeros({4, 6});
  Tensor row = x.select(0, 2);
  const uint32_t v = x._version();
  Tensor& r = row.uniform_(-2, -1);
  CHECK(&r == &row);
  CHECK(x._version() > v);
  CHECK(x.select(0, 2).ge(-2).logical_and(x.select(0, 2).lt(-1)).all().item<bool>());
  CHECK(x.select(0, 1).eq(0).all().item<bool>());
  const Tensor ints = empty({1000}, kInt32).random_(-3, 4);
  CHECK(ints.ge(-3).logical_and(ints.lt(4)).all().item<bool>());
  CHECK(ints.eq(-3).any().item<bool>());
  CHECK(ints.eq(3).any().item<bool>());
  const Tensor coin = empty({1000}, kBool).random_();
  CHECK(coin.any().item<bool>());
  CHECK_FALSE(coin.all().item<bool>());
  const Tensor e = empty({20000}, kDouble).exponential_(4);
  CHECK(e.ge(0).all().item<bool>());
  CHECK(e.mean().item<double>() == Approx(0.25).margin(0.01));
  const Tensor nrm = empty({20000}).normal_(3, 2);
  CHECK(nrm.mean().item<double>() == Approx(3).margin(0.05));
  CHECK(nrm.std().item<double>() == Approx(2).margin(0.05));
  // bernoulli of a probability tensor: p = 0 and p = 1 are certain.
  const Tensor p = tensor({0.0, 1.0, 0.0, 1.0});
  CHECK(dvalues(bernoulli(p)) == std::vector<double>{0, 1, 0, 1});
  CHECK(dvalues(empty({2, 4}, kInt64).bernoulli_(p)) == std::vector<double>{0, 1, 0, 1, 0, 1, 0, 1});
  CHECK(dvalues(bernoulli(ones({3}), 0.0)) == std::vector<double>{0, 0, 0});
}

TEST_CASE("random: bad arguments are typed errors that leave the tensor unchanged") {
  Tensor x = full({3}, 7.0);
  expect_throw<InvalidArgument>([&] { x.uniform_(2, 1); },
                                "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
  expect_throw<InvalidArgument>([&] { x.normal_(0, -1); }, "normal expects std >= 0.0, but found std -1");
  expect_throw<InvalidArgument>([&] { x.bernoulli_(1.5); },
                                "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  expect_throw<InvalidArgument>(
      [&] {
        x.bernoulli_(tensor({0.5, 2.0, 0.1}));
      },
      "all elements of the probability tensor must be in [0, 1]");
  expect_throw<InvalidArgument>([&] { x.exponential_(-1); },
                                "exponential_ expects lambda >= 0.0, but found lambda=-1");
  expect_throw<InvalidArgument>([&] { x.random_(5, 3); },
                                "random_ expects 'from' to be less than 'to', but got from=5 >= to=3");
  expect_throw<InvalidArgument>([&] { empty({3}, kInt8).random_(0, 300); },
                                "within the values dtype int8 holds");
  expect_throw<InvalidArgument>([&] { empty({3}, kInt64).uniform_(); },
                                "uniform_: expected a floating point dtype");
  CHECK(dvalues(x) == std::vector<double>{7, 7, 7});
  expect_throw<InvalidArgument>([] { randint(5, 3, {3}); }, "random_ expects 'from' to be less than 'to'");
  expect_throw<InvalidArgument>([] { rand({3}, kInt64); }, "rand: expected a floating point dtype");
  expect_throw<InvalidArgument>([] { randperm(-1); },
                                "Trying to create tensor with negative dimension -1: [-1]");
  expect_throw<InvalidArgument>([] { randperm(300, kBFloat16); },
                                "randperm: n is too large for result tensor type");
  expect_throw<InvalidArgument>([] { randperm(3, kBool); }, "not implemented for 'Bool'");
}

TEST_CASE("random: a generator must match the device it draws for") {
  testing::ensure_fake_accelerator();
  Generator cpu = make_generator<CPUGeneratorImpl>(1);
  expect_throw<InvalidArgument>(
      [&] { rand({3}, cpu, Device("npu:0")); },
      "rand: Expected a generator of the tensor's device type but found one of 'cpu:0'");
  expect_throw<InvalidArgument>(
      [&] { rand({3}, detail::getDefaultAcceleratorGenerator()); },
      "rand: Expected a generator of the tensor's device type but found one of 'cuda:0'");
  // Accelerators: reproducible after manual_seed, and randperm is a permutation there too.
  manual_seed(8);
  const std::vector<double> a = dvalues(rand({100}, Device("npu:0")));
  manual_seed(8);
  CHECK(dvalues(rand({100}, Device("npu:0"))) == a);
  const Tensor perm = randperm(50, Device("npu:0"));
  CHECK(perm.device() == Device("npu:0"));
  CHECK(std::get<0>(perm.sort()).cpu().equal(arange(50)));
}

TEST_CASE("random: dropout keeps 1 - p of the elements, scaled, as libtorch's mask") {
  manual_seed(9);
  Tensor y =
      nn::functional::dropout(ones({20000}), nn::functional::DropoutFuncOptions().p(0.25).training(true));
  const Tensor kept = y.ne(0);
  CHECK(kept.to(kDouble).mean().item<double>() == Approx(0.75).margin(0.02));
  CHECK(y.masked_select(kept).eq(float(1 / 0.75)).all().item<bool>());
  CHECK(nn::functional::dropout(ones({5}), nn::functional::DropoutFuncOptions().p(1).training(true))
            .eq(0)
            .all()
            .item<bool>());
}

TEST_CASE("random: libtorch's locking pattern, and failed fills draw nothing") {
  // libtorch's Note [Acquire lock when using random generators]: the caller locks, the
  // handle's calls do not (a second lock here would deadlock).
  Generator g = make_generator<CPUGeneratorImpl>(4);
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_current_seed(12);
    CHECK(g.current_seed() == 12);
  }
  const std::vector<double> expected = dvalues(rand({3}, g.clone()));
  Tensor leaf = zeros({3}, TensorOptions().requires_grad(true));
  expect_throw<InvalidArgument>([&] { leaf.uniform_(0, 1, g); },
                                "a leaf Variable that requires grad is being used in an in-place operation.");
  expect_throw<InvalidArgument>([&] { randint(0, 1000, {3}, g, kUInt8); },
                                "random_ expects [from, to) within the values dtype uint8 holds exactly");
  CHECK(dvalues(rand({3}, g)) == expected);  // neither call consumed the stream
  // Every int64 (the 64-bit path) is allowed for Float, Double and BFloat16 too.
  const Tensor wide =
      empty({100}, kDouble).random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>());
  CHECK(wide.lt(0).any().item<bool>());
  CHECK(wide.abs().gt(1e15).all().item<bool>());
}

TEST_CASE("random: multinomial gives libtorch's samples for a seed") {
  // Printed by libtorch 1.13 (torch_crosscheck_random.cpp compares whole streams).
  const Tensor p = tensor({0.1, 0.2, 0.3, 0.4}, kFloat);
  manual_seed(0);
  CHECK(dvalues(multinomial(p, 8, true)) == std::vector<double>{3, 3, 2, 3, 3, 3, 1, 2});
  manual_seed(0);
  CHECK(dvalues(p.multinomial(4)) == std::vector<double>{2, 1, 3, 0});
  const Tensor q = tensor({{0.0, 1.0, 2.0, 3.0}, {5.0, 0.0, 0.0, 1.0}}, kDouble);
  manual_seed(7);
  const Tensor with = multinomial(q, 6, true);
  CHECK(with.sizes() == std::vector<int64_t>{2, 6});
  CHECK(with.dtype() == kLong);
  CHECK(dvalues(with) == std::vector<double>{2, 2, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0});
  manual_seed(7);
  CHECK(dvalues(multinomial(q, 2)) == std::vector<double>{1, 3, 0, 3});
  manual_seed(7);
  const Tensor one = multinomial(q, 1);
  CHECK(one.sizes() == std::vector<int64_t>{2, 1});
  CHECK(dvalues(one) == std::vector<double>{1, 0});
  // Zero weights tie: libtorch's topk order among them, not index order.
  manual_seed(3);
  CHECK(dvalues(multinomial(tensor({0.0, 1.0, 0.0, 0.0, 2.0, 0.0}), 6)) ==
        std::vector<double>{1, 4, 5, 0, 3, 2});
  // The stream goes on where libtorch's does: one float64 uniform per sample drawn.
  manual_seed(0);
  multinomial(p, 3, true);
  const std::vector<double> next = dvalues(rand({2}, kDouble));
  CHECK(next[0] == Approx(0.9207).margin(1e-4));
  CHECK(next[1] == Approx(0.6450).margin(1e-4));
}

TEST_CASE("random: multinomial samples follow the weights, without repeats when asked") {
  manual_seed(11);
  const Tensor w = tensor({1.0, 0.0, 3.0, 6.0}, kFloat);  // unnormalised: only ratios matter
  const Tensor s = multinomial(w, 20000, true);
  const std::vector<double> counts = dvalues(one_hot(s, 4).sum(0));
  CHECK(counts[1] == 0);  // a zero weight is never drawn
  CHECK(counts[0] / 20000 == Approx(0.1).margin(0.01));
  CHECK(counts[2] / 20000 == Approx(0.3).margin(0.015));
  CHECK(counts[3] / 20000 == Approx(0.6).margin(0.015));
  // Without replacement every row is a set of distinct categories; all of them when asked.
  const Tensor rows = rand({5, 9}) + 0.01;
  const Tensor all = multinomial(rows, 9);
  CHECK(std::get<0>(all.sort(1)).equal(arange(9).expand({5, 9})));
  const Tensor some = multinomial(rows, 4);
  for (int64_t i = 0; i < 5; ++i) {
    const Tensor sorted = std::get<0>(some[i].sort());
    CHECK(sorted.slice(0, 1).gt(sorted.slice(0, 0, 3)).all().item<bool>());
  }
  // A transposed matrix samples with replacement like its copy (only the values count);
  // without, it draws its exponentials in memory order as libtorch (the cross-check's case).
  const Tensor base = rand({6, 3}, kDouble) + 0.1;
  for (bool replacement : {true, false}) {
    INFO("replacement " << replacement);
    manual_seed(12);
    const Tensor from_view = multinomial(base.t(), 3, replacement);
    manual_seed(12);
    const Tensor from_copy = multinomial(base.t().contiguous(), 3, replacement);
    if (replacement) CHECK(from_view.equal(from_copy));
    CHECK(from_view.sizes() == std::vector<int64_t>{3, 3});
  }
  // An input that requires grad: integer samples, nothing recorded.
  const Tensor leaf = tensor({1.0, 2.0}, kFloat).requires_grad_();
  const Tensor drawn = multinomial(leaf, 2);
  CHECK_FALSE(drawn.requires_grad());
  CHECK(std::get<0>(drawn.sort()).equal(arange(2)));
  // Empty batches give empty results.
  CHECK(multinomial(empty({0, 3}), 2, true).sizes() == std::vector<int64_t>{0, 2});
}

TEST_CASE("random: multinomial's errors are libtorch's, and a refused call draws nothing") {
  const Tensor p = tensor({0.2, 0.8}, kFloat);
  Generator g = make_generator<CPUGeneratorImpl>(5);
  const std::vector<double> expected = dvalues(rand({3}, g.clone()));
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(ones({2, 2, 2}), 1, true, g);
      },
      "prob_dist must be 1 or 2 dim, but got 3 dims");
  expect_throw<InvalidArgument>([&] { multinomial(ones({}), 1, true, g); }, "prob_dist must be 1 or 2 dim");
  expect_throw<InvalidArgument>([&] { multinomial(ones({2}, kLong), 1, true, g); },
                                "multinomial only supports floating-point dtypes for input, got: Long");
  expect_throw<InvalidArgument>([&] { multinomial(p, 0, true, g); },
                                "cannot sample n_sample <= 0 samples, got num_samples = 0");
  expect_throw<InvalidArgument>([&] { multinomial(p, -3, false, g); }, "cannot sample n_sample <= 0 samples");
  expect_throw<InvalidArgument>([&] { multinomial(p, 3, false, g); },
                                "cannot sample n_sample > prob_dist.size(-1) samples without replacement, "
                                "got num_samples = 3 for 2 categories");
  expect_throw<InvalidArgument>([&] { multinomial(empty({0}), 1, false, g); },
                                "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  expect_throw<NotImplemented>([&] { multinomial(p.to(kHalf), 1, true, g); },
                               "multinomial is not implemented for half on CPU");
  // With replacement: libtorch's per-entry checks, in its order (a NaN is "< 0" first).
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({0.5, -0.1}), 1, true, g);
      },
      "invalid multinomial distribution (encountering probability entry < 0), got -0.1 at "
      "category 1 of distribution 0");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({0.5, nan}), 1, true, g);
      },
      "invalid multinomial distribution (encountering probability entry < 0)");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({0.5, inf}), 1, true, g);
      },
      "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({{0.5, 0.5}, {0.0, 0.0}}), 4, true, g);
      },
      "invalid multinomial distribution (sum of probabilities <= 0) in distribution 1");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(empty({2, 0}), 1, true, g);
      },
      "invalid multinomial distribution (sum of probabilities <= 0)");
  // Without replacement: one check of every entry, then of every row's sum.
  for (double bad : {-0.1, inf, nan})
    expect_throw<InvalidArgument>(
        [&] {
          multinomial(tensor({0.5, bad}), 1, false, g);
        },
        "probability tensor contains either `inf`, `nan` or element < 0");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({{0.0, 0.0}, {0.5, 0.5}}), 1, false, g);
      },
      "invalid multinomial distribution (sum of probabilities <= 0) in distribution 0");
  expect_throw<InvalidArgument>(
      [&] {
        multinomial(tensor({0.0, 0.0}), 1, false, g);
      },
      "invalid multinomial distribution (sum of probabilities <= 0)");
  CHECK(dvalues(rand({3}, g)) == expected);  // none of the refused calls consumed the stream
  expect_throw<InvalidArgument>([&] { multinomial(Tensor(), 1); },
                                "multinomial: the probability tensor is undefined");
}

TEST_CASE("random: multinomial on another device samples on the CPU and leaves the CPU's stream alone") {
  testing::ensure_fake_accelerator();
  const Device npu("npu:0");
  const Tensor w = tensor({0.0, 2.0, 1.0, 3.0}, TensorOptions(kFloat).device(npu));
  manual_seed(21);
  const std::vector<double> cpu_next = dvalues(rand({4}));
  manual_seed(21);
  const Tensor a = multinomial(w, 3);
  const Tensor b = multinomial(w, 50, true);
  CHECK(dvalues(rand({4})) == cpu_next);  // the device's counters were used, not the CPU's stream
  CHECK(a.device() == npu);
  CHECK(b.device() == npu);
  CHECK(std::get<0>(a.sort()).cpu().equal(arange(1, 4)));
  CHECK(b.ne(0).all().item<bool>());
  CHECK(dvalues(multinomial(w.to(kHalf), 1)).size() == 1);  // Half has no CPU gap there
  // Reproducible after manual_seed, like every random op of that device.
  manual_seed(22);
  const Tensor c = multinomial(w, 40, true);
  manual_seed(22);
  CHECK(multinomial(w, 40, true).equal(c));
  expect_throw<InvalidArgument>([&] { multinomial(w, 1, false, make_generator<CPUGeneratorImpl>(1)); },
                                "multinomial: Expected a generator of the tensor's device type");
}

TEST_CASE("random: cauchy_, log_normal_, geometric_, poisson and binomial follow their distributions") {
  manual_seed(31);
  const int64_t n = 40000;
  // Cauchy(1, 2): median 1, quartiles 1 -+ 2.
  const Tensor c = empty({n}, kDouble).cauchy_(1.0, 2.0);
  CHECK(c.median().item<double>() == Approx(1.0).margin(0.06));
  CHECK(c.quantile(0.75).item<double>() == Approx(3.0).margin(0.1));
  // log of LogNormal(0.5, 0.25) is N(0.5, 0.25).
  const Tensor l = empty({n}, kDouble).log_normal_(0.5, 0.25).log();
  CHECK(l.mean().item<double>() == Approx(0.5).margin(0.01));
  CHECK(l.std().item<double>() == Approx(0.25).margin(0.01));
  // Geometric(0.25) on {1, 2, ...}: mean 4; an integer tensor takes it too.
  const Tensor gm = empty({n}, kLong).geometric_(0.25);
  CHECK(gm.min().item<int64_t>() >= 1);
  CHECK(gm.to(kDouble).mean().item<double>() == Approx(4.0).margin(0.08));
  // Poisson: mean and variance equal the rate, below and above the PTRS switch at 10.
  for (double rate : {0.0, 2.5, 40.0}) {
    const Tensor p = poisson(full({n}, rate, kDouble));
    CHECK(p.mean().item<double>() == Approx(rate).margin(0.03 * rate + 1e-12));
    CHECK(p.var().item<double>() == Approx(rate).margin(0.06 * rate + 1e-12));
    CHECK(p.eq(p.round()).all().item<bool>());
  }
  // Binomial(count, p): mean count p, variance count p (1 - p), inversion and BTRS, p on both sides of 1/2.
  for (auto [count, prob] :
       {std::pair{8.0, 0.3}, std::pair{200.0, 0.3}, std::pair{200.0, 0.8}, std::pair{5.0, 1.0}}) {
    INFO("count " << count << " p " << prob);
    const Tensor b = binomial(full({n}, count), full({n}, prob));
    CHECK(b.dtype() == kFloat);
    CHECK(b.mean().item<double>() == Approx(count * prob).margin(0.02 * count * prob));
    CHECK(b.var().item<double>() ==
          Approx(count * prob * (1 - prob)).margin(0.06 * count * prob * (1 - prob) + 1e-9));
    CHECK(b.min().item<double>() >= 0);
    CHECK(b.max().item<double>() <= count);
  }
  CHECK(binomial(full({2, 3}, 10.0), tensor({0.0f, 1.0f, 0.0f}))
            .equal(tensor({0.0f, 10.0f, 0.0f}).expand({2, 3})));
}

TEST_CASE("random: the new distributions' errors leave tensors and the stream alone") {
  manual_seed(32);
  const std::vector<double> next = dvalues(rand({3}));
  manual_seed(32);
  Tensor longs = zeros({3}, kLong);
  expect_throw<NotImplemented>([&] { longs.cauchy_(); }, "\"cauchy_cpu\" not implemented for 'Long'");
  expect_throw<NotImplemented>([&] { longs.log_normal_(); }, "\"log_normal_cpu\" not implemented for 'Long'");
  expect_throw<InvalidArgument>([&] { empty({3}).log_normal_(0, 0); },
                                "log_normal_ expects std > 0.0, but found std=0");
  expect_throw<InvalidArgument>([&] { empty({3}).geometric_(1.0); },
                                "geometric_ expects p to be in (0, 1), but got p=1");
  expect_throw<NotImplemented>([&] { zeros({3}, kBool).geometric_(0.5); },
                               "\"geometric_cpu\" not implemented for 'Bool'");
  expect_throw<InvalidArgument>(
      [&] {
        poisson(tensor({1.0, -0.5}));
      },
      "invalid Poisson rate, expected rate to be non-negative");
  expect_throw<InvalidArgument>([&] { poisson(tensor({std::nan("")})); },
                                "invalid Poisson rate, expected rate to be non-negative");
  expect_throw<NotImplemented>(
      [&] {
        poisson(tensor({1, 2}));
      },
      "\"poisson_cpu\" not implemented for 'Long'");
  expect_throw<NotImplemented>([&] { poisson(tensor({1.0}).to(kHalf)); },
                               "\"poisson_cpu\" not implemented for 'Half'");
  expect_throw<InvalidArgument>([&] { binomial(tensor({10.0f}), tensor({0.5}, kDouble)); },
                                "Found dtype Double but expected Float");
  expect_throw<NotImplemented>([&] { binomial(tensor({10.0}).to(kBFloat16), tensor({0.5}).to(kBFloat16)); },
                               "\"binomial_cpu\" not implemented for 'BFloat16'");
  Tensor leaf = zeros({3}).requires_grad_();
  expect_throw<InvalidArgument>([&] { leaf.cauchy_(); }, "a leaf Variable that requires grad");
  CHECK(longs.equal(zeros({3}, kLong)));
  CHECK(dvalues(rand({3})) == next);  // nothing was drawn
}

TEST_CASE("random: poisson's gradient is zero, binomial has none, and other devices sample on the host") {
  const Tensor rates = tensor({1.0, 3.0}, kDouble).requires_grad_();
  Tensor p = poisson(rates);
  CHECK(p.grad_fn()->name() == "PoissonBackward0");
  p.sum().backward();
  CHECK(rates.grad().equal(zeros({2}, kDouble)));
  const Tensor prob = tensor({0.5}, kDouble).requires_grad_();
  Tensor b = binomial(tensor({4.0}, kDouble), prob);
  CHECK(b.requires_grad());
  expect_throw<NotImplemented>([&] { b.sum().backward(); },
                               "the derivative for 'binomial' is not implemented.");

  testing::ensure_fake_accelerator();
  const Device npu("npu:0");
  manual_seed(33);
  const std::vector<double> cpu_next = dvalues(rand({4}));
  manual_seed(33);
  const Tensor r = full({500}, 6.0, TensorOptions(kFloat).device(npu));
  const Tensor a = poisson(r);
  const Tensor c = binomial(r, full({500}, 0.5, TensorOptions(kFloat).device(npu)));
  const Tensor k = empty({500}, TensorOptions(kFloat).device(npu)).cauchy_();
  CHECK(dvalues(rand({4})) == cpu_next);  // the device's counters were used, not the CPU's stream
  CHECK(a.device() == npu);
  CHECK(c.device() == npu);
  CHECK(k.device() == npu);
  CHECK(a.mean().item<double>() == Approx(6.0).margin(0.4));
  CHECK(c.mean().item<double>() == Approx(3.0).margin(0.2));
  manual_seed(34);
  const Tensor again = poisson(r);
  manual_seed(34);
  CHECK(poisson(r).equal(again));
}

TEST_CASE("random: Tensor::bernoulli(p) draws as torch::bernoulli(self, p), libtorch's stream") {
  manual_seed(0);
  const Tensor drawn = ones({6}).bernoulli(0.5);
  CHECK(dvalues(drawn) == std::vector<double>{0, 0, 1, 0, 0, 0});  // libtorch 1.13, seed 0
  manual_seed(0);
  CHECK(equal(bernoulli(ones({6}), 0.5), drawn));
  CHECK_FALSE(arange(6.0).requires_grad_().bernoulli(0.5).requires_grad());
}
