// nn::Module: registration, the recursive accessors, modes, conversion and printing.
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <typeinfo>

#include "core/check.h"
#include "ember/autograd.h"

namespace ember::nn {

namespace {

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

namespace {
// Set once, before main, by the libtorch drop-in's headers.
std::atomic<bool> g_torch_names{false};
bool torch_names() { return g_torch_names.load(std::memory_order_relaxed); }
}  // namespace

const char* module_namespace() { return torch_names() ? "torch::nn::" : "ember::nn::"; }

namespace detail {
bool print_torch_module_names() {
  g_torch_names.store(true, std::memory_order_relaxed);
  return true;
}

const char* macro_prefix() { return torch_names() ? "" : "EMBER_"; }

std::string demangle(const std::type_info& type) {
  int status = 0;
  char* s = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string r = status == 0 && s ? s : type.name();
  std::free(s);
  // ember's own types are named by the namespace users write: torch:: through the drop-in.
  if (r.rfind("ember::", 0) == 0 && torch_names()) r.replace(0, 5, "torch");
  return r;
}
}  // namespace detail

const std::string& Module::name() const {
  // Filled lazily: the dynamic type is only known once construction is over.
  if (!name_) name_ = detail::demangle(typeid(*this));
  return *name_;
}

std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  EMBER_THROW(NotImplemented,
              "clone() has not been implemented for {0}. Subclass {1}Cloneable<{0}> instead of "
              "{1}Module to inherit the ability to clone.",
              name(), module_namespace());
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
              "{}Module subclass that has default arguments in `forward` method must override "
              "`_forward_num_required_args` method. Please use `{}FORWARD_HAS_DEFAULT_ARGS` macro to do so.",
              module_namespace(), detail::macro_prefix());
}

std::vector<AnyValue> Module::_forward_populate_default_args(std::vector<AnyValue>&&) {
  EMBER_THROW(InvalidArgument,
              "{}Module subclass that has default arguments in `forward` method must override "
              "`_forward_populate_default_args` method. Please use `{}FORWARD_HAS_DEFAULT_ARGS` macro to do "
              "so.",
              module_namespace(), detail::macro_prefix());
}

std::shared_ptr<Module> Module::shared_from_this_checked(const char* what) const {
  std::shared_ptr<const Module> self = weak_from_this().lock();
  EMBER_CHECK_ARG(
      self != nullptr,
      "{}: It looks like you attempted to retrieve your top-level module as a shared_ptr, but it "
      "is not stored in a shared_ptr ({}). Use std::make_shared<{}>() (or a module holder) instead "
      "of creating your module on the stack, or pass include_self = false",
      what, name(), name());
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
    Tensor data = fn(t);
    EMBER_CHECK_ARG(!t.requires_grad() || is_floating_point(data.dtype()),
                    "data set to a tensor that requires gradients must be floating point or complex dtype");
    moved.emplace_back(&t, std::move(data));
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

// As libtorch's Module::to: every parameter and buffer takes the dtype, integer ones too
// (Python's nn.Module.to converts floating-point tensors only).
void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  convert([&](const Tensor& t) { return t.to(device, dtype, non_blocking); });
}

void Module::to(ScalarType dtype, bool non_blocking) {
  convert([&](const Tensor& t) { return t.to(dtype, non_blocking); });
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
