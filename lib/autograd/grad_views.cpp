// Backward formulas of views, joins and copies. A view's gradient is put back in the
// input's shape with other differentiable ops (reshape, cat with zeros), never by
// writing into a buffer, so create_graph differentiates through them too.
#include <algorithm>

#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/place_on_diagonal.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd::detail {

namespace {

using G = variable_list;
using N = FormulaNode;

template <class F>
Tensor forward(F&& f) {
  NoGradGuard no_grad;
  return f();
}

// A recorded view: in-place ops on it must know its base requires grad.
void mark_view(const Tensor& base, const Tensor& y) {
  // record's set_history took away the no-grad-view bit the forward's NoGradGuard gave y; a
  // view of a view taken with grad mode off is one too, as libtorch's creation meta.
  y.unsafe_impl()->view_kind_ |= uint8_t(base.unsafe_impl()->view_kind_ & kNoGradModeViewOfGrad);
  y.unsafe_impl()->view_version_ = y.storage()->version_.load(std::memory_order_relaxed);
  const AutogradMeta* b = meta(base);  // null for a view with no history (kHistorylessGradView)
  AutogradMeta& m = get_or_create_meta(y);
  m.is_view_ = true;
  m.is_view_of_leaf_ = b && (b->is_view_of_leaf_ || (b->requires_grad_ && !b->grad_fn_));
  m.base_ = b && b->base_.defined() ? b->base_ : base;
  m.view_version_ = y.storage()->version_.load(std::memory_order_relaxed);
}

Tensor zeros_along(const Tensor& like, int64_t dim, int64_t n) {
  SizesVector s(like.sizes());
  s[size_t(dim)] = n;
  return zeros(s.ref(), like.options());
}

// The gradient of x.slice(dim, start, start + len*step, step): g spread into zeros of `sizes`.
Tensor slice_backward(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t start, int64_t step) {
  const int64_t len = g.size(dim), size = sizes[size_t(dim)];
  if (len == 0) return zeros(sizes, g.options());
  Tensor spread = g;
  int64_t used = len;
  if (step > 1) {
    // Interleave step-1 zeros after each element, then drop what runs past the end.
    Tensor gi = g.unsqueeze(dim + 1);
    spread = ember::cat({gi, zeros_along(gi, dim + 1, step - 1)}, dim + 1);
    SizesVector merged(g.sizes());
    merged[size_t(dim)] = len * step;
    used = std::min(len * step, size - start);
    spread = spread.reshape(merged.ref()).narrow(dim, 0, used);
  }
  std::vector<Tensor> parts;
  if (start > 0) parts.push_back(zeros_along(spread, dim, start));
  parts.push_back(spread);
  if (size - start - used > 0) parts.push_back(zeros_along(spread, dim, size - start - used));
  return parts.size() == 1 ? parts[0] : ember::cat(parts, dim);
}

}  // namespace

Tensor view(const Tensor& x, IntArrayRef shape, bool reshape) {
  Tensor y = forward([&] { return reshape ? x.reshape(shape) : x.view(shape); });
  if (!requires_grad(x)) return y;
  // reshape of a tensor it cannot view copies; libtorch names both cases after the view.
  const bool copied = reshape && y.storage().get() != x.storage().get();
  record(copied ? "UnsafeViewBackward0" : reshape ? "ReshapeAliasBackward0" : "ViewBackward0", {&x}, {&y},
         [](N& n, G& g) -> G { return {g[0].reshape(n.in_sizes(0))}; });
  if (!copied) mark_view(x, y);
  return y;
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1, const char* name) {
  Tensor y = forward([&] { return x.transpose(d0, d1); });
  if (!requires_grad(x)) return y;
  record(name, {&x}, {&y}, [d0, d1](N&, G& g) -> G { return {g[0].transpose(d0, d1)}; });
  mark_view(x, y);
  return y;
}

Tensor permute(const Tensor& x, IntArrayRef dims) {
  Tensor y = forward([&] { return x.permute(dims); });
  if (!requires_grad(x)) return y;
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    inverse[size_t(ember::detail::wrap_dim(dims[i], x.dim(), "permute"))] = int64_t(i);
  record("PermuteBackward0", {&x}, {&y}, [inverse](N&, G& g) -> G { return {g[0].permute(inverse)}; });
  mark_view(x, y);
  return y;
}

