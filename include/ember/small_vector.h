#pragma once
/// SizesVector: int64_t values stored inline up to kInlineDims, on the heap beyond.
/// Tensors keep sizes and strides in these so that making a tensor of up to six
/// dims allocates nothing for its shape.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "ember/int_array_ref.h"

namespace ember {

class SizesVector {
 public:
  static constexpr size_t kInlineDims = 6;

  SizesVector() = default;
  explicit SizesVector(size_t n, int64_t value = 0) { resize(n, value); }
  SizesVector(IntArrayRef r) { assign(r); }
  SizesVector(const SizesVector& o) { assign(o.ref()); }
  SizesVector(SizesVector&& o) noexcept { steal(o); }
  SizesVector& operator=(const SizesVector& o) {
    if (this != &o) assign(o.ref());
    return *this;
  }
  SizesVector& operator=(SizesVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SizesVector() { release(); }

  void assign(IntArrayRef r) {
    reserve(r.size());
    int64_t* d = data();
    const int64_t* s = r.data();
    if (d + r.size() <= s || s + r.size() <= d) {
      for (size_t i = 0; i < r.size(); ++i) d[i] = s[i];  // short: a loop beats a memmove call
    } else if (r.size()) {
      std::memmove(d, s, r.size() * sizeof(int64_t));
    }
    size_ = r.size();
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    reserve(size_ + 1);
    data()[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    reserve(size_ + 1);
    int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - pos) * sizeof(int64_t));
    d[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(int64_t));
    --size_;
  }
  void clear() { size_ = 0; }

  int64_t* data() { return heap_ ? heap_ : inline_; }
  const int64_t* data() const { return heap_ ? heap_ : inline_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data()[i]; }
  const int64_t& operator[](size_t i) const { return data()[i]; }
  int64_t* begin() { return data(); }
  int64_t* end() { return data() + size_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t& back() { return data()[size_ - 1]; }
  IntArrayRef ref() const { return IntArrayRef(data(), size_); }
  operator IntArrayRef() const { return ref(); }

 private:
  void reserve(size_t n) {
    if (n <= capacity()) return;
    size_t cap = n < 16 ? 16 : n * 2;
    auto* p = static_cast<int64_t*>(std::malloc(cap * sizeof(int64_t)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data(), size_ * sizeof(int64_t));
    std::free(heap_);
    heap_ = p;
    heap_cap_ = cap;
  }
  size_t capacity() const { return heap_ ? heap_cap_ : kInlineDims; }
  void release() {
    std::free(heap_);
    heap_ = nullptr;
  }
  void steal(SizesVector& o) {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      heap_cap_ = o.heap_cap_;
      o.heap_ = nullptr;
    } else {
      std::memcpy(inline_, o.inline_, size_ * sizeof(int64_t));
    }
    o.size_ = 0;
  }

  int64_t inline_[kInlineDims];
  int64_t* heap_ = nullptr;
  size_t heap_cap_ = 0;
  size_t size_ = 0;
};

}  // namespace ember
