// Custom differentiable ops (autograd::Function<T>): the wiring behind Function::apply
// and AutogradContext (libtorch's CppNode and AutogradContext).
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "autograd/meta.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/inference.h"

namespace ember::autograd {

variable_list AutogradContext::get_saved_variables() const {
  auto node = node_.lock();
  variable_list out;
  if (!node) return to_save_;  // forward ran without recording
  for (const SavedVariable& s : saved_) out.push_back(s.unpack(*node));
  return out;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs) dirty_.push_back(t.unsafe_impl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.unsafe_impl());
}

bool AutogradContext::needs_input_grad(std::initializer_list<IndexRange> ranges) const {
  for (const IndexRange& r : ranges)
    for (size_t i = r.first; i < r.second; ++i)
      if (needs_input_grad(i)) return true;
  return false;
}

bool AutogradContext::needs_input_grad(size_t i) const {
  // As libtorch's, i counts the forward's tensor arguments (each tensor of a list, none for
  // an empty optional): the node's next edges. In a backward pass that computes only some
  // inputs' gradients, an edge that leads to none of them needs none.
  const std::shared_ptr<Node> node = node_.lock();
  EMBER_CHECK_ARG(node != nullptr, "needs_input_grad: only a backward can ask (the node does not exist yet)");
  EMBER_CHECK_ARG(i < node->next_edges_.size(), "Index out of range");
  return edge_runs_in_current_pass(node->next_edges_[i]);
}

namespace detail {

void CustomNodeBase::release_variables() {
  for (SavedVariable& s : ctx_.saved_) s.reset();
}

variable_list CustomNodeBase::materialize(variable_list&& grads) const {
  if (!ctx_.materialize_grads_) return std::move(grads);
  for (size_t i = 0; i < grads.size() && i < output_meta_.size(); ++i) {
    if (grads[i].defined() || !output_defined_[i]) continue;
    const InputMeta& m = output_meta_[i];
    grads[i] = zeros(m.sizes.ref(), TensorOptions(m.dtype).device(m.device));
  }
  return std::move(grads);
}

std::string custom_node_name(const char* mangled) {
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = "torch::autograd::CppNode<" + std::string(status == 0 && readable ? readable : mangled) + ">";
  std::free(readable);
  return name;
}

bool any_requires_grad(const std::vector<const Tensor*>& args) {
  for (const Tensor* t : args)
    if (t && requires_grad(*t)) return true;
  return false;
}

bool any_arg_requires_grad(const variable_list& args) {
  for (const Tensor& t : args)
    if (requires_grad(t)) return true;
  return false;
}

void setup_custom_node(const std::shared_ptr<CustomNodeBase>& node, const variable_list& args,
                       const std::vector<int>& arg_index, variable_list& outputs, size_t num_args) {
  AutogradContext& ctx = node->ctx_;
  ctx.node_ = node;
  ctx.num_args_ = num_args;
  auto contains = [](const std::vector<const TensorImpl*>& v, const Tensor& t) {
    return std::find(v.begin(), v.end(), t.unsafe_impl()) != v.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i];
    if (requires_grad(t)) {
      node->next_edges_.push_back(gradient_edge(t));
      node->input_meta_.push_back(input_meta(t));
    } else {
      node->next_edges_.emplace_back();
      node->input_meta_.emplace_back();
    }
    node->arg_of_edge_.push_back(arg_index[i]);
    if (contains(ctx.dirty_, t)) check_inplace(t);
  }
  // The forward wrote the dirty inputs in place: one version each, once every check passed.
  std::vector<const TensorImpl*> bumped;
  for (const Tensor& t : args)
    if (t.defined() && contains(ctx.dirty_, t) && !contains(bumped, t)) {
      ember::detail::bump_version(t);
      bumped.push_back(t.unsafe_impl());
    }
  node->num_inputs_ = uint32_t(outputs.size());
  for (const Tensor& out : outputs) {
    node->output_meta_.push_back(out.defined() ? input_meta(out) : InputMeta());
    node->output_defined_.push_back(out.defined());
  }
  // The backward runs where the forward did: the device (and stream) of the first defined output.
  for (const Tensor& out : outputs)
    if (out.defined()) {
      node->set_device(out.device());
      break;
    }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined() || !is_floating_point(out.dtype()) || contains(ctx.non_differentiable_, out)) continue;
    // An input returned unchanged (not marked dirty) comes back as a new alias, as libtorch's view.
    for (const Tensor& a : args)
      if (out.is_same(a) && !contains(ctx.dirty_, out)) out = out.detach();
    set_history(out, node, uint32_t(i));
  }
  for (const Tensor& t : ctx.to_save_) {
    bool is_output = false;
    for (const Tensor& o : outputs) is_output = is_output || (t.defined() && o.is_same(t));
    ctx.saved_.emplace_back(t, is_output);
  }
  ctx.to_save_.clear();
}

variable_list pick_edge_grads(const CustomNodeBase& node, variable_list&& per_arg) {
  // libtorch's CppNode checks: one gradient per forward argument (trailing undefined extras
  // are dropped), and none for an argument that was not a tensor.
  const size_t num_args = node.ctx_.num_args_;
  size_t count = per_arg.size();
  while (count > num_args && !per_arg[count - 1].defined()) --count;
  EMBER_CHECK_ARG(count == num_args, "function {} returned an incorrect number of gradients (expected {}, got {})",
                  node.name(), num_args, count);
  std::vector<bool> is_tensor_arg(num_args, false);
  for (int arg : node.arg_of_edge_) is_tensor_arg[size_t(arg)] = true;
  for (size_t i = 0; i < num_args; ++i)
    EMBER_CHECK_ARG(is_tensor_arg[i] || !per_arg[i].defined(),
                    "function {} returned a gradient different that is defined at position {}, but the "
                    "corresponding forward input was not a Variable",
                    node.name(), i + 1);
  variable_list out(node.next_edges_.size());
  for (size_t e = 0; e < out.size(); ++e) {
    const size_t arg = size_t(node.arg_of_edge_[e]);
    if (arg < per_arg.size()) out[e] = std::move(per_arg[arg]);
  }
  return out;
}

}  // namespace detail
}  // namespace ember::autograd

namespace ember::autograd {
namespace {
// Hands an undefined gradient to every input (libtorch's UndefinedGradBackward).
struct UndefinedGradBackward final : Node {
  std::string name() const override { return "UndefinedGradBackward"; }
  variable_list apply(variable_list&& grads) override { return variable_list(next_edges_.size()); }
};
}  // namespace

variable_list UndefinedGrad::apply(variable_list&& inputs) {
  variable_list outputs;
  {
    NoGradGuard no_grad;
    for (const Tensor& t : inputs) outputs.push_back(t.defined() ? t.clone() : Tensor());
  }
  if (!GradMode::is_enabled() || !detail::any_arg_requires_grad(inputs)) return outputs;
  auto node = std::make_shared<UndefinedGradBackward>();
  for (const Tensor& t : inputs) {
    const bool tracked = t.defined() && detail::requires_grad(t);
    node->next_edges_.push_back(tracked ? detail::gradient_edge(t) : Edge());
    node->input_meta_.push_back(tracked ? detail::input_meta(t) : InputMeta());
    if (tracked) node->set_device(t.device());
  }
  node->num_inputs_ = uint32_t(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].defined() && is_floating_point(outputs[i].dtype()))
      detail::set_history(outputs[i], node, uint32_t(i));
  return outputs;
}

}  // namespace ember::autograd