Tensor squeeze(const Tensor& x, std::optional<int64_t> dim) {
  Tensor y = forward([&] { return dim ? x.squeeze(*dim) : x.squeeze(); });
  if (!requires_grad(x)) return y;
  record(dim ? "SqueezeBackward1" : "SqueezeBackward0", {&x}, {&y},
         [](N& n, G& g) -> G { return {g[0].reshape(n.in_sizes(0))}; });
  mark_view(x, y);
  return y;
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  Tensor y = forward([&] { return x.unsqueeze(dim); });
  if (!requires_grad(x)) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim() + 1, "unsqueeze");
  record("UnsqueezeBackward0", {&x}, {&y}, [d](N&, G& g) -> G { return {g[0].squeeze(d)}; });
  mark_view(x, y);
  return y;
}

Tensor expand(const Tensor& x, IntArrayRef sizes) {
  Tensor y = forward([&] { return x.expand(sizes); });
  if (!requires_grad(x)) return y;
  // The expanded dims' gradients add up: summed back to the input's shape.
  record("ExpandBackward0", {&x}, {&y}, [](N& n, G& g) -> G { return {sum_to(g[0], n.in_sizes(0))}; });
  mark_view(x, y);
  return y;
}

// as_strided of a dense input whose view stays within its elements: the gradient is
// scattered back, summed where the view overlaps itself (libtorch's as_strided_backward).
Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor y = forward([&] { return x.as_strided(sizes, strides, offset); });
  if (!requires_grad(x)) return y;
  const int64_t rel = offset - x.storage_offset();
  EMBER_CHECK_TYPED(
      x.is_contiguous() && region_within(sizes, strides, rel, x.numel()), NotImplemented,
      "as_strided: ember's autograd differentiates a view of a contiguous tensor that stays within "
      "its elements; clone() the input first (got sizes {}, strides {}, offset {} of a tensor of {} "
      "elements{})",
      ember::detail::shape_str(sizes), ember::detail::shape_str(strides), rel, x.numel(),
      x.is_contiguous() ? "" : ", not contiguous");
  SizesVector view_sizes(sizes), view_strides(strides);
  record("AsStridedBackward0", {&x}, {&y}, [view_sizes, view_strides, rel](N& n, G& g) -> G {
    const Tensor pos =
        region_positions(n.in_sizes(0), view_sizes.ref(), view_strides.ref(), rel, g[0].device());
    const Tensor base_grad = zeros(n.in_sizes(0), g[0].options()).reshape({-1});
    return {ember::scatter_add(base_grad, 0, pos, g[0].reshape({-1})).view(n.in_sizes(0))};
  });
  mark_view(x, y);
  return y;
}

Tensor alias(const Tensor& x) {
  Tensor y = forward([&] { return x.alias(); });
  if (!requires_grad(x)) return y;
  record("AliasBackward0", {&x}, {&y}, [](N&, G& g) -> G { return {g[0]}; });
  mark_view(x, y);
  return y;
}

// y = x.repeat(r) holds y[k*s + j] = x[j] along each dim: g viewed as [r0, s0, r1, s1, ...]
// summed over the r dims is x's gradient (with x's missing leading dims of size 1).
Tensor repeat(const Tensor& x, IntArrayRef repeats, const Tensor& result) {
  Tensor y = result;
  SizesVector split_sizes;
  std::vector<int64_t> tile_dims;
  const size_t lead = repeats.size() - size_t(x.dim());
  for (size_t i = 0; i < repeats.size(); ++i) {
    tile_dims.push_back(int64_t(2 * i));
    split_sizes.push_back(repeats[i]);
    split_sizes.push_back(i < lead ? 1 : x.size(int64_t(i - lead)));
  }
  record("RepeatBackward0", {&x}, {&y}, [split_sizes, tile_dims](N& n, G& g) -> G {
    if (tile_dims.empty()) return {g[0].reshape(n.in_sizes(0))};  // repeat({}) of a 0-dim tensor
    return {g[0].reshape(split_sizes.ref()).sum(tile_dims).reshape(n.in_sizes(0))};
  });
  return y;
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  Tensor y = forward([&] { return x.slice(dim, start, end, step); });
  if (!requires_grad(x)) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "slice");
  // The first element's position along d, from the view's offset (stride 0 dims start at 0).
  const int64_t stride = x.stride(d);
  const int64_t s = stride != 0 && y.numel() ? (y.storage_offset() - x.storage_offset()) / stride : 0;
  record("SliceBackward0", {&x}, {&y},
         [d, s, step](N& n, G& g) -> G { return {slice_backward(g[0], n.in_sizes(0), d, s, step)}; });
  mark_view(x, y);
  return y;
}

