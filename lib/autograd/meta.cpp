// GradMode, AutogradMeta's lifetime, saved variables and the leaf accumulator.
#include "autograd/meta.h"

#include "autograd/accumulate_grad.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "iter/overlap.h"
#include "placement/device_streams.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

namespace autograd {

void destroy_autograd_meta(AutogradMeta* meta) noexcept { delete meta; }

namespace {
// What a new Node reads on its thread, in one thread-local (one TLS lookup per recorded op):
// its sequence number, and anomaly mode's node under evaluation (null otherwise), which a
// node its backward records (create_graph) names as its parent.
struct NodeThreadState {
  uint64_t sequence_nr = 0;
  Node* anomaly_node = nullptr;
};
thread_local NodeThreadState t_node_state;
}  // namespace

namespace detail {
Node* set_anomaly_node(Node* node) {
  Node* previous = t_node_state.anomaly_node;
  t_node_state.anomaly_node = node;
  return previous;
}
}  // namespace detail

Node::Node() {
  NodeThreadState& state = t_node_state;
  sequence_nr_ = state.sequence_nr++;
  if (__builtin_expect(state.anomaly_node != nullptr, 0)) anomaly_parent_ = state.anomaly_node->weak_from_this();
}
Node::~Node() = default;

void* Node::current_stream_of(Device device) { return ember::detail::current_stream_of(device); }

namespace detail {

AutogradMeta& get_or_create_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafe_impl();
  if (!impl->autograd_meta_) impl->autograd_meta_ = new AutogradMeta();
  return *impl->autograd_meta_;
}

InputMeta input_meta(const Tensor& t) {
  InputMeta m;
  m.sizes = SizesVector(t.sizes());
  m.dtype = t.dtype();
  m.device = t.device();
  return m;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = get_or_create_meta(t);
  std::lock_guard<std::mutex> lock(m.accumulator_mutex_);
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator_ = acc;
  return acc;
}

// Note [Differentiable view regions]
// Under create_graph, the backward of a view region (AsStridedBackward0, CopySlices) must
// itself record. The region's flat positions in the dense base (an int64 constant) turn
// its copies into gather and scatter_add, which are differentiable. CopySlices without
// create_graph keeps its plain strided copies.
bool region_within(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t numel, int64_t* last) {
  int64_t end = offset;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    empty = empty || sizes[d] == 0;
    end += (sizes[d] - 1) * strides[d];
  }
  if (last) *last = end;
  return empty || (offset >= 0 && end < numel);
}

Tensor region_positions(IntArrayRef base_sizes, IntArrayRef sizes, IntArrayRef strides, int64_t offset, Device device) {
  NoGradGuard no_grad;
  int64_t numel = 1;
  for (int64_t s : base_sizes) numel *= s;
  Tensor all = arange(numel, TensorOptions(kLong).device(device));
  return ember::detail::make_view(all, sizes, strides, offset).reshape({-1});
}

namespace {

// A view whose storage was written since its grad_fn was recorded (through the base or
// another view) takes its history afresh from the base's: AsStridedBackward0 of it.
void refresh_view_history(const Tensor& t, AutogradMeta& m) {
  const Tensor base = m.base_;
  EMBER_CHECK_TYPED(base.is_contiguous(), NotImplemented,
                    "autograd: a view of a non-contiguous tensor was used after an in-place change to its storage; "
                    "ember's autograd supports this for views of contiguous tensors only (clone() the base first)");
  SizesVector sizes(t.sizes()), strides(t.strides());
  const int64_t offset = t.storage_offset() - base.storage_offset();
  // The base may have been restrided in place (as_strided_, resize_) so that the view now
  // reaches outside its elements.
  int64_t last = 0;
  EMBER_CHECK_TYPED(
      region_within(sizes.ref(), strides.ref(), offset, base.numel(), &last), NotImplemented,
      "autograd: a view reaches outside its base's elements after the base was restrided in place "
      "(view offset {}, last position {}, base of {} elements); ember's autograd cannot map its "
      "gradient (clone() the view before restriding the base)",
      offset, last, base.numel());
  Tensor view = t;  // the same impl: its history is what changes
  // The base's shape is captured: a base that no longer requires grad records no input meta.
  // scatter_add (not a strided copy) sums where the view overlaps itself (expand), as
  // libtorch's as_strided_backward, and records under create_graph.
  record("AsStridedBackward0", {&base}, {&view},
         [base_sizes = SizesVector(base.sizes()), sizes, strides, offset](FormulaNode&, variable_list& g) -> variable_list {
           const Tensor pos = region_positions(base_sizes.ref(), sizes.ref(), strides.ref(), offset, g[0].device());
           Tensor base_grad = zeros(base_sizes.ref(), g[0].options());
           return {ember::scatter_add(base_grad.view({-1}), 0, pos, g[0].reshape({-1})).view(base_sizes.ref())};
         });
}

}  // namespace

