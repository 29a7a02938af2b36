#pragma once
// The backend side of a ProcessGroup (Note [Process groups] in DESIGN.md). ProcessGroup
// validates every call; an implementation receives arguments already checked against
// each other and against the group.

#include <memory>
#include <vector>

#include "ember/distributed.h"

namespace ember::distributed::detail {

class GroupImpl {
 public:
  virtual ~GroupImpl() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Backend backend() const = 0;
  virtual std::shared_ptr<Work> all_reduce(Tensor& t, ReduceOp op, bool async) = 0;
  virtual std::shared_ptr<Work> broadcast(Tensor& t, int root, bool async) = 0;
  virtual std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async) = 0;
  virtual std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                               bool async) = 0;
  virtual void barrier() = 0;
};

/// What the launcher says about this process; -1 where it says nothing.
struct LaunchEnv {
  int rank = -1;
  int size = -1;
  int local_rank = -1;
};
LaunchEnv read_launch_env();

/// The MPI group over all processes of the job (initializes MPI on first use). Defined in
/// mpi_group.cpp, or in no_mpi.cpp, which throws NotImplemented.
std::unique_ptr<GroupImpl> make_mpi_group(const LaunchEnv& env);
/// Finalizes MPI at exit when ember initialized it.
void finalize_mpi();
/// The NCCL group for this process's GPU (env.local_rank), its unique id broadcast over
/// `bootstrap`, which it keeps. kernels/cuda/nccl_group.cpp, or kernels/no_nccl.cpp.
std::unique_ptr<GroupImpl> make_nccl_group(std::unique_ptr<GroupImpl> bootstrap, const LaunchEnv& env);

}  // namespace ember::distributed::detail
