// InferenceMode: grad mode and the inference flag of new tensors, set and restored
// together (Note [Inference tensors]).
#include "ember/autograd.h"
#include "tensor/inference.h"

namespace ember {

InferenceMode::InferenceMode(bool enabled)
    : prev_grad_(GradMode::is_enabled()), prev_inference_(detail::inference_mode()) {
  // As libtorch: an enabled guard turns grad mode off, a disabled one turns it on.
  GradMode::set_enabled(!enabled);
  detail::set_inference_mode(enabled);
}

InferenceMode::~InferenceMode() {
  GradMode::set_enabled(prev_grad_);
  detail::set_inference_mode(prev_inference_);
}

bool InferenceMode::is_enabled() { return detail::inference_mode(); }

}  // namespace ember
