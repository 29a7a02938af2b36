// CPU kernel fixes: random values that round into range, randn's counter window,
// split reductions under a dynamic thread count, casts and fills to bool, BLAS's int
// limits, and exact printing of large integers.

#include <ember/detail_random.h>
#include <ember/ember.h>
#include <omp.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "cpu/blas_dims.h"
#include "fake_accelerator.h"

using ember::Tensor;

namespace {

bool all_true(const Tensor& t) { return t.all().item<bool>(); }

std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

// Restores omp's dynamic flag and thread count on scope exit.
struct OmpThreadsGuard {
  int dynamic = omp_get_dynamic(), threads = omp_get_max_threads();
  ~OmpThreadsGuard() {
    omp_set_dynamic(dynamic);
    omp_set_num_threads(threads);
  }
};

}  // namespace

TEST_CASE("kernels: rand stays below 1 after rounding to the output dtype") {
  for (ember::ScalarType dt : {ember::kBFloat16, ember::kHalf, ember::kFloat, ember::kDouble}) {
    CAPTURE(dt);
    ember::manual_seed(7);
    Tensor u = ember::rand({200000}, dt);
    CHECK(all_true(u.lt(1)));
    CHECK(all_true(u.ge(0)));
    const double mean = u.to(ember::kDouble).mean().item<double>();
    CHECK(mean == Approx(0.5).margin(0.01));
    // Both halves of [0, 1) are hit.
    CHECK(all_true(u.lt(0.5).any()));
    CHECK(all_true(u.ge(0.5).any()));
  }
}

// Accelerators (here the PrivateUse1 test backend, which borrows the CPU's kernels
// without the CPU generator) draw from the counter-based generator.
TEST_CASE("kernels: the accelerators' generator is Philox4x32-10 (Random123's known answers)") {
  struct Case {
    uint32_t counter[4], key[2], expected[4];
  };
  const Case cases[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Case& c : cases) {
    uint32_t out[4];
    ember::detail::philox4x32_10(c.counter, c.key, out);
    for (int i = 0; i < 4; ++i) CHECK(out[i] == c.expected[i]);
  }
  // random_bits(seed, counter): key = seed, counter = (counter, 0), the block's first two words.
  CHECK(ember::detail::random_bits(0, 0) == 0xe169c58d6627e8d5ull);
  CHECK(ember::detail::random_bits(0xffffffffffffffffull, 0x12345678ull) != ember::detail::random_bits(0, 0x12345678ull));
}

TEST_CASE("kernels: an accelerator's rand draws exactly the bits its dtype can hold") {
  ember::testing::ensure_fake_accelerator();
  const ember::Device npu("npu:0");
  // Element i of a call at counter offset o is the top `digits` bits of random_bits(seed, o + i).
  ember::manual_seed(11);
  Tensor f = ember::rand({1000}, ember::TensorOptions(ember::kFloat).device(npu)).cpu();   // counters [0, 2002)
  Tensor d = ember::rand({1000}, ember::TensorOptions(ember::kDouble).device(npu)).cpu();  // counters [2002, 4004)
  const float* pf = f.data_ptr<float>();
  const double* pd = d.data_ptr<double>();
  for (int64_t i = 0; i < 1000; ++i) {
    const double ef = double(ember::detail::random_bits(11, uint64_t(i)) >> 40) * 0x1p-24;
    const double ed = double(ember::detail::random_bits(11, 2002 + uint64_t(i)) >> 11) * 0x1p-53;
    REQUIRE(double(pf[i]) == ef);
    REQUIRE(pd[i] == ed);
  }
  CHECK(ember::detail::random_uniform(3, 5, 8) == double(ember::detail::random_bits(3, 5) >> 56) / 256.0);
}

TEST_CASE("kernels: an accelerator's randn reads counters offset + 2i and offset + 2i + 1 of its window") {
  ember::testing::ensure_fake_accelerator();
  const ember::Device npu("npu:0");
  ember::manual_seed(0);
  ember::rand({10}, npu);                                                          // reserves counters [0, 22)
  Tensor n = ember::randn({10}, ember::TensorOptions(ember::kDouble).device(npu)).cpu();  // reserves [22, 44)
  const double* p = n.data_ptr<double>();
  for (uint64_t i = 0; i < 10; ++i) {
    const uint64_t c = 22 + 2 * i;
    REQUIRE(c + 1 < 44);
    double u1 = double(ember::detail::random_bits(0, c) >> 11) * 0x1p-53;
    const double u2 = double(ember::detail::random_bits(0, c + 1) >> 11) * 0x1p-53;
    u1 = u1 > 1e-300 ? u1 : 1e-300;
    const double expected = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    CHECK(p[i] == Approx(expected).epsilon(1e-15).margin(1e-15));
    CHECK(p[i] == ember::detail::random_normal(0, c));
  }
  // The uniforms of a later call are not the normal's inputs.
  Tensor u = ember::rand({30}, ember::TensorOptions(ember::kDouble).device(npu)).cpu();  // counters [44, 106)
  const double* pu = u.data_ptr<double>();
  for (int64_t j = 0; j < 30; ++j) {
    for (uint64_t c = 22; c < 42; ++c) {
      REQUIRE(pu[j] != double(ember::detail::random_bits(0, c) >> 11) * 0x1p-53);
    }
  }
}

