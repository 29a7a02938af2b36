// What libtorch programs use to write their own loops: Tensor::accessor and the packed
// accessors, parallel_for / parallel_reduce and the thread-count functions; with the
// small queries such code makes (toString, itemsize, is_sparse, dtype names, printed options).
#include <ember/ember.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember_test::expect_throw;

TEST_CASE("user loops: accessor indexes through the tensor's own sizes and strides") {
  Tensor x = arange(12, kFloat).reshape({3, 4});
  auto a = x.accessor<float, 2>();
  CHECK(a.size(0) == 3);
  CHECK(a.size(1) == 4);
  CHECK(a.stride(0) == 4);
  CHECK(a.sizes() == IntArrayRef({3, 4}));
  CHECK(a.strides() == IntArrayRef({4, 1}));
  float sum = 0;
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < a.size(1); ++j) sum += a[i][j] * float(i + 1);
  CHECK(sum == (0 + 1 + 2 + 3) * 1 + (4 + 5 + 6 + 7) * 2 + (8 + 9 + 10 + 11) * 3);
  a[2][1] = -1;  // writes the tensor
  CHECK(x[2][1].item<float>() == -1);

  // A transposed view: the accessor follows its strides, so t[i][j] == x[j][i].
  Tensor t = x.t();
  auto ta = t.accessor<float, 2>();
  CHECK(ta.stride(0) == 1);
  CHECK(ta[1][2] == -1);
  CHECK(ta[3][0] == 3);
  auto row = ta[3];  // one dim less
  CHECK(row.size(0) == 3);
  CHECK(row[2] == 11);

  // Three dims, another dtype.
  Tensor y = arange(24, kInt64).reshape({2, 3, 4});
  auto ya = y.accessor<int64_t, 3>();
  CHECK(ya[1][2][3] == 23);
  CHECK(ya[1].size(0) == 3);

  expect_throw<InvalidArgument>([&] { (void)x.accessor<float, 3>(); }, "TensorAccessor expected 3 dims but tensor has 2");
  expect_throw<InvalidArgument>([&] { (void)x.accessor<double, 2>(); }, "expected scalar type Double but found Float");
  Tensor undefined;
  expect_throw<InvalidArgument>([&] { (void)undefined.accessor<float, 1>(); }, "undefined Tensor");
}

TEST_CASE("user loops: packed accessors carry their sizes and strides by value") {
  Tensor x = arange(6, kDouble).reshape({2, 3});
  PackedTensorAccessor64<double, 2> p64 = x.packed_accessor64<double, 2>();
  auto p32 = x.packed_accessor32<double, 2, RestrictPtrTraits>();
  x.t_();  // the accessors copied the sizes and strides: this in-place transpose does not move them
  Tensor other = x;
  CHECK(p64.size(0) == 2);
  CHECK(p64.stride(0) == 3);
  CHECK(p32.size(1) == 3);
  CHECK(p32[1][2] == 5);
  p64[0][1] = 10;
  CHECK(other.t()[0][1].item<double>() == 10);
  Tensor ints = arange(4, kInt32);  // an accessor of a temporary does not compile, as in libtorch
  auto p1 = ints.packed_accessor32<int32_t, 1>();
  CHECK(p1[3] == 3);
  // libtorch checks the element count for 32-bit indices (a broadcast view is enough here).
  Tensor wide = zeros({1}).expand({int64_t(3) << 30});
  expect_throw<InvalidArgument>([&] { (void)wide.packed_accessor32<float, 1>(); },
                                "numel needs to be smaller than int32_t max; otherwise, please use packed_accessor64");
  CHECK(wide.packed_accessor64<float, 1>().size(0) == int64_t(3) << 30);
  expect_throw<InvalidArgument>([&] { (void)x.packed_accessor64<double, 1>(); },
                                "TensorAccessor expected 1 dims but tensor has 2");
}

TEST_CASE("user loops: parallel_for covers the range once, in at most one chunk per thread") {
  const int64_t n = 100000;
  std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
  std::atomic<int> calls{0};  // Catch2's CHECK is not for worker threads
  parallel_for(0, n, 1000, [&](int64_t b, int64_t e) {
    ++calls;
    for (int64_t i = b; i < e; ++i) ++seen[size_t(i)];
  });
  bool once = true;
  for (const auto& s : seen) once = once && s.load() == 1;
  CHECK(once);
  CHECK(calls.load() >= 1);
  CHECK(calls.load() <= get_num_threads());

  // Small ranges, an empty one, and a nested call run on the calling thread as one chunk.
  std::vector<std::pair<int64_t, int64_t>> chunks;
  int thread_num = -1;
  parallel_for(5, 20, 100, [&](int64_t b, int64_t e) {
    chunks.emplace_back(b, e);
    thread_num = get_thread_num();
  });
  CHECK(chunks == std::vector<std::pair<int64_t, int64_t>>{{5, 20}});
  CHECK(thread_num == 0);
  bool called = false;
  parallel_for(7, 7, 1, [&](int64_t, int64_t) { called = true; });
  CHECK_FALSE(called);
  std::atomic<int> inner_calls{0}, split_inside{0};
  parallel_for(0, 4, 1, [&](int64_t, int64_t) {
    parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
      if (in_parallel_region() && !(b == 0 && e == 1000)) ++split_inside;
      ++inner_calls;
    });
  });
  CHECK(inner_calls.load() >= 1);
  CHECK(split_inside.load() == 0);

  // The first exception a chunk throws reaches the caller.
  expect_throw<std::runtime_error>(
      [&] {
        parallel_for(0, 1000, 1, [](int64_t b, int64_t e) {
          if (b <= 500 && 500 < e) throw std::runtime_error("chunk with 500 failed");
        });
      },
      "chunk with 500 failed");
}

