// The NCCL process group: collectives on CUDA tensors of this rank's GPU, enqueued on the
// group's own stream after the caller's current stream (an event orders them); the Work's
// wait() orders the caller's current stream after the collective (Note [Process groups]).
#include <nccl.h>

#include <cstring>
#include <map>
#include <mutex>

#include "core/check.h"
#include "cuda/cuda_check.h"
#include "cuda/cuda_context.h"
#include "distributed/group_impl.h"
#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/ops.h"

namespace ember::distributed::detail {

namespace {

void nccl_check(ncclResult_t r, const char* op) {
  EMBER_CHECK_TYPED(r == ncclSuccess, DeviceError, "{}: NCCL failed: {}", op, ncclGetErrorString(r));
}

ncclDataType_t nccl_type(ScalarType t, const char* op) {
  switch (t) {
    case kBool:
    case kUInt8: return ncclUint8;
    case kInt8: return ncclInt8;
    case kInt32: return ncclInt32;
    case kInt64: return ncclInt64;
    case kHalf: return ncclFloat16;
    case kBFloat16: return ncclBfloat16;
    case kFloat: return ncclFloat32;
    case kDouble: return ncclFloat64;
    case kInt16: break;
  }
  EMBER_THROW(NotImplemented, "{}: NCCL has no int16 type; use int32 or the MPI backend", op);
}

ncclRedOp_t nccl_op(ReduceOp op, ScalarType t) {
  if (t == kBool) return op == ReduceOp::MIN || op == ReduceOp::PRODUCT ? ncclMin : ncclMax;  // and / or
  switch (op) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::AVG: return ncclAvg;
    case ReduceOp::MAX: return ncclMax;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::PRODUCT: return ncclProd;
  }
  return ncclSum;
}

class EventWork final : public Work {
 public:
  EventWork(int device, cudaEvent_t done) : device_(device), done_(done) {}
  ~EventWork() override { cudaEventDestroy(done_); }
  void wait() override {
    ember::detail::CudaDeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(ember::detail::cuda_current_stream(device_), done_, 0));
  }
  bool is_completed() override {
    const cudaError_t e = cudaEventQuery(done_);
    if (e == cudaErrorNotReady) return false;
    EMBER_CUDA_CHECK(e);
    return true;
  }

 private:
  int device_;
  cudaEvent_t done_;
};

