// ProcessGroup: argument checks shared by the backends, and the default group's lifecycle
// (API.md section 13, Note [Process groups]).
#include <cstdlib>
#include <mutex>

#include "core/check.h"
#include "distributed/group_impl.h"
#include "tensor/tensor_factory.h"

namespace ember::distributed {

const char* name(Backend b) { return b == Backend::MPI ? "MPI" : "NCCL"; }

const char* name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::PRODUCT: return "PRODUCT";
  }
  return "?";
}

Work::~Work() = default;

namespace {

void check_tensor(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op, what);
}

void check_op(ReduceOp op, const Tensor& t, const char* fn) {
  EMBER_CHECK_ARG(int(op) >= 0 && int(op) <= int(ReduceOp::PRODUCT), "{}: invalid ReduceOp {}", fn, int(op));
  EMBER_CHECK_ARG(!(op == ReduceOp::AVG && t.dtype() == kBool), "{}: Cannot use ReduceOp.AVG with boolean inputs",
                  fn);
}

// One call's tensors must agree: same dtype, device and shape as the reference.
void check_like(const Tensor& t, const Tensor& ref, const char* op, const char* what, size_t i, const char* ref_name) {
  check_tensor(t, op, what);
  EMBER_CHECK_ARG(t.dtype() == ref.dtype(), "{}: {} {} has dtype {} but {} has dtype {}", op, what, i,
                  name(t.dtype()), ref_name, name(ref.dtype()));
  EMBER_CHECK_ARG(t.device() == ref.device(), "{}: {} {} is on {} but {} is on {}", op, what, i, t.device().str(),
                  ref_name, ref.device().str());
  EMBER_CHECK_ARG(t.sizes() == ref.sizes(), "{}: {} {} has shape {} but {} has shape {}", op, what, i,
                  ember::detail::shape_str(t.sizes()), ref_name, ember::detail::shape_str(ref.sizes()));
}

}  // namespace

ProcessGroup::ProcessGroup(std::unique_ptr<detail::GroupImpl> impl) : impl_(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;

detail::GroupImpl& ProcessGroup::impl(const char* op) const {
  EMBER_CHECK_ARG(impl_ != nullptr, "{}: the process group has been destroyed (destroy_process_group)", op);
  return *impl_;
}

int ProcessGroup::rank() const { return impl("rank").rank(); }
int ProcessGroup::size() const { return impl("size").size(); }
Backend ProcessGroup::backend() const { return impl("backend").backend(); }

std::shared_ptr<Work> ProcessGroup::all_reduce(Tensor& tensor, ReduceOp op, bool async) {
  detail::GroupImpl& g = impl("all_reduce");
  check_tensor(tensor, "all_reduce", "the tensor");
  check_op(op, tensor, "all_reduce");
  return g.all_reduce(tensor, op, async);
}

std::shared_ptr<Work> ProcessGroup::broadcast(Tensor& tensor, int root, bool async) {
  detail::GroupImpl& g = impl("broadcast");
  check_tensor(tensor, "broadcast", "the tensor");
  EMBER_CHECK_ARG(root >= 0 && root < g.size(), "broadcast: root {} is out of range for a group of {} ranks", root,
                  g.size());
  return g.broadcast(tensor, root, async);
}

std::shared_ptr<Work> ProcessGroup::all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async) {
  detail::GroupImpl& g = impl("all_gather");
  check_tensor(input, "all_gather", "the input");
  EMBER_CHECK_ARG(outputs.size() == size_t(g.size()),
                  "all_gather: expected {} output tensors (one per rank), got {}", g.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) check_like(outputs[i], input, "all_gather", "output", i, "the input");
  return g.all_gather(outputs, input, async);
}

std::shared_ptr<Work> ProcessGroup::reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                                                   bool async) {
  detail::GroupImpl& g = impl("reduce_scatter");
  check_tensor(output, "reduce_scatter", "the output");
  check_op(op, output, "reduce_scatter");
  EMBER_CHECK_ARG(inputs.size() == size_t(g.size()),
                  "reduce_scatter: expected {} input tensors (one per rank), got {}", g.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) check_like(inputs[i], output, "reduce_scatter", "input", i, "the output");
  return g.reduce_scatter(output, inputs, op, async);
}

void ProcessGroup::barrier() { impl("barrier").barrier(); }

void ProcessGroup::shutdown() { impl_.reset(); }

// ---- the default group

namespace detail {

namespace {
int env_int(const char* a, const char* b) {
  const char* v = std::getenv(a);
  if (!v) v = std::getenv(b);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  EMBER_CHECK_ARG(*end == '\0' && x >= 0 && x < (1L << 30), "init_process_group: {} is '{}', expected a rank count",
                  std::getenv(a) ? a : b, v);
  return int(x);
}
}  // namespace

LaunchEnv read_launch_env() {
  LaunchEnv e;
  e.rank = env_int("OMPI_COMM_WORLD_RANK", "RANK");
  e.size = env_int("OMPI_COMM_WORLD_SIZE", "WORLD_SIZE");
  e.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK");
  return e;
}

}  // namespace detail

namespace {

struct Registry {
  std::mutex mutex;
  ProcessGroup* current = nullptr;
  // Destroyed groups stay allocated (empty) so that old references throw instead of dangling.
  std::vector<std::unique_ptr<ProcessGroup>> all;
  bool exit_hook = false;
};

Registry& registry() {
  static Registry* r = new Registry();  // outlives the atexit hook that uses it
  return *r;
}

void at_exit() {
  destroy_process_group();
  detail::finalize_mpi();
}

}  // namespace

ProcessGroup& init_process_group(Backend backend) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  EMBER_CHECK_ARG(backend == Backend::MPI || backend == Backend::NCCL, "init_process_group: invalid backend {}",
                  int(backend));
  EMBER_CHECK_ARG(r.current == nullptr,
                  "init_process_group: trying to initialize the default process group twice (it uses the {} "
                  "backend; call destroy_process_group first)",
                  name(r.current ? r.current->backend() : backend));
  const detail::LaunchEnv env = detail::read_launch_env();
  std::unique_ptr<detail::GroupImpl> impl = detail::make_mpi_group(env);
  if (!r.exit_hook) {
    std::atexit(at_exit);
    r.exit_hook = true;
  }
  if (backend == Backend::NCCL) impl = detail::make_nccl_group(std::move(impl), env);
  r.all.push_back(std::make_unique<ProcessGroup>(std::move(impl)));
  r.current = r.all.back().get();
  return *r.current;
}

ProcessGroup& default_group() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  EMBER_CHECK_ARG(r.current != nullptr,
                  "default_group: Default process group has not been initialized, please make sure to call "
                  "init_process_group.");
  return *r.current;
}

bool is_initialized() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.current != nullptr;
}

void destroy_process_group() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.current) return;
  r.current->shutdown();
  r.current = nullptr;
}

}  // namespace ember::distributed