void rebase_view(const Tensor& view, const std::shared_ptr<Node>& fn) {
  AutogradMeta* m = meta(view);
  if (!m || !m->is_view_ || !m->base_.defined()) return;
  Tensor base = m->base_;
  SizesVector sizes(view.sizes()), strides(view.strides());
  const int64_t offset = view.storage_offset() - base.storage_offset();
  // The base's gradient: outside the region it flows to the base's old history; inside,
  // to the in-place op, which sends it on to the view's old value and its other inputs.
  // g[0] has the base's shape (CopySlices' output is the base).
  auto node = record("CopySlices", {&base}, {&base}, [sizes, strides, offset](FormulaNode&, variable_list& g) -> variable_list {
    if (GradMode::is_enabled()) {  // create_graph: Note [Differentiable view regions]
      const Tensor pos = region_positions(g[0].sizes(), sizes.ref(), strides.ref(), offset, g[0].device());
      Tensor outside = ones(g[0].sizes(), g[0].options());
      ember::detail::make_view(outside, sizes.ref(), strides.ref(), offset).zero_();
      return {g[0] * outside, ember::gather(g[0].reshape({-1}), 0, pos).view(sizes.ref())};
    }
    Tensor all = g[0].clone();
    Tensor region = ember::detail::make_view(all, sizes.ref(), strides.ref(), offset);
    Tensor inside = region.clone();
    region.zero_();
    return {all, inside};
  });
  node->next_edges_.emplace_back(fn, 0);
  node->input_meta_.push_back(input_meta(view));
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return Edge();  // a view with no history that requires grad (kHistorylessGradView)
  if (__builtin_expect(m->is_view_, 0) && m->base_.defined() &&
      t.storage()->version_.load(std::memory_order_relaxed) != m->view_version_)
    refresh_view_history(t, *m);
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  // A view taken with grad mode off (or in InferenceMode) requires grad but accumulates
  // nowhere, as libtorch's.
  if (t.unsafe_impl()->view_kind_ & kHistorylessGradView) return Edge();
  return Edge(grad_accumulator(t), 0);
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr) {
  AutogradMeta& m = get_or_create_meta(t);
  if (m.retained_grad_ && m.grad_fn_ && m.grad_fn_ != node) {
    // An in-place op gave t a new grad_fn: retain_grad keeps the newest version's gradient,
    // as libtorch's (the tensor's other hooks stay with the version they were made for).
    auto& old_hooks = m.grad_fn_->pre_hooks_;
    for (auto it = old_hooks.begin(); it != old_hooks.end(); ++it)
      if (it->id == m.retain_hook_id_) {
        node->pre_hooks_.push_back({it->id, nr, std::move(it->fn)});
        old_hooks.erase(it);
        break;
      }
  }
  m.grad_fn_ = node;
  m.output_nr_ = nr;
  m.requires_grad_ = false;
  // An op's output with history is not a view taken with grad mode off, even when the op's
  // forward (run under NoGradGuard) handed back a view of its input.
  t.unsafe_impl()->view_kind_ &= uint8_t(~kNoGradModeViewOfGrad);
  if (m.is_view_) m.view_version_ = t.storage()->version_.load(std::memory_order_relaxed);
}

void check_inplace(const Tensor& t) {
  if (!t.defined()) return;
  if (t.unsafe_impl()->view_kind_ & kInferenceModeView) ember::detail::throw_inplace_on_inference_view();
  if (t.unsafe_impl()->view_kind_ & kNoGradModeViewOfGrad) ember::detail::throw_inplace_on_no_grad_view();
  AutogradMeta* m = meta(t);
  if (!m) return;
  EMBER_CHECK_ARG(!(m->requires_grad_ && !m->grad_fn_),
                  "a leaf Variable that requires grad is being used in an in-place operation.");
  // As libtorch: a view that requires grad of a base that is a leaf now (a base detached
  // after the view was taken included).
  const AutogradMeta* base_meta = m->is_view_ && m->base_.defined() ? meta(m->base_) : nullptr;
  const bool base_is_leaf = m->is_view_ && m->base_.defined() && (!base_meta || !base_meta->grad_fn_);
  EMBER_CHECK_ARG(!m->is_view_of_leaf_ && !(base_is_leaf && (m->requires_grad_ || m->grad_fn_)),
                  "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  // CopySlices maps the view's region onto the base's gradient: a dense base only.
  EMBER_CHECK_TYPED(!m->is_view_ || !m->base_.defined() || m->base_.is_contiguous(), NotImplemented,
                    "an in-place operation on a view of a non-contiguous tensor that requires grad is not supported "
                    "by ember's autograd; clone() the base first");
}

void check_savable(const Tensor& t) {
  // Without a version counter a saved inference tensor could change unnoticed (libtorch's check).
  EMBER_CHECK_ARG(
      !t.defined() || !t.is_inference(),
      "Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
      "normal tensor and use it in autograd.");
}

void throw_out_requires_grad(const char* op) {
  EMBER_THROW(InvalidArgument,
              "{}(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.",
              op);
}

}  // namespace detail

