#pragma once
/// IntrusivePtr: a shared handle whose count lives in the object (one allocation, one
/// atomic add per copy). T provides `std::atomic<int32_t> refcount_` and is deleted with delete.

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

template <class T>
class IntrusivePtr {
 public:
  IntrusivePtr() = default;
  /// Adopts a freshly made object whose refcount_ is already 1.
  static IntrusivePtr adopt(T* p) {
    IntrusivePtr r;
    r.p_ = p;
    return r;
  }
  IntrusivePtr(const IntrusivePtr& o) : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  IntrusivePtr& operator=(const IntrusivePtr& o) {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  ~IntrusivePtr() { release(); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }
  int32_t use_count() const { return p_ ? p_->refcount_.load(std::memory_order_relaxed) : 0; }
  bool operator==(const IntrusivePtr& o) const { return p_ == o.p_; }
  bool operator!=(const IntrusivePtr& o) const { return p_ != o.p_; }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
    p_ = nullptr;
  }
  T* p_ = nullptr;
};

}  // namespace ember
