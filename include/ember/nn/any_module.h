#pragma once
/// nn::AnyModule: holds any module with a forward() of any signature behind one type
/// (libtorch's torch::nn::AnyModule); NamedAnyModule pairs one with a name for Sequential.
///   nn::AnyModule any(nn::Linear(3, 4));
///   Tensor y = any.forward(x);             // forward<ReturnType = Tensor>(arguments...)
///   nn::LinearImpl& lin = any.get<nn::LinearImpl>();
/// Arguments must have the exact (decayed) types that forward() takes; a wrong type or
/// count throws InvalidArgument naming what was expected and what was received.

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/nn/any_value.h"
#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
[[noreturn]] EMBER_API void throw_any_module_error(const char* what);
[[noreturn]] EMBER_API void throw_any_module_cast(const std::type_info& held, const std::type_info& wanted);
[[noreturn]] EMBER_API void throw_forward_argument(size_t index, const std::type_info& wanted,
                                                   const std::type_info& received);
/// Checks the argument count of a forward() (with or without default arguments).
EMBER_API void check_forward_arity(const std::type_info& module, size_t received, size_t expected,
                                   std::optional<size_t> required);

template <class M>
using enable_if_module_t = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>>>;

// forward()'s argument types, from a non-template, non-overloaded forward (as libtorch);
// a module whose forward is a template (Sequential) is taken as Tensor -> Tensor.
template <class... A>
struct forward_args {};
template <class M, class = void>
struct forward_signature {
  using args = forward_args<Tensor>;
};
template <class R, class C, class... A>
forward_args<A...> forward_args_of(R (C::*)(A...));
template <class R, class C, class... A>
forward_args<A...> forward_args_of(R (C::*)(A...) const);
template <class M>
struct forward_signature<M, std::void_t<decltype(forward_args_of(&M::forward))>> {
  using args = decltype(forward_args_of(&M::forward));
};
template <class M, class = void>
struct has_forward : std::false_type {};
template <class M>
struct has_forward<M, std::void_t<decltype(std::declval<M&>().forward(std::declval<Tensor>()))>> : std::true_type {};

template <class... A>
constexpr bool no_mutable_references() {
  return ((!std::is_lvalue_reference_v<A> || std::is_const_v<std::remove_reference_t<A>>)&&...);
}
}  // namespace detail

/// The type-erased interface behind AnyModule.
struct AnyModulePlaceholder : public AnyValue::Placeholder {
  using AnyValue::Placeholder::Placeholder;
  virtual AnyValue forward(std::vector<AnyValue>&& arguments) = 0;
  virtual std::shared_ptr<Module> ptr() = 0;
  virtual std::unique_ptr<AnyModulePlaceholder> copy() const = 0;
  virtual std::unique_ptr<AnyModulePlaceholder> clone_module(std::optional<Device> device) const = 0;
};

template <class ModuleType, class... ArgumentTypes>
struct AnyModuleHolder : public AnyModulePlaceholder {
  explicit AnyModuleHolder(std::shared_ptr<ModuleType>&& module_)
      : AnyModulePlaceholder(typeid(ModuleType)), module(std::move(module_)) {}

  AnyValue forward(std::vector<AnyValue>&& arguments) override {
    constexpr size_t n = sizeof...(ArgumentTypes);
    if (module->_forward_has_default_args()) {
      detail::check_forward_arity(type_info, arguments.size(), n, module->_forward_num_required_args());
      arguments = module->_forward_populate_default_args(std::move(arguments));
    } else {
      detail::check_forward_arity(type_info, arguments.size(), n, std::nullopt);
    }
    return invoke(arguments, std::index_sequence_for<ArgumentTypes...>{});
  }
  std::shared_ptr<Module> ptr() override { return module; }
  std::unique_ptr<AnyModulePlaceholder> copy() const override { return std::make_unique<AnyModuleHolder>(*this); }
  std::unique_ptr<AnyModulePlaceholder> clone_module(std::optional<Device> device) const override {
    return std::make_unique<AnyModuleHolder>(std::dynamic_pointer_cast<ModuleType>(module->clone(device)));
  }

