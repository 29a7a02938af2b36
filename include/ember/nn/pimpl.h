#pragma once
/// ModuleHolder and EMBER_MODULE: the TORCH_MODULE pattern. `EMBER_MODULE(Linear)` makes
/// `Linear` a shared handle to a `LinearImpl`: `nn::Linear lin(4, 2); lin->weight; lin(x)`.

#include <memory>
#include <ostream>
#include <type_traits>
#include <utility>

#include "ember/error.h"
#include "ember/nn/module.h"

namespace ember::nn {

template <class Impl>
class ModuleHolder {
 public:
  using ContainedType = Impl;

  /// Default-constructs the module when Impl has a default constructor (libtorch's rule);
  /// otherwise the holder is empty until assigned.
  ModuleHolder() {
    if constexpr (std::is_default_constructible_v<Impl>) impl_ = std::make_shared<Impl>();
  }
  /// An empty holder (nullptr), to be assigned later.
  ModuleHolder(std::nullptr_t) {}  // NOLINT: implicit as in libtorch
  /// Builds Impl from the arguments (`Linear(4, 2)`, `Linear(LinearOptions(4, 2))`).
  template <class Head, class... Tail,
            class = std::enable_if_t<!(sizeof...(Tail) == 0 &&
                                       (std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
                                        std::is_base_of_v<ModuleHolder, std::decay_t<Head>> ||
                                        std::is_same_v<std::decay_t<Head>, std::shared_ptr<Impl>>))>>
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Impl>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Impl> module) : impl_(std::move(module)) {}  // NOLINT: implicit as in libtorch

  explicit operator bool() const noexcept { return !is_empty(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }

  Impl* operator->() { return get(); }
  const Impl* operator->() const { return get(); }
  Impl& operator*() { return *get(); }
  const Impl& operator*() const { return *get(); }
  const std::shared_ptr<Impl>& ptr() const {
    check_non_empty();
    return impl_;
  }
  Impl* get() {
    check_non_empty();
    return impl_.get();
  }
  const Impl* get() const {
    check_non_empty();
    return impl_.get();
  }

  /// Calls the module's forward.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return get()->forward(std::forward<Args>(args)...);
  }
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) {
    return (*get())[std::forward<Arg>(arg)];
  }

 protected:
  void check_non_empty() const {
    if (!impl_) throw InvalidArgument("Accessing empty ModuleHolder");
  }
  std::shared_ptr<Impl> impl_;
};

template <class Impl>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Impl>& module) {
  return stream << *module;
}

}  // namespace ember::nn

/// Defines `Name` as a ModuleHolder of `NameImpl` (libtorch's TORCH_MODULE).
#define EMBER_MODULE(Name)                                     \
  class Name : public ::ember::nn::ModuleHolder<Name##Impl> {  \
   public:                                                     \
    using ::ember::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
    using Impl = Name##Impl;                                   \
  }
