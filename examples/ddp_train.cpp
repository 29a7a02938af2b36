// Data-parallel training of the polynomial fit y = a x^3 + b x^2 + c x + d to sin(x) on
// [-pi, pi]: each rank fits its shard of the points, DistributedDataParallel averages the
// gradients, and every rank ends with the same coefficients.
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

  // Random on every rank; DDP broadcasts rank 0's values.
  ember::manual_seed(uint64_t(rank) + 1);
  std::vector<ember::Tensor> params;
  for (int i = 0; i < 4; ++i) params.push_back(ember::randn({}).requires_grad_(true));
  dist::DistributedDataParallel ddp(params, group);
  ember::Tensor &a = params[0], &b = params[1], &c = params[2], &d = params[3];

  const double lr = 0.005;  // x^6 reaches 961: much larger steps diverge
  for (int step = 0; step <= 2000; ++step) {
    ember::Tensor pred = a * my_x.pow(3) + b * my_x.pow(2) + c * my_x + d;
    ember::Tensor loss = (pred - my_y).pow(2).mean();
    loss.backward();  // gradients averaged across ranks before backward returns
    {
      ember::NoGradGuard no_grad;
      for (ember::Tensor& p : params) {
        p.sub_(p.grad() * lr);
        p.mutable_grad().zero_();
      }
    }
    if (step % 500 == 0) {
      ember::Tensor total = loss.detach().clone();
      group.all_reduce(total, dist::ReduceOp::AVG);
      if (rank == 0) std::cout << "step " << step << "  loss " << total.item<float>() << "\n";
    }
  }
  if (rank == 0)
    std::cout << "y = " << a.item<float>() << " x^3 + " << b.item<float>() << " x^2 + " << c.item<float>() << " x + "
              << d.item<float>() << "  (" << world << " ranks)\n";
  dist::destroy_process_group();
  return 0;
}

int main() {
  try {
    return train();
  } catch (const ember::Error& e) {  // e.g. ember built without MPI: the message says how to get it
    std::cerr << "ddp_train: " << e.what() << "\n";
    return 1;
  }
}
