#pragma once
/// nn::Sequential: modules called one after another, each on the previous one's output
/// (libtorch's torch::nn::Sequential). Modules are held as AnyModule, so any forward()
/// signature chains; children are named "0", "1", ... or as given:
///   nn::Sequential s(nn::Linear(4, 3), nn::Functional(ember::relu));
///   nn::Sequential named({{"fc", nn::Linear(4, 3)}, {"act", nn::ReLU()}});

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/any_module.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/module_list.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
[[noreturn]] EMBER_API void throw_sequential_return(const std::type_info& actual, const std::type_info& wanted);
}  // namespace detail

class EMBER_API SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  template <class... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    push_back(std::forward<Modules>(modules)...);
  }
  explicit SequentialImpl(OrderedDict<std::string, AnyModule>&& ordered_dict);
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);
  SequentialImpl(const SequentialImpl&) = default;
  SequentialImpl(SequentialImpl&) = default;
  SequentialImpl& operator=(const SequentialImpl&) = default;

  /// Clones every module into a new Sequential, keeping the names.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  /// Calls the first module with inputs, each next one with the previous output, and
  /// returns the last output as ReturnType (InvalidArgument when empty or of another type).
  template <class ReturnType = Tensor, class... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    if (modules_.empty()) detail::throw_any_module_error("Cannot call forward() on an empty Sequential");
    auto it = modules_.begin();
    AnyValue value = it->any_forward(std::forward<InputTypes>(inputs)...);
    for (++it; it != modules_.end(); ++it) value = it->any_forward(std::move(value));
    if (auto* r = value.template try_get<ReturnType>()) return std::move(*r);
    detail::throw_sequential_return(value.type_info(), typeid(ReturnType));
  }

  template <class ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::to_string(modules_.size()), std::move(module_ptr));
  }
  template <class ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::move(name), AnyModule(std::move(module_ptr)));
  }
  template <class M, class = detail::enable_if_module_t<M>>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <class M, class = detail::enable_if_module_t<M>>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), std::make_shared<std::decay_t<M>>(std::forward<M>(module)));
  }
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::to_string(modules_.size()), holder);
  }
  template <class M>
  void push_back(std::string name, const ModuleHolder<M>& holder) {
    push_back(std::move(name), holder.ptr());
  }
  void push_back(AnyModule any_module) { push_back(std::to_string(modules_.size()), std::move(any_module)); }
  void push_back(std::string name, AnyModule any_module);
  /// Several at once: push_back(a, b, c).
  template <class First, class Second, class... Rest,
            class = std::enable_if_t<!std::is_convertible_v<First, std::string>>>
  void push_back(First&& first, Second&& second, Rest&&... rest) {
    push_back(std::forward<First>(first));
    push_back(std::forward<Second>(second), std::forward<Rest>(rest)...);
  }
  void push_back() {}
  /// Appends every module of a container (another Sequential, a vector of shared_ptrs, ...).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

  /// The i-th module as T, its exact type (InvalidArgument past the end or otherwise).
  template <class T>
  T& at(size_t index) {
    static_assert(std::is_base_of_v<Module, T>, "Can only call Sequential::at with an nn::Module type");
    if (index >= modules_.size()) detail::throw_index_out_of_range(index, modules_.size());
    return modules_[index].get<T>();
  }
  template <class T>
  const T& at(size_t index) const {
    return const_cast<SequentialImpl*>(this)->at<T>(index);
  }
  std::shared_ptr<Module> ptr(size_t index) const {
    if (index >= modules_.size()) detail::throw_index_out_of_range(index, modules_.size());
    return modules_[index].ptr();
  }
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(std::is_base_of_v<Module, T>, "Can only call Sequential::ptr with an nn::Module type");
    if (index >= modules_.size()) detail::throw_index_out_of_range(index, modules_.size());
    return modules_[index].ptr<T>();
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  std::vector<AnyModule> modules_;
};

/// The holder, with libtorch's `Sequential({{"name", module}, ...})`.
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace ember::nn
