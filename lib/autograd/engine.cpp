// The backward engine: runs the nodes reachable from the roots in dependency order on
// the calling thread (Note [Autograd]). All state of one pass lives in a GraphTask on
// this thread's stack, so independent graphs may run backward from several threads.
//
// Note [Backward streams]
// As in libtorch, a node's backward runs on the stream its forward ran on (Node::stream_,
// the device's current stream when the node was recorded), and the engine inserts the
// waits that make it safe: a root node's stream waits for the caller's current stream (the
// seed gradients were made there); a gradient that reaches a node on another stream of
// its device is waited for, recorded as in use there (the caching allocator), and summed
// on the consumer's stream; at the end the caller's current streams wait for every stream
// the pass ran on, so the caller may use .grad at once. The CPU has no streams: a node on
// the CPU skips each of these steps without a backend call. (A null stream is a device's
// default stream, not the absence of one.)
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>

#include "autograd/accumulate_grad.h"
#include "autograd/node.h"
#include "core/check.h"
#include "dispatch/autocast.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "ember/warning.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "placement/device_streams.h"
#include "placement/placement.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd {

namespace {

// As libtorch's: a flag set by set_enabled and by the guards, which count themselves under a lock.
std::atomic<bool> g_anomaly_enabled{false};
std::atomic<bool> g_anomaly_check_nan{true};
std::mutex g_anomaly_mutex;
int g_anomaly_guards = 0;

// Anomaly mode's node call: a NaN in a gradient it gives is an error, and an error is named
// in a warning first, then each node whose backward recorded it (a double backward's), as
// libtorch's (ember keeps no forward traceback).
variable_list apply_with_anomaly_checks(Node& node, variable_list&& in) {
  struct Evaluating {
    Node* previous;
    explicit Evaluating(Node& n) : previous(detail::set_anomaly_node(&n)) {}
    ~Evaluating() { detail::set_anomaly_node(previous); }
  };
  variable_list out;
  try {
    Evaluating evaluating(node);
    out = node.apply(std::move(in));
    if (AnomalyMode::should_check_nan())
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i].defined() && out[i].is_floating_point() && ember::isnan(out[i]).any().item<bool>())
          EMBER_THROW(InvalidArgument, "Function '{}' returned nan values in its {}th output.", node.name(), i);
  } catch (...) {
    EMBER_WARN("Error detected in ", node.name(), ". Traceback of forward call that caused the error:\n",
               "(ember records no forward traceback)");
    for (auto parent = node.anomaly_parent_.lock(); parent; parent = parent->anomaly_parent_.lock())
      EMBER_WARN("\n\nPrevious calculation was induced by ", parent->name(),
                 ". Traceback of forward call that induced the previous calculation:\n",
                 "(ember records no forward traceback)");
    throw;
  }
  return out;
}

struct NodeState {
  int pending = 0;           // gradients still to arrive from other nodes
  variable_list buffer;      // one slot per input of the node
  bool needed = true;        // grad(): the node leads to an input we capture
};

struct Capture {
  Node* fn;
  uint32_t nr;
  size_t index;
};

struct ByOrder {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr_ < b->sequence_nr_; }
};

