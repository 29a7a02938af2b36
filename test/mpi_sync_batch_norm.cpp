// SyncBatchNorm on 2 ranks (CTest label mpi): each rank normalizes its half of a batch and
// must get what one process gets from BatchNorm over the whole batch: outputs, running
// statistics, the input gradient, and (summed over the ranks) the weight and bias gradients.
#include <ember/distributed.h>
#include <ember/ember.h>

#include <catch2/catch.hpp>

#include "test_util.h"

using namespace ember;
using ember_test::check_close;
namespace dist = ember::distributed;

TEST_CASE("mpi: SyncBatchNorm over the ranks equals BatchNorm over the whole batch") {
  dist::ProcessGroup& pg = ember_test::mpi_group();
  REQUIRE(pg.size() == 2);
  const int64_t rank = pg.rank();
  // The same numbers on every rank; ranks hold unequal parts (5 and 3 samples).
  manual_seed(42);
  const Tensor x = randn({8, 3, 4, 5}, kDouble) * 2 + 1, g = randn({8, 3, 4, 5}, kDouble);
  const int64_t begin = rank == 0 ? 0 : 5, len = rank == 0 ? 5 : 3;

  nn::BatchNorm2d whole(nn::BatchNormOptions(3).momentum(0.3));
  nn::SyncBatchNorm part(nn::BatchNormOptions(3).momentum(0.3));
  whole->to(kDouble);
  part->to(kDouble);
  for (auto* m : {&whole->weight, &whole->bias}) m->data().uniform_(0.5, 1.5);
  part->weight.data().copy_(whole->weight);
  part->bias.data().copy_(whole->bias);

  const Tensor xw = x.clone().requires_grad_(), xp = x.narrow(0, begin, len).clone().requires_grad_();
  const Tensor yw = whole->forward(xw), yp = part->forward(xp);
  CHECK(yp.grad_fn()->name() == "SyncBatchNormBackward");
  check_close(yp, yw.narrow(0, begin, len), 1e-10, "output");
  check_close(part->running_mean, whole->running_mean, 1e-10, "running mean");
  check_close(part->running_var, whole->running_var, 1e-10, "running var");
  CHECK(part->num_batches_tracked.item<int64_t>() == 1);

  (yw * g).sum().backward();
  (yp * g.narrow(0, begin, len)).sum().backward();
  check_close(xp.grad(), xw.grad().narrow(0, begin, len), 1e-10, "input gradient");
  // Local weight and bias gradients: their sum over the ranks is the whole batch's.
  Tensor gw = part->weight.grad().clone(), gb = part->bias.grad().clone();
  pg.all_reduce(gw);
  pg.all_reduce(gb);
  check_close(gw, whole->weight.grad(), 1e-10, "weight gradient, summed");
  check_close(gb, whole->bias.grad(), 1e-10, "bias gradient, summed");

  // Eval uses the running statistics, like BatchNorm, with no collective.
  part->eval();
  whole->eval();
  NoGradGuard no_grad;
  check_close(part->forward(x), whole->forward(x), 1e-10, "eval output");
}

TEST_CASE("mpi: sync_batch_norm in float32 and its errors") {
  dist::ProcessGroup& pg = ember_test::mpi_group();
  manual_seed(7 + uint64_t(pg.rank()));  // different data per rank
  const Tensor x = randn({4, 6, 7});
  const Tensor y = sync_batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
  // Whole-batch statistics: gather both halves and normalize them in one process.
  std::vector<Tensor> parts = {empty_like(x), empty_like(x)};
  pg.all_gather(parts, x);
  const Tensor all = cat(parts, 0);
  const Tensor want = batch_norm(all, {}, {}, {}, {}, true, 0.1, 1e-5).narrow(0, 4 * pg.rank(), 4);
  CHECK((y - want).abs().max().item<double>() <= 1e-5);
  CHECK_THROWS_AS(sync_batch_norm(randn({4, 6, 7}), randn({5}), {}, {}, {}, true, 0.1, 1e-5),
                  InvalidArgument);
  CHECK_THROWS_AS(sync_batch_norm(randint(0, 3, {4, 6}), {}, {}, {}, {}, true, 0.1, 1e-5), NotImplemented);
}
