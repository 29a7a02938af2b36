#include "ember/tensor_impl.h"

#include <cstdlib>
#include <new>
#include <string>

#include "core/check.h"
#include "ember/autograd.h"
#include "tensor/inference.h"

namespace ember {

namespace {

// Note [Per-thread object free lists]
// Each op allocates a TensorImpl and a StorageImpl and frees them soon after, so
// malloc/free showed up as a quarter of a tiny op's instructions. Freed objects go on
// a per-thread list (capped) and are handed back to the next new on that thread; an
// object freed on another thread simply joins that thread's list. The lists give
// their memory back to malloc when the thread exits.
template <size_t Size>
class FreeList {
 public:
  static constexpr int kCap = 64;
  ~FreeList() {
    while (head_) {
      Node* n = head_;
      head_ = n->next;
      std::free(n);
    }
  }
  void* take() {
    if (!head_) {
      void* p = std::malloc(Size);
      if (!p) throw std::bad_alloc();
      return p;
    }
    Node* n = head_;
    head_ = n->next;
    --count_;
    return n;
  }
  void give(void* p) {
    if (count_ >= kCap) return std::free(p);
    Node* n = static_cast<Node*>(p);
    n->next = head_;
    head_ = n;
    ++count_;
  }

 private:
  struct Node {
    Node* next;
  };
  Node* head_ = nullptr;
  int count_ = 0;
};

thread_local FreeList<sizeof(TensorImpl)> t_tensor_impls __attribute__((tls_model("initial-exec")));
thread_local FreeList<sizeof(StorageImpl)> t_storage_impls __attribute__((tls_model("initial-exec")));

// InferenceMode's flag (Note [Inference tensors]), defined beside the constructors that read
// it so that each read is one TLS load with no wrapper call.
thread_local bool t_inference_mode __attribute__((tls_model("initial-exec"))) = false;

}  // namespace

namespace detail {
bool inference_mode() { return t_inference_mode; }
void set_inference_mode(bool enabled) { t_inference_mode = enabled; }
void throw_inplace_on_inference() {
  EMBER_THROW(
      InvalidArgument,
      "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
      "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
      "details.");
}
namespace {
// libtorch's handle_view_on_rebase text for a view made inside InferenceMode or with grad
// mode off, written in place itself or through its base.
[[noreturn]] void throw_view_rebase(bool inference_view, bool through_base) {
  EMBER_THROW(InvalidArgument,
              "A view was created in {} and {} modified inplace {}. Given that this use case is ambiguous and "
              "error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace "
              "either both inside the {} block (if you don't want the inplace to be tracked) or both outside (if "
              "you want the inplace to be tracked).",
              inference_view ? "inference mode" : "no_grad mode",
              through_base ? "its base or another view of its base has been" : "is being",
              inference_view ? "in normal mode" : "with grad mode enabled", inference_view ? "inference_mode" : "no_grad");
}
}  // namespace
void throw_inplace_on_inference_view() { throw_view_rebase(true, false); }
void throw_inplace_on_no_grad_view() { throw_view_rebase(false, false); }
void check_view_not_rebased(const TensorImpl& impl) {
  if (impl.view_kind_ & (kInferenceModeViewOfGrad | kNoGradModeViewOfGrad) &&
      impl.storage_->version_.load(std::memory_order_relaxed) != impl.view_version_)
    throw_view_rebase(impl.view_kind_ & kInferenceModeViewOfGrad, true);
}
void check_writable_slow(const TensorImpl& impl) {
  if (t_inference_mode) return;
  if (impl.is_inference_) throw_inplace_on_inference();
  if (!GradMode::is_enabled()) return;
  if (impl.view_kind_ & kInferenceModeViewOfGrad) throw_inplace_on_inference_view();
  throw_inplace_on_no_grad_view();
}
}  // namespace detail

void* TensorImpl::operator new(size_t) { return t_tensor_impls.take(); }
void TensorImpl::operator delete(void* p) { t_tensor_impls.give(p); }
void* StorageImpl::operator new(size_t) { return t_storage_impls.take(); }
void StorageImpl::operator delete(void* p) { t_storage_impls.give(p); }

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype),
      is_inference_(t_inference_mode) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(sizes.size()),
      dtype_(dtype),
      is_inference_(t_inference_mode) {
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides_[i] = s;
    // Zero-element shapes skip the creation ops' size check, so huge dims can reach here.
    if (__builtin_expect(__builtin_mul_overflow(s, sizes[i] > 0 ? sizes[i] : 1, &s), 0) && i > 0) {
      std::string text;
      for (int64_t v : sizes) text += (text.empty() ? "" : ", ") + std::to_string(v);
      throw InvalidArgument("tensor sizes [" + text + "] give strides beyond int64");
    }
  }
  int64_t n = 1;
  for (int64_t v : sizes) n *= v;
  numel_ = n;
  is_contiguous_ = true;
}

void TensorImpl::refresh() {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  numel_ = n;
  // Contiguous means row-major dense; dims of size 1 may carry any stride (as torch).
  bool contiguous = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous = false;
      break;
    }
    expected *= sizes_[i];
  }
  is_contiguous_ = contiguous || n == 0;
}

}  // namespace ember