// ---- SavedVariable

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  detail::check_savable(t);
  was_defined_ = true;
  version_ = t.storage()->version_.load(std::memory_order_relaxed);
  AutogradMeta* m = detail::meta(t);
  if (m && m->grad_fn_) {
    output_fn_ = m->grad_fn_;  // for outputs: to reconnect; for inputs: to name it in errors
    output_nr_ = m->output_nr_;
  }
  if (is_output && m && m->grad_fn_) {
    // Keeping the output itself would make output -> grad_fn -> output a cycle.
    data_ = t.detach();
  } else {
    data_ = t;
  }
}

void SavedVariable::reset() {
  if (!was_defined_) return;
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const Node& owner) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK_ARG(!released_,
                  "Trying to backward through the graph a second time (or directly access saved tensors after "
                  "they have already been freed). Saved intermediate values of the graph are freed when you call "
                  ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                  "graph a second time or if you need to access saved tensors after calling backward.");
  const uint32_t now = data_.storage()->version_.load(std::memory_order_relaxed);
  if (now != version_) {
    auto fn = output_fn_.lock();
    const std::string holder = fn ? fn->name() : owner.name();
    EMBER_THROW(InvalidArgument,
                "one of the variables needed for gradient computation has been modified by an inplace "
                "operation: [{}{}Type {}], which is output {} of {}, is at version {}; expected version {} "
                "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                "gradient, with torch.autograd.set_detect_anomaly(True).",
                data_.device().is_cpu() ? "CPU" : data_.device().is_cuda() ? "CUDA" : "PrivateUse1",
                [&] {
                  switch (data_.dtype()) {
                    case kDouble: return "Double";
                    case kHalf: return "Half";
                    case kBFloat16: return "BFloat16";
                    default: return "Float";
                  }
                }(),
                ember::detail::shape_str(data_.sizes()), output_nr_, holder, now,
                version_);
  }
  if (!is_output_ || !GradMode::is_enabled()) return data_;
  // Double backward: reconnect the output to its grad_fn so that formulas using it record.
  auto fn = output_fn_.lock();
  if (!fn) return data_;
  Tensor t = data_.detach();
  detail::set_history(t, fn, output_nr_);
  return t;
}

// ---- AccumulateGrad

namespace {
// libtorch's layout contract, loosened: a gradient is kept as it is when it is contiguous
// or has the strides of a dense leaf (a column-major weight's mm gradient); else copied.
bool obeys_layout(const Tensor& g, const Tensor& variable) {
  return g.is_contiguous() ||
         (g.strides() == variable.strides() && ember::detail::non_overlapping_and_dense(variable));
}
}  // namespace

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  next_edges_.clear();
  input_meta_.push_back(detail::input_meta(variable_));
  set_device(variable_.device());
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = detail::get_or_create_meta(variable_);
  for (const Node::PreHook& h : m.leaf_hooks_) {
    Tensor r = h.fn(g);
    if (r.defined()) g = r;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (!m.grad_.defined()) {
    // Steal the incoming gradient when nothing else holds it (libtorch does the same).
    if (GradMode::is_enabled()) m.grad_ = g;
    else if (g.use_count() == 1 && g.storage()->refcount_.load(std::memory_order_relaxed) == 1 &&
             !detail::has_meta(g) && obeys_layout(g, variable_))
      m.grad_ = std::move(g);
    else m.grad_ = g.detach().clone();
  } else if (GradMode::is_enabled() || detail::requires_grad(m.grad_)) {
    m.grad_ = m.grad_ + g;
  } else {
    m.grad_.add_(g);
  }
  lock.unlock();
  for (const AutogradMeta::PostAccumulateHook& h : m.post_accumulate_hooks_) h.fn(variable_);
  return {};
}

}  // namespace autograd
}  // namespace ember
