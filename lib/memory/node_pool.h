#pragma once
// NodePool: recycles the caching allocator's free-set nodes, so inserting into and erasing
// from a free set on the hot path does no new/delete once the pool has warmed up.

#include <cassert>
#include <cstddef>
#include <new>

namespace ember::detail {

/// A free list of equally sized nodes; single-threaded (the allocator's mutex guards it).
class NodePool {
 public:
  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() {
    while (free_ != nullptr) ::operator delete(pop());
  }

  void* get(size_t bytes) {
    assert((node_bytes_ == 0 || node_bytes_ == bytes) && "NodePool: one node size only");
    node_bytes_ = bytes;
    return free_ != nullptr ? pop() : ::operator new(bytes);
  }
  void put(void* node) {
    *static_cast<void**>(node) = free_;
    free_ = node;
    spare_++;
  }
  size_t spare() const { return spare_; }

 private:
  void* pop() {
    void* node = free_;
    free_ = *static_cast<void**>(node);
    spare_--;
    return node;
  }

  void* free_ = nullptr;
  size_t spare_ = 0;
  size_t node_bytes_ = 0;
};

/// std allocator over a NodePool for node-based containers (single-object requests).
template <class T>
struct PoolAllocator {
  using value_type = T;
  static_assert(sizeof(T) >= sizeof(void*), "a pooled node must hold a free-list link");

  explicit PoolAllocator(NodePool* pool) noexcept : pool(pool) {}
  template <class U>
  PoolAllocator(const PoolAllocator<U>& other) noexcept : pool(other.pool) {}

  T* allocate(size_t n) {
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(pool->get(sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n != 1) return ::operator delete(p);
    pool->put(p);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>& other) const noexcept {
    return pool == other.pool;
  }
  template <class U>
  bool operator!=(const PoolAllocator<U>& other) const noexcept {
    return pool != other.pool;
  }

  NodePool* pool;
};

}  // namespace ember::detail