TEST_CASE("kernels: randn is deterministic for a seed and sane in distribution") {
  ember::manual_seed(42);
  Tensor a = ember::randn({100000});
  Tensor a2 = ember::randn({100000});
  ember::manual_seed(42);
  Tensor b = ember::randn({100000});
  CHECK(a.equal(b));
  CHECK_FALSE(a.equal(a2));
  CHECK(a.mean().item<double>() == Approx(0).margin(0.02));
  CHECK(a.to(ember::kDouble).pow(2).mean().item<double>() == Approx(1).margin(0.03));
}

TEST_CASE("kernels: split reductions cover the whole range when fewer threads run than asked") {
  OmpThreadsGuard guard;
  omp_set_dynamic(1);
  // More threads than processors: with dynamic adjustment the runtime gives fewer.
  omp_set_num_threads(std::max(8, 4 * omp_get_num_procs()));
  CHECK(ember::ones({1 << 22}).sum().item<double>() == 4194304.0);
  Tensor x = ember::zeros({1 << 22});
  x.narrow(0, 4000000, 1).fill_(5);
  CHECK(x.argmax().item<int64_t>() == 4000000);
  CHECK(x.max().item<double>() == 5.0);
  Tensor y = ember::arange(int64_t(1) << 22, ember::TensorOptions(ember::kDouble));
  CHECK(y.sum().item<double>() == double((int64_t(1) << 22) * ((int64_t(1) << 22) - 1) / 2));
}

TEST_CASE("kernels: casts to bool are nonzero tests in the source type") {
  CHECK(ember::tensor({1e-50}, ember::kDouble).to(ember::kBool).item<bool>());
  CHECK(ember::tensor({-1e-300}, ember::kDouble).to(ember::kBool).item<bool>());
  CHECK_FALSE(ember::tensor({0.0}, ember::kDouble).to(ember::kBool).item<bool>());
  CHECK_FALSE(ember::tensor({-0.0}, ember::kDouble).to(ember::kBool).item<bool>());
  CHECK(ember::tensor({std::nan("")}, ember::kDouble).to(ember::kBool).item<bool>());
  CHECK(ember::tensor({int64_t(1) << 60}).to(ember::kBool).item<bool>());
  CHECK(ember::tensor({0.5}, ember::kHalf).to(ember::kBool).item<bool>());
  CHECK_FALSE(ember::tensor({0.0}, ember::kBFloat16).to(ember::kBool).item<bool>());
}

TEST_CASE("kernels: bool fills test the value for nonzero") {
  CHECK(ember::full({1}, 0.5, ember::kBool).item<bool>());
  CHECK(ember::full({3}, 1e-50, ember::kBool).all().item<bool>());
  CHECK_FALSE(ember::full({2}, 0.0, ember::kBool).any().item<bool>());
  CHECK(ember::full({2}, true).all().item<bool>());
  Tensor t = ember::zeros({4}, ember::kBool);
  t.fill_(0.25);
  CHECK(t.all().item<bool>());
}

TEST_CASE("kernels: BLAS is used only when every size and leading dimension fits an int") {
  CHECK(ember::detail::fits_blas_int({1, 2, 3, INT_MAX}));
  CHECK_FALSE(ember::detail::fits_blas_int({1, 2, int64_t(INT_MAX) + 1}));
  CHECK_FALSE(ember::detail::fits_blas_int({int64_t(1) << 40, 1}));
  // Large row strides reach the check through the leading dimensions.
  ember::MatmulArgs a;
  a.m = a.n = a.k = 2;
  a.a_strides[1] = 2, a.a_strides[2] = 1;
  a.b_strides[1] = 2, a.b_strides[2] = 1;
  a.c_strides[1] = 2, a.c_strides[2] = 1;
  CHECK(ember::detail::blas_dims_fit_int(a));
  a.b_strides[1] = int64_t(INT_MAX) + 2;
  CHECK_FALSE(ember::detail::blas_dims_fit_int(a));
  a.b_strides[1] = 2;
  a.k = int64_t(INT_MAX) + 1;
  CHECK_FALSE(ember::detail::blas_dims_fit_int(a));
}

TEST_CASE("kernels: integers print exactly, with a width shared by all values") {
  CHECK_THAT(printed(ember::tensor({int64_t(9007199254740993)})), Catch::Contains("9007199254740993"));
  CHECK(printed(ember::tensor({int64_t(9007199254740993), int64_t(-5)})) ==
        " 9007199254740993\n               -5\n[ CPULongType{2} ]");
  CHECK(printed(ember::tensor({INT64_MIN})).find("-9223372036854775808") != std::string::npos);
  // libtorch sizes the column by the largest signed value, so -20 overflows it.
  CHECK(printed(ember::tensor({1, -20, 3})) == " 1\n-20\n 3\n[ CPULongType{3} ]");
  CHECK(printed(ember::tensor({true, false})) == " 1\n 0\n[ CPUBoolType{2} ]");
  CHECK(printed(ember::scalar_tensor(int64_t(9007199254740993), ember::kInt64)) == "9007199254740993\n[ CPULongType{} ]");
  CHECK(printed(ember::zeros({2, 2}, ember::kInt32)) == " 0  0\n 0  0\n[ CPUIntType{2,2} ]");
}
