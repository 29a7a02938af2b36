#pragma once
/// Reverse-mode autograd, mirroring torch::autograd (API.md section 9, Note [Autograd]).
/// A Node is one recorded op: its backward formula, saved tensors and the edges to the
/// nodes of its inputs. The engine runs the nodes reachable from the roots in dependency
/// order on the calling thread.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <type_traits>
#include <typeinfo>
#include <variant>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/device.h"
#include "ember/export.h"
#include "ember/ivalue.h"
#include "ember/scalar_type.h"
#include "ember/small_vector.h"
#include "ember/tensor.h"

namespace ember {

/// Whether ops on this thread record autograd history (libtorch's GradMode, thread-local).
struct EMBER_API GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets GradMode for its lifetime and restores the previous mode.
struct EMBER_API AutoGradMode {
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// No recording while alive (torch::NoGradGuard).
struct EMBER_API NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

/// libtorch's c10::InferenceMode, thread-local and nestable: while an enabled guard lives,
/// grad mode is off and the tensors made are inference tensors (Tensor::is_inference()),
/// which record no history and keep no version counter; InferenceMode(false) turns both
/// back on inside one. The destructor restores both modes (Note [Inference tensors]).
class EMBER_API InferenceMode {
 public:
  InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  static bool is_enabled();

 private:
  bool prev_grad_;
  bool prev_inference_;
};

namespace autograd {

// libtorch also names the grad-mode guards under torch::autograd.
using ::ember::AutoGradMode;
using ::ember::GradMode;
using ::ember::InferenceMode;
using ::ember::NoGradGuard;

/// libtorch's autograd spellings: a Variable is a Tensor.
using Variable = Tensor;
using variable_list = std::vector<Tensor>;
using tensor_list = std::vector<Tensor>;
struct Node;

/// One input of a node: which node receives the gradient and in which of its slots.
struct Edge {
  Edge() = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
};

/// What the engine needs to know of a forward input to shape its gradient: summed back
/// over broadcast dims, cast to the input's dtype, copied back to its device.
struct InputMeta {
  SizesVector sizes;
  ScalarType dtype = kFloat;
  Device device{kCPU, 0};
};

/// A tensor a node keeps for its backward, with the version it had when saved.
class EMBER_API SavedVariable {
 public:
  SavedVariable() = default;
  /// is_output: the tensor is an output of the node that saves it; it is kept without its
  /// grad_fn (which would be a cycle) and rebuilt on unpack when double backward needs it.
  SavedVariable(const Tensor& t, bool is_output);
  /// The saved tensor; InvalidArgument when it was modified in place or already freed.
  Tensor unpack(const Node& owner) const;
  void reset();
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_;                       // shares the impl for inputs; a detached alias for outputs
  std::weak_ptr<Node> output_fn_;     // outputs: their grad_fn, to reconnect on unpack
  uint32_t output_nr_ = 0;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool was_defined_ = false;
  bool released_ = false;
};

/// A recorded op (libtorch's torch::autograd::Node): `apply` maps the gradients of its
/// outputs to the gradients of its inputs, one per next edge.
struct EMBER_API Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  /// libtorch's name: "MulBackward0", "AddmmBackward0", "AccumulateGrad".
  virtual std::string name() const = 0;
  virtual variable_list apply(variable_list&& grads) = 0;
  /// Frees the saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  size_t num_inputs() const { return num_inputs_; }  // gradients the node receives
  uint64_t sequence_nr() const { return sequence_nr_; }
  /// Whether input i of the forward (next edge i) needs a gradient.
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  /// Where the forward ran (its device, and that device's current stream then): the
  /// backward runs there too (Note [Backward streams]). The CPU has no streams.
  void set_device(Device device) {
    device_ = device;
    stream_ = device.type() == kCPU ? nullptr : current_stream_of(device);
  }
  /// The calling thread's current stream of an accelerator device.
  static void* current_stream_of(Device device);

