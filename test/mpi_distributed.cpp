// Process groups over MPI and DDP, run as 2 ranks: `mpirun --oversubscribe -np 2` (CTest
// label mpi). Every rank runs the same cases in the same order; each checks its results
// against values computed locally from what every rank contributes.
#include <catch2/catch.hpp>
#include <ember/distributed.h>
#include <ember/ember.h>

#include <cmath>

#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
namespace dist = ember::distributed;

namespace {

// What rank r contributes: small integers exact in every dtype (bool: alternating).
Tensor contribution(int r, ScalarType dt) {
  Tensor x = arange(6).reshape({2, 3}).add(r + 1);
  if (dt == kBool) x = x.remainder(2).eq(0);
  return x.to(dt);
}

Tensor expected_reduction(dist::ReduceOp op, int world, ScalarType dt, const std::function<Tensor(int)>& of) {
  Tensor acc = of(0).to(kDouble);
  for (int r = 1; r < world; ++r) {
    Tensor x = of(r).to(kDouble);
    switch (op) {
      case dist::ReduceOp::SUM:
      case dist::ReduceOp::AVG: acc = acc + x; break;
      case dist::ReduceOp::MAX: acc = maximum(acc, x); break;
      case dist::ReduceOp::MIN: acc = minimum(acc, x); break;
      case dist::ReduceOp::PRODUCT: acc = acc * x; break;
    }
  }
  if (op == dist::ReduceOp::AVG) {
    acc = acc / world;
    if (!is_floating_point(dt)) acc = acc.trunc();
  }
  return acc.to(dt);
}

const ScalarType kAllTypes[] = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble};
const dist::ReduceOp kAllOps[] = {dist::ReduceOp::SUM, dist::ReduceOp::AVG, dist::ReduceOp::MAX, dist::ReduceOp::MIN,
                                  dist::ReduceOp::PRODUCT};

}  // namespace

TEST_CASE("mpi: init_process_group reads the launcher's rank and size") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  CHECK(dist::is_initialized());
  CHECK(g.size() == 2);
  CHECK(g.backend() == dist::Backend::MPI);
  const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
  REQUIRE(r != nullptr);
  CHECK(g.rank() == std::atoi(r));
  CHECK(&dist::default_group() == &g);
}

TEST_CASE("mpi: distributed samplers take rank and world size from the group") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  auto share = [](auto& sampler) {
    std::vector<int64_t> out;
    while (auto batch = sampler.next(4)) out.insert(out.end(), batch->begin(), batch->end());
    return out;
  };
  data::samplers::DistributedRandomSampler from_group(11, g);
  data::samplers::DistributedRandomSampler given(11, size_t(g.size()), size_t(g.rank()));
  const std::vector<int64_t> mine = share(from_group);
  CHECK(mine == share(given));
  REQUIRE(mine.size() == 6);  // ceil(11 / 2), the last share repeating example 0
  // Every rank drew the same permutation: together the shares cover the dataset.
  std::vector<Tensor> all = {zeros({6}, kInt64), zeros({6}, kInt64)};
  g.all_gather(all, tensor(mine));
  std::vector<int> seen(11, 0);
  for (const Tensor& t : all) {
    for (int64_t i = 0; i < 6; ++i) ++seen[size_t(t[i].item<int64_t>())];
  }
  for (int i = 0; i < 11; ++i) CHECK(seen[size_t(i)] == (i == 0 ? 2 : 1));
  data::samplers::DistributedSequentialSampler sequential(11, g);
  std::vector<int64_t> expect(6);
  for (int64_t i = 0; i < 6; ++i) expect[size_t(i)] = (g.rank() * 6 + i) % 11;
  CHECK(share(sequential) == expect);
}

TEST_CASE("mpi: all_reduce of every dtype and op matches the local reduction") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  for (ScalarType dt : kAllTypes)
    for (dist::ReduceOp op : kAllOps) {
      if (dt == kBool && op == dist::ReduceOp::AVG) continue;
      INFO(name(dt) << " " << dist::name(op));
      Tensor t = contribution(g.rank(), dt);
      auto work = g.all_reduce(t, op);
      CHECK(work->is_completed());
      Tensor want = expected_reduction(op, g.size(), dt, [dt](int r) { return contribution(r, dt); });
      CHECK(t.dtype() == dt);
      CHECK(ember_test::dvalues(t) == ember_test::dvalues(want));
    }
}

