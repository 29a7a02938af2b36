#pragma once
/// nn::Module: the base of every layer (libtorch's torch::nn::Module). A module owns named
/// parameters (leaves that require grad), buffers and child modules, in registration order.

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/nn/any_value.h"
#include "ember/nn/ordered_dict.h"
#include "ember/tensor.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::nn {

template <class Impl>
class ModuleHolder;
template <class Derived>
class Cloneable;
template <class ModuleType, class... ArgumentTypes>
struct AnyModuleHolder;

namespace detail {
template <class T, class = void>
struct is_module_holder : std::false_type {};
template <class T>
struct is_module_holder<T, std::void_t<typename T::ContainedType>> : std::true_type {};
}  // namespace detail

/// The namespace printed before a built-in module's name (pretty_print, name(), errors):
/// "ember::nn::", or "torch::nn::" in a program that includes the libtorch drop-in, whose
/// ported tests compare printed modules with libtorch's text (Note [The libtorch drop-in]).
EMBER_API const char* module_namespace();
namespace detail {
/// Switches module_namespace() to "torch::nn::", demangle() to torch:: names and macro_prefix()
/// to ""; called once by the drop-in's headers.
EMBER_API bool print_torch_module_names();
/// "EMBER_", or "" in a drop-in program: how error texts name ember's macros.
EMBER_API const char* macro_prefix();
}  // namespace detail

class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using ConstModuleApplyFunction = std::function<void(const Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;
  using ConstNamedModuleApplyFunction = std::function<void(const std::string&, const Module&)>;
  using ModulePointerApplyFunction = std::function<void(const std::shared_ptr<Module>&)>;
  using NamedModulePointerApplyFunction = std::function<void(const std::string&, const std::shared_ptr<Module>&)>;

  /// name: what pretty_print prints; by default the demangled type name.
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  const std::string& name() const;

  /// A deep copy (parameters and buffers copied, onto `device` when given). Modules get it
  /// by deriving from Cloneable<T>; here it throws, naming the module.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;

  std::vector<Tensor> parameters(bool recurse = true) const;
  /// Dotted names from this module down ("fc1.weight", "0.bias"); undefined ones skipped.
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  /// This module (when include_self) and every descendant, depth first.
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(const std::string& name_prefix = "",
                                                                  bool include_self = true) const;

  /// Sets training mode here and in every descendant.
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const noexcept { return is_training_; }

  /// Moves / casts every parameter and buffer in place: the same tensors (still leaves
  /// that require grad) now hold the converted data; an existing gradient follows them.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);

  /// Writes every named parameter and buffer ("fc1.weight", ...) to a safetensors file at
  /// `path` (atomically, as ember::save), readable by Python's safetensors.
  void save(const std::string& path) const;
  /// Copies the tensors of a file written by save() (or by Python's safetensors) into the
  /// parameters and buffers, converting dtype and device as load_state_dict does. Strict:
  /// missing and unexpected names fail; mismatched shapes always fail. Everything is
  /// checked before anything is copied, so a failed load leaves the module unchanged.
  void load(const std::string& path, bool strict = true);
  /// libtorch's archive form (what torch::save(module, ...) calls): parameters, buffers
  /// (is_buffer) and each child's save() as a nested archive under the child's name.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads every parameter and buffer of the whole tree by dotted name before changing any,
  /// so a missing or mis-shaped tensor (all are listed) leaves the module unchanged. As in
  /// libtorch each one then holds the file's values and dtype, in place (same tensor, so
  /// optimizers still find it), on the archive's load_from device if one was given, else
  /// where it was. Names the module lacks are ignored, as libtorch does.
  virtual void load(serialize::InputArchive& archive);

  /// Zeroes every parameter's gradient (libtorch 1.13's default), or makes it undefined when set_to_none.
  virtual void zero_grad(bool set_to_none = false);

  /// Calls fn on this module and every descendant, depth first, parents first.
  void apply(const ModuleApplyFunction& fn);
  void apply(const ConstModuleApplyFunction& fn) const;
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = "");
  void apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix = "") const;
  /// The pointer forms need this module to be held by a shared_ptr (as named_modules).
  void apply(const ModulePointerApplyFunction& fn) const;
  void apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix = "") const;

  /// This module as M (an Impl or a holder type such as Linear), or nullptr when it is not one.
  template <class M>
  auto* as() noexcept {
    if constexpr (detail::is_module_holder<M>::value)
      return dynamic_cast<typename M::ContainedType*>(this);
    else
      return dynamic_cast<M*>(this);
  }
  template <class M>
  const auto* as() const noexcept {
    return const_cast<Module*>(this)->as<M>();
  }

  /// One line describing this module (no children); operator<< adds the children.
  virtual void pretty_print(std::ostream& stream) const;
  /// Whether a parent's archive includes this module (Functional: false).
  virtual bool is_serializable() const { return true; }

  /// Registers a parameter (a leaf; requires_grad as given). An undefined tensor is kept
  /// under its name but is not listed by parameters(). Returns the stored tensor.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    check_module_name(name, module.get());
    children_.insert(std::move(name), module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> register_module(std::string name, ModuleHolder<M> holder) {
    return register_module(std::move(name), holder.ptr());
  }
  /// Replaces a registered child (for a field assigned after construction).
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    replace_child(name, module);
    return module;
  }
  template <class M>
  std::shared_ptr<M> replace_module(const std::string& name, ModuleHolder<M> holder) {
    return replace_module(name, holder.ptr());
  }
  /// Removes a registered child (InvalidArgument when there is none of that name).
  void unregister_module(const std::string& name);

 protected:
  // AnyModule's hooks for a forward with default arguments (EMBER_FORWARD_HAS_DEFAULT_ARGS).
  virtual bool _forward_has_default_args() { return false; }
  virtual unsigned int _forward_num_required_args();
  virtual std::vector<AnyValue> _forward_populate_default_args(std::vector<AnyValue>&& arguments);

  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
  template <class Derived>
  friend class Cloneable;
  template <class ModuleType, class... ArgumentTypes>
  friend struct AnyModuleHolder;

  // Cloneable's steps: copy this module's tensors into `copy` (rebuilt by reset()), and
  // take over a deep clone of `other` in place (so a parent's field keeps pointing here).
  void copy_state_into(Module& copy, const std::optional<Device>& device) const;
  virtual void clone_(Module& other, const std::optional<Device>& device);
  std::shared_ptr<Module> shared_from_this_checked(const char* what) const;

  void convert(const std::function<Tensor(const Tensor&)>& fn);
  void check_module_name(const std::string& name, const Module* module) const;
  void replace_child(const std::string& name, std::shared_ptr<Module> module);
  void pretty_print_recursive(std::ostream& stream, const std::string& indentation) const;
  void collect_modules(const std::string& prefix,
                       OrderedDict<std::string, std::shared_ptr<Module>>& out) const;
  friend EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

  mutable std::optional<std::string> name_;
  bool is_training_ = true;
};

/// The module and its children, indented, as libtorch prints them.
EMBER_API std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace ember::nn
