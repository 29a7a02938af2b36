// Backward formulas of the matmul family: each gradient is another product.
#include "autograd/grad_ops.h"
#include "autograd/node.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"

namespace ember::autograd::detail {

namespace {
using G = variable_list;
using N = FormulaNode;

template <class F>
Tensor forward(F&& f) {
  NoGradGuard no_grad;
  return f();
}

void save2(const std::shared_ptr<FormulaNode>& node, const Tensor& a, const Tensor& b) {
  node->saved_[0] = SavedVariable(a, false);
  node->saved_[1] = SavedVariable(b, false);
}

// Note [Gradient layout of mm]
// As libtorch's mm_mat1/mat2_backward: an operand stored column-major (a weight used as
// w.t()) gets its gradient column-major too, computed as the transposed product. After
// TBackward that gradient is contiguous, so AccumulateGrad keeps it instead of copying.
bool column_major(const Tensor& t) { return t.stride(0) == 1 && t.stride(1) == t.size(0) && t.size(0) > 1; }

// d(a @ b)/da for an a of a's layout: g @ b^T.
Tensor mm_grad_a(const Tensor& g, const Tensor& a, const Tensor& b) {
  return column_major(a) ? ember::mm(b, g.t()).t() : ember::mm(g, b.t());
}
// d(a @ b)/db for a b of b's layout: a^T @ g.
Tensor mm_grad_b(const Tensor& g, const Tensor& a, const Tensor& b) {
  return column_major(b) ? ember::mm(g.t(), a).t() : ember::mm(a.t(), g);
}
}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  Tensor y = forward([&] { return ember::mm(a, b); });
  if (!any_requires_grad({&a, &b})) return y;
  save2(record("MmBackward0", {&a, &b}, {&y}, [](N& n, G& g) -> G {
          const Tensor a = n.saved(0), b = n.saved(1);
          return {n.needs(0) ? mm_grad_a(g[0], a, b) : Tensor(), n.needs(1) ? mm_grad_b(g[0], a, b) : Tensor()};
        }),
        a, b);
  return y;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  Tensor y = forward([&] { return ember::bmm(a, b); });
  if (!any_requires_grad({&a, &b})) return y;
  save2(record("BmmBackward0", {&a, &b}, {&y}, [](N& n, G& g) -> G {
          return {n.needs(0) ? ember::bmm(g[0], n.saved(1).transpose(1, 2)) : Tensor(),
                  n.needs(1) ? ember::bmm(n.saved(0).transpose(1, 2), g[0]) : Tensor()};
        }),
        a, b);
  return y;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  Tensor y = forward([&] { return ember::mv(a, v); });
  if (!any_requires_grad({&a, &v})) return y;
  save2(record("MvBackward0", {&a, &v}, {&y}, [](N& n, G& g) -> G {
          return {n.needs(0) ? ember::outer(g[0], n.saved(1)) : Tensor(), n.needs(1) ? ember::mv(n.saved(0).t(), g[0]) : Tensor()};
        }),
        a, v);
  return y;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  Tensor y = forward([&] { return ember::dot(a, b); });
  if (!any_requires_grad({&a, &b})) return y;
  save2(record("DotBackward0", {&a, &b}, {&y}, [](N& n, G& g) -> G {
          return {n.needs(0) ? g[0] * n.saved(1) : Tensor(), n.needs(1) ? g[0] * n.saved(0) : Tensor()};
        }),
        a, b);
  return y;
}

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  Tensor y = forward([&] { return ember::addmm(c, a, b, beta, alpha); });
  if (!any_requires_grad({&c, &a, &b})) return y;
  const double be = beta.to_double(), al = alpha.to_double();
  save2(record("AddmmBackward0", {&c, &a, &b}, {&y}, [be, al](N& n, G& g) -> G {
          Tensor gc, ga, gb;
          if (n.needs(0)) gc = be == 1 ? g[0] : g[0] * be;
          const Tensor a = n.saved(0), b = n.saved(1);
          const Tensor gs = al == 1 ? g[0] : g[0] * al;  // scaled before the products keep their layout
          if (n.needs(1)) ga = mm_grad_a(gs, a, b);
          if (n.needs(2)) gb = mm_grad_b(gs, a, b);
          return {gc, ga, gb};
        }),
        a, b);
  return y;
}

Tensor matmul_batched(const Tensor& a, const Tensor& b) {
  // torch.matmul's rule spelled in recorded ops: broadcast the batch dims, fold, bmm, unfold.
  const int64_t da = a.dim(), db = b.dim();
  Tensor A = da == 1 ? a.unsqueeze(0) : a;
  Tensor B = db == 1 ? b.unsqueeze(1) : b;
  const int64_t m = A.size(-2), k = A.size(-1), n = B.size(-1);
  IntArrayRef ba(A.sizes().data(), size_t(A.dim() - 2)), bb(B.sizes().data(), size_t(B.dim() - 2));
  SizesVector batch = ember::detail::broadcast_shapes(ba, bb, "matmul");
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  SizesVector ea(batch), eb(batch);
  ea.push_back(m), ea.push_back(k);
  eb.push_back(B.size(-2)), eb.push_back(n);
  Tensor C = ember::bmm(A.expand(ea.ref()).reshape({nb, m, k}), B.expand(eb.ref()).reshape({nb, B.size(-2), n}));
  SizesVector out_shape(batch);
  if (da > 1) out_shape.push_back(m);
  if (db > 1) out_shape.push_back(n);
  return C.view(out_shape.ref());
}

}  // namespace ember::autograd::detail