TEST_CASE("mpi: half and bfloat16 sums round like the float sum") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  for (ScalarType dt : {kHalf, kBFloat16}) {
    auto of = [dt](int r) { return (arange(64, kFloat) * 0.013 + 0.1 * (r + 1)).to(dt); };
    Tensor t = of(g.rank());
    g.all_reduce(t, dist::ReduceOp::SUM);
    Tensor want = (of(0).to(kFloat) + of(1).to(kFloat)).to(dt);
    CHECK(ember_test::dvalues(t) == ember_test::dvalues(want));
  }
}

TEST_CASE("mpi: all_reduce writes the result back through a strided view") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  Tensor base = zeros({4, 6});
  Tensor view = base.slice(1, 0, 6, 2).t();  // every other column, transposed
  REQUIRE_FALSE(view.is_contiguous());
  view.fill_(g.rank() + 1);
  g.all_reduce(view, dist::ReduceOp::SUM);
  CHECK(ember_test::dvalues(view) == std::vector<double>(12, 3.0));
  CHECK(ember_test::dvalues(base.slice(1, 1, 6, 2)) == std::vector<double>(12, 0.0));  // untouched
}

TEST_CASE("mpi: all_reduce of a tensor on another device stages it through host memory") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  Tensor t = (arange(10, kFloat) * (g.rank() + 1)).to(npu);
  g.all_reduce(t, dist::ReduceOp::MAX);
  CHECK(t.device() == npu);
  CHECK(ember_test::dvalues(t) == ember_test::dvalues(arange(10, kFloat) * 2));
  if (cuda::is_available()) {
    Tensor c = full({5}, g.rank() + 1.0).cuda();
    g.all_reduce(c, dist::ReduceOp::SUM);
    CHECK(ember_test::dvalues(c) == std::vector<double>(5, 3.0));
  } else {
    WARN("no GPU: the CUDA tensor case of the MPI backend is skipped");
  }
}

TEST_CASE("mpi: broadcast copies the root's tensor to every rank") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  for (int root : {0, 1}) {
    Tensor t = full({3, 4}, int64_t(10 * g.rank() + 7), TensorOptions(kInt64));
    g.broadcast(t, root);
    CHECK(ember_test::dvalues(t) == std::vector<double>(12, 10.0 * root + 7));
  }
  Tensor base = full({3, 4}, double(g.rank()), TensorOptions(kDouble));
  Tensor col = base.select(1, 2);
  g.broadcast(col, 1);
  CHECK(ember_test::dvalues(col) == std::vector<double>(3, 1.0));
  CHECK(base.sum().item<double>() == 3.0 + 9.0 * g.rank());
}

TEST_CASE("mpi: all_gather fills one output per rank, strided outputs included") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  Tensor input = full({2, 3}, g.rank() + 1.5);
  std::vector<Tensor> outputs = {empty({2, 3}), empty({3, 2}).t()};
  g.all_gather(outputs, input);
  CHECK(ember_test::dvalues(outputs[0]) == std::vector<double>(6, 1.5));
  CHECK(ember_test::dvalues(outputs[1]) == std::vector<double>(6, 2.5));
}

TEST_CASE("mpi: reduce_scatter gives rank r the reduction of every rank's input r") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  const int me = g.rank();
  auto input = [](int r, int k) { return full({3}, double(10 * r + k + 1), TensorOptions(kInt32)); };
  for (dist::ReduceOp op : kAllOps) {
    INFO(dist::name(op));
    std::vector<Tensor> inputs = {input(me, 0), input(me, 1)};
    Tensor out = empty({3}, TensorOptions(kInt32));
    g.reduce_scatter(out, inputs, op);
    Tensor want = expected_reduction(op, 2, kInt32, [&](int r) { return input(r, me); });
    CHECK(ember_test::dvalues(out) == ember_test::dvalues(want));
  }
  Tensor strided = zeros({3, 2}).select(1, 1);
  g.reduce_scatter(strided, {full({3}, 1.0 + me), full({3}, 3.0 + me)}, dist::ReduceOp::AVG);
  CHECK(ember_test::dvalues(strided) == std::vector<double>(3, me == 0 ? 1.5 : 3.5));
}