  std::vector<Edge> next_edges_;
  std::vector<InputMeta> input_meta_;   // one per next edge
  Device device_{kCPU, 0};              // set through set_device
  void* stream_ = nullptr;              // opaque backend stream (null: the default stream, or the CPU)
  uint32_t num_inputs_ = 1;
  uint64_t sequence_nr_;
  /// Hooks on the gradient of output `nr` (tensor hooks of non-leaf tensors, retain_grad).
  struct PreHook {
    unsigned id;
    uint32_t nr;
    std::function<Tensor(const Tensor&)> fn;
  };
  std::vector<PreHook> pre_hooks_;
  /// Anomaly mode: the node whose backward recorded this one (a double backward's parent),
  /// named after this node's own error as libtorch's "previous calculation".
  std::weak_ptr<Node> anomaly_parent_;
};

/// A value kept in AutogradContext::saved_data: libtorch's IValue (ember/ivalue.h).
using SavedValue = IValue;

/// Forward arguments [first, second), as libtorch's torch::autograd::IndexRange.
using IndexRange = std::pair<size_t, size_t>;

/// What a custom Function's forward leaves for its backward (torch::autograd::AutogradContext).
struct EMBER_API AutogradContext {
  std::map<std::string, SavedValue> saved_data;
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  /// The saved tensors; InvalidArgument when one was modified in place or the graph was freed.
  variable_list get_saved_variables() const;
  /// Inputs the forward modified in place.
  void mark_dirty(const variable_list& inputs);
  /// Outputs that get no gradient (indices, masks).
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether the forward's tensor argument i (counting a list's tensors one each, an empty
  /// optional none, as libtorch) needs a gradient in the running backward pass.
  bool needs_input_grad(size_t i) const;
  /// Whether any tensor argument in these ranges does.
  bool needs_input_grad(std::initializer_list<IndexRange> ranges) const;
  /// Whether backward sees zeros (true, the default) or undefined tensors for outputs that
  /// got no gradient.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }

  // used by Function<T>::apply
  variable_list to_save_;
  std::vector<SavedVariable> saved_;
  std::vector<const TensorImpl*> dirty_, non_differentiable_;
  size_t num_args_ = 0;  // the forward's arguments, tensors or not: backward returns one gradient each
  std::weak_ptr<Node> node_;
  bool materialize_grads_ = true;
};

namespace detail {
struct EMBER_API CustomNodeBase : Node {
  AutogradContext ctx_;
  std::vector<int> arg_of_edge_;      // the forward argument each next edge comes from
  std::vector<InputMeta> output_meta_;  // the forward's outputs, for materialized gradients
  std::vector<bool> output_defined_;    // an undefined output's gradient stays undefined
  void release_variables() override;
  /// Zeros for the outputs that got no gradient, unless the context says otherwise.
  variable_list materialize(variable_list&& grads) const;
};
/// Wires a custom node: edges from the tensor arguments, history on the outputs, saved tensors.
EMBER_API void setup_custom_node(const std::shared_ptr<CustomNodeBase>& node, const variable_list& args,
                                 const std::vector<int>& arg_index, variable_list& outputs, size_t num_args);
EMBER_API bool any_requires_grad(const std::vector<const Tensor*>& args);  // null: a Scalar operand
EMBER_API bool any_arg_requires_grad(const variable_list& args);
/// "torch::autograd::CppNode<Name>" as libtorch names a custom function's node.
EMBER_API std::string custom_node_name(const char* mangled);
/// Maps T::backward's result (one entry per forward argument) onto the node's edges.
EMBER_API variable_list pick_edge_grads(const CustomNodeBase& node, variable_list&& per_arg);

template <class T>
struct CustomNode final : CustomNodeBase {
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    return pick_edge_grads(*this, T::backward(&ctx_, materialize(std::move(grads))));
  }
  std::string name_;
};

// Copies, not pointers: forward may take its arguments by value and move from them.
inline void collect_arg(variable_list& ts, std::vector<int>& idx, int& pos, const Tensor& t) {
  ts.push_back(t);
  idx.push_back(pos++);
}
inline void collect_arg(variable_list& ts, std::vector<int>& idx, int& pos, const variable_list& v) {
  for (const Tensor& t : v) collect_arg(ts, idx, pos, t);
}
inline void collect_arg(variable_list& ts, std::vector<int>& idx, int& pos, ArrayRef<Tensor> v) {
  for (const Tensor& t : v) collect_arg(ts, idx, pos, t);
}
// An optional tensor is a tensor argument when it holds one (libtorch's ExtractVariables).
inline void collect_arg(variable_list& ts, std::vector<int>& idx, int& pos, const std::optional<Tensor>& t) {
  if (t) collect_arg(ts, idx, pos, *t);
  else ++pos;
}
template <class A>
void collect_arg(variable_list&, std::vector<int>&, int& pos, const A&) {
  ++pos;
}
}  // namespace detail

/// A custom differentiable op (torch::autograd::Function): T provides
/// `static variable_list forward(AutogradContext*, Args...)` (or returning a Tensor) and
/// `static variable_list backward(AutogradContext*, variable_list grad_outputs)`, which
/// returns one gradient per forward argument (undefined for non-tensors).
template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<detail::CustomNode<T>>();
    node->name_ = detail::custom_node_name(typeid(T).name());
    variable_list ts;
    std::vector<int> idx;
    int pos = 0;
    (detail::collect_arg(ts, idx, pos, args), ...);
    const bool record = GradMode::is_enabled() && detail::any_arg_requires_grad(ts);
    using R = decltype(T::forward(&node->ctx_, std::forward<Args>(args)...));
    R result;
    {
      AutoGradMode off(false);
      result = T::forward(&node->ctx_, std::forward<Args>(args)...);
    }
    if (record) {
      if constexpr (std::is_same_v<R, Tensor>) {
        variable_list outs{result};
        detail::setup_custom_node(node, ts, idx, outs, size_t(pos));
        result = outs[0];
      } else {
        detail::setup_custom_node(node, ts, idx, result, size_t(pos));
      }
    }
    return result;
  }
};

