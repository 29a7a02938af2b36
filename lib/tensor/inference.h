#pragma once
// Note [Inference tensors]
// libtorch's InferenceMode (c10::InferenceMode, ember/autograd.h): while it is enabled on a
// thread, grad mode is off and every TensorImpl made there is an inference tensor (a bit
// its constructor reads from a thread-local; views copy their base's bit instead).
// Inference tensors have no version counter: in-place writes do not bump it and
// _version() refuses. Outside InferenceMode they may not be written in place, saved for
// backward or made to require grad (libtorch 1.13's errors); ops on them there make normal
// tensors. Normal tensors written inside InferenceMode keep counting versions. The cost
// for everyone else: one thread-local read per new tensor, one bit test per in-place write.

#include <atomic>

#include "ember/tensor.h"

namespace ember::detail {

/// Whether InferenceMode is enabled on this thread (the flag new TensorImpls copy).
bool inference_mode();
void set_inference_mode(bool enabled);

[[noreturn]] void throw_inplace_on_inference();
/// libtorch's error for an in-place write with autograd into a view taken inside InferenceMode.
[[noreturn]] void throw_inplace_on_inference_view();
/// ... and into a view of a grad-requiring tensor taken with grad mode off.
[[noreturn]] void throw_inplace_on_no_grad_view();
/// For a view that requires grad without history (made inside InferenceMode or with grad
/// mode off): libtorch's error once its storage was written after it was made.
void check_view_not_rebased(const TensorImpl& impl);
void check_writable_slow(const TensorImpl& impl);

/// Before an in-place or out= write into t: an inference tensor only inside InferenceMode,
/// and no write with grad mode on into a view of a grad-requiring tensor taken inside it or
/// with grad mode off (the recording paths refuse any other inference-mode view:
/// autograd::detail::check_inplace).
inline void check_writable(const Tensor& t) {
  const TensorImpl* impl = t.unsafe_impl();
  if (__builtin_expect(
          impl->is_inference_ || (impl->view_kind_ & (kInferenceModeViewOfGrad | kNoGradModeViewOfGrad)), 0))
    check_writable_slow(*impl);
}

/// After an in-place or out= write into t: autograd's version counter (Note [Autograd]),
/// which inference tensors do not have.
inline void bump_version(const Tensor& t) {
  const TensorImpl* impl = t.unsafe_impl();
  if (__builtin_expect(!impl->is_inference_, 1))
    impl->storage_->version_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ember::detail
