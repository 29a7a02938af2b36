#pragma once
/// ArrayRef<T>: a non-owning view of contiguous T values, as c10::ArrayRef. IntArrayRef
/// (sizes, strides, dims) is ArrayRef<int64_t>.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "ember/error.h"

namespace ember {

template <class T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;

  constexpr ArrayRef() = default;
  /// A single value: lets x.sum(1) and x.permute(...) take one dim.
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), size_(size_t(end - begin)) {}
  template <class A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) : data_(a.data()), size_(N) {}
  template <size_t N>
  constexpr ArrayRef(const T (&a)[N]) : data_(a), size_(N) {}
  /// Braced lists live until the end of the full expression, like c10's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  /// Bounds-checked element access (InvalidArgument past the end).
  const T& at(size_t i) const {
    if (i >= size_)
      throw InvalidArgument("ArrayRef: invalid index Index = " + std::to_string(i) + "; Length = " + std::to_string(size_));
    return data_[i];
  }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  /// Elements [start, start + n); InvalidArgument past the end.
  ArrayRef slice(size_t start, size_t n) const {
    if (start + n > size_)
      throw InvalidArgument("ArrayRef: slice(" + std::to_string(start) + ", " + std::to_string(n) +
                              ") is out of range for size " + std::to_string(size_));
    return ArrayRef(data_ + start, n);
  }
  /// Elements from start to the end.
  ArrayRef slice(size_t start) const {
    if (start > size_) return slice(start, 0);
    return slice(start, size_ - start);
  }

  bool equals(ArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == o.data_[i])) return false;
    return true;
  }
  friend bool operator==(ArrayRef a, ArrayRef b) { return a.equals(b); }
  friend bool operator!=(ArrayRef a, ArrayRef b) { return !a.equals(b); }
  friend bool operator==(ArrayRef a, const std::vector<T>& b) { return a.equals(b); }
  friend bool operator==(const std::vector<T>& a, ArrayRef b) { return b.equals(a); }
  friend bool operator!=(ArrayRef a, const std::vector<T>& b) { return !a.equals(b); }
  friend bool operator!=(const std::vector<T>& a, ArrayRef b) { return !b.equals(a); }
  friend bool operator==(ArrayRef a, std::initializer_list<T> b) { return a.equals(b); }
  friend bool operator!=(ArrayRef a, std::initializer_list<T> b) { return !a.equals(b); }

  /// Prints as libtorch does: [2, 3]
  friend std::ostream& operator<<(std::ostream& os, ArrayRef a) {
    os << '[';
    for (size_t i = 0; i < a.size_; ++i) os << (i ? ", " : "") << a.data_[i];
    return os << ']';
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

}  // namespace ember
