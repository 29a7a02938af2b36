// Several threads at once: per-thread DeviceScopes, allocation and free through the
// caching allocators, ops on shared inputs, and placement logging into one sink. Run
// under ThreadSanitizer by .ci/tsan (tag [concurrency]); here they also check values.
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

namespace {
constexpr int kThreads = 4;

template <class F>
void run_threads(F f) {
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(f, i);
  for (std::thread& t : threads) t.join();
}
}  // namespace

TEST_CASE("concurrency: each thread has its own DeviceScope stack", "[concurrency]") {
  ember::testing::ensure_fake_accelerator();
  std::atomic<int> wrong{0};
  run_threads([&](int i) {
    const Device mine = i % 2 ? Device("npu:0") : Device(kCPU, 0);
    for (int k = 0; k < 200; ++k) {
      DeviceScope scope(mine);
      if (current_device() != mine || ones({2}).device() != mine) ++wrong;
    }
    if (current_device() != Device(kCPU, 0)) ++wrong;
  });
  CHECK(wrong == 0);
}

TEST_CASE("concurrency: threads allocate and free through the caching allocators", "[concurrency]") {
  ember::testing::ensure_fake_accelerator();
  const memory::MemoryStats before = memory::stats(Device(kCPU, 0));
  std::atomic<int> wrong{0};
  run_threads([&](int i) {
    const Device dev = i % 2 ? Device("npu:1") : Device(kCPU, 0);
    std::vector<Tensor> keep;
    for (int k = 0; k < 300; ++k) {
      const int64_t n = 1 + (k * 37 + i * 11) % 5000;
      Tensor t = full({n}, double(i), TensorOptions(kFloat).device(dev));
      if (k % 3 == 0) keep.push_back(t);
      if (keep.size() > 8) keep.erase(keep.begin());
      if (t.sum().item<double>() != double(i) * double(n)) ++wrong;
    }
  });
  CHECK(wrong == 0);
  const memory::MemoryStats after = memory::stats(Device(kCPU, 0));
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.num_allocs - before.num_allocs == after.num_frees - before.num_frees);
}

TEST_CASE("concurrency: ops from several threads on shared inputs", "[concurrency]") {
  Tensor a = rand({64, 64}), b = rand({64, 64});
  const std::vector<double> sum = dvalues(a + b), total = dvalues(a.sum(0));
  const Tensor prod = matmul(a, b);
  std::atomic<int> wrong{0};
  run_threads([&](int) {
    for (int k = 0; k < 50; ++k) {
      if (dvalues(a + b) != sum || !allclose(matmul(a, b), prod) || dvalues(a.sum(0)) != total) ++wrong;
      Tensor v = a.t().contiguous().narrow(0, 1, 3);
      if (v.size(0) != 3) ++wrong;
    }
  });
  CHECK(wrong == 0);
}

TEST_CASE("concurrency: large ops (OpenMP inside) from several threads", "[concurrency]") {
  // Kernels that find another thread's team running stay on their own thread
  // (ParallelRegionGuard); the results must not depend on which path ran.
  Tensor big = rand({1 << 21}), other = rand({1 << 21});
  const Tensor sum = big + other;
  const double total = sum.sum().item<double>();
  // Products from inside another team run single-threaded, and OpenBLAS blocks the k sums
  // differently then (on AVX-512 up to 8 ulp apart): compare within the GEMM error bound.
  Tensor a = rand({256, 256}) - 0.5, b = rand({256, 256}) - 0.5;
  const Tensor a64 = a.to(kDouble), b64 = b.to(kDouble);
  const Tensor product = matmul(a, b), product64 = matmul(a64, b64);
  std::atomic<int> wrong_sums{0}, wrong_products{0};
  std::vector<Tensor> products(kThreads * 3), products64(kThreads * 3);
  run_threads([&](int i) {
    for (int k = 0; k < 3; ++k) {
      Tensor s = big + other;
      if (!s.equal(sum) || std::abs(s.sum().item<double>() - total) > 1e-3 * total) ++wrong_sums;
      products[i * 3 + k] = matmul(a, b);
      products64[i * 3 + k] = matmul(a64, b64);
    }
  });
  CHECK(wrong_sums == 0);
  for (size_t i = 0; i < products.size(); ++i) {
    if (!ember_test::within_gemm_bound(products[i], product, a, b)) ++wrong_products;
    if (!ember_test::within_gemm_bound(products64[i], product64, a64, b64)) ++wrong_products;
  }
  CHECK(wrong_products == 0);
  // The bound is tight enough to catch a wrong product: one changed entry of a fails it.
  Tensor off = product.clone();
  off.index_put_({3, 5}, off.index({3, 5}) + 1e-2);
  CHECK_FALSE(ember_test::within_gemm_bound(off, product, a, b));
}

TEST_CASE("concurrency: placement logging from several threads into one sink", "[concurrency]") {
  std::mutex m;
  int lines = 0;
  set_placement_log_sink([&](const std::string&) {
    std::lock_guard<std::mutex> lock(m);
    ++lines;
  });
  set_log_device_placement(true);
  run_threads([&](int) {
    for (int k = 0; k < 50; ++k) (void)(ones({3}) * 2);
  });
  set_log_device_placement(false);
  set_placement_log_sink({});
  CHECK(lines >= kThreads * 50 * 2);  // ones and mul: one line each at least
}
