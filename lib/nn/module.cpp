// nn::Module: registration, the recursive accessors, modes, conversion and printing.
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>

#include "core/check.h"
#include "ember/autograd.h"

namespace ember::nn {

namespace {

std::string demangled(const std::type_info& t) {
  int status = 0;
  char* s = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string r = status == 0 && s ? s : t.name();
  std::free(s);
  return r;
}

void check_name(const std::string& name, const char* what) {
  EMBER_CHECK_ARG(!name.empty(), "{} name must not be empty", what);
  EMBER_CHECK_ARG(name.find('.') == std::string::npos, "{} name must not contain a dot (got '{}')", what,
                  name);
}

// Points t's own TensorImpl at src's data, so every handle to t sees the new device /
// dtype while t keeps its identity, leaf status and requires_grad (libtorch's set_data).
void set_data(Tensor& t, const Tensor& src) {
  TensorImpl* dst = t.unsafe_impl();
  const TensorImpl* s = src.unsafe_impl();
  dst->storage_ = s->storage_;
  dst->sizes_ = s->sizes_;
  dst->strides_ = s->strides_;
  dst->storage_offset_ = s->storage_offset_;
  dst->dtype_ = s->dtype_;
  dst->refresh();
}

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

const std::string& Module::name() const {
  // Filled lazily: the dynamic type is only known once construction is over.
  if (!name_) name_ = demangled(typeid(*this));
  return *name_;
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_THROW(NotImplemented,
              "clone() has not been implemented for {0}. Subclass ember::nn::Cloneable<{0}> instead of "
              "ember::nn::Module to inherit the ability to clone.",
              name());
}

// A plain Module child of a Cloneable keeps what the copy's reset() made (as libtorch).
void Module::clone_(Module&, const std::optional<Device>&) {}

void Module::copy_state_into(Module& copy, const std::optional<Device>& device) const {
  // reset() must have rebuilt the same entries; check all three before copying anything.
  auto check = [&](size_t got, size_t want, const char* what, const char* fn) {
    EMBER_CHECK_ARG(got == want,
                    "The cloned module does not have the same number of {0} as the original module after "
                    "calling reset(). Are you sure you called {1}() inside reset() and not the constructor? "
                    "({2}: {3} after reset(), {4} in the original)",
                    what, fn, name(), got, want);
  };
  check(copy.parameters_.size(), parameters_.size(), "parameters", "register_parameter");
  check(copy.buffers_.size(), buffers_.size(), "buffers", "register_buffer");
  check(copy.children_.size(), children_.size(), "child modules", "register_module");
  auto fresh = [&](const Tensor& t) { return device && t.device() != *device ? t.to(*device, false, true) : t.clone(); };
  for (const auto& p : parameters_) {
    Tensor& dst = copy.parameters_[p.key()];
    if (p.value().defined() && dst.defined()) dst.set_data(fresh(p.value()));
  }
  for (const auto& b : buffers_) {
    Tensor& dst = copy.buffers_[b.key()];
    if (b.value().defined() && dst.defined()) dst.set_data(fresh(b.value()));
  }
  for (const auto& c : children_) copy.children_[c.key()]->clone_(*c.value(), device);
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK_ARG(children_.contains(name), "No Module with name `{}` is registered", name);
  children_.erase(name);
}

unsigned int Module::_forward_num_required_args() {
  EMBER_THROW(InvalidArgument,
              "ember::nn::Module subclass that has default arguments in `forward` method must override "
              "`_forward_num_required_args` method. Please use `EMBER_FORWARD_HAS_DEFAULT_ARGS` macro to do so.");
}

std::vector<AnyValue> Module::_forward_populate_default_args(std::vector<AnyValue>&&) {
  EMBER_THROW(InvalidArgument,
              "ember::nn::Module subclass that has default arguments in `forward` method must override "
              "`_forward_populate_default_args` method. Please use `EMBER_FORWARD_HAS_DEFAULT_ARGS` macro to do "
              "so.");
}

std::shared_ptr<Module> Module::shared_from_this_checked(const char* what) const {
  std::shared_ptr<const Module> self = weak_from_this().lock();
  EMBER_CHECK_ARG(self != nullptr,
                  "{}: this module ({}) is not held by a shared_ptr; create it with "
                  "std::make_shared (or a module holder), or pass include_self = false",
                  what, name());
  return std::const_pointer_cast<Module>(self);
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_name(name, "Parameter");
  EMBER_CHECK_ARG(!buffers_.contains(name), "Parameter '{}' already defined as a buffer", name);
  EMBER_CHECK_ARG(!parameters_.contains(name), "Parameter '{}' already defined", name);
  // As libtorch: requires_grad is set either way (false on a non-leaf is a no-op).
  if (tensor.defined())
    tensor.set_requires_grad(requires_grad);
  else if (requires_grad)
    EMBER_WARN_FMT("An undefined tensor cannot require grad. Ignoring the `requires_grad=true` function parameter.");
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_name(name, "Buffer");
  EMBER_CHECK_ARG(!parameters_.contains(name), "Buffer '{}' already defined as a parameter", name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

void Module::check_module_name(const std::string& name, const Module* module) const {
  check_name(name, "Submodule");
  EMBER_CHECK_ARG(module != nullptr, "register_module: submodule '{}' is null", name);
}

void Module::replace_child(const std::string& name, std::shared_ptr<Module> module) {
  EMBER_CHECK_ARG(module != nullptr, "replace_module: submodule '{}' is null", name);
  children_[name] = std::move(module);
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  OrderedDict<std::string, Tensor> r;
  if (!recurse) {
    for (const auto& p : parameters_)
      if (p.value().defined()) r.insert(p.key(), p.value());
    return r;
  }
  for (const auto& p : parameters_)
    if (p.value().defined()) r.insert(p.key(), p.value());
  for (const auto& m : named_modules("", false))
    for (const auto& p : m.value()->parameters_)
      if (p.value().defined()) r.insert(m.key() + "." + p.key(), p.value());
  return r;
}

std::vector<Tensor> Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  OrderedDict<std::string, Tensor> r;
  if (!recurse) {
    for (const auto& b : buffers_)
      if (b.value().defined()) r.insert(b.key(), b.value());
    return r;
  }
  for (const auto& b : buffers_)
    if (b.value().defined()) r.insert(b.key(), b.value());
  for (const auto& m : named_modules("", false))
    for (const auto& b : m.value()->buffers_)
      if (b.value().defined()) r.insert(m.key() + "." + b.key(), b.value());
  return r;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const { return children_; }

void Module::collect_modules(const std::string& prefix,
                             OrderedDict<std::string, std::shared_ptr<Module>>& out) const {
  for (const auto& c : children_) {
    std::string name = prefix.empty() ? c.key() : prefix + "." + c.key();
    out.insert(name, c.value());
    c.value()->collect_modules(name, out);
  }
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(const std::string& name_prefix,
                                                                        bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> r("Module");
  if (include_self) r.insert(name_prefix, shared_from_this_checked("named_modules"));
  collect_modules(name_prefix, r);
  return r;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

void Module::train(bool on) {
  for (auto& c : children_) c.value()->train(on);
  is_training_ = on;
}

void Module::convert(const std::function<Tensor(const Tensor&)>& fn) {
  NoGradGuard no_grad;
  // Convert everything first, then swap: a failed conversion leaves the module unchanged.
  std::vector<std::pair<Tensor*, Tensor>> moved;
  auto add = [&](Tensor& t) {
    if (!t.defined()) return;
    moved.emplace_back(&t, fn(t));
    if (t.grad().defined()) moved.emplace_back(&t.mutable_grad(), fn(t.grad()));
  };
  for (const auto& m : named_modules("", false)) {
    for (auto& p : m.value()->parameters_) add(p.value());
    for (auto& b : m.value()->buffers_) add(b.value());
  }
  for (auto& p : parameters_) add(p.value());
  for (auto& b : buffers_) add(b.value());
  for (auto& [t, data] : moved) set_data(*t, data);
}

// As libtorch: a dtype applies to floating-point tensors only (integer buffers keep theirs).
void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  convert([&](const Tensor& t) {
    return t.to(device, is_floating_point(t.dtype()) ? dtype : t.dtype(), non_blocking);
  });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  convert([&](const Tensor& t) { return is_floating_point(t.dtype()) ? t.to(dtype, non_blocking) : t; });
}

void Module::to(Device device, bool non_blocking) {
  convert([&](const Tensor& t) { return t.to(device, non_blocking); });
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      NoGradGuard no_grad;
      p.mutable_grad() = p.grad().detach();
      p.mutable_grad().zero_();
    }
  }
}

void Module::apply(const ModuleApplyFunction& fn) {
  fn(*this);
  for (auto& c : children_) c.value()->apply(fn);
}

void Module::apply(const ConstModuleApplyFunction& fn) const {
  fn(*this);
  for (const auto& c : children_) static_cast<const Module&>(*c.value()).apply(fn);
}

void Module::apply(const NamedModuleApplyFunction& fn, const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& c : children_) c.value()->apply(fn, name_prefix.empty() ? c.key() : name_prefix + "." + c.key());
}

void Module::apply(const ConstNamedModuleApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, *this);
  for (const auto& c : children_)
    static_cast<const Module&>(*c.value()).apply(fn, name_prefix.empty() ? c.key() : name_prefix + "." + c.key());
}

void Module::apply(const ModulePointerApplyFunction& fn) const {
  fn(shared_from_this_checked("apply"));
  for (const auto& m : named_modules("", false)) fn(m.value());
}

void Module::apply(const NamedModulePointerApplyFunction& fn, const std::string& name_prefix) const {
  fn(name_prefix, shared_from_this_checked("apply"));
  for (const auto& m : named_modules(name_prefix, false)) fn(m.key(), m.value());
}

void Module::pretty_print(std::ostream& stream) const { stream << name(); }

void Module::pretty_print_recursive(std::ostream& stream, const std::string& indentation) const {
  pretty_print(stream);
  if (children_.is_empty()) return;
  stream << "(\n";
  const std::string next = indentation + "  ";
  for (const auto& c : children_) {
    stream << next << "(" << c.key() << "): ";
    c.value()->pretty_print_recursive(stream, next);
    stream << '\n';
  }
  stream << indentation << ")";
}

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  module.pretty_print_recursive(stream, "");
  return stream;
}

}  // namespace ember::nn
