#pragma once
/// ExpandingArray<D>: D values given as one (expanded to all D) or as a list of exactly D,
/// as libtorch's torch::ExpandingArray (kernel sizes, strides, paddings of the nn layers).

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ember/array_ref.h"
#include "ember/error.h"

namespace ember {

template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(ArrayRef<T>(list)) {}  // NOLINT
  ExpandingArray(std::vector<T> vec) : ExpandingArray(ArrayRef<T>(vec)) {}              // NOLINT
  ExpandingArray(ArrayRef<T> values) {                                                  // NOLINT
    if (values.size() != D)
      throw InvalidArgument("Expected " + std::to_string(D) + " values, but instead got " +
                            std::to_string(values.size()));
    std::copy(values.begin(), values.end(), values_.begin());
  }
  ExpandingArray(T single_size) { values_.fill(single_size); }         // NOLINT
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator ArrayRef<T>() const { return ArrayRef<T>(values_); }  // NOLINT: implicit as in libtorch
  size_t size() const noexcept { return D; }

 protected:
  std::array<T, D> values_;
};

/// One value prints bare (`5`), more as a list (`[3, 5]`), as libtorch prints them.
template <size_t D, class T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (D == 1) return stream << array->at(0);
  return stream << static_cast<ArrayRef<T>>(array);
}

/// ExpandingArray whose elements may be missing (None: "keep the input's size"), as
/// libtorch's ExpandingArrayWithOptionalElem (adaptive pooling's output_size).
template <size_t D, class T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
  using Base = ExpandingArray<D, std::optional<T>>;

 public:
  using Base::Base;
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(list)) {}
  ExpandingArrayWithOptionalElem(std::vector<T> vec)
      : ExpandingArrayWithOptionalElem(ArrayRef<T>(vec)) {}                        // NOLINT
  ExpandingArrayWithOptionalElem(ArrayRef<T> values) : Base(std::optional<T>()) {  // NOLINT
    if (values.size() != D)
      throw InvalidArgument("Expected " + std::to_string(D) + " values, but instead got " +
                            std::to_string(values.size()));
    std::copy(values.begin(), values.end(), this->values_.begin());
  }
  ExpandingArrayWithOptionalElem(T single_size) : Base(std::optional<T>(single_size)) {}       // NOLINT
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values) : Base(std::optional<T>()) {  // NOLINT
    std::copy(values.begin(), values.end(), this->values_.begin());
  }
};

/// Missing elements print as None: `[3, None]`.
template <size_t D, class T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArrayWithOptionalElem<D, T>& array) {
  auto item = [](const std::optional<T>& e) { return e ? std::to_string(*e) : std::string("None"); };
  if (D == 1) return stream << item(array->at(0));
  stream << '[';
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << item(array->at(i));
  return stream << ']';
}

}  // namespace ember
