// Data-parallel training of the polynomial fit y = a x^3 + b x^2 + c x + d to sin(x) on
// [-pi, pi], as nn::Linear(3, 1) over [x, x^2, x^3] with Adam: each rank fits its shard of
// the points, DistributedDataParallel averages the gradients, every rank ends the same.
//   mpirun -np 2 ./ddp_train                       (one machine)
//   mpirun -np 4 --hostfile hosts ./ddp_train      (across machines; see the README)
#include <ember/distributed.h>
#include <ember/ember.h>

#include <cmath>
#include <iostream>

namespace dist = ember::distributed;

int train() {
  dist::ProcessGroup& group = dist::init_process_group(dist::Backend::MPI);
  const int rank = group.rank(), world = group.size();

  const int64_t points = 2000;
  ember::Tensor x = ember::linspace(-M_PI, M_PI, points);
  ember::Tensor y = ember::sin(x);
  const int64_t shard = (points + world - 1) / world;
  const int64_t begin = std::min<int64_t>(points, rank * shard);
  ember::Tensor my_x = x.narrow(0, begin, std::min(shard, points - begin));
  ember::Tensor my_y = y.narrow(0, begin, my_x.size(0));

  // The tutorial's model: y = Linear(3, 1) of [x, x^2, x^3]. Random on every rank; DDP
  // broadcasts rank 0's weights, then averages the gradients in every backward.
  ember::manual_seed(uint64_t(rank) + 1);
  ember::nn::Linear model(3, 1);
  dist::DistributedDataParallel ddp(model, group);
  ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(0.1));
  ember::Tensor features = ember::stack({my_x, my_x.pow(2), my_x.pow(3)}, 1);

  double final_loss = 0;
  for (int step = 0; step <= 300; ++step) {
    opt.zero_grad();
    ember::Tensor loss = ember::nn::functional::mse_loss(ddp(features).squeeze(1), my_y);
    loss.backward();  // gradients averaged across ranks before backward returns
    opt.step();
    if (step % 100 == 0) {
      ember::Tensor total = loss.detach().clone();
      group.all_reduce(total, dist::ReduceOp::AVG);
      final_loss = total.item<double>();
      if (rank == 0) std::cout << "step " << step << "  loss " << final_loss << "\n";
    }
  }
  ember::Tensor w = model->weight.detach().flatten();
  if (rank == 0)
    std::cout << "y = " << w[2].item<float>() << " x^3 + " << w[1].item<float>() << " x^2 + " << w[0].item<float>()
              << " x + " << model->bias.item<float>() << "  (" << world << " ranks)\n";
  // The least-squares cubic for sin on [-pi, pi] leaves a mean squared error of 0.0044.
  const bool ok = final_loss < 0.005;
  if (rank == 0) std::cout << (ok ? "PASS" : "FAIL") << ": mean squared error below 0.005\n";
  dist::destroy_process_group();
  return ok ? 0 : 1;
}

int main() {
  try {
    return train();
  } catch (const ember::Error& e) {  // e.g. ember built without MPI: the message says how to get it
    std::cerr << "ddp_train: " << e.what() << "\n";
    return 1;
  }
}
