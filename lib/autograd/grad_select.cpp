// Backward formulas of the selection ops: sort (and topk, which narrows sort's values),
// scatter_ of a tensor or a value, and scatter_add_. As libtorch's derivatives.yaml:
// sort: zeros.scatter(dim, indices, grad); scatter: self gets grad with the written
// positions zeroed, src gets grad.gather(dim, index); scatter_add: self gets grad.
#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd::detail {

namespace {
using G = variable_list;
using N = FormulaNode;
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

}  // namespace ember::autograd::detail
