// libtorch's in-place view ops: t_, transpose_, swapdims_, swapaxes_, squeeze_, unsqueeze_,
// as_strided_. They change self's sizes, strides and offset, never its elements.
#include "autograd/meta.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/inference.h"

namespace ember {

namespace {

// self takes view's geometry. Under autograd self's history becomes the view op's node,
// renamed as libtorch's in-place node (TBackward1, ...), so gradients are mapped back through
// it. The version bump tells tensors saved earlier that self changed, as libtorch's does.
Tensor& take_geometry(const Tensor& self, const Tensor& view, const char* node_name) {
  // Read before the bump, which would make a history-less view (grad mode off) look written since.
  autograd::name_grad_fn(view, node_name);
  std::shared_ptr<autograd::Node> fn = view.grad_fn();
  TensorImpl* impl = self.unsafe_impl();
  impl->sizes_ = SizesVector(view.sizes());
  impl->strides_ = SizesVector(view.strides());
  impl->storage_offset_ = view.storage_offset();
  impl->refresh();
  detail::bump_version(self);
  if (fn) autograd::detail::set_history(self, fn, 0);
  return const_cast<Tensor&>(self);
}

// The checks every in-place op makes, before the view is taken.
void check_in_place(const Tensor& self, const char* op) {
  EMBER_CHECK_ARG(self.defined(), "{}: undefined tensor", op);
  detail::check_writable(self);
  if (EMBER_GRAD_RECORDING(self)) autograd::detail::check_inplace(self);
}

}  // namespace

Tensor& Tensor::t_() const {
  check_in_place(*this, "t_");
  EMBER_CHECK_ARG(dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is {}D", dim());
  return take_geometry(*this, t(), "TBackward1");
}
Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  check_in_place(*this, "transpose_");
  return take_geometry(*this, transpose(dim0, dim1), "TransposeBackward1");
}
Tensor& Tensor::swapdims_(int64_t dim0, int64_t dim1) const { return transpose_(dim0, dim1); }
Tensor& Tensor::swapaxes_(int64_t axis0, int64_t axis1) const { return transpose_(axis0, axis1); }
Tensor& Tensor::squeeze_() const {
  check_in_place(*this, "squeeze_");
  return take_geometry(*this, squeeze(), "SqueezeBackward2");
}
Tensor& Tensor::squeeze_(int64_t dim) const {
  check_in_place(*this, "squeeze_");
  return take_geometry(*this, squeeze(dim), "SqueezeBackward3");
}
Tensor& Tensor::unsqueeze_(int64_t dim) const {
  check_in_place(*this, "unsqueeze_");
  return take_geometry(*this, unsqueeze(dim), "UnsqueezeBackward1");
}
const Tensor& Tensor::as_strided_(IntArrayRef sizes, IntArrayRef strides,
                                  std::optional<int64_t> storage_offset) const {
  check_in_place(*this, "as_strided_");
  return take_geometry(*this, as_strided(sizes, strides, storage_offset), "AsStridedBackward1");
}

}  // namespace ember
