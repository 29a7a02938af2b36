// Tensor's autograd methods (API.md section 9): requires_grad_, grad, backward, detach, data,
// set_data, hooks.
#include "autograd/meta.h"
#include "core/check.h"
#include "ember/check.h"
#include "ember/ops.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

using autograd::AutogradMeta;
using autograd::detail::get_or_create_meta;
using autograd::detail::meta;

namespace {
std::atomic<unsigned> g_next_hook_id{0};
}

const Tensor& Tensor::requires_grad_(bool requires_grad) const {
  EMBER_CHECK_ARG(defined(), "requires_grad_: undefined tensor");
  AutogradMeta* m = meta(*this);
  if (m && m->grad_fn_) {
    EMBER_CHECK_ARG(requires_grad,
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return *this;
  }
  EMBER_CHECK_ARG(!requires_grad || ember::is_floating_point(dtype()),
                  "Only Tensors of floating point and complex dtype can require gradients");
  EMBER_CHECK_ARG(!requires_grad || !is_inference() || InferenceMode::is_enabled(),
                  "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  if (!m && !requires_grad) return *this;
  get_or_create_meta(*this).requires_grad_ = requires_grad;
  return *this;
}

const Tensor& Tensor::set_requires_grad(bool requires_grad) const {
  EMBER_CHECK_ARG(defined(), "set_requires_grad: undefined tensor");
  // A non-leaf requires grad through its grad_fn whatever the flag says: nothing to change.
  if (!is_leaf()) return *this;
  return requires_grad_(requires_grad);
}

bool Tensor::requires_grad() const {
  // Views of a grad-requiring tensor taken with grad mode off or in InferenceMode included.
  return autograd::detail::requires_grad(*this);
}

bool Tensor::is_leaf() const {
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  return !m || !m->grad_fn_;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  if (!m) return undefined;
  if (m->retained_grad_) return *m->retained_grad_;
  if (m->grad_fn_ && !m->grad_.defined())
    EMBER_WARN(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
        "won't be "
        "populated during autograd.backward(). If you indeed want the .grad field to be populated for a "
        "non-leaf "
        "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, "
        "make sure "
        "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
        "informations.");
  return m->grad_;
}

Tensor& Tensor::mutable_grad() const {
  EMBER_CHECK_ARG(defined(), "mutable_grad: undefined tensor");
  AutogradMeta& m = get_or_create_meta(*this);
  if (m.retained_grad_) return *m.retained_grad_;
  return m.grad_;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  if (m && m->grad_fn_) return m->grad_fn_;
  if (defined()) ember::detail::check_view_not_rebased(*unsafe_impl());  // libtorch's grad_fn() refuses those too
  return nullptr;
}

int64_t Tensor::output_nr() const {
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  return m ? m->output_nr_ : 0;
}

uint32_t Tensor::_version() const {
  EMBER_CHECK_ARG(!is_inference(), "Inference tensors do not track version counter.");
  return storage()->version_.load(std::memory_order_relaxed);
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      std::optional<ArrayRef<Tensor>> inputs) const {
  EMBER_CHECK_ARG(!inputs || !inputs->empty(), "'inputs' argument to backward() cannot be empty.");
  autograd::backward(
      {*this}, gradient.defined() ? autograd::variable_list{gradient} : autograd::variable_list{},
      retain_graph, create_graph,
      inputs ? autograd::variable_list(inputs->begin(), inputs->end()) : autograd::variable_list{});
}

Tensor Tensor::detach() const {
  EMBER_CHECK_ARG(defined(), "detach: undefined tensor");
  // A new handle on the same storage (and so the same version counter), without history.
  return detail::make_alias(*this);
}

Tensor& Tensor::detach_() const {
  EMBER_CHECK_ARG(defined(), "detach_: undefined tensor");
  if (AutogradMeta* m = meta(*this)) {
    // Detaching a view in place would cut its base's history too (libtorch refuses it).
    EMBER_CHECK_ARG(!m->is_view_, "Can't detach views in-place. Use detach() instead.");
    m->grad_fn_.reset();
    m->output_nr_ = 0;
    m->requires_grad_ = false;
  }
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::data() const {
  EMBER_CHECK_ARG(defined(), "data: undefined tensor");
  // libtorch's variable_data(): the same elements, no history. Unlike libtorch the version
  // counter stays shared (ember keeps it with the storage).
  return detail::make_alias(*this);
}

void Tensor::set_data(const Tensor& new_data) const {
  EMBER_CHECK_ARG(defined(), "set_data: undefined tensor");
  EMBER_CHECK_ARG(new_data.defined(),
                  "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible "
                  "tensor type.");
  AutogradMeta* m = meta(*this);
  EMBER_CHECK_ARG(!requires_grad() || ember::is_floating_point(new_data.dtype()),
                  "data set to a tensor that requires gradients must be floating point or complex dtype");
  if (m && (new_data.dtype() != dtype() || new_data.device() != device() || new_data.sizes() != sizes())) {
    std::lock_guard<std::mutex> lock(m->accumulator_mutex_);
    m->grad_accumulator_.reset();  // it recorded the old dtype, device and shape
  }
  TensorImpl* self = impl_.get();
  const TensorImpl* src = new_data.unsafe_impl();
  if (self == src) return;
  self->storage_ = src->storage_;
  self->sizes_ = src->sizes_;
  self->strides_ = src->strides_;
  self->storage_offset_ = src->storage_offset_;
  self->dtype_ = src->dtype_;
  self->refresh();
  self->view_version_ = self->storage_->version_.load(std::memory_order_relaxed);  // current on its new storage
}

void Tensor::retain_grad() const {
  EMBER_CHECK_ARG(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = get_or_create_meta(*this);
  if (!m.grad_fn_ || m.retained_grad_) return;  // leaves keep their grad anyway
  auto slot = std::make_shared<Tensor>();
  m.retained_grad_ = slot;
  m.retain_hook_id_ = g_next_hook_id++;
  m.grad_fn_->pre_hooks_.push_back({m.retain_hook_id_, m.output_nr_, [slot](const Tensor& g) {
                                      if (!slot->defined())
                                        *slot = g.detach().clone();
                                      else
                                        *slot = *slot + g.detach();
                                      return Tensor();
                                    }});
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  return m && m->retained_grad_ != nullptr;
}

unsigned Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK_ARG(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = get_or_create_meta(*this);
  const unsigned id = g_next_hook_id++;
  if (m.grad_fn_) m.grad_fn_->pre_hooks_.push_back({id, m.output_nr_, std::move(hook)});
  else m.leaf_hooks_.push_back({id, 0, std::move(hook)});
  return id;
}

unsigned Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const {
  EMBER_CHECK_ARG(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = get_or_create_meta(*this);
  EMBER_CHECK_ARG(!m.grad_fn_, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  const unsigned id = g_next_hook_id++;
  m.post_accumulate_hooks_.push_back({id, std::move(hook)});
  return id;
}

void Tensor::remove_hook(unsigned id) const {
  AutogradMeta* m = defined() ? meta(*this) : nullptr;
  auto drop = [id](std::vector<autograd::Node::PreHook>& v) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->id == id) {
        v.erase(it);
        return true;
      }
    return false;
  };
  auto drop_post = [id](std::vector<AutogradMeta::PostAccumulateHook>& v) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it->id == id) {
        v.erase(it);
        return true;
      }
    return false;
  };
  EMBER_CHECK_ARG(m && (drop(m->leaf_hooks_) || (m->grad_fn_ && drop(m->grad_fn_->pre_hooks_)) ||
                        drop_post(m->post_accumulate_hooks_)),
                  "remove_hook: Invalid index, no hook at position {}", id);
}

}  // namespace ember
