// ModuleList, Sequential and ModuleDict: the parts that are not templates.
#include "ember/nn/container.h"

#include "core/check.h"

namespace ember::nn {

namespace detail {

void throw_index_out_of_range(size_t index, size_t size, const char* what) {
  EMBER_THROW(InvalidArgument, "Index out of range: {} for a container of {} {}", index, size, what);
}

void throw_wrong_module_type(const char* container, size_t index, const Module& module,
                             const std::type_info& wanted) {
  EMBER_THROW(InvalidArgument, "{}: the module at index {} is a {}, not the requested {}", container, index,
              module.name(), demangle(wanted));
}

void throw_wrong_module_type(const char* container, const std::string& key, const Module& module,
                             const std::type_info& wanted) {
  EMBER_THROW(InvalidArgument, "{}: the module under key '{}' is a {}, not the requested {}", container, key,
              module.name(), demangle(wanted));
}

void throw_sequential_return(const std::type_info& actual, const std::type_info& wanted) {
  EMBER_THROW(InvalidArgument, "The type of the return value is {}, but you asked for type {}", demangle(actual),
              demangle(wanted));
}

}  // namespace detail

// ---- ModuleList

std::shared_ptr<Module> ModuleListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleListImpl>();
  for (const auto& m : modules_) copy->push_back(m->clone(device));
  return copy;
}

void ModuleListImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ModuleList";
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  EMBER_CHECK_ARG(module != nullptr, "ModuleList::push_back: the module is null");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK_ARG(index <= modules_.size(),
                  "Index out of range: {} for a container of {} modules (ModuleList::insert takes 0 to {})", index,
                  modules_.size(), modules_.size());
  EMBER_CHECK_ARG(module != nullptr, "ModuleList::insert: the module is null");
  if (index == modules_.size()) return push_back(std::move(module));
  modules_.insert(modules_.begin() + std::ptrdiff_t(index), std::move(module));
  // Children "index" .. "size - 2" now name the next module; the last one is new.
  for (size_t i = index; i + 1 < modules_.size(); ++i) replace_module(std::to_string(i), modules_[i]);
  register_module(std::to_string(modules_.size() - 1), modules_.back());
}

// ---- Sequential

SequentialImpl::SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict) {
  modules_.reserve(ordered_dict.size());
  for (auto& item : ordered_dict) push_back(item.key(), std::move(item.value()));
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  modules_.reserve(named_modules.size());
  for (const auto& m : named_modules) push_back(m.name(), m.module());
}

std::shared_ptr<Module> SequentialImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<SequentialImpl>();
  const auto names = children_.keys();
  for (size_t i = 0; i < modules_.size(); ++i) copy->push_back(names[i], modules_[i].clone(device));
  return copy;
}

void SequentialImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Sequential";
}

void SequentialImpl::push_back(std::string name, AnyModule any_module) {
  EMBER_CHECK_ARG(!any_module.is_empty(), "Sequential::push_back: the module '{}' is empty", name);
  register_module(std::move(name), any_module.ptr());  // checks the name before anything changes
  modules_.push_back(std::move(any_module));
}

// ---- ModuleDict

void ModuleDictImpl::clear() {
  for (const auto& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

std::shared_ptr<Module> ModuleDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ModuleDictImpl>();
  for (const auto& m : modules_) copy->insert(m.key(), m.value()->clone(device));
  return copy;
}

void ModuleDictImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ModuleDict";
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = modules_[key];
  modules_.erase(key);
  unregister_module(key);
  return module;
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  EMBER_CHECK_ARG(module != nullptr, "ModuleDict: the module for key '{}' is null", key);
  if (contains(key)) {
    replace_module(key, module);
    modules_[key] = std::move(module);
  } else {
    register_module(key, module);  // checks the name before anything changes
    modules_.insert(key, std::move(module));
  }
}

}  // namespace ember::nn
