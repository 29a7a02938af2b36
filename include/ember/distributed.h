#pragma once
/// ember::distributed: process groups over MPI and NCCL and data-parallel training,
/// mirroring torch.distributed (API.md section 13, Note [Process groups]).

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/export.h"
#include "ember/nn/container.h"
#include "ember/nn/module.h"
#include "ember/tensor.h"

namespace ember::distributed {

/// MPI: tensors on any device (CUDA tensors staged through host memory); NCCL: CUDA tensors.
enum class Backend { MPI, NCCL };
enum class ReduceOp { SUM, AVG, MAX, MIN, PRODUCT };

/// "MPI", "NCCL"; "SUM", "AVG", ...
EMBER_API const char* name(Backend b);
EMBER_API const char* name(ReduceOp op);

/// The handle of one collective. wait() returns once the result is in the caller's tensors
/// (NCCL: once the current stream is ordered after it) and rethrows the collective's error.
class EMBER_API Work {
 public:
  virtual ~Work();
  virtual void wait() = 0;
  virtual bool is_completed() = 0;
};

namespace detail {
class GroupImpl;
}

/// A set of ranks that run collectives together; every rank calls the same collectives in
/// the same order. Async collectives run in call order on the group's communication
/// thread (MPI) or stream (NCCL); the tensors must not be touched until wait().
class EMBER_API ProcessGroup {
 public:
  explicit ProcessGroup(std::unique_ptr<detail::GroupImpl> impl);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;
  Backend backend() const;
  /// In place: every rank's tensor becomes the reduction over all ranks.
  std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async = false);
  /// In place: every rank's tensor becomes root's.
  std::shared_ptr<Work> broadcast(Tensor& tensor, int root = 0, bool async = false);
  /// outputs[r] receives rank r's input; one output per rank, each shaped as the input.
  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async = false);
  /// output receives the reduction over all ranks of inputs[rank]; one input per rank.
  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                       ReduceOp op = ReduceOp::SUM, bool async = false);
  /// Returns once every rank has called it (after this rank's earlier async collectives).
  void barrier();

  /// Ends the group's thread and communicator; later calls throw InvalidArgument.
  void shutdown();
  bool is_destroyed() const { return impl_ == nullptr; }

 private:
  detail::GroupImpl& impl(const char* op) const;
  std::unique_ptr<detail::GroupImpl> impl_;
};

/// Joins the launcher's job (mpirun: OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK; or RANK /
/// WORLD_SIZE / LOCAL_RANK) and makes the default group. LOCAL_RANK picks the GPU for NCCL.
/// NotImplemented when ember was built without the backend; InvalidArgument when called twice.
EMBER_API ProcessGroup& init_process_group(Backend backend);
/// The group made by init_process_group; InvalidArgument before it.
EMBER_API ProcessGroup& default_group();
EMBER_API bool is_initialized();
/// Ends the default group: references to it throw InvalidArgument on use, and
/// init_process_group may be called again. MPI itself is finalized at exit.
EMBER_API void destroy_process_group();

/// The module-independent core of DistributedDataParallel (torch's Reducer): averages the
/// gradients of `parameters` across the group's ranks during backward. Parameters go into
/// buckets of at most bucket_cap_mb in reverse registration order (one dtype and device per
/// bucket); a bucket's async all-reduce starts as soon as its last gradient is accumulated
/// and all earlier buckets started, and backward waits for every bucket before it returns.
/// A parameter without a gradient in a backward contributes zeros, so its bucket completes.
class EMBER_API Reducer {
 public:
  Reducer(std::vector<Tensor> parameters, ProcessGroup& group, double bucket_cap_mb = 25);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// Whether backward averages gradients (false inside no_sync()).
  void set_require_grad_sync(bool on);
  bool require_grad_sync() const;
  /// Parameter indices per bucket, in launch order.
  std::vector<std::vector<size_t>> bucket_indices() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Data-parallel training of a module (torch's DDP) or of a parameter list: parameters (and
/// a module's buffers) are broadcast from rank 0 at construction, then every backward
/// averages the parameters' gradients across ranks in buckets.
class EMBER_API DistributedDataParallel {
 public:
  explicit DistributedDataParallel(std::shared_ptr<nn::Module> module, ProcessGroup& group = default_group(),
                                   double bucket_cap_mb = 25);
  /// From a module pointer or handle (`DistributedDataParallel ddp(model)`); when its forward
  /// takes and returns one Tensor, `ddp(x)` / `ddp.forward(x)` call it.
  template <class M, class = std::enable_if_t<std::is_base_of_v<nn::Module, M>>>
  explicit DistributedDataParallel(std::shared_ptr<M> module, ProcessGroup& group = default_group(),
                                   double bucket_cap_mb = 25)
      : DistributedDataParallel(std::static_pointer_cast<nn::Module>(module), group, bucket_cap_mb) {
    if constexpr (nn::detail::has_unary_forward<M>::value)
      forward_ = [m = module.get()](const Tensor& x) { return m->forward(x); };  // module_ keeps it alive
  }
  template <class M>
  explicit DistributedDataParallel(const nn::ModuleHolder<M>& module, ProcessGroup& group = default_group(),
                                   double bucket_cap_mb = 25)
      : DistributedDataParallel(module.ptr(), group, bucket_cap_mb) {}
  explicit DistributedDataParallel(std::vector<Tensor> parameters, ProcessGroup& group = default_group(),
                                   double bucket_cap_mb = 25);

  /// The wrapped module's forward (InvalidArgument when built from a parameter list or a
  /// module without a one-Tensor forward).
  Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }
  /// The wrapped module (nullptr when built from a parameter list).
  const std::shared_ptr<nn::Module>& module() const { return module_; }
  const std::vector<Tensor>& parameters() const { return parameters_; }
  ProcessGroup& process_group() const { return *group_; }
  Reducer& reducer() { return *reducer_; }

  /// While alive, backward accumulates gradients locally (torch's DDP.no_sync()).
  class EMBER_API NoSyncGuard {
   public:
    explicit NoSyncGuard(Reducer& reducer) : reducer_(reducer), prev_(reducer.require_grad_sync()) {
      reducer_.set_require_grad_sync(false);
    }
    ~NoSyncGuard() { reducer_.set_require_grad_sync(prev_); }
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    Reducer& reducer_;
    bool prev_;
  };
  NoSyncGuard no_sync() { return NoSyncGuard(*reducer_); }

 private:
  void broadcast_from_rank0(const std::vector<Tensor>& buffers);

  std::shared_ptr<nn::Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
  std::vector<Tensor> parameters_;
  ProcessGroup* group_;
  std::unique_ptr<Reducer> reducer_;
};

}  // namespace ember::distributed
