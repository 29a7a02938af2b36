#pragma once
/// nn::AnyValue: a value of any copyable type, what AnyModule's forward takes and returns
/// (libtorch's torch::nn::AnyValue). get<T>() asks for the exact decayed type stored.

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "ember/export.h"

namespace ember::nn {

namespace detail {
/// The readable name of a type ("ember::Tensor", "float"), as c10::demangle; ember:: names
/// read torch:: in a program that includes the libtorch drop-in.
EMBER_API std::string demangle(const std::type_info& type);
/// InvalidArgument: "Attempted to cast AnyValue to <wanted>, but its actual type is <actual>".
[[noreturn]] EMBER_API void throw_any_value_cast(const std::type_info& wanted, const std::type_info& actual);
}  // namespace detail

class AnyValue {
 public:
  AnyValue(AnyValue&&) = default;
  AnyValue& operator=(AnyValue&&) = default;
  AnyValue(const AnyValue& other) : content_(other.content_->clone()) {}
  AnyValue& operator=(const AnyValue& other) {
    if (this != &other) content_ = other.content_->clone();
    return *this;
  }

  /// Stores a decayed copy of value. (Unlike libtorch, an AnyValue lvalue is copied, not
  /// wrapped in another AnyValue.)
  template <class T, class = std::enable_if_t<!std::is_same_v<std::decay_t<T>, AnyValue>>>
  explicit AnyValue(T&& value) : content_(std::make_unique<Holder<std::decay_t<T>>>(std::forward<T>(value))) {}

  /// The stored value when its type is exactly T, else nullptr.
  template <class T>
  T* try_get() {
    static_assert(!std::is_reference_v<T>, "AnyValue stores decayed types, you cannot cast it to a reference type");
    static_assert(!std::is_array_v<T>, "AnyValue stores decayed types, you must cast it to T* instead of T[]");
    if (typeid(T) == type_info()) return &static_cast<Holder<T>&>(*content_).value;
    return nullptr;
  }
  /// A copy of the stored value; InvalidArgument naming both types when it is not a T.
  template <class T>
  T get() {
    if (T* v = try_get<T>()) return *v;
    detail::throw_any_value_cast(typeid(T), type_info());
  }
  const std::type_info& type_info() const noexcept { return content_->type_info; }

 private:
  friend struct AnyModulePlaceholder;

  struct Placeholder {
    explicit Placeholder(const std::type_info& type_info_) noexcept : type_info(type_info_) {}
    virtual ~Placeholder() = default;
    virtual std::unique_ptr<Placeholder> clone() const { return nullptr; }
    const std::type_info& type_info;
  };
  template <class T>
  struct Holder : Placeholder {
    template <class U>
    explicit Holder(U&& value_) : Placeholder(typeid(T)), value(std::forward<U>(value_)) {}
    std::unique_ptr<Placeholder> clone() const override { return std::make_unique<Holder<T>>(value); }
    T value;
  };

  std::unique_ptr<Placeholder> content_;
};

}  // namespace ember::nn
