// DistributedDataParallel on 2 ranks (CTest label mpi): each rank trains on half of a batch
// and must end with the parameters one process gets from the whole batch.
#include <catch2/catch.hpp>
#include <ember/distributed.h>
#include <ember/ember.h>

#include "test_util.h"

using namespace ember;
namespace dist = ember::distributed;

namespace {

// A 3-8-1 tanh network, its parameters registered in forward order.
std::vector<Tensor> make_params() {
  std::vector<Tensor> ps = {randn({3, 8}), randn({8}), randn({8, 1}), randn({1})};
  for (Tensor& p : ps) p.requires_grad_(true);
  return ps;
}

Tensor loss_of(const std::vector<Tensor>& p, const Tensor& x, const Tensor& y) {
  Tensor pred = matmul(tanh(matmul(x, p[0]) + p[1]), p[2]) + p[3];
  return (pred - y).pow(2).mean();
}

void sgd_step(std::vector<Tensor>& ps, double lr) {
  NoGradGuard no_grad;
  for (Tensor& p : ps) {
    p.sub_(p.grad() * lr);
    p.mutable_grad().zero_();
  }
}

std::vector<Tensor> clones(const std::vector<Tensor>& ps) {
  std::vector<Tensor> out;
  for (const Tensor& p : ps) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

}  // namespace

TEST_CASE("ddp: 2 ranks on half a batch each match one process on the whole batch") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  manual_seed(100 + uint64_t(g.rank()));  // different initial values: DDP must broadcast rank 0's
  std::vector<Tensor> params = make_params();
  dist::DistributedDataParallel ddp(params, g, /*bucket_cap_mb=*/1e-4);
  std::vector<Tensor> ref = clones(params);  // rank 0's values on every rank

  // Buckets: reverse registration order, several of them at this cap.
  auto buckets = ddp.reducer().bucket_indices();
  REQUIRE(buckets.size() > 1);
  CHECK(buckets.front().front() == 3);
  CHECK(buckets.back().back() == 0);

  manual_seed(7);
  Tensor x = randn({8, 3}), y = randn({8, 1});
  Tensor mine_x = x.narrow(0, 4 * g.rank(), 4), mine_y = y.narrow(0, 4 * g.rank(), 4);
  for (int step = 0; step < 5; ++step) {
    loss_of(params, mine_x, mine_y).backward();
    loss_of(ref, x, y).backward();
    for (size_t i = 0; i < params.size(); ++i) CHECK(allclose(params[i].grad(), ref[i].grad(), 1e-5, 1e-6));
    sgd_step(params, 0.1);
    sgd_step(ref, 0.1);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << i);
    CHECK(allclose(params[i], ref[i], 1e-5, 1e-6));
  }
  // Every rank holds the same values.
  Tensor w = params[0].detach().clone();
  g.broadcast(w, 0);
  CHECK(equal(w, params[0].detach()));
}

TEST_CASE("ddp: no_sync accumulates locally and the next backward averages the sum") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  manual_seed(5);
  std::vector<Tensor> params = make_params();
  dist::DistributedDataParallel ddp(params, g);
  std::vector<Tensor> ref = clones(params);
  manual_seed(8);
  Tensor x = randn({8, 3}), y = randn({8, 1});
  const int64_t at = 4 * g.rank();
  {
    auto guard = ddp.no_sync();
    CHECK_FALSE(ddp.reducer().require_grad_sync());
    (loss_of(params, x.narrow(0, at, 2), y.narrow(0, at, 2)) * 0.5).backward();
  }
  CHECK(ddp.reducer().require_grad_sync());
  // Local only so far: this rank's first quarter.
  std::vector<Tensor> tmp = clones(ref);
  (loss_of(tmp, x.narrow(0, at, 2), y.narrow(0, at, 2)) * 0.5).backward();
  CHECK(allclose(params[0].grad(), tmp[0].grad(), 1e-5, 1e-6));
  (loss_of(params, x.narrow(0, at + 2, 2), y.narrow(0, at + 2, 2)) * 0.5).backward();
  loss_of(ref, x, y).backward();
  for (size_t i = 0; i < params.size(); ++i) CHECK(allclose(params[i].grad(), ref[i].grad(), 1e-5, 1e-6));
}

TEST_CASE("ddp: a parameter unused on one rank still completes its bucket") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  manual_seed(9);
  std::vector<Tensor> params = make_params();
  Tensor extra = tensor({1.5f, -2.0f}).requires_grad_(true);
  params.push_back(extra);
  dist::DistributedDataParallel ddp(params, g, /*bucket_cap_mb=*/1e-4);
  manual_seed(10);
  Tensor x = randn({4, 3}), y = randn({4, 1});
  for (int step = 0; step < 2; ++step) {
    Tensor loss = loss_of(params, x, y);
    if (g.rank() == 0) loss = loss + (extra * extra).sum();
    loss.backward();
    // (2 * extra + 0) / 2 on both ranks.
    REQUIRE(extra.grad().defined());
    CHECK(allclose(extra.grad(), extra.detach()));
    for (Tensor& p : params) p.mutable_grad().zero_();
  }
  ember_test::expect_throw<InvalidArgument>([&] { (void)dist::DistributedDataParallel({params[0], params[0]}, g); }, "Reducer: parameter 1 is the same tensor as parameter 0");
  ember_test::expect_throw<InvalidArgument>([&] { (void)dist::DistributedDataParallel({x}, g); }, "Reducer: parameter 0 must be a leaf tensor that requires grad");
}

TEST_CASE("ddp: an nn module trained with Adam on half a batch per rank matches one process on the whole batch") {
  dist::ProcessGroup& g = ember_test::mpi_group();
  manual_seed(200 + uint64_t(g.rank()));  // different initial weights per rank
  nn::Sequential model(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 1));
  dist::DistributedDataParallel ddp(model, g);
  CHECK(ddp.module().get() == model.ptr().get());
  CHECK(ddp.parameters().size() == 4);
  // The reference: one process holding rank 0's broadcast weights.
  nn::Sequential ref(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 1));
  {
    NoGradGuard no_grad;
    for (size_t i = 0; i < 4; ++i) ref->parameters()[i].copy_(model->parameters()[i]);
  }
  Tensor w0 = model->parameters()[0].detach().clone();
  g.broadcast(w0, 0);
  CHECK(equal(w0, model->parameters()[0].detach()));

  optim::Adam opt(model->parameters(), optim::AdamOptions(0.01));
  optim::Adam ref_opt(ref->parameters(), optim::AdamOptions(0.01));
  manual_seed(8);
  Tensor x = randn({8, 3}), y = randn({8, 1});
  Tensor mine_x = x.narrow(0, 4 * g.rank(), 4), mine_y = y.narrow(0, 4 * g.rank(), 4);
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    ref_opt.zero_grad();
    nn::functional::mse_loss(ddp(mine_x), mine_y).backward();
    nn::functional::mse_loss(ref->forward(x), y).backward();
    opt.step();
    ref_opt.step();
  }
  for (size_t i = 0; i < 4; ++i) {
    INFO("parameter " << i);
    CHECK(allclose(model->parameters()[i], ref->parameters()[i], 1e-5, 1e-6));
  }
  dist::DistributedDataParallel flat(ref->parameters(), g);
  CHECK_THROWS_WITH(flat.forward(x), Catch::Matchers::Contains("built from a parameter list"));
  CHECK_THROWS_WITH(dist::DistributedDataParallel(std::shared_ptr<nn::Module>(), g),
                    "DistributedDataParallel: the module is null");
}
