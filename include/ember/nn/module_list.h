#pragma once
/// nn::ModuleList: modules in a list, registered as children "0", "1", ... (libtorch's
/// torch::nn::ModuleList). It has no forward(): the owner iterates it.
///   nn::ModuleList layers(nn::Linear(4, 4), nn::ReLU());
///   for (const auto& m : *layers) ...;  layers->ptr<nn::LinearImpl>(0)->weight;

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
/// InvalidArgument: "<container>: Index out of range: <i> for a container of <n> modules".
[[noreturn]] EMBER_API void throw_index_out_of_range(size_t index, size_t size, const char* what = "modules");
[[noreturn]] EMBER_API void throw_wrong_module_type(const char* container, size_t index, const Module& module,
                                                    const std::type_info& wanted);
}  // namespace detail

class EMBER_API ModuleListImpl : public Cloneable<ModuleListImpl> {
 public:
  using Iterator = std::vector<std::shared_ptr<Module>>::iterator;
  using ConstIterator = std::vector<std::shared_ptr<Module>>::const_iterator;

  ModuleListImpl() = default;
  /// From modules, holders or shared_ptrs, in order.
  template <class... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  ModuleListImpl(const ModuleListImpl&) = default;
  ModuleListImpl(ModuleListImpl&) = default;
  ModuleListImpl& operator=(const ModuleListImpl&) = default;

  /// Clones every module into a new list (each module's own clone()).
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  void push_back(std::shared_ptr<Module> module);
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void push_back(M&& module) {
    push_back(std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  /// Appends every module of a container (a ModuleList, a vector of shared_ptrs, ...).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }
  /// Inserts before index (index == size() appends); the later modules are renamed.
  void insert(size_t index, std::shared_ptr<Module> module);
  template <class M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, holder.ptr());
  }
  template <class M, class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>>
  void insert(size_t index, M&& module) {
    insert(index, std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

  /// The i-th module as T (InvalidArgument past the end or when it is not a T).
  template <class T>
  T& at(size_t index) {
    static_assert(std::is_base_of_v<Module, T>, "Can only call ModuleList::at with an nn::Module type");
    Module& m = *ptr(index);
    if (T* t = m.as<T>()) return *t;
    detail::throw_wrong_module_type("ModuleList::at", index, m, typeid(T));
  }
  template <class T>
  const T& at(size_t index) const {
    return const_cast<ModuleListImpl*>(this)->at<T>(index);
  }
  /// The i-th module (InvalidArgument past the end).
  std::shared_ptr<Module> ptr(size_t index) const {
    if (index >= modules_.size()) detail::throw_index_out_of_range(index, modules_.size());
    return modules_[index];
  }
  /// The i-th module as T, or nullptr when it is not a T.
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(std::is_base_of_v<Module, T>, "Can only call ModuleList::ptr with an nn::Module type");
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

}  // namespace ember::nn
