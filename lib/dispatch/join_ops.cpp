// cat, stack and add_n.
#include "autograd/grad_ops.h"
#include "core/check.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/type_promotion.h"
#include "ember/device_api.h"
#include "ember/ops.h"
#include "placement/placement.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK_ARG(!tensors.empty(), "cat: expected a non-empty list of Tensors");
  if (__builtin_expect(GradMode::is_enabled(), 1))
    for (const Tensor& t : tensors)
      if (autograd::detail::may_record(t)) return autograd::detail::cat(tensors, dim);
  // torch skips legacy 1-D empty tensors of shape [0] when joining others.
  const Tensor* ref = nullptr;
  detail::ResultType rt;
  for (const Tensor& t : tensors) {
    EMBER_CHECK_ARG(t.defined(), "cat: undefined tensor in the list");
    EMBER_CHECK_ARG(t.dim() > 0, "cat: zero-dimensional tensor cannot be concatenated");
    rt.add(t);
    if (!ref && !(t.dim() == 1 && t.numel() == 0)) ref = &t;
  }
  if (!ref) ref = &tensors[0];
  const int64_t d = detail::wrap_dim(dim, ref->dim(), "cat");
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0 && &t != ref) continue;
    EMBER_CHECK_ARG(t.dim() == ref->dim(),
                    "cat: tensors must have same number of dimensions: got {} and {} (tensor {})", ref->dim(), t.dim(), i);
    for (int64_t k = 0; k < t.dim(); ++k)
      EMBER_CHECK_ARG(k == d || t.size(k) == ref->size(k),
                      "cat: sizes of tensors must match except in dimension {}; expected size {} but got size {} for "
                      "tensor number {} in the list (shapes {} and {})",
                      d, ref->size(k), t.size(k), i, shape_str(ref->sizes()), shape_str(t.sizes()));
    total += t.size(d);
  }
  std::vector<Tensor> placed(tensors);
  detail::DeviceEntry& dev = detail::place_op(Op::Copy, placed.data(), int(placed.size()), rt.get(), "ConcatV2");
  SizesVector shape(ref->sizes());
  shape[d] = total;
  Tensor out = detail::empty_on(shape, rt.get(), dev);
  int64_t offset = 0;
  for (const Tensor& t : placed) {
    if (t.dim() == 1 && t.numel() == 0 && ref->dim() != 1) continue;
    if (t.size(d) == 0) continue;
    detail::copy_same_device(out.narrow(d, offset, t.size(d)), t);
    offset += t.size(d);
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK_ARG(!tensors.empty(), "stack: expected a non-empty list of Tensors");
  if (__builtin_expect(GradMode::is_enabled(), 1))
    for (const Tensor& t : tensors)
      if (autograd::detail::may_record(t)) return autograd::detail::stack(tensors, dim);
  const Tensor& first = tensors[0];
  EMBER_CHECK_ARG(first.defined(), "stack: undefined tensor in the list");
  const int64_t d = detail::wrap_dim(dim, first.dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK_ARG(tensors[i].defined() && tensors[i].sizes() == first.sizes(),
                    "stack: expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                    shape_str(first.sizes()),
                    tensors[i].defined() ? shape_str(tensors[i].sizes()) : std::string("undefined"), i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

Tensor add_n(const std::vector<Tensor>& tensors) {
  EMBER_CHECK_ARG(!tensors.empty(), "add_n: expected a non-empty list of Tensors");
  detail::ResultType rt;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK_ARG(tensors[i].defined(), "add_n: undefined tensor at entry {}", i);
    EMBER_CHECK_ARG(tensors[i].sizes() == tensors[0].sizes(),
                    "add_n: all inputs must have the same shape, but entry 0 is {} and entry {} is {}",
                    shape_str(tensors[0].sizes()), i, shape_str(tensors[i].sizes()));
    rt.add(tensors[i]);
  }
  // tf.add_n: one op, placed like any other (scope, policy, inputs); inputs elsewhere are
  // copied to its device. It logs once, as "AddN", not once per inner add.
  std::vector<Tensor> placed(tensors);
  detail::DeviceEntry& dev = detail::place_op(Op::Add, placed.data(), int(placed.size()), rt.get(), "AddN");
  detail::QuietPlacementLog quiet;
  DeviceScope scope(dev.device);  // soft placement may have chosen another device than the scope's
  Tensor acc = placed[0].to(dev.device, rt.get(), false, true);
  for (size_t i = 1; i < placed.size(); ++i) acc.add_(placed[i]);
  return acc;
}

}  // namespace ember