// Window w's element k is x[w * step + k] along d: each element's gradient is the sum over
// the windows that hold it (an index_add over those positions), as libtorch's unfold_backward.
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  Tensor y = forward([&] { return x.unfold(dim, size, step); });
  if (!requires_grad(x)) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "unfold");
  record("UnfoldBackward0", {&x}, {&y}, [d, size, step](N& n, G& g) -> G {
    IntArrayRef sizes = n.in_sizes(0);
    if (sizes.empty()) return {g[0].sum()};  // a 0-dim input: its one element, or no window
    const TensorOptions positions = ember::detail::long_on(g[0]);
    const Tensor pos = (arange(g[0].size(d), positions) * step).unsqueeze(1) + arange(size, positions);
    const Tensor windows = g[0].movedim(-1, d + 1).flatten(d, d + 1);
    return {zeros(sizes, g[0].options()).index_add(d, pos.reshape({-1}), windows)};
  });
  mark_view(x, y);
  return y;
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  Tensor y = forward([&] { return x.select(dim, index); });
  if (!requires_grad(x)) return y;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "select");
  const int64_t i = index < 0 ? index + x.size(d) : index;
  record("SelectBackward0", {&x}, {&y},
         [d, i](N& n, G& g) -> G { return {slice_backward(g[0].unsqueeze(d), n.in_sizes(0), d, i, 1)}; });
  mark_view(x, y);
  return y;
}

