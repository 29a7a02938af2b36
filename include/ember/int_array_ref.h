#pragma once
/// IntArrayRef: a non-owning view of int64_t values (sizes, strides, dims), as c10's.

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace ember {

class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  /// A single value: lets x.sum(1) and x.permute(...) take one dim.
  constexpr IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}
  /// Braced lists live until the end of the full expression, like c10's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr const int64_t& operator[](size_t i) const { return data_[i]; }
  constexpr const int64_t& front() const { return data_[0]; }
  constexpr const int64_t& back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

  bool equals(IntArrayRef o) const {
    if (size_ != o.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (data_[i] != o.data_[i]) return false;
    return true;
  }
  friend bool operator==(IntArrayRef a, IntArrayRef b) { return a.equals(b); }
  friend bool operator!=(IntArrayRef a, IntArrayRef b) { return !a.equals(b); }
  friend bool operator==(IntArrayRef a, const std::vector<int64_t>& b) { return a.equals(b); }
  friend bool operator==(const std::vector<int64_t>& a, IntArrayRef b) { return b.equals(a); }
  friend bool operator!=(IntArrayRef a, const std::vector<int64_t>& b) { return !a.equals(b); }
  friend bool operator==(IntArrayRef a, std::initializer_list<int64_t> b) { return a.equals(b); }
  friend bool operator!=(IntArrayRef a, std::initializer_list<int64_t> b) { return !a.equals(b); }

  /// Prints as libtorch does: [2, 3]
  friend std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
    os << '[';
    for (size_t i = 0; i < a.size_; ++i) os << (i ? ", " : "") << a.data_[i];
    return os << ']';
  }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ember
