#pragma once
// AutogradMeta: what a tensor that touched autograd carries behind TensorImpl's one
// pointer (Note [Autograd] in DESIGN.md), and the helpers ops use to read it.

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/autograd.h"

namespace ember::autograd {

struct AutogradMeta {
  Tensor grad_;
  std::shared_ptr<Node> grad_fn_;               // null for leaves
  std::mutex accumulator_mutex_;                 // threads recording ops on one leaf share its AccumulateGrad
  std::weak_ptr<Node> grad_accumulator_;        // leaves: their AccumulateGrad, while a graph holds it
  std::shared_ptr<Tensor> retained_grad_;       // non-leaves after retain_grad(): written by a pre-hook
  unsigned retain_hook_id_ = 0;                 // ... that one (it follows the tensor to a new grad_fn)
  std::vector<Node::PreHook> leaf_hooks_;       // leaves' tensor hooks, run by AccumulateGrad
  struct PostAccumulateHook {
    unsigned id;
    std::function<void(const Tensor&)> fn;
  };
  std::vector<PostAccumulateHook> post_accumulate_hooks_;  // leaves: run after .grad() is updated
  uint32_t output_nr_ = 0;
  bool requires_grad_ = false;                  // leaves only; non-leaves require grad through grad_fn_
  bool is_view_ = false;                        // a view recorded from a tensor that required grad
  bool is_view_of_leaf_ = false;                // ... from a leaf (or a view of one)
  Tensor base_;                                 // views: the tensor whose storage they view
  uint32_t view_version_ = 0;                   // views: the storage version grad_fn_ was recorded at
};

namespace detail {

inline AutogradMeta* meta(const Tensor& t) { return t.unsafe_impl()->autograd_meta_; }
AutogradMeta& get_or_create_meta(const Tensor& t);

inline bool has_meta(const Tensor& t) { return t.defined() && t.unsafe_impl()->autograd_meta_ != nullptr; }

/// Views that require grad with no autograd state of their own: taken from a grad-requiring
/// tensor with grad mode off or inside InferenceMode (libtorch's CreationMeta NO_GRAD_MODE /
/// INFERENCE_MODE). Ops on them record, and their gradient goes nowhere, as libtorch's.
constexpr uint8_t kHistorylessGradView = kNoGradModeViewOfGrad | kInferenceModeViewOfGrad;

/// The one branch an op pays: whether an input may need recording while recording is on.
/// It has metadata and is not an inference tensor (as libtorch's, whose inference tensors
/// lack the autograd dispatch key: an op on those alone records nothing), or is such a view.
inline bool may_record(const Tensor& t) {
  if (!t.defined()) return false;
  const TensorImpl* impl = t.unsafe_impl();
  return (impl->autograd_meta_ != nullptr && !impl->is_inference_) || (impl->view_kind_ & kHistorylessGradView);
}
inline bool requires_grad(const Tensor& t) {
  if (!t.defined()) return false;
  const AutogradMeta* m = meta(t);
  return (m && (m->requires_grad_ || m->grad_fn_)) || (t.unsafe_impl()->view_kind_ & kHistorylessGradView);
}

/// The edge a gradient for t flows into: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);
/// Makes `node` the grad_fn of output `nr` of a forward (the output then requires grad).
void set_history(const Tensor& t, const std::shared_ptr<Node>& node, uint32_t nr = 0);
InputMeta input_meta(const Tensor& t);

/// In-place ops: InvalidArgument for a leaf that requires grad (libtorch's wording).
void check_inplace(const Tensor& t);
/// InvalidArgument for an inference tensor, which a node may not save (Note [Inference tensors]).
void check_savable(const Tensor& t);
/// After an in-place op `fn` on a view: the base's history becomes CopySlices (libtorch's
/// node), which routes the viewed region's gradient through fn. Nothing for a non-view.
void rebase_view(const Tensor& view, const std::shared_ptr<Node>& fn);
/// Whether the view with sizes, strides and offset reads only positions [0, numel) of a dense
/// base (an empty view reads none); *last receives its last position.
bool region_within(IntArrayRef sizes, IntArrayRef strides, int64_t offset, int64_t numel,
                   int64_t* last = nullptr);
/// The flat positions, in a dense tensor of base_sizes, of the elements of its view with
/// sizes, strides and offset (Note [Differentiable view regions]).
Tensor region_positions(IntArrayRef base_sizes, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                        Device device);
/// Anomaly mode: makes `node` the one under evaluation on this thread (null: none), whose
/// backward's new nodes take it as their anomaly_parent_; returns the previous one.
Node* set_anomaly_node(Node* node);
/// out= variants: libtorch refuses them when an argument requires grad.
[[noreturn]] void throw_out_requires_grad(const char* op);

}  // namespace detail
}  // namespace ember::autograd

/// True when an op on `t` must take the recording path (one predictable branch otherwise).
#define EMBER_GRAD_RECORDING(t) \
  __builtin_expect(::ember::autograd::detail::may_record(t) && ::ember::GradMode::is_enabled(), 0)
