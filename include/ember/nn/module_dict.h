#pragma once
/// nn::ModuleDict: modules by name, in insertion order, each registered as a child under
/// its key (libtorch's torch::nn::ModuleDict). Inserting an existing key replaces it.
///   nn::ModuleDict heads({{"cls", nn::Linear(8, 10).ptr()}, {"box", nn::Linear(8, 4).ptr()}});
///   heads["cls"];  heads->at<nn::LinearImpl>("box");

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module_list.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
[[noreturn]] EMBER_API void throw_wrong_module_type(const char* container, const std::string& key,
                                                    const Module& module, const std::type_info& wanted);
}  // namespace detail

class EMBER_API ModuleDictImpl : public Cloneable<ModuleDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, std::shared_ptr<Module>>::Iterator;
  using ConstIterator = OrderedDict<std::string, std::shared_ptr<Module>>::ConstIterator;

  ModuleDictImpl() = default;
  explicit ModuleDictImpl(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    update(modules);
  }
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) { update(modules); }

  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const { return modules_.pairs(); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }
  size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.is_empty(); }
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }
  /// Removes every module (and child registration).
  void clear();

  /// Clones every module into a new dict under the same keys.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  /// The module under key (InvalidArgument: "Key 'k' is not defined").
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  /// The module under key as T (InvalidArgument when missing or not a T).
  template <class T>
  T& at(const std::string& key) {
    static_assert(std::is_base_of_v<Module, T>, "Can only call ModuleDict::at with an nn::Module type");
    Module& m = *modules_[key];
    if (T* t = m.as<T>()) return *t;
    detail::throw_wrong_module_type("ModuleDict::at", key, m, typeid(T));
  }
  template <class T>
  const T& at(const std::string& key) const {
    return const_cast<ModuleDictImpl*>(this)->at<T>(key);
  }
  /// Removes key and returns its module (InvalidArgument when missing).
  std::shared_ptr<Module> pop(const std::string& key);
  /// Inserts or replaces each (key, module) pair, in order.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
    for (const auto& item : modules) insert(item.first, item.second);
  }
  /// Inserts or replaces each item (with key() and value(): an OrderedDict, a ModuleDict).
  template <class Container>
  void update(const Container& container) {
    for (const auto& item : container) insert(item.key(), item.value());
  }

 private:
  void insert(const std::string& key, std::shared_ptr<Module> module);

  OrderedDict<std::string, std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleDict);

}  // namespace ember::nn
