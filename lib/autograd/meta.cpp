// GradMode, AutogradMeta's lifetime, saved variables and the leaf accumulator.
#include "autograd/meta.h"

#include "autograd/accumulate_grad.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
thread_local bool t_grad_enabled = true;
thread_local uint64_t t_sequence_nr = 0;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }

namespace autograd {

void destroy_autograd_meta(AutogradMeta* meta) noexcept { delete meta; }

Node::Node() : sequence_nr_(t_sequence_nr++) {}
Node::~Node() = default;

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
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (m->grad_fn_) return Edge(m->grad_fn_, m->output_nr_);
  return Edge(grad_accumulator(t), 0);
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr) {
  AutogradMeta& m = get_or_create_meta(t);
  m.grad_fn_ = node;
  m.output_nr_ = nr;
  m.requires_grad_ = false;
}

void check_inplace(const Tensor& t) {
  AutogradMeta* m = t.defined() ? meta(t) : nullptr;
  if (!m) return;
  EMBER_CHECK_ARG(!(m->requires_grad_ && !m->grad_fn_),
                  "a leaf Variable that requires grad is being used in an in-place operation.");
  EMBER_CHECK_ARG(!m->is_view_of_leaf_,
                  "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  // libtorch rewrites the base's history here (CopySlices); ember refuses rather than
  // give the base a wrong gradient.
  EMBER_CHECK(!m->is_view_, NotImplemented,
              "an in-place operation on a view of a tensor that requires grad is not supported by ember's "
              "autograd; apply it to a clone() of the view, or build the result out of place");
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

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  next_edges_.clear();
  input_meta_.push_back(detail::input_meta(variable_));
  device_ = variable_.device();
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  AutogradMeta& m = detail::get_or_create_meta(variable_);
  for (const Node::PreHook& h : m.leaf_hooks_) {
    Tensor r = h.fn(g);
    if (r.defined()) g = r;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!m.grad_.defined()) {
    // Steal the incoming gradient when nothing else holds it (libtorch does the same).
    if (GradMode::is_enabled()) m.grad_ = g;
    else if (g.use_count() == 1 && !detail::has_meta(g) && g.is_contiguous()) m.grad_ = std::move(g);
    else m.grad_ = g.detach().clone();
  } else if (GradMode::is_enabled() || detail::requires_grad(m.grad_)) {
    m.grad_ = m.grad_ + g;
  } else {
    m.grad_.add_(g);
  }
  return {};
}

}  // namespace autograd
}  // namespace ember
