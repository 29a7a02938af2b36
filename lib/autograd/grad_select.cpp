// Backward formulas of the selection ops: sort (and topk, which narrows sort's values),
// scatter_ of a tensor or a value, scatter_add_, and advanced indexing. As libtorch's
// derivatives.yaml: sort: zeros.scatter(dim, indices, grad); scatter: self gets grad with
// the written positions zeroed, src gets grad.gather(dim, index); scatter_add: self gets
// grad; index: grad accumulated into zeros at the positions; index_put_: values get
// grad.index(positions), self gets grad (accumulate) or grad with the positions zeroed.
// masked_select: grad added into zeros at the selected positions, summed back over the
// mask's broadcast; masked_fill: self gets grad with the filled positions zeroed, a tensor
// value gets the sum of grad there.
// Advanced indexing records at the block level (index_ops.h): the views that make the
// block are recorded by their own ops.
#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "core/check.h"
#include "dispatch/index_ops.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd::detail {

namespace {
using G = variable_list;
using N = FormulaNode;

// MaskedFillBackward0 (a Scalar value) or 1 (a tensor value: input 1); the mask is saved(0).
G masked_fill_backward(N& n, G& g) {
  const Tensor mask = n.saved(0);
  Tensor gs, gv;
  if (n.needs(0)) gs = sum_to(g[0].masked_fill(mask, 0), n.in_sizes(0));
  if (n.needs(1)) gv = where(mask, g[0], 0.0).sum();
  return {gs, gv};
}
}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  Tensor values, indices;
  {
    NoGradGuard no_grad;
    std::tie(values, indices) = ember::sort(x, dim, descending);
  }
  if (!requires_grad(x) || !is_floating_point(x.dtype())) return {values, indices};
  const int64_t d = x.dim() == 0 ? 0 : ember::detail::wrap_dim(dim, x.dim(), "sort");
  const bool scalar = x.dim() == 0;
  // indices never require grad, so holding them in the node makes no cycle.
  record("SortBackward0", {&x}, {&values}, [d, scalar, indices](N&, G& g) -> G {
    if (scalar) return {g[0]};
    return {zeros(g[0].sizes(), g[0].options()).scatter(d, indices, g[0])};
  });
  return {values, indices};
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const Scalar* value, bool is_add) {
  check_inplace(self);
  const bool grads = requires_grad(self) || (src && requires_grad(*src));
  {
    NoGradGuard no_grad;
    if (is_add) self.scatter_add_(dim, index, *src);
    else if (src) self.scatter_(dim, index, *src);
    else self.scatter_(dim, index, *value);
  }
  if (!grads || !is_floating_point(self.dtype())) return self;
  const int64_t d = ember::detail::wrap_dim(dim, self.dim(), "scatter");
  Tensor before = self;
  const char* name = is_add ? "ScatterAddBackward0" : src ? "ScatterBackward0" : "ScatterBackward1";
  rebase_view(self, record(name, {&before, src}, {&self}, [d, index, is_add](N& n, G& g) -> G {
                Tensor gs, gsrc;
                if (n.needs(0)) gs = is_add ? g[0] : g[0].scatter(d, index, 0);
                if (n.needs(1)) gsrc = g[0].gather(d, index);
                return {gs, gsrc};
              }));
  return self;
}

Tensor index_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, int64_t user_dim) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = ember::detail::gather_block(t, b, e, lin, true, {nullptr, user_dim});
  }
  if (!requires_grad(t) || !is_floating_point(t.dtype())) return out;
  record("IndexBackward0", {&t}, {&out}, [sizes = t.sizes().vec(), b, e, lin](N&, G& g) -> G {
    Tensor z = zeros(sizes, g[0].options());
    ember::detail::put_block(z, b, e, lin, g[0], true, true, {nullptr, -1});
    return {z};
  });
  return out;
}

void index_put_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, const Tensor& value, bool accumulate,
                     int64_t user_dim) {
  check_inplace(t);
  {
    NoGradGuard no_grad;
    ember::detail::put_block(t, b, e, lin, value, accumulate, true, {nullptr, user_dim});
  }
  if ((!requires_grad(t) && !requires_grad(value)) || !is_floating_point(t.dtype())) return;
  Tensor before = t;
  rebase_view(t, record("IndexPutBackward0", {&before, &value}, {const_cast<Tensor*>(&t)},
                        [b, e, lin, accumulate, vsizes = value.sizes().vec()](N& n, G& g) -> G {
                          Tensor gs, gv;
                          if (n.needs(0)) {
                            gs = g[0];
                            if (!accumulate) {
                              gs = g[0].clone();
                              ember::detail::put_block(gs, b, e, lin, zeros(vsizes, g[0].options()), false, true,
                                                       {nullptr, -1});
                            }
                          }
                          if (n.needs(1)) gv = ember::detail::gather_block(g[0], b, e, lin, true, {nullptr, -1});
                          return {gs, gv};
                        }));
}

Tensor masked_select(const Tensor& self, const Tensor& flat, IntArrayRef shape) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::detail::gather_block(self.expand(shape).reshape({-1}), 0, 1, flat, false, {"masked_select()", 0});
  }
  if (!requires_grad(self) || !is_floating_point(self.dtype())) return y;
  auto node = record("MaskedSelectBackward0", {&self}, {&y}, [shape = shape.vec()](N& n, G& g) -> G {
    int64_t numel = 1;
    for (int64_t s : shape) numel *= s;
    Tensor spread = ember::index_add(zeros({numel}, g[0].options()), 0, n.saved(0), g[0]);
    return {sum_to(spread.view(shape), n.in_sizes(0))};
  });
  node->saved_[0] = SavedVariable(flat, false);
  return y;
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value, const Tensor* value_tensor) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::masked_fill(self, mask, value);
  }
  if (!any_requires_grad({&self, value_tensor}) || !is_floating_point(y.dtype())) return y;
  // libtorch's MaskedFillBackward0 has one edge (self), MaskedFillBackward1 two.
  auto node = value_tensor ? record("MaskedFillBackward1", {&self, value_tensor}, {&y}, masked_fill_backward)
                           : record("MaskedFillBackward0", {&self}, {&y}, masked_fill_backward);
  node->saved_[0] = SavedVariable(mask, false);
  return y;
}

void masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value, const Tensor* value_tensor) {
  check_inplace(self);
  {
    NoGradGuard no_grad;
    self.masked_fill_(mask, value);
  }
  if (!any_requires_grad({&self, value_tensor}) || !is_floating_point(self.dtype())) return;
  Tensor before = self;
  auto node = value_tensor ? record("MaskedFillBackward1", {&before, value_tensor}, {&self}, masked_fill_backward)
                           : record("MaskedFillBackward0", {&before}, {&self}, masked_fill_backward);
  node->saved_[0] = SavedVariable(mask, false);
  rebase_view(self, node);
}

}  // namespace ember::autograd::detail
