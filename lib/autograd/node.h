#pragma once
// FormulaNode: a recorded op whose backward is a short function of ordinary ember ops
// (STYLE.md "Autograd"). Each op family's file builds these with `record`.

#include <array>
#include <initializer_list>
#include <utility>

#include "autograd/meta.h"

namespace ember::autograd {

struct FormulaNode : Node {
  explicit FormulaNode(const char* name) : name_(name) {}
  std::string name() const override { return name_; }
  void release_variables() override {
    for (SavedVariable& s : saved_) s.reset();
  }
  /// Saved tensor i, checked against in-place modification and release.
  Tensor saved(int i) const { return saved_[size_t(i)].unpack(*this); }
  /// Input i's shape in the forward (for sum_to, expand, zeros).
  IntArrayRef in_sizes(size_t i) const { return input_meta_[i].sizes.ref(); }
  bool needs(size_t i) const { return should_compute_output(i); }

  const char* name_;
  std::array<SavedVariable, 3> saved_;
};

template <class F>
struct LambdaNode final : FormulaNode {
  LambdaNode(const char* name, F fn) : FormulaNode(name), fn_(std::move(fn)) {}
  variable_list apply(variable_list&& grads) override {
    // As libtorch's generated nodes: no defined gradient in, none out (a custom function's
    // backward may hand back undefined gradients).
    bool any_defined = false;
    for (const Tensor& g : grads) any_defined = any_defined || g.defined();
    if (!any_defined) return {};
    return fn_(static_cast<FormulaNode&>(*this), grads);
  }
  F fn_;
};

/// A composed op's graph is its parts' nodes: the last one, y's grad_fn, takes libtorch's name
/// for the whole (IndexReduceBackward0, LinalgLstsqBackward0, TBackward1, ...).
inline void name_grad_fn(const Tensor& y, const char* name) {
  if (std::shared_ptr<Node> fn = y.grad_fn())
    if (auto* formula = dynamic_cast<FormulaNode*>(fn.get())) formula->name_ = name;
}

/// Records `fn` (variable_list(FormulaNode&, variable_list& grads)) as the grad_fn of
/// `outputs`, with an edge per entry of `inputs` (null or not requiring grad: no edge).
/// The caller fills saved_ afterwards: an output is saved once it has its grad_fn.
template <class F>
std::shared_ptr<FormulaNode> record(const char* name, std::initializer_list<const Tensor*> inputs,
                                    std::initializer_list<Tensor*> outputs, F&& fn) {
  auto node = std::make_shared<LambdaNode<std::decay_t<F>>>(name, std::forward<F>(fn));
  node->next_edges_.reserve(inputs.size());
  node->input_meta_.reserve(inputs.size());
  for (const Tensor* t : inputs) {
    if (t && detail::requires_grad(*t)) {
      node->next_edges_.push_back(detail::gradient_edge(*t));
      node->input_meta_.push_back(detail::input_meta(*t));
    } else {
      node->next_edges_.emplace_back();
      node->input_meta_.emplace_back();
    }
  }
  node->num_inputs_ = uint32_t(outputs.size());
  uint32_t nr = 0;
  for (Tensor* out : outputs) {
    if (nr == 0) node->set_device(out->device());
    detail::set_history(*out, node, nr++);
  }
  return node;
}

/// Variable-length form for joins (cat, stack).
template <class F>
std::shared_ptr<FormulaNode> record_list(const char* name, const std::vector<Tensor>& inputs, Tensor& out, F&& fn) {
  auto node = std::make_shared<LambdaNode<std::decay_t<F>>>(name, std::forward<F>(fn));
  for (const Tensor& t : inputs) {
    if (detail::requires_grad(t)) {
      node->next_edges_.push_back(detail::gradient_edge(t));
      node->input_meta_.push_back(detail::input_meta(t));
    } else {
      node->next_edges_.emplace_back();
      node->input_meta_.push_back(detail::input_meta(t));  // joins need every input's size
    }
  }
  node->set_device(out.device());
  detail::set_history(out, node, 0);
  return node;
}

/// One input, several outputs (split, unbind): output i is the node's output i.
template <class F>
std::shared_ptr<FormulaNode> record_outputs(const char* name, const Tensor& input, std::vector<Tensor>& outputs, F&& fn) {
  auto node = std::make_shared<LambdaNode<std::decay_t<F>>>(name, std::forward<F>(fn));
  node->next_edges_.push_back(detail::gradient_edge(input));
  node->input_meta_.push_back(detail::input_meta(input));
  node->num_inputs_ = uint32_t(outputs.size());
  node->set_device(input.device());
  for (size_t i = 0; i < outputs.size(); ++i) detail::set_history(outputs[i], node, uint32_t(i));
  return node;
}

/// Whether any of `ts` requires grad (recording is on: the caller checked GradMode).
inline bool any_requires_grad(std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts)
    if (t && detail::requires_grad(*t)) return true;
  return false;
}

/// Sums g over the dims it was broadcast along so that it has `sizes` (torch's sum_to).
Tensor sum_to(const Tensor& g, IntArrayRef sizes);

/// Whether the backward pass running on this thread runs e's function: a pass that computes
/// only some inputs' gradients (grad(), backward(inputs=)) skips the nodes that lead to none
/// of them (libtorch's task_should_compute_output). True outside a pass.
bool edge_runs_in_current_pass(const Edge& e);

}  // namespace ember::autograd
