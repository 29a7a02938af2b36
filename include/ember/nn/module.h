#pragma once
/// nn::Module: the base of every layer (libtorch's torch::nn::Module). A module owns named
/// parameters (leaves that require grad), buffers and child modules, in registration order.

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ember/nn/ordered_dict.h"
#include "ember/tensor.h"

namespace ember::nn {

template <class Impl>
class ModuleHolder;

class EMBER_API Module : public std::enable_shared_from_this<Module> {
 public:
  using ModuleApplyFunction = std::function<void(Module&)>;
  using NamedModuleApplyFunction = std::function<void(const std::string&, Module&)>;

  /// name: what pretty_print prints; by default the demangled type name.
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  const std::string& name() const;

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

  /// Clears every parameter's gradient (undefined when set_to_none, zeroed otherwise).
  virtual void zero_grad(bool set_to_none = true);

  /// Calls fn on this module and every descendant, depth first, parents first.
  void apply(const ModuleApplyFunction& fn);
  void apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix = "");

  /// One line describing this module (no children); operator<< adds the children.
  virtual void pretty_print(std::ostream& stream) const;

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

 protected:
  OrderedDict<std::string, Tensor> parameters_{"Parameter"};
  OrderedDict<std::string, Tensor> buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

 private:
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