Tensor diagonal(const Tensor& x, const Tensor& view, int64_t offset, int64_t d1, int64_t d2) {
  Tensor y = view;
  if (!requires_grad(x)) return y;
  // The gradient goes back onto the diagonal by where(), which create_graph differentiates.
  record("DiagonalBackward0", {&x}, {&y}, [offset, d1, d2](N& n, G& g) -> G {
    const IntArrayRef sizes = n.in_sizes(0);
    const Tensor plane = ember::detail::place_on_diagonal(g[0], sizes[size_t(d1)], sizes[size_t(d2)], offset);
    return {ember::movedim(plane, {-2, -1}, {d1, d2})};
  });
  mark_view(x, y);
  return y;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  std::vector<Tensor> parts;
  {
    NoGradGuard no_grad;
    parts = x.split(split_size, dim);
  }
  // An empty dim gives back x itself, whose history already is right.
  if (!requires_grad(x) || !is_floating_point(x.dtype()) || parts[0].is_same(x)) return parts;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "split");
  std::vector<int64_t> lengths;
  for (const Tensor& p : parts) lengths.push_back(p.size(d));
  // The pieces' gradients side by side; a piece that got none contributes zeros.
  record_outputs("SplitBackward0", x, parts, [d, lengths](N& n, G& g) -> G {
    std::vector<Tensor> pieces;
    for (size_t i = 0; i < g.size(); ++i) {
      if (g[i].defined()) {
        pieces.push_back(g[i]);
        continue;
      }
      SizesVector s(n.in_sizes(0));
      s[size_t(d)] = lengths[i];
      pieces.push_back(zeros(s.ref(), TensorOptions(n.input_meta_[0].dtype).device(n.input_meta_[0].device)));
    }
    return {pieces.size() == 1 ? pieces[0] : ember::cat(pieces, d)};
  });
  for (const Tensor& p : parts) mark_view(x, p);
  return parts;
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  std::vector<Tensor> parts;
  {
    NoGradGuard no_grad;
    parts = x.unbind(dim);
  }
  if (!requires_grad(x) || !is_floating_point(x.dtype()) || parts.empty()) return parts;
  const int64_t d = ember::detail::wrap_dim(dim, x.dim(), "unbind");
  record_outputs("UnbindBackward0", x, parts, [d](N& n, G& g) -> G {
    SizesVector s(n.in_sizes(0));
    s.erase(d);
    std::vector<Tensor> slices;
    for (const Tensor& t : g)
      slices.push_back(t.defined() ? t : zeros(s.ref(), TensorOptions(n.input_meta_[0].dtype).device(n.input_meta_[0].device)));
    return {ember::stack(slices, d)};
  });
  for (const Tensor& p : parts) mark_view(x, p);
  return parts;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  Tensor y = forward([&] { return ember::cat(tensors, dim); });
  bool any = false;
  for (const Tensor& t : tensors) any = any || requires_grad(t);
  if (!any) return y;
  const int64_t d = ember::detail::wrap_dim(dim, y.dim(), "cat");
  record_list("CatBackward0", tensors, y, [d](N& n, G& g) -> G {
    G out(n.next_edges_.size());
    int64_t offset = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      IntArrayRef s = n.in_sizes(i);
      if (s.size() == 1 && s[0] == 0 && g[0].dim() != 1) continue;  // a skipped legacy empty tensor
      const int64_t len = s[size_t(d)];
      if (n.needs(i)) out[i] = g[0].narrow(d, offset, len);
      offset += len;
    }
    return out;
  });
  return y;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  Tensor y = forward([&] { return ember::stack(tensors, dim); });
  bool any = false;
  for (const Tensor& t : tensors) any = any || requires_grad(t);
  if (!any) return y;
  const int64_t d = ember::detail::wrap_dim(dim, y.dim(), "stack");
  record_list("StackBackward0", tensors, y, [d](N& n, G& g) -> G {
    G out(n.next_edges_.size());
    for (size_t i = 0; i < out.size(); ++i)
      if (n.needs(i)) out[i] = g[0].select(d, int64_t(i));
    return out;
  });
  return y;
}

Tensor to(const Tensor& x, Device device, ScalarType dtype, bool non_blocking, bool copy) {
  Tensor y = forward([&] { return x.to(device, dtype, non_blocking, copy); });
  if (y.is_same(x) || !requires_grad(x) || !is_floating_point(dtype)) return y;
  // The engine casts the gradient back to the input's dtype and copies it to its device.
  record("ToCopyBackward0", {&x}, {&y}, [](N&, G& g) -> G { return {g[0]}; });
  return y;
}

Tensor clone(const Tensor& x, MemoryFormat memory_format) {
  Tensor y = forward([&] { return x.clone(memory_format); });
  if (!requires_grad(x)) return y;
  record("CloneBackward0", {&x}, {&y}, [](N&, G& g) -> G { return {g[0]}; });
  return y;
}

void copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  check_inplace(self);
  {
    NoGradGuard no_grad;
    self.copy_(src, non_blocking);
  }
  if (!requires_grad(self) && !requires_grad(src)) return;
  if (!is_floating_point(self.dtype())) return;
  // self's old value is overwritten: it gets a zero gradient; src gets self's, summed
  // back over broadcast dims and cast and moved to src's dtype and device by the engine.
  Tensor before = self;
  rebase_view(self, record("CopyBackwards", {&before, &src}, {&self}, [](N& n, G& g) -> G {
                return {n.needs(0) ? zeros_like(g[0]) : Tensor(), g[0]};
              }));
}

void fill_(Tensor& self, const Scalar& value) {
  check_inplace(self);
  {
    NoGradGuard no_grad;
    self.fill_(value);
  }
  if (!requires_grad(self)) return;
  Tensor before = self;
  rebase_view(self, record("FillBackward0", {&before}, {&self}, [](N&, G& g) -> G { return {zeros_like(g[0])}; }));
}

}  // namespace ember::autograd::detail
