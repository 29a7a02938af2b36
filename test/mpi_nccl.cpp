// The NCCL backend, one rank per GPU (CTest runs it with one rank): collectives on CUDA
// tensors against local values. Without a GPU every case skips with a printed reason.
#include <catch2/catch.hpp>
#include <ember/distributed.h>
#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
namespace dist = ember::distributed;

namespace {

// Makes the default group an NCCL one for the case; false (and a printed reason) without a GPU.
bool nccl_group() {
  if (!cuda::is_available()) {
    WARN("skipped: no GPU, the NCCL backend needs one");
    return false;
  }
  if (dist::is_initialized() && dist::default_group().backend() == dist::Backend::NCCL) return true;
  dist::destroy_process_group();
  dist::init_process_group(dist::Backend::NCCL);
  return true;
}

}  // namespace

TEST_CASE("nccl: all_reduce of CUDA tensors for each op, strided included") {
  if (!nccl_group()) return;
  dist::ProcessGroup& g = dist::default_group();
  const int n = g.size(), me = g.rank();
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt32, kInt64, kUInt8}) {
    INFO(name(dt));
    Tensor t = full({4, 5}, double(me + 1), TensorOptions(dt)).cuda();
    g.all_reduce(t, dist::ReduceOp::SUM);
    CHECK(ember_test::dvalues(t) == std::vector<double>(20, n * (n + 1) / 2.0));
    Tensor m = full({3}, double(me + 1), TensorOptions(dt)).cuda();
    g.all_reduce(m, dist::ReduceOp::MAX);
    CHECK(ember_test::dvalues(m) == std::vector<double>(3, double(n)));
  }
  Tensor base = zeros({6, 4}).cuda();
  Tensor view = base.t();
  view.fill_(2.0);
  g.all_reduce(view, dist::ReduceOp::AVG);
  CHECK(ember_test::dvalues(base) == std::vector<double>(24, 2.0));
  ember_test::expect_throw<InvalidArgument>([&] { Tensor c = ones({2}); g.all_reduce(c); },
                                            "all_reduce: the NCCL backend takes CUDA tensors");
}

TEST_CASE("nccl: broadcast, all_gather and reduce_scatter on CUDA tensors") {
  if (!nccl_group()) return;
  dist::ProcessGroup& g = dist::default_group();
  const int n = g.size(), me = g.rank();
  Tensor b = full({5}, double(me + 7)).cuda();
  g.broadcast(b, 0);
  CHECK(ember_test::dvalues(b) == std::vector<double>(5, 7.0));
  std::vector<Tensor> outs;
  for (int r = 0; r < n; ++r) outs.push_back(empty({2, 2}).cuda());
  g.all_gather(outs, full({2, 2}, double(me)).cuda());
  for (int r = 0; r < n; ++r) CHECK(ember_test::dvalues(outs[size_t(r)]) == std::vector<double>(4, double(r)));
  std::vector<Tensor> ins;
  for (int r = 0; r < n; ++r) ins.push_back(full({3}, double(r + 1)).cuda());
  Tensor out = empty({3}).cuda();
  g.reduce_scatter(out, ins, dist::ReduceOp::SUM);
  CHECK(ember_test::dvalues(out) == std::vector<double>(3, double(n * (me + 1))));
}

TEST_CASE("nccl: an async all_reduce completes through its event, and DDP averages CUDA gradients") {
  if (!nccl_group()) return;
  dist::ProcessGroup& g = dist::default_group();
  Tensor big = ones({16 << 20}).cuda();
  auto w = g.all_reduce(big, dist::ReduceOp::SUM, true);
  w->wait();
  cuda::synchronize();
  CHECK(w->is_completed());
  CHECK(big.min().item<float>() == float(g.size()));
  Tensor p = ones({4}).cuda().requires_grad_(true);
  dist::DistributedDataParallel ddp({p}, g);
  (p * float(g.rank() + 1)).sum().backward();
  cuda::synchronize();
  CHECK(ember_test::dvalues(p.grad()) == std::vector<double>(4, (g.size() + 1) / 2.0));
  g.barrier();
  dist::destroy_process_group();
}
