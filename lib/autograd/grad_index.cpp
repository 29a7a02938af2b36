// Backward formulas of gather, index_select and index_add_: each gradient is the
// adjoint selection (scatter_add / index_add into zeros, index_select back), written as
// out-of-place ops so that create_graph can differentiate through them.
#include "autograd/grad_index.h"

#include "autograd/node.h"
#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::autograd::detail {

namespace {
using G = variable_list;
using N = FormulaNode;
}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::gather(self, dim, index);
  }
  if (!requires_grad(self) || !is_floating_point(y.dtype())) return y;
  const int64_t d = ember::detail::wrap_dim(dim, self.dim(), "gather");
  auto node = record("GatherBackward0", {&self}, {&y}, [d](N& n, G& g) -> G {
    return {ember::scatter_add(ember::zeros(n.in_sizes(0), g[0].options()), d, n.saved(0), g[0])};
  });
  node->saved_[0] = SavedVariable(index, false);
  return y;
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = ember::index_select(self, dim, index);
  }
  if (!requires_grad(self) || !is_floating_point(y.dtype())) return y;
  const int64_t d = ember::detail::wrap_dim(dim, self.dim(), "index_select()");
  auto node = record("IndexSelectBackward0", {&self}, {&y}, [d](N& n, G& g) -> G {
    return {ember::index_add(ember::zeros(n.in_sizes(0), g[0].options()), d, n.saved(0), g[0])};
  });
  node->saved_[0] = SavedVariable(index, false);
  return y;
}

void index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_inplace(self);
  {
    NoGradGuard no_grad;
    self.index_add_(dim, index, source, alpha);
  }
  if ((!requires_grad(self) && !requires_grad(source)) || !is_floating_point(self.dtype())) return;
  const int64_t d = ember::detail::wrap_dim(dim, self.dim(), "index_add_()");
  // self's gradient passes through; source's is the rows of g it was added to, times alpha.
  Tensor before = self;
  auto node = record("IndexAddBackward0", {&before, &source}, {&self}, [d, alpha](N& n, G& g) -> G {
    Tensor gs;
    if (n.needs(1)) {
      gs = ember::index_select(g[0], d, n.saved(0));
      if (!(alpha.to<double>() == 1.0)) gs = gs * alpha;
      gs = gs.reshape(n.in_sizes(1));
    }
    return {n.needs(0) ? g[0] : Tensor(), gs};
  });
  node->saved_[0] = SavedVariable(index, false);
  rebase_view(self, node);
}

void index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_inplace(self);
  {
    NoGradGuard no_grad;
    self.index_copy_(dim, index, source);
  }
  if ((!requires_grad(self) && !requires_grad(source)) || !is_floating_point(self.dtype())) return;
  const int64_t d = ember::detail::wrap_dim(dim, self.dim(), "index_copy_()");
  // The overwritten rows pass nothing back to self; source's gradient is those rows of g.
  Tensor before = self;
  auto node = record("IndexCopyBackward0", {&before, &source}, {&self}, [d](N& n, G& g) -> G {
    Tensor gself, gsrc;
    const Tensor index = n.saved(0);
    if (n.needs(0)) gself = g[0].dim() == 0 ? zeros_like(g[0]) : g[0].index_fill(d, index, 0);
    if (n.needs(1))
      gsrc = (g[0].dim() == 0 ? g[0] : ember::index_select(g[0], d, index)).reshape(n.in_sizes(1));
    return {gself, gsrc};
  });
  node->saved_[0] = SavedVariable(index, false);
  rebase_view(self, node);
}

}  // namespace ember::autograd::detail