// One collective stream per device for the whole process, never destroyed: tensors used
// by a collective are record_stream'ed on it, and a tensor freed after its group was
// destroyed (a DDP outliving destroy_process_group) still records an event on it.
cudaStream_t comm_stream(int device) {
  static std::mutex mutex;
  static std::map<int, cudaStream_t> streams;
  std::lock_guard<std::mutex> lock(mutex);
  cudaStream_t& s = streams[device];
  if (!s) {
    ember::detail::CudaDeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  return s;
}

class NcclGroup final : public GroupImpl {
 public:
  NcclGroup(std::unique_ptr<GroupImpl> bootstrap, const LaunchEnv& env) : boot_(std::move(bootstrap)) {
    rank_ = boot_->rank();
    size_ = boot_->size();
    const int gpus = ember::detail::cuda_device_count();
    EMBER_CHECK_ARG(gpus > 0, "init_process_group: the NCCL backend needs a GPU, and rank {} sees none", rank_);
    device_ = env.local_rank >= 0 ? env.local_rank : rank_ % gpus;
    EMBER_CHECK_ARG(device_ < gpus,
                    "init_process_group: LOCAL_RANK is {} but this machine has {} GPUs; run one process per GPU",
                    device_, gpus);
    // The unique id travels from rank 0 over MPI.
    ncclUniqueId id;
    if (rank_ == 0) nccl_check(ncclGetUniqueId(&id), "init_process_group");
    Tensor bytes = empty({int64_t(sizeof id)}, TensorOptions(kUInt8));
    if (rank_ == 0) std::memcpy(bytes.data_ptr(), &id, sizeof id);
    boot_->broadcast(bytes, 0, false);
    std::memcpy(&id, bytes.data_ptr(), sizeof id);
    ember::detail::CudaDeviceGuard guard(device_);
    nccl_check(ncclCommInitRank(&comm_, size_, id, rank_), "init_process_group");
    stream_ = comm_stream(device_);
  }
  ~NcclGroup() override {
    ember::detail::CudaDeviceGuard guard(device_);
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Backend backend() const override { return Backend::NCCL; }

  std::shared_ptr<Work> all_reduce(Tensor& t, ReduceOp op, bool async) override {
    check_device(t, "all_reduce");
    const ncclDataType_t type = nccl_type(t.dtype(), "all_reduce");
    Tensor buf = dense(t);
    return launch({t, buf}, async, [&] {
      nccl_check(ncclAllReduce(buf.data_ptr(), buf.data_ptr(), size_t(buf.numel()), type, nccl_op(op, t.dtype()), comm_,
                               stream_),
                 "all_reduce");
      if (!buf.is_same(t)) t.copy_(buf);
    });
  }

  std::shared_ptr<Work> broadcast(Tensor& t, int root, bool async) override {
    check_device(t, "broadcast");
    const ncclDataType_t type = nccl_type(t.dtype(), "broadcast");
    Tensor buf = dense(t);
    return launch({t, buf}, async, [&] {
      nccl_check(ncclBroadcast(buf.data_ptr(), buf.data_ptr(), size_t(buf.numel()), type, root, comm_, stream_),
                 "broadcast");
      if (!buf.is_same(t)) t.copy_(buf);
    });
  }

  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async) override {
    check_device(input, "all_gather");
    const ncclDataType_t type = nccl_type(input.dtype(), "all_gather");
    Tensor in = dense(input);
    Tensor flat = empty({input.numel() * size_}, input.options());
    std::vector<Tensor> touched = outputs;
    touched.push_back(in);
    touched.push_back(flat);
    return launch(touched, async, [&] {
      nccl_check(ncclAllGather(in.data_ptr(), flat.data_ptr(), size_t(in.numel()), type, comm_, stream_), "all_gather");
      for (int r = 0; r < size_; ++r)
        outputs[size_t(r)].copy_(flat.narrow(0, r * input.numel(), input.numel()).view(input.sizes()));
    });
  }

  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                       bool async) override {
    check_device(output, "reduce_scatter");
    const ncclDataType_t type = nccl_type(output.dtype(), "reduce_scatter");
    Tensor flat;
    {
      NoGradGuard no_grad;
      std::vector<Tensor> parts;
      for (const Tensor& in : inputs) parts.push_back(in.reshape({-1}));
      flat = cat(parts);
    }
    Tensor out = output.is_contiguous() ? output : empty(output.sizes(), output.options());
    return launch({output, out, flat}, async, [&] {
      nccl_check(ncclReduceScatter(flat.data_ptr(), out.data_ptr(), size_t(out.numel()), type,
                                   nccl_op(op, output.dtype()), comm_, stream_),
                 "reduce_scatter");
      if (!out.is_same(output)) output.copy_(out);
    });
  }

  void barrier() override {
    Tensor one = ones({1}, TensorOptions(kFloat).device(Device(kCUDA, device_)));
    all_reduce(one, ReduceOp::SUM, false);
    ember::detail::CudaDeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  void check_device(const Tensor& t, const char* op) const {
    EMBER_CHECK_ARG(t.is_cuda() && t.device().index() == device_,
                    "{}: the NCCL backend takes CUDA tensors on this rank's GPU cuda:{}, got a tensor on {}", op,
                    device_, t.device().str());
  }

  // A contiguous tensor with t's values, made on the caller's stream (t itself when dense).
  static Tensor dense(const Tensor& t) {
    NoGradGuard no_grad;
    return t.contiguous();
  }

  // Orders the group's stream after the caller's, enqueues, and records the work's event.
  template <class F>
  std::shared_ptr<Work> launch(const std::vector<Tensor>& touched, bool async, F&& enqueue) {
    ember::detail::CudaDeviceGuard guard(device_);
    NoGradGuard no_grad;
    cudaEvent_t ready = nullptr, done = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    cudaEventRecord(ready, ember::detail::cuda_current_stream(device_));
    cudaStreamWaitEvent(stream_, ready, 0);
    cudaEventDestroy(ready);
    {
      cuda::StreamGuard on_group_stream(cuda::Stream(device_, stream_));
      enqueue();
    }
    // The caching allocator must not hand these blocks to the caller's stream before NCCL is done.
    for (const Tensor& t : touched) t.record_stream(cuda::Stream(device_, stream_));
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaEventRecord(done, stream_);
    auto work = std::make_shared<EventWork>(device_, done);
    if (!async) work->wait();
    return work;
  }

  std::unique_ptr<GroupImpl> boot_;
  int rank_ = 0, size_ = 1, device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<GroupImpl> make_nccl_group(std::unique_ptr<GroupImpl> bootstrap, const LaunchEnv& env) {
  return std::make_unique<NcclGroup>(std::move(bootstrap), env);
}

}  // namespace ember::distributed::detail
