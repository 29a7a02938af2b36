// The MPI process group: collectives on tensors of any device and dtype, run by the
// group's communication thread on a contiguous host buffer (Note [Process groups]).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <mutex>

#include "core/check.h"
#include "distributed/comm_thread.h"
#include "distributed/group_impl.h"
#include "ember/autograd.h"
#include "ember/cuda.h"
#include "ember/half.h"
#include "ember/ops.h"

namespace ember::distributed::detail {

namespace {

void mpi_check(int rc, const char* op) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  EMBER_THROW(DeviceError, "{}: MPI failed: {}", op, std::string(text, size_t(len)));
}

// ---- half and bfloat16: MPI has no such types, so they travel as 16-bit words reduced by
// user ops through float (each rank's partial result rounds once, as a float buffer would).
struct Sum { float operator()(float a, float b) const { return a + b; } };
struct Max { float operator()(float a, float b) const { return a > b || b != b ? a : b; } };
struct Min { float operator()(float a, float b) const { return a < b || b != b ? a : b; } };
struct Prod { float operator()(float a, float b) const { return a * b; } };

template <class T, class F>
void reduce16(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = T(F()(float(a[i]), float(b[i])));
}

MPI_Op g_ops16[2][4];  // [half, bfloat16][SUM, MAX, MIN, PRODUCT]
bool g_ops16_created = false;
bool g_we_initialized = false;
std::mutex g_init_mutex;

template <class T>
void create_ops16_for(MPI_Op* ops) {
  mpi_check(MPI_Op_create(&reduce16<T, Sum>, 1, &ops[0]), "init_process_group");
  mpi_check(MPI_Op_create(&reduce16<T, Max>, 1, &ops[1]), "init_process_group");
  mpi_check(MPI_Op_create(&reduce16<T, Min>, 1, &ops[2]), "init_process_group");
  mpi_check(MPI_Op_create(&reduce16<T, Prod>, 1, &ops[3]), "init_process_group");
}

void create_ops16() {
  if (g_ops16_created) return;
  create_ops16_for<Half>(g_ops16[0]);
  create_ops16_for<BFloat16>(g_ops16[1]);
  g_ops16_created = true;
}

void ensure_mpi() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  EMBER_CHECK_TYPED(!finalized, DeviceError, "init_process_group: MPI has already been finalized in this process");
  int provided = 0;
  if (!initialized) {
    mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "init_process_group");
    g_we_initialized = true;
  } else {
    MPI_Query_thread(&provided);
  }
  // Every call comes from the group's thread, one at a time: SERIALIZED is enough.
  EMBER_CHECK_TYPED(provided >= MPI_THREAD_SERIALIZED, DeviceError,
                    "init_process_group: MPI was initialized with thread level {}, but ember needs "
                    "MPI_THREAD_SERIALIZED ({}) or better",
                    provided, int(MPI_THREAD_SERIALIZED));
  create_ops16();
}