/// Computes the gradients of `outputs` w.r.t. `inputs` (torch::autograd::grad).
EMBER_API variable_list grad(const variable_list& outputs, const variable_list& inputs,
                             const variable_list& grad_outputs = {}, std::optional<bool> retain_graph = {},
                             bool create_graph = false, bool allow_unused = false);
/// Accumulates the gradients of `tensors` into the leaves' .grad() (torch::autograd::backward),
/// or, when `inputs` are given, into those tensors' .grad() only (leaves or not).
EMBER_API void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
                        std::optional<bool> retain_graph = {}, bool create_graph = false,
                        const variable_list& inputs = {});

/// A new leaf that shares `data`'s elements (torch::autograd::make_variable).
inline Variable make_variable(const Tensor& data, bool requires_grad = false) {
  Tensor v = data.detach();
  if (requires_grad) v.requires_grad_(true);
  return v;
}

/// libtorch's UndefinedGrad (functions/basic_ops.h): passes its inputs through, and in
/// backward hands undefined gradients to them.
struct EMBER_API UndefinedGrad {
  variable_list apply(variable_list&& inputs);
};

/// libtorch's anomaly mode (process-wide): while enabled, a backward node that throws is
/// named in a warning before the error goes on, and with check_nan a node whose gradient holds
/// a NaN raises "Function 'XBackward0' returned nan values in its 0th output.".
struct EMBER_API AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

/// Enables anomaly mode for its lifetime (torch::autograd::DetectAnomalyGuard), nestable.
class EMBER_API DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_check_nan_;
};

/// Runs `callback` on this thread once the current backward pass has run every node
/// (torch's Engine::queue_callback); InvalidArgument outside a backward pass.
EMBER_API void queue_callback(std::function<void()> callback);

/// Beyond libtorch's C++ API: compares fn's analytic gradient (one backward per output
/// element) with central finite differences in float64. Inputs that require grad are
/// checked; a mismatch throws InvalidArgument naming the input, the element and both values.
EMBER_API bool gradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
                         double eps = 1e-6, double atol = 1e-5, double rtol = 1e-3);

}  // namespace autograd
}  // namespace ember