// Whether `shape` broadcasts to `desired` (libtorch's is_expandable_to).
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 1; i <= shape.size(); ++i) {
    const int64_t s = shape[shape.size() - i], d = desired[desired.size() - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

// The gradient as the forward input was: summed over broadcast dims, in its dtype, on its device.
Tensor shape_like_input(Tensor g, const InputMeta& m, const Node& node, size_t i) {
  if (g.sizes() != m.sizes.ref()) {
    EMBER_CHECK_ARG(is_expandable_to(m.sizes.ref(), g.sizes()),
                    "Function {} returned an invalid gradient at index {} - got {} but expected shape "
                    "compatible with {}",
                    node.name(), i, ember::detail::shape_str(g.sizes()), ember::detail::shape_str(m.sizes.ref()));
    g = sum_to(g, m.sizes.ref());
  }
  if (g.dtype() != m.dtype || g.device() != m.device) g = g.to(m.device, m.dtype);
  return g;
}

// As libtorch's InputBuffer: a buffer nothing else can see (this pass holds its only
// reference and its storage's) is summed into in place, without an allocation and in the
// buffer's own memory order (a transposed weight's per-step gradients stay a unit-stride
// walk). Under create_graph the sum must be recorded, so it is a new tensor.
void accumulate(Tensor& slot, Tensor g) {
  if (!slot.defined()) {
    slot = std::move(g);
    return;
  }
  const TensorImpl* impl = slot.unsafe_impl();
  const bool sole_owner = slot.use_count() == 1 && impl->storage_.use_count() == 1;
  if (sole_owner && !GradMode::is_enabled() && slot.dtype() == g.dtype() && !impl->is_inference_ &&
      !slot.requires_grad() && ember::detail::non_overlapping_and_dense(slot))
    slot.add_(g);
  else
    slot = slot + g;
}

// The streams a pass ran nodes on (Note [Backward streams]); the caller's streams wait for them at the end.
struct UsedStream {
  Device device;
  void* stream;
};
void note_stream(std::vector<UsedStream>& used, const Node& node) {
  for (const UsedStream& u : used)
    if (u.stream == node.stream_ && u.device == node.device_) return;
  used.push_back({node.device_, node.stream_});
}

// Gradient g, ready on stream `ready` of its device, into a slot of `consumer`'s buffer.
void accumulate_for(Tensor& slot, Tensor g, void* ready, const Node& consumer) {
  if (consumer.device_.type() == kCPU || g.device() != consumer.device_) return accumulate(slot, std::move(g));
  if (ready != consumer.stream_) {
    ember::detail::stream_wait(consumer.device_, consumer.stream_, ready);
    ember::detail::record_stream_use(g, consumer.stream_);
  }
  if (!slot.defined()) {
    slot = std::move(g);  // no kernel: nothing to put on a stream
    return;
  }
  ember::detail::StreamScope on_consumer(consumer.device_, consumer.stream_);
  accumulate(slot, std::move(g));
}

// At the end of a pass, also one that throws: the caller's current streams wait for every
// stream the pass ran nodes on, so .grad is safe to use on them.
struct CallerStreamsWait {
  std::vector<UsedStream> used;
  CallerStreamsWait() = default;
  CallerStreamsWait(const CallerStreamsWait&) = delete;
  CallerStreamsWait& operator=(const CallerStreamsWait&) = delete;
  void run() noexcept {
    for (const UsedStream& u : used) try {
        ember::detail::stream_wait(u.device, ember::detail::current_stream_of(u.device), u.stream);
      } catch (...) {  // a failing device has already made the pass throw
      }
    used.clear();
  }
  ~CallerStreamsWait() { run(); }
};

void run_hooks(Node& node, variable_list& inputs) {
  for (const Node::PreHook& h : node.pre_hooks_) {
    Tensor& g = inputs[h.nr];
    if (!g.defined()) continue;
    Tensor r = h.fn(g);
    if (r.defined()) g = r;
  }
}

// The final callbacks of the pass running on this thread (queue_callback); null outside one.
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;

struct FinalCallbacksScope {
  explicit FinalCallbacksScope(std::vector<std::function<void()>>* mine) : prev(t_final_callbacks) {
    t_final_callbacks = mine;
  }
  ~FinalCallbacksScope() { t_final_callbacks = prev; }
  std::vector<std::function<void()>>* prev;
};

// The pass running on this thread when it computes only some inputs' gradients (grad(),
// backward(inputs=)): which nodes it runs, for AutogradContext::needs_input_grad. Null
// otherwise, when every node runs.
struct TrimmedPass {
  const std::unordered_map<Node*, NodeState>* state;
  const std::unordered_map<Node*, bool>* target;
};
thread_local const TrimmedPass* t_trimmed_pass = nullptr;

struct TrimmedPassScope {
  explicit TrimmedPassScope(const TrimmedPass* mine) : prev(t_trimmed_pass) { t_trimmed_pass = mine; }
  ~TrimmedPassScope() { t_trimmed_pass = prev; }
  const TrimmedPass* prev;
};

// Note [Deep reentrant backward]
// A custom Function's backward may run a backward pass of its own, which may do the same:
// each level nests a pass (and a DeviceScope) on the caller's stack. Past
// kPassesPerThread nested passes, as libtorch past its max_recursion_depth, the next pass
// runs on a reentrant worker thread while this one waits, so that any depth fits in the
// threads' stacks and scope stacks. Workers are kept for reuse (per-thread library handles
// are made once each), and a pass runs there in its caller's state: warning handler,
// InferenceMode, innermost DeviceScope and every device's current stream (Note [Backward streams]).
constexpr int kPassesPerThread = 32;
thread_local int t_pass_depth = 0;

struct PassDepth {
  PassDepth() { ++t_pass_depth; }
  ~PassDepth() { --t_pass_depth; }
  PassDepth(const PassDepth&) = delete;
  PassDepth& operator=(const PassDepth&) = delete;
};

class ReentrantWorkers {
 public:
  // Never destroyed: idle workers wait on it until the process ends.
  static ReentrantWorkers& get() {
    static auto* workers = new ReentrantWorkers;
    return *workers;
  }

  /// Runs task (which must not throw) on an idle worker and waits for it.
  void run(const std::function<void()>& task) {
    Worker* w = take();
    {
      std::lock_guard<std::mutex> lock(w->mutex);
      w->task = &task;
      w->done = false;
    }
    w->cv.notify_all();
    {
      std::unique_lock<std::mutex> lock(w->mutex);
      w->cv.wait(lock, [w] { return w->done; });
    }
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(w);
  }

 private:
  struct Worker {
    std::mutex mutex;
    std::condition_variable cv;
    const std::function<void()>* task = nullptr;
    bool done = false;
  };

  Worker* take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        Worker* w = idle_.back();
        idle_.pop_back();
        return w;
      }
    }
    auto* w = new Worker;  // lives as long as its thread, the process
    std::thread([w] { serve(w); }).detach();
    return w;
  }

  static void serve(Worker* w) {
    std::unique_lock<std::mutex> lock(w->mutex);
    for (;;) {
      w->cv.wait(lock, [w] { return w->task != nullptr; });
      const std::function<void()>* task = w->task;
      lock.unlock();
      (*task)();
      lock.lock();
      w->task = nullptr;
      w->done = true;
      w->cv.notify_all();
    }
  }

  std::mutex mutex_;
  std::vector<Worker*> idle_;
};