TEST_CASE("mpi: an async all_reduce runs while the caller computes, in call order") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  Tensor big = full({32 << 20}, float(g.rank() + 1));  // 128 MB
  auto work = g.all_reduce(big, dist::ReduceOp::SUM, /*async=*/true);
  const bool done_at_once = work->is_completed();
  int steps = 0;
  Tensor acc = zeros({256, 256});
  Tensor m = ones({256, 256}) / 256;
  while (!work->is_completed()) {
    acc = acc + matmul(m, m);
    ++steps;
  }
  work->wait();
  CHECK_FALSE(done_at_once);
  CHECK(steps > 0);
  CHECK(acc.sum().item<double>() == Approx(256.0 * steps).epsilon(1e-4));
  CHECK(big.min().item<float>() == 3.0f);
  CHECK(big.max().item<float>() == 3.0f);
  // Later collectives run after earlier async ones: a barrier returns after both.
  Tensor a = full({8 << 20}, 1.0f), b = full({4}, 1.0f);
  auto wa = g.all_reduce(a, dist::ReduceOp::SUM, true);
  auto wb = g.all_reduce(b, dist::ReduceOp::SUM, true);
  g.barrier();
  CHECK(wa->is_completed());
  CHECK(wb->is_completed());
  CHECK(a[0].item<float>() == 2.0f);
}

TEST_CASE("mpi: misuse throws typed errors and changes no tensor") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  auto throws = [](const std::function<void()>& f, const std::string& text) {
    ember_test::expect_throw<InvalidArgument>([&] { (void)f(); }, text);
  };
  throws([] { dist::init_process_group(dist::Backend::MPI); }, "initialize the default process group twice");
  Tensor t = full({2}, 5.0f);
  std::vector<Tensor> outs = {empty({2}), empty({2}, TensorOptions(kDouble))};
  throws([&] { g.all_gather(outs, t); }, "all_gather: output 1 has dtype float64 but the input has dtype float32");
  std::vector<Tensor> three = {empty({2}), empty({2}), empty({2})};
  throws([&] { g.all_gather(three, t); }, "all_gather: expected 2 output tensors (one per rank), got 3");
  Tensor out = zeros({3});
  throws([&] { g.reduce_scatter(out, {zeros({3}), zeros({4})}); },
         "reduce_scatter: input 1 has shape [4] but the output has shape [3]");
  throws([&] { g.broadcast(t, 2); }, "broadcast: root 2 is out of range for a group of 2 ranks");
  Tensor flags = ones({2}, TensorOptions(kBool));
  throws([&] { g.all_reduce(flags, dist::ReduceOp::AVG); }, "all_reduce: Cannot use ReduceOp.AVG with boolean inputs");
  Tensor undefined;
  throws([&] { g.all_reduce(undefined); }, "all_reduce: the tensor is an undefined tensor");
  CHECK(ember_test::dvalues(t) == std::vector<double>{5, 5});
  CHECK(ember_test::dvalues(out) == std::vector<double>{0, 0, 0});
  CHECK(flags.all().item<bool>());

  // A destroyed group refuses every call; a new one can be made.
  dist::destroy_process_group();
  CHECK_FALSE(dist::is_initialized());
  throws([&] { g.all_reduce(t); }, "all_reduce: the process group has been destroyed");
  throws([&] { g.barrier(); }, "barrier: the process group has been destroyed");
  throws([] { dist::default_group(); }, "Default process group has not been initialized");
  dist::ProcessGroup& again = dist::init_process_group(dist::Backend::MPI);
  CHECK(&again != &g);
  Tensor one = ones({1});
  again.all_reduce(one);
  CHECK(one.item<float>() == 2.0f);
  // Without a GPU, NCCL is refused (by name in a build without NCCL, for want of a GPU in one
  // with it), and the failed init leaves no group.
  if (!cuda::is_available()) {
    dist::destroy_process_group();
    try {
      (void)dist::init_process_group(dist::Backend::NCCL);
      FAIL_CHECK("init_process_group(NCCL) succeeded without a GPU");
    } catch (const NotImplemented& e) {
      CHECK_THAT(e.what(), Catch::Matchers::Contains("init_process_group: ember was built without the NCCL backend"));
    } catch (const InvalidArgument& e) {
      CHECK_THAT(e.what(), Catch::Matchers::Contains("init_process_group: the NCCL backend needs a GPU, and rank"));
    }
    CHECK_FALSE(dist::is_initialized());
    dist::init_process_group(dist::Backend::MPI);
  }
}
