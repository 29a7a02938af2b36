// Distributed figures (DESIGN.md performance table), run under mpirun:
//   mpirun -np 2 ./ember_dist_bench   all-reduce of 100 MB float32, ember vs raw MPI_Allreduce;
//                                      DDP step (half batch per rank) with bucketed overlap, with
//                                      one all-reduce after backward, and with no communication
//   mpirun -np 1 ./ember_dist_bench   the same step on the whole batch in one process
//   mpirun -np G ./ember_dist_bench --nccl   NCCL all-reduce bandwidth on G GPUs (one rank each)
// Each figure is the median of the repetitions, alternating the variants compared.
#include <mpi.h>

#include <ember/distributed.h>
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace dist = ember::distributed;
using ember::Tensor;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds of one call, synchronized across ranks so every rank measures the same collective.
double timed(const std::function<void()>& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = now_s();
  f();
  return now_s() - t0;
}

struct Mlp {
  std::vector<Tensor> params;
  explicit Mlp(const std::vector<int64_t>& widths) {
    for (size_t i = 0; i + 1 < widths.size(); ++i) {
      params.push_back((ember::randn({widths[i], widths[i + 1]}) / std::sqrt(double(widths[i]))).requires_grad_(true));
      params.push_back(ember::zeros({widths[i + 1]}).requires_grad_(true));
    }
  }
  Tensor loss(const Tensor& x, const Tensor& y) const {
    Tensor h = x;
    for (size_t i = 0; i < params.size(); i += 2) {
      h = ember::matmul(h, params[i]) + params[i + 1];
      if (i + 2 < params.size()) h = h.relu();
    }
    return (h - y).pow(2).mean();
  }
  void sgd() {
    ember::NoGradGuard no_grad;
    for (Tensor& p : params) {
      p.sub_(p.grad() * 0.01);
      p.mutable_grad().zero_();
    }
  }
};

// NCCL all-reduce of float32 CUDA tensors from 1 MB to 1 GB: the median time and the
// algorithm and bus bandwidths as nccl-tests reports them (bus = alg * 2 (n - 1) / n).
int nccl_bandwidth() {
  if (!ember::cuda::is_available()) {
    std::printf("ember_dist_bench --nccl: no GPU, nothing to measure\n");
    return 0;
  }
  dist::ProcessGroup& g = dist::init_process_group(dist::Backend::NCCL);
  const int world = g.size();
  // This rank's GPU, chosen as the NCCL group chooses it.
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local) local = std::getenv("LOCAL_RANK");
  const int device = local ? std::atoi(local) : g.rank() % ember::cuda::device_count();
  const auto opts = ember::TensorOptions(ember::kFloat).device(ember::Device(ember::kCUDA, device));
  if (g.rank() == 0) std::printf("NCCL all_reduce SUM, float32, %d rank(s)\n%12s %12s %12s %12s\n", world, "bytes", "time us", "algbw GB/s", "busbw GB/s");
  for (int64_t bytes : {int64_t(1) << 20, int64_t(16) << 20, int64_t(256) << 20, int64_t(1) << 30}) {
    Tensor t = ember::ones({bytes / 4}, opts);
    std::vector<double> times;
    for (int r = 0; r < 12; ++r) {
      const double s = timed([&] {
        g.all_reduce(t, dist::ReduceOp::SUM);
        ember::cuda::synchronize();
      });
      if (r >= 2) times.push_back(s);  // two warm-up rounds
    }
    const double sec = median(times), algbw = double(bytes) / sec / 1e9;
    if (g.rank() == 0)
      std::printf("%12lld %12.1f %12.1f %12.1f\n", (long long)bytes, 1e6 * sec, algbw, algbw * 2.0 * (world - 1) / world);
  }
  dist::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--nccl") return nccl_bandwidth();
  dist::ProcessGroup& g = dist::init_process_group(dist::Backend::MPI);
  const int rank = g.rank(), world = g.size();
  const int reps = 10;

  if (world > 1) {
    const int64_t n = 25 * 1000 * 1000;  // 100 MB of float32
    Tensor t = ember::ones({n});
    std::vector<float> raw(size_t(n), 1.0f);
    std::vector<double> ember_s, raw_s;
    for (int r = 0; r < reps + 1; ++r) {
      const double a = timed([&] { g.all_reduce(t, dist::ReduceOp::SUM); });
      const double b = timed([&] { MPI_Allreduce(MPI_IN_PLACE, raw.data(), int(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); });
      if (r > 0) {  // the first round pays page faults
        ember_s.push_back(a);
        raw_s.push_back(b);
      }
    }
    if (rank == 0)
      std::printf("all_reduce 100 MB float32, %d ranks: ember %.1f ms, raw MPI_Allreduce %.1f ms, ratio %.3f\n", world,
                  1e3 * median(ember_s), 1e3 * median(raw_s), median(ember_s) / median(raw_s));
  }

  // DDP step: 512-2048-2048-2048-16 MLP (~9.4M parameters, 38 MB of gradients), batch 256.
  const std::vector<int64_t> widths = {512, 2048, 2048, 2048, 16};
  const int64_t batch = 256, mine = batch / world;
  ember::manual_seed(1);
  Tensor x = ember::randn({batch, widths.front()}), y = ember::randn({batch, widths.back()});
  Tensor my_x = x.narrow(0, rank * mine, mine), my_y = y.narrow(0, rank * mine, mine);
  Mlp model(widths);
  dist::DistributedDataParallel ddp(model.params, g, /*bucket_cap_mb=*/4);
  auto step_overlap = [&] {
    model.loss(my_x, my_y).backward();
    model.sgd();
  };
  auto step_after = [&] {  // compute everything, then one all-reduce of all gradients
    {
      auto guard = ddp.no_sync();
      model.loss(my_x, my_y).backward();
    }
    std::vector<Tensor> flat;
    for (Tensor& p : model.params) flat.push_back(p.grad().reshape({-1}));
    Tensor all = ember::cat(flat);
    g.all_reduce(all, dist::ReduceOp::AVG);
    int64_t at = 0;
    for (Tensor& p : model.params) {
      p.mutable_grad().copy_(all.narrow(0, at, p.numel()).view(p.sizes()));
      at += p.numel();
    }
    model.sgd();
  };
  auto step_local = [&] {
    {
      auto guard = ddp.no_sync();
      model.loss(my_x, my_y).backward();
    }
    model.sgd();
  };
  std::vector<double> overlap_s, after_s, local_s;
  for (int r = 0; r < reps + 1; ++r) {
    const double a = timed(step_overlap), b = timed(step_after), c = timed(step_local);
    if (r > 0) {
      overlap_s.push_back(a);
      after_s.push_back(b);
      local_s.push_back(c);
    }
  }
  if (rank == 0) {
    if (world > 1)
      std::printf("DDP step, %d ranks x batch %lld: bucketed overlap %.1f ms, one all-reduce after backward %.1f ms, "
                  "no communication %.1f ms (%zu buckets of <= 4 MB)\n",
                  world, (long long)mine, 1e3 * median(overlap_s), 1e3 * median(after_s), 1e3 * median(local_s),
                  ddp.reducer().bucket_indices().size());
    else
      std::printf("one process, whole batch %lld: step %.1f ms\n", (long long)batch, 1e3 * median(local_s));
  }
  dist::destroy_process_group();
  return 0;
}