template <class F>
variable_list on_reentrant_worker(F&& pass) {
  variable_list result;
  std::exception_ptr error;
  WarningHandler* const handler = get_warning_handler();
  const bool inference = InferenceMode::is_enabled();
  Device scope_device(kCPU, 0);
  const bool scoped = ember::detail::scope_device(&scope_device);
  const std::vector<std::pair<Device, void*>> streams = ember::detail::current_streams();
  const std::function<void()> task = [&] {
    set_warning_handler(handler);
    try {
      InferenceMode inference_mode(inference);
      std::optional<DeviceScope> scope;
      if (scoped) scope.emplace(scope_device);
      std::vector<std::unique_ptr<ember::detail::StreamScope>> on_streams;
      for (const auto& [d, stream] : streams) on_streams.push_back(std::make_unique<ember::detail::StreamScope>(d, stream));
      result = pass();
    } catch (...) {
      error = std::current_exception();
    }
    set_warning_handler(nullptr);
  };
  ReentrantWorkers::get().run(task);
  if (error) std::rethrow_exception(error);
  return result;
}

variable_list execute_here(const std::vector<Edge>& roots, variable_list root_grads, bool keep_graph,
                           bool create_graph, const std::vector<Edge>* inputs);

// Runs the pass; with captures (grad()), stops at the captured edges and returns their gradients.
variable_list execute(const std::vector<Edge>& roots, variable_list root_grads, bool keep_graph, bool create_graph,
                      const std::vector<Edge>* inputs) {
  if (t_pass_depth < kPassesPerThread) {
    PassDepth depth;
    return execute_here(roots, std::move(root_grads), keep_graph, create_graph, inputs);
  }
  return on_reentrant_worker([&] {
    PassDepth depth;
    return execute_here(roots, std::move(root_grads), keep_graph, create_graph, inputs);
  });
}