  std::shared_ptr<ModuleType> module;

 private:
  template <class T>
  static std::decay_t<T>&& argument(std::vector<AnyValue>& arguments, size_t i) {
    if (auto* v = arguments[i].template try_get<std::decay_t<T>>()) return std::move(*v);
    detail::throw_forward_argument(i, typeid(std::decay_t<T>), arguments[i].type_info());
  }
  template <size_t... I>
  AnyValue invoke(std::vector<AnyValue>& arguments, std::index_sequence<I...>) {
    return AnyValue(module->forward(argument<ArgumentTypes>(arguments, I)...));
  }
};

class AnyModule {
 public:
  AnyModule() = default;
  template <class ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> module) : content_(make_holder(std::move(module))) {}
  /// Takes a module value (`AnyModule(nn::LinearImpl(3, 4))`) into a new shared_ptr.
  template <class ModuleType, class = detail::enable_if_module_t<ModuleType>>
  explicit AnyModule(ModuleType&& module)
      : AnyModule(std::make_shared<std::decay_t<ModuleType>>(std::forward<ModuleType>(module))) {}
  template <class ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& holder) : AnyModule(holder.ptr()) {}

  AnyModule(AnyModule&&) = default;
  AnyModule& operator=(AnyModule&&) = default;
  /// Copies share the module (a shallow copy, as libtorch); clone() copies it deeply.
  AnyModule(const AnyModule& other) : content_(other.content_ ? other.content_->copy() : nullptr) {}
  AnyModule& operator=(const AnyModule& other) {
    if (this != &other) content_ = other.content_ ? other.content_->copy() : nullptr;
    return *this;
  }
  template <class ModuleType>
  AnyModule& operator=(std::shared_ptr<ModuleType> module) {
    return *this = AnyModule(std::move(module));
  }

  /// A deep copy of the held module (Module::clone), onto device when given.
  AnyModule clone(std::optional<Device> device = std::nullopt) const {
    AnyModule r;
    r.content_ = content_ ? content_->clone_module(device) : nullptr;
    return r;
  }

  /// Calls forward() with the arguments, returning its result as an AnyValue.
  template <class... ArgumentTypes>
  AnyValue any_forward(ArgumentTypes&&... arguments) {
    if (is_empty()) detail::throw_any_module_error("Cannot call forward() on an empty AnyModule");
    std::vector<AnyValue> values;
    values.reserve(sizeof...(ArgumentTypes));
    (values.emplace_back(std::forward<ArgumentTypes>(arguments)), ...);
    return content_->forward(std::move(values));
  }
  /// Calls forward() and returns its result as ReturnType (which must be its exact type).
  template <class ReturnType = Tensor, class... ArgumentTypes>
  ReturnType forward(ArgumentTypes&&... arguments) {
    return any_forward(std::forward<ArgumentTypes>(arguments)...).template get<ReturnType>();
  }

  /// The held module as T (its exact type); InvalidArgument naming both types otherwise.
  template <class T, class = detail::enable_if_module_t<T>>
  T& get() {
    return get_<T>("get");
  }
  template <class T, class = detail::enable_if_module_t<T>>
  const T& get() const {
    return get_<T>("get");
  }
  /// The held module in its holder type T (`any.get<nn::Linear>()`).
  template <class T, class ContainedType = typename T::ContainedType>
  T get() const {
    return T(ptr<ContainedType>());
  }

  std::shared_ptr<Module> ptr() const {
    if (is_empty()) detail::throw_any_module_error("Cannot call ptr() on an empty AnyModule");
    return content_->ptr();
  }
  template <class T, class = detail::enable_if_module_t<T>>
  std::shared_ptr<T> ptr() const {
    get_<T>("ptr");
    return std::dynamic_pointer_cast<T>(content_->ptr());
  }

  const std::type_info& type_info() const {
    if (is_empty()) detail::throw_any_module_error("Cannot call type_info() on an empty AnyModule");
    return content_->type_info;
  }
  bool is_empty() const noexcept { return content_ == nullptr; }

 private:
  template <class ModuleType, class... A>
  static std::unique_ptr<AnyModulePlaceholder> holder_for(std::shared_ptr<ModuleType>&& module,
                                                          detail::forward_args<A...>) {
    static_assert(detail::no_mutable_references<A...>(),
                  "Modules stored inside AnyModule must not take references. Use pointers instead.");
    return std::make_unique<AnyModuleHolder<ModuleType, A...>>(std::move(module));
  }
  template <class ModuleType>
  static std::unique_ptr<AnyModulePlaceholder> make_holder(std::shared_ptr<ModuleType>&& module) {
    static_assert(std::is_base_of_v<Module, ModuleType>, "Can only store object derived from nn::Module into AnyModule");
    static_assert(detail::has_forward<ModuleType>::value ||
                      !std::is_same_v<typename detail::forward_signature<ModuleType>::args, detail::forward_args<Tensor>>,
                  "Can only store a module with a forward() method into AnyModule (a template forward() must "
                  "take one Tensor)");
    return holder_for(std::move(module), typename detail::forward_signature<ModuleType>::args{});
  }
  template <class T>
  T& get_(const char* what) const {
    if (is_empty()) detail::throw_any_module_error(what[0] == 'g' ? "Cannot call get() on an empty AnyModule"
                                                                  : "Cannot call ptr() on an empty AnyModule");
    if (typeid(T) != content_->type_info) detail::throw_any_module_cast(content_->type_info, typeid(T));
    return dynamic_cast<T&>(*content_->ptr());
  }

  std::unique_ptr<AnyModulePlaceholder> content_;
};