TEST_CASE("user loops: parallel_reduce combines each chunk's result from the identity") {
  const int64_t n = 1 << 20;
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i % 1000;
  const int64_t want = (n / 1000) * (999 * 1000 / 2) + (n % 1000) * (n % 1000 - 1) / 2;
  auto partial = [&](int64_t b, int64_t e, int64_t ident) {
    int64_t s = ident;
    for (int64_t i = b; i < e; ++i) s += v[size_t(i)];
    return s;
  };
  CHECK(parallel_reduce(int64_t(0), n, int64_t(2048), int64_t(0), partial, std::plus<int64_t>()) == want);
  CHECK(parallel_reduce(int64_t(0), int64_t(10), int64_t(2048), int64_t(0), partial, std::plus<int64_t>()) == 45);
  CHECK(parallel_reduce(int64_t(3), int64_t(3), int64_t(1), int64_t(-7), partial, std::plus<int64_t>()) == -7);
  const int64_t biggest = parallel_reduce(
      int64_t(0), n, int64_t(1000), int64_t(-1),
      [&](int64_t b, int64_t e, int64_t ident) {
        int64_t m = ident;
        for (int64_t i = b; i < e; ++i) m = std::max(m, v[size_t(i)]);
        return m;
      },
      [](int64_t a, int64_t b) { return std::max(a, b); });
  CHECK(biggest == 999);
  // bool results: each thread has its own slot (a vector<bool> would share bits).
  for (int round = 0; round < 20; ++round) {
    const bool found = parallel_reduce(
        int64_t(0), n, int64_t(1000), false,
        [&](int64_t b, int64_t e, bool ident) {
          for (int64_t i = b; i < e; ++i) ident = ident || i == n - 1;
          return ident;
        },
        [](bool a, bool b) { return a || b; });
    CHECK(found);
  }
}

TEST_CASE("user loops: thread counts as libtorch's at::get_num_threads / set_num_threads") {
  const int before = get_num_threads();
  CHECK(before >= 1);
  set_num_threads(1);
  CHECK(get_num_threads() == 1);
  std::atomic<int> calls{0};
  parallel_for(0, 100000, 1, [&](int64_t, int64_t) { ++calls; });
  CHECK(calls.load() == 1);  // one thread: one chunk
  // As libtorch's, the count is the process's: a thread started afterwards takes it up.
  int seen_by_other = 0;
  std::thread([&] { seen_by_other = get_num_threads(); }).join();
  CHECK(seen_by_other == 1);
  set_num_threads(before);
  CHECK(get_num_threads() == before);
  expect_throw<InvalidArgument>([] { set_num_threads(0); }, "Expected positive number of threads");
  CHECK(get_num_threads() == before);
  const int interop = get_num_interop_threads();
  CHECK(interop >= 1);
  set_num_interop_threads(3);
  CHECK(get_num_interop_threads() == 3);
  expect_throw<InvalidArgument>([] { set_num_interop_threads(-1); }, "Expected positive number of threads");
  set_num_interop_threads(interop);
  CHECK_FALSE(in_parallel_region());
  CHECK(get_thread_num() == 0);
}

TEST_CASE("user loops: the queries such code makes, with libtorch's answers") {
  Tensor x = ones({2, 3});
  CHECK(x.toString() == "CPUFloatType");
  CHECK(ones({1}, kInt64).toString() == "CPULongType");
  CHECK(x.itemsize() == 4);
  CHECK(numel(x) == 6);
  CHECK(x.has_storage());
  CHECK_FALSE(Tensor().has_storage());
  CHECK_FALSE(x.is_sparse());
  CHECK_FALSE(x.is_sparse_csr());
  CHECK_FALSE(x.is_mkldnn());
  CHECK_FALSE(x.is_quantized());
  CHECK_FALSE(x.is_meta());
  CHECK_FALSE(x.is_mps());
  CHECK_FALSE(Tensor().is_sparse());  // libtorch answers for an undefined tensor too
  CHECK(Tensor().toString() == "UndefinedType");
  CHECK(std::string(torch_name(kBFloat16)) == "BFloat16");
  CHECK(std::string(torch_name(kUInt8)) == "Byte");
  // libtorch's enumerator names are the same dtypes.
  CHECK(ScalarType::Long == kInt64);
  CHECK(ScalarType::Int == kInt32);
  CHECK(ScalarType::Short == kInt16);
  CHECK(ScalarType::Char == kInt8);
  CHECK(ScalarType::Byte == kUInt8);
  CHECK(zeros({1}, ScalarType::Long).dtype() == kInt64);
  std::ostringstream a, b;
  a << TensorOptions();
  CHECK(a.str() ==
        "TensorOptions(dtype=float (default), device=cpu (default), layout=Strided (default), requires_grad=false "
        "(default), pinned_memory=false (default), memory_format=(nullopt))");
  b << TensorOptions().dtype(kInt64).device(kCPU).requires_grad(true);
  CHECK(b.str() ==
        "TensorOptions(dtype=long int, device=cpu, layout=Strided (default), requires_grad=true, pinned_memory=false "
        "(default), memory_format=(nullopt))");
}