variable_list execute_here(const std::vector<Edge>& roots, variable_list root_grads, bool keep_graph,
                           bool create_graph, const std::vector<Edge>* inputs) {
  std::unordered_map<Node*, NodeState> state;
  state.reserve(16);
  std::vector<Node*> order;  // discovery order
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    Node* n = e.function.get();
    if (state.emplace(n, NodeState{}).second) {
      stack.push_back(n);
      order.push_back(n);
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges_) {
      if (!e.is_valid()) continue;
      Node* c = e.function.get();
      auto [it, fresh] = state.emplace(c, NodeState{});
      ++it->second.pending;
      if (fresh) {
        stack.push_back(c);
        order.push_back(c);
      }
    }
  }
  for (Node* n : order) state[n].buffer.resize(n->num_inputs_);

  std::vector<Capture> captures;
  variable_list captured;
  std::unordered_map<Node*, bool> target;
  if (inputs) {
    captured.resize(inputs->size());
    for (size_t i = 0; i < inputs->size(); ++i) {
      Node* fn = (*inputs)[i].function.get();
      captures.push_back({fn, (*inputs)[i].input_nr, i});
      target[fn] = true;
    }
    // A node runs only when some captured edge lies below it: a fixed point over the graph.
    for (Node* n : order) state[n].needed = false;
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        NodeState& s = state[*it];
        if (s.needed) continue;
        for (const Edge& e : (*it)->next_edges_)
          if (e.is_valid() && (target.count(e.function.get()) || state[e.function.get()].needed)) {
            s.needed = true;
            changed = true;
            break;
          }
      }
    }
  }

  for (size_t i = 0; i < roots.size(); ++i) {
    Node& root = *roots[i].function;
    Tensor& slot = state[&root].buffer[roots[i].input_nr];
    const Tensor& g = root_grads[i];
    accumulate_for(slot, g, ember::detail::current_stream_of(g.device()), root);
  }
  CallerStreamsWait caller_waits;

  std::priority_queue<Node*, std::vector<Node*>, ByOrder> ready;
  for (Node* n : order)
    if (state[n].pending == 0) ready.push(n);

  const TrimmedPass trimmed{&state, &target};
  TrimmedPassScope trimmed_scope(inputs ? &trimmed : nullptr);
  AutoGradMode mode(create_graph);
  ember::detail::AutocastOff no_autocast;  // each gradient in its forward's dtype
  std::vector<std::function<void()>> final_callbacks;
  FinalCallbacksScope callbacks_scope(&final_callbacks);
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    NodeState& s = state[node];
    variable_list in = std::move(s.buffer);
    DeviceScope scope(node->device_);
    ember::detail::StreamScope on_stream(node->device_, node->stream_);
    if (node->device_.type() != kCPU) note_stream(caller_waits.used, *node);
    if (!node->pre_hooks_.empty()) run_hooks(*node, in);
    for (const Capture& c : captures)
      if (c.fn == node && in[c.nr].defined()) {
        if (captured[c.index].defined()) captured[c.index] = captured[c.index] + in[c.nr];
        else captured[c.index] = in[c.nr];
      }
    if (!s.needed) {
      // Not on the way to a captured input: its children still wait for nothing from it.
      for (const Edge& e : node->next_edges_)
        if (e.is_valid() && --state[e.function.get()].pending == 0) ready.push(e.function.get());
      continue;
    }
    variable_list out = AnomalyMode::is_enabled() ? apply_with_anomaly_checks(*node, std::move(in))
                                                  : node->apply(std::move(in));
    if (!keep_graph) node->release_variables();
    for (size_t i = 0; i < node->next_edges_.size(); ++i) {
      const Edge& e = node->next_edges_[i];
      if (!e.is_valid()) continue;
      NodeState& cs = state[e.function.get()];
      if (i < out.size() && out[i].defined()) {
        DeviceScope input_scope(node->input_meta_[i].device);
        Tensor g = shape_like_input(std::move(out[i]), node->input_meta_[i], *node, i);
        // On the node's device g is ready on its stream; on another, on that device's current stream.
        void* g_ready = g.device() == node->device_ ? node->stream_ : ember::detail::current_stream_of(g.device());
        accumulate_for(cs.buffer[e.input_nr], std::move(g), g_ready, *e.function);
      }
      if (--cs.pending == 0) ready.push(e.function.get());
    }
  }
  caller_waits.run();  // before the final callbacks, as libtorch
  // A callback may queue another: index, not iterators.
  for (size_t i = 0; i < final_callbacks.size(); ++i) {
    std::function<void()> cb = std::move(final_callbacks[i]);
    cb();
  }
  return captured;
}

// Roots and their seed gradients: ones for a scalar output, else the caller's gradient.
void prepare_roots(const variable_list& outputs, const variable_list& grad_outputs, std::vector<Edge>& roots,
                   variable_list& grads) {
  EMBER_CHECK_ARG(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                  "grad_tensors: got {} tensors and {} gradients", outputs.size(), grad_outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    EMBER_CHECK_ARG(t.defined() && detail::requires_grad(t),
                    "element {} of tensors does not require grad and does not have a grad_fn", i);
    roots.push_back(detail::gradient_edge(t));
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK_ARG(t.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = ones_like(t);
    } else {
      EMBER_CHECK_ARG(g.sizes() == t.sizes(),
                      "Mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a shape of {}.", i,
                      ember::detail::shape_str(g.sizes()), i, ember::detail::shape_str(t.sizes()));
      EMBER_CHECK_ARG(g.device() == t.device(), "invalid gradient at index {} - expected device {} but got {}", i,
                      t.device().str(), g.device().str());
    }
    grads.push_back(g);
  }
}

}  // namespace