/// A name and an AnyModule: the entries of `nn::Sequential({{"fc", nn::Linear(2, 3)}, ...})`.
class NamedAnyModule {
 public:
  template <class ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module_ptr)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module_ptr))) {}
  template <class M, class = detail::enable_if_module_t<M>>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), std::make_shared<std::decay_t<M>>(std::forward<M>(module))) {}
  template <class M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& module_holder)
      : NamedAnyModule(std::move(name), module_holder.ptr()) {}
  NamedAnyModule(std::string name, AnyModule any_module) : name_(std::move(name)), module_(std::move(any_module)) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace ember::nn

/// Declares default arguments of a module's forward() for AnyModule and Sequential
/// (libtorch's FORWARD_HAS_DEFAULT_ARGS): pairs of (argument index, AnyValue(default)),
/// in order, the first naming the first optional argument. Place it in a protected section:
///   int forward(int a, int b = 2);
///  protected:
///   EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ember::nn::AnyValue(2)})
#define EMBER_FORWARD_HAS_DEFAULT_ARGS(...)                                                       \
  template <class ModuleType, class... ArgumentTypes>                                             \
  friend struct ::ember::nn::AnyModuleHolder;                                                     \
  bool _forward_has_default_args() override { return true; }                                      \
  unsigned int _forward_num_required_args() override {                                            \
    std::vector<std::pair<unsigned int, ::ember::nn::AnyValue>> args_info = {__VA_ARGS__};        \
    return args_info[0].first;                                                                    \
  }                                                                                               \
  std::vector<::ember::nn::AnyValue> _forward_populate_default_args(                              \
      std::vector<::ember::nn::AnyValue>&& arguments) override {                                  \
    std::vector<std::pair<unsigned int, ::ember::nn::AnyValue>> args_info = {__VA_ARGS__};        \
    std::vector<::ember::nn::AnyValue> ret;                                                       \
    ret.reserve(args_info.back().first + 1);                                                      \
    for (auto& a : arguments) ret.emplace_back(std::move(a));                                     \
    for (auto& info : args_info)                                                                  \
      if (info.first >= ret.size()) ret.emplace_back(std::move(info.second));                     \
    return ret;                                                                                   \
  }
