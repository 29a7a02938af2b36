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