bool edge_runs_in_current_pass(const Edge& e) {
  if (!e.is_valid()) return false;
  const TrimmedPass* pass = t_trimmed_pass;
  if (!pass) return true;
  Node* fn = e.function.get();
  if (pass->target->count(fn)) return true;
  const auto it = pass->state->find(fn);
  return it != pass->state->end() && it->second.needed;
}

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK_ARG(t_final_callbacks != nullptr, "queue_callback: Final callbacks can only be installed during backward pass.");
  t_final_callbacks->push_back(std::move(callback));
}

bool AnomalyMode::is_enabled() { return g_anomaly_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return g_anomaly_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  g_anomaly_enabled.store(enabled, std::memory_order_relaxed);
  g_anomaly_check_nan.store(check_nan, std::memory_order_relaxed);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan) {
  EMBER_WARN_ONCE(
      "This mode should be enabled only for debugging as the different tests will slow down your program "
      "execution.");
  std::lock_guard<std::mutex> lock(g_anomaly_mutex);
  ++g_anomaly_guards;
  prev_check_nan_ = AnomalyMode::should_check_nan();
  AnomalyMode::set_enabled(true, check_nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() {
  std::lock_guard<std::mutex> lock(g_anomaly_mutex);
  --g_anomaly_guards;
  AnomalyMode::set_enabled(g_anomaly_guards > 0, prev_check_nan_);
}

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const variable_list& inputs) {
  if (create_graph)
    EMBER_WARN_ONCE(
        "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
        "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
        "avoid this. If you have to use this function, make sure to reset the .grad fields of your "
        "parameters to "
        "None after use to break the cycle and avoid the leak.");
  if (!inputs.empty()) {
    // Only these tensors' grad() receive a gradient, leaves or not (libtorch's inputs=).
    variable_list gs = grad(tensors, inputs, grad_tensors, retain_graph, create_graph, /*allow_unused=*/true);
    AutoGradMode grad_mode(create_graph);
    for (size_t i = 0; i < inputs.size(); ++i) {
      Tensor g = gs[i];
      if (!g.defined()) continue;
      // As AccumulateGrad: a leaf's hooks first, then the gradient into grad() (a buffer of its
      // own the first time, since nodes may hand one tensor to several inputs; added in place after).
      if (const AutogradMeta* m = detail::meta(inputs[i]); m && !m->grad_fn_)
        for (const Node::PreHook& hook : m->leaf_hooks_)
          if (Tensor r = hook.fn(g); r.defined()) g = r;
      Tensor& slot = inputs[i].mutable_grad();
      if (!slot.defined()) {
        slot = create_graph ? g : g.detach().clone();
      } else if (create_graph) {
        slot = slot + g;
      } else {
        slot.add_(g.detach());
      }
    }
    return;
  }
  std::vector<Edge> roots;
  variable_list grads;
  prepare_roots(tensors, grad_tensors, roots, grads);
  execute(roots, std::move(grads), retain_graph.value_or(create_graph), create_graph, nullptr);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  EMBER_CHECK_ARG(!inputs.empty(), "grad requires non-empty inputs.");
  std::vector<Edge> roots;
  variable_list grads;
  prepare_roots(outputs, grad_outputs, roots, grads);
  std::vector<Edge> edges;
  for (const Tensor& t : inputs) {
    EMBER_CHECK_ARG(t.defined() && detail::requires_grad(t), "One of the differentiated Tensors does not require grad");
    edges.push_back(detail::gradient_edge(t));
  }
  variable_list result = execute(roots, std::move(grads), retain_graph.value_or(create_graph), create_graph, &edges);
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK_ARG(result[i].defined() || allow_unused,
                    "One of the differentiated Tensors appears to not have been used in the graph. Set "
                    "allow_unused=True if this is the desired behavior.");
    // A leaf's captured gradient is what AccumulateGrad would have received: shape it the same way.
    if (result[i].defined() && result[i].sizes() != inputs[i].sizes()) result[i] = sum_to(result[i], inputs[i].sizes());
  }
  return result;
}

}  // namespace ember::autograd

namespace ember::autograd {

Tensor sum_to(const Tensor& g, IntArrayRef sizes) {
  if (g.sizes() == sizes) return g;
  const int64_t lead = g.dim() - int64_t(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 1 && g.size(lead + int64_t(i)) != 1) dims.push_back(lead + int64_t(i));
  Tensor r = dims.empty() ? g : ember::sum(g, dims, true);
  return r.sizes() == sizes ? r : r.reshape(sizes);
}

}  // namespace ember::autograd
