#pragma once
/// EMBER_ARG: the chainable options of options classes (nn layers, the data loader).

/// A chainable option: `name(value)` sets and returns *this, `name()` reads (TORCH_ARG).
#define EMBER_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
                                                                  \
 private:                                                         \
  T name##_