MPI_Datatype mpi_type(ScalarType t) {
  switch (t) {
    case kBool:
    case kUInt8: return MPI_UINT8_T;
    case kInt8: return MPI_INT8_T;
    case kInt16: return MPI_INT16_T;
    case kInt32: return MPI_INT32_T;
    case kInt64: return MPI_INT64_T;
    case kHalf:
    case kBFloat16: return MPI_UINT16_T;
    case kFloat: return MPI_FLOAT;
    case kDouble: return MPI_DOUBLE;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp op, ScalarType t) {
  const int k = op == ReduceOp::MAX ? 1 : op == ReduceOp::MIN ? 2 : op == ReduceOp::PRODUCT ? 3 : 0;
  if (t == kHalf || t == kBFloat16) return g_ops16[t == kBFloat16][k];
  if (t == kBool) return k == 0 || k == 1 ? MPI_MAX : MPI_MIN;  // or / and, as NCCL's bool
  const MPI_Op plain[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
  return plain[k];
}

// AVG: the sum divided by the rank count; integers truncate toward zero (as NCCL's ncclAvg).
template <class T>
void divide_ints(Tensor& t, int n) {
  T* p = t.data_ptr<T>();
  for (int64_t i = 0, e = t.numel(); i < e; ++i) p[i] = T(p[i] / T(n));
}

void divide(Tensor& t, int n) {
  switch (t.dtype()) {
    case kUInt8: divide_ints<uint8_t>(t, n); break;
    case kInt8: divide_ints<int8_t>(t, n); break;
    case kInt16: divide_ints<int16_t>(t, n); break;
    case kInt32: divide_ints<int32_t>(t, n); break;
    case kInt64: divide_ints<int64_t>(t, n); break;
    default: t.div_(n);
  }
}

// A contiguous host buffer for one caller tensor: the tensor itself when it is a contiguous
// CPU tensor; else a copy made on the calling thread, so it holds the value at call time.
struct Staged {
  Tensor user;
  Tensor buf;
};

Staged stage_in(const Tensor& t) {
  NoGradGuard no_grad;
  if (t.is_cpu() && t.is_contiguous()) return {t, t};
  return {t, t.to(Device(kCPU)).contiguous()};
}

Staged stage_out(const Tensor& t) {
  if (t.is_cpu() && t.is_contiguous()) return {t, t};
  return {t, empty(t.sizes(), TensorOptions(t.dtype()))};
}

void sync_device(const Tensor& t) {
  if (t.is_cuda()) cuda::synchronize(t.device().index());
}

// Results land in the caller's (strided or device) tensor before the work completes.
void write_back(const Staged& s) {
  if (s.buf.is_same(s.user)) return;
  Tensor user = s.user;
  user.copy_(s.buf);
  sync_device(user);
}

int checked_count(int64_t n, const char* op) {
  EMBER_CHECK_TYPED(n <= INT_MAX, NotImplemented, "{}: {} elements per rank exceed MPI's int count ({})", op, n, INT_MAX);
  return int(n);
}

class MpiGroup final : public GroupImpl {
 public:
  explicit MpiGroup(const LaunchEnv& env) {
    ensure_mpi();
    mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "init_process_group");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if ((env.size >= 0 && env.size != size_) || (env.rank >= 0 && env.rank != rank_)) {
      const int want = env.size, r = rank_, s = size_;
      MPI_Comm_free(&comm_);
      EMBER_THROW(InvalidArgument,
                  "init_process_group: the launcher's environment says rank {} of {}, but MPI started rank {} of "
                  "{}; launch the processes with mpirun -np {}",
                  env.rank, want, r, s, std::max(want, 1));
    }
    thread_ = std::make_unique<CommThread>();
  }
  ~MpiGroup() override {
    thread_.reset();  // finishes the queued collectives first
    MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Backend backend() const override { return Backend::MPI; }

  std::shared_ptr<Work> all_reduce(Tensor& t, ReduceOp op, bool async) override {
    Staged s = stage_in(t);
    return thread_->run(
        [this, s, op] {
          Tensor b = s.buf;
          const MPI_Datatype type = mpi_type(b.dtype());
          const MPI_Op mop = mpi_op(op, b.dtype());
          char* p = static_cast<char*>(b.data_ptr());
          // MPI counts are int: large buffers go in pieces.
          constexpr int64_t kChunk = int64_t(1) << 30;
          for (int64_t at = 0, n = b.numel(); at < n; at += kChunk) {
            const int count = int(std::min(kChunk, n - at));
            mpi_check(MPI_Allreduce(MPI_IN_PLACE, p + at * int64_t(b.element_size()), count, type, mop, comm_),
                      "all_reduce");
          }
          if (op == ReduceOp::AVG) divide(b, size_);
          write_back(s);
        },
        async);
  }

  std::shared_ptr<Work> broadcast(Tensor& t, int root, bool async) override {
    Staged s = stage_in(t);
    return thread_->run(
        [this, s, root] {
          Tensor b = s.buf;
          char* p = static_cast<char*>(b.data_ptr());
          constexpr int64_t kChunk = int64_t(1) << 30;
          for (int64_t at = 0, n = b.numel(); at < n; at += kChunk) {
            const int count = int(std::min(kChunk, n - at));
            mpi_check(MPI_Bcast(p + at * int64_t(b.element_size()), count, mpi_type(b.dtype()), root, comm_),
                      "broadcast");
          }
          if (rank_ != root) write_back(s);
        },
        async);
  }

  std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async) override {
    const int count = checked_count(input.numel() * size_, "all_gather") / size_;
    Staged in = stage_in(input);
    Tensor flat = empty({input.numel() * size_}, TensorOptions(input.dtype()));
    return thread_->run(
        [this, in, flat, outputs, count] {
          const MPI_Datatype type = mpi_type(in.buf.dtype());
          mpi_check(MPI_Allgather(in.buf.data_ptr(), count, type, flat.data_ptr(), count, type, comm_), "all_gather");
          for (int r = 0; r < size_; ++r) {
            Tensor out = outputs[size_t(r)];
            out.copy_(flat.narrow(0, int64_t(r) * count, count).view(out.sizes()));
            sync_device(out);
          }
        },
        async);
  }

  std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                       bool async) override {
    const int count = checked_count(output.numel() * size_, "reduce_scatter") / size_;
    Tensor flat;
    {
      NoGradGuard no_grad;
      std::vector<Tensor> parts;
      for (const Tensor& in : inputs) parts.push_back(in.to(Device(kCPU)).reshape({-1}));
      flat = cat(parts);
    }
    Staged out = stage_out(output);
    return thread_->run(
        [this, flat, out, op, count] {
          Tensor b = out.buf;
          const MPI_Datatype type = mpi_type(b.dtype());
          mpi_check(MPI_Reduce_scatter_block(flat.data_ptr(), b.data_ptr(), count, type, mpi_op(op, b.dtype()), comm_),
                    "reduce_scatter");
          if (op == ReduceOp::AVG) divide(b, size_);
          write_back(out);
        },
        async);
  }

  void barrier() override {
    thread_->run([this] { mpi_check(MPI_Barrier(comm_), "barrier"); }, false);
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<CommThread> thread_;
};

}  // namespace

std::unique_ptr<GroupImpl> make_mpi_group(const LaunchEnv& env) { return std::make_unique<MpiGroup>(env); }

void finalize_mpi() {
  std::lock_guard<std::mutex> lock(g_init_mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_we_initialized && !finalized) MPI_Finalize();
}

}  // namespace ember::distributed::detail
