// Triangular systems and QR of torch::linalg and ATen (libtorch 1.13's names, argument
// order, results and errors): linalg.solve_triangular, triangular_solve, cholesky_solve,
// cholesky_inverse, linalg.qr and qr. Substitution and Householder QR run on the host in
// float64 (host_linalg.h); the gradients are libtorch's formulas in ember ops, so they run
// on every device and differentiate again.
#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/linalg_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "iter/elementwise_iter.h"
#include "tensor/host_linalg.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

void check_operand(const Tensor& t, const char* op, const char* name) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op, name);
  EMBER_CHECK_ARG(t.dim() >= 2, "{}: The input tensor {} must have at least 2 dimensions.", op, name);
  EMBER_CHECK_ARG(t.is_floating_point(), "{}: Expected a floating point or complex tensor as input. Got {}",
                  op, detail::torch_name(t.dtype()));
  EMBER_CHECK_ARG(t.dtype() == kFloat || t.dtype() == kDouble,
                  "{}: Low precision dtypes not supported. Got {}", op, detail::torch_name(t.dtype()));
}

// The coefficient matrix A: batches of square matrices.
void check_square_operand(const Tensor& a, const char* op) {
  check_operand(a, op, "A");
  EMBER_CHECK_ARG(a.size(-1) == a.size(-2),
                  "{}: A must be batches of square matrices, but they are {} by {} matrices", op, a.size(-2),
                  a.size(-1));
}

bool recording(std::initializer_list<const Tensor*> ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : ts)
    if (t->defined() && t->requires_grad()) return true;
  return false;
}

// The triangle a triangular solve reads, as a mask for its gradient.
Tensor triangle(const Tensor& g, bool upper, bool unitriangular) {
  const int64_t offset = unitriangular ? 1 : 0;
  return upper ? g.triu(offset) : g.tril(-offset);
}

// X with A X = B (left) or X A = B; A [.., n, n] triangular, batch dims broadcast.
Tensor solve_triangular_impl(const Tensor& a0, const Tensor& b0, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_square_operand(a0, op);
  check_operand(b0, op, "B");
  const int64_t n = a0.size(-1), inner = left ? b0.size(-2) : b0.size(-1);
  EMBER_CHECK_ARG(inner == n, "{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", op,
                  left ? "AX = B" : "XA = B", n, n, b0.size(-2), b0.size(-1));
  // Broadcast the batch dims; expand's own gradient sums them back.
  const SizesVector batch = detail::broadcast_shapes(a0.sizes().slice(0, size_t(a0.dim() - 2)),
                                                     b0.sizes().slice(0, size_t(b0.dim() - 2)), op);
  std::vector<int64_t> as(batch.begin(), batch.end()), bs = as;
  as.insert(as.end(), {n, n});
  bs.insert(bs.end(), {b0.size(-2), b0.size(-1)});
  // Mixed dtypes: B takes A's, as in libtorch 1.13.
  const Tensor a = a0.expand(as), b = b0.to(a0.dtype()).expand(bs);
  // X A = B is A^T X^T = B^T, A^T triangular the other way.
  Tensor x = left ? detail::host_triangular_solve(a, b, upper, unitriangular)
                  : detail::host_triangular_solve(a.mT(), b.mT(), !upper, unitriangular).mT().contiguous();
  if (!recording({&a, &b})) return x;
  // gB = A^-T gX (or gX A^-T); gA = -gB X^T (or -X^T gB) on A's triangle.
  auto node = autograd::record(
      "LinalgSolveTriangularBackward0", {&a, &b}, {&x},
      [upper, left, unitriangular](autograd::FormulaNode& node,
                                   autograd::variable_list& g) -> autograd::variable_list {
        const Tensor a = node.saved(0), x = node.saved(2);
        const Tensor gb = solve_triangular_impl(a.mT(), g[0], !upper, left, unitriangular);
        autograd::variable_list out(2);
        if (node.needs(0))
          out[0] = triangle(left ? -matmul(gb, x.mT()) : -matmul(x.mT(), gb), upper, unitriangular);
        if (node.needs(1)) out[1] = gb;
        return out;
      });
  node->saved_[0] = autograd::SavedVariable(a, false);
  node->saved_[2] = autograd::SavedVariable(x, true);
  return x;
}

// X = (L L^T)^-1 B (upper: (U^T U)^-1 B), with libtorch's gradient: gB = cholesky_solve(gX)
// and gL = -(gB X^T + X gB^T) L (L common for upper), not restricted to the triangle.
Tensor cholesky_solve_impl(const Tensor& b, const Tensor& l, bool upper) {
  const char* op = "cholesky_solve";
  check_operand(b, op, "B");
  check_square_operand(l, op);
  EMBER_CHECK_ARG(b.dtype() == l.dtype(),
                  "Expected b and A to have the same dtype, but found b of type {} and A of type {} instead.",
                  detail::torch_name(b.dtype()), detail::torch_name(l.dtype()));
  Tensor x;
  {
    NoGradGuard no_grad;
    const Tensor lower = upper ? l.mT() : l;
    x = solve_triangular_impl(lower.mT(), solve_triangular_impl(lower, b, false, true, false), true, true,
                              false);
  }
  if (!recording({&b, &l})) return x;
  auto node = autograd::record(
      "CholeskySolveBackward0", {&b, &l}, {&x},
      [upper](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        const Tensor l = node.saved(1), x = node.saved(2);
        const Tensor gb = cholesky_solve_impl(g[0], l, upper);
        autograd::variable_list out(2);
        // Batch dims broadcast in the forward are summed back to each operand's.
        if (node.needs(0)) out[0] = autograd::sum_to(gb, node.in_sizes(0));
        if (node.needs(1)) {
          const Tensor common = matmul(gb, x.mT()) + matmul(x, gb.mT());
          out[1] = autograd::sum_to(upper ? -matmul(l, common) : -matmul(common, l), node.in_sizes(1));
        }
        return out;
      });
  node->saved_[1] = autograd::SavedVariable(l, false);
  node->saved_[2] = autograd::SavedVariable(x, true);
  return x;
}

// Backward of A = Q R for a square-or-tall block (m >= n): M = R gR^T - gQ^T Q,
// gA = (gQ + Q copyltu(M)) R^-T, copyltu mirroring M's lower triangle.
Tensor qr_backward_tall(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r) {
  Tensor m = zeros_like(r.narrow(-2, 0, r.size(-1)));
  if (gr.defined()) m = m + matmul(r, gr.mT());
  if (gq.defined()) m = m - matmul(gq.mT(), q);
  const Tensor copyltu = m.tril(-1) + m.tril(-1).mT() + diag_embed(diagonal(m, 0, -2, -1));
  Tensor lhs = matmul(q, copyltu);
  if (gq.defined()) lhs = lhs + gq;
  return solve_triangular_impl(r.mT(), lhs, false, false, false);  // lhs R^-T
}

std::tuple<Tensor, Tensor> qr_impl(const Tensor& a, std::string_view mode, const char* op) {
  check_operand(a, op, "A");
  EMBER_CHECK_ARG(
      mode == "reduced" || mode == "complete" || mode == "r",
      "qr received unrecognized mode '{}' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
  const bool complete = mode == "complete", compute_q = mode != "r";
  auto [q, r] = detail::host_qr(a, complete);
  if (!compute_q) q = empty({0}, a.options());
  if (!recording({&a})) return {q, r};
  const int64_t m = a.size(-2), n = a.size(-1);
  auto node = autograd::record(
      "LinalgQrBackward0", {&a}, {&q, &r},
      [compute_q, complete, m, n](autograd::FormulaNode& node,
                                  autograd::variable_list& g) -> autograd::variable_list {
        EMBER_CHECK_ARG(
            compute_q,
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
        EMBER_CHECK_ARG(!complete || m <= n,
                        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        const Tensor q = node.saved(0), r = node.saved(1);
        if (m >= n) return {qr_backward_tall(g[0], g[1], q, r)};
        // Wide: A = [X | Y], R = [U | V], X = Q U; gY = Q gV, and X's gradient is the
        // square case's with gQ + Y gV^T.
        const Tensor a = node.saved(2);
        const Tensor y = a.narrow(-1, m, n - m), u = r.narrow(-1, 0, m);
        const Tensor gu = g[1].defined() ? g[1].narrow(-1, 0, m) : Tensor();
        const Tensor gv = g[1].defined() ? g[1].narrow(-1, m, n - m) : zeros_like(r.narrow(-1, m, n - m));
        Tensor gq = matmul(y, gv.mT());
        if (g[0].defined()) gq = gq + g[0];
        return {cat({qr_backward_tall(gq, gu, q, u), matmul(q, gv)}, -1)};
      });
  node->saved_[0] = autograd::SavedVariable(q, true);
  node->saved_[1] = autograd::SavedVariable(r, true);
  if (m < n) node->saved_[2] = autograd::SavedVariable(a, false);
  return {q, r};
}

}  // namespace

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  return solve_triangular_impl(a, b, upper, left, unitriangular);
}
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& a, bool upper, bool transpose,
                                            bool unitriangular) {
  // libtorch returns the solution and a copy of A.
  const Tensor x = transpose ? solve_triangular_impl(a.mT(), b, !upper, true, unitriangular)
                             : solve_triangular_impl(a, b, upper, true, unitriangular);
  return {x, a.clone()};
}
Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper) {
  return cholesky_solve_impl(b, l, upper);
}
Tensor cholesky_inverse(const Tensor& l, bool upper) {
  EMBER_CHECK_ARG(l.defined() && l.dim() >= 2,
                  "cholesky_inverse: The input tensor must have at least 2 dimensions.");
  return cholesky_solve_impl(eye(l.size(-1), l.options()).expand(l.sizes()), l, upper);
}
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, std::string_view mode) {
  return qr_impl(a, mode, "linalg.qr");
}
std::tuple<Tensor, Tensor> qr(const Tensor& a, bool some) {
  return qr_impl(a, some ? "reduced" : "complete", "qr");
}

namespace linalg {
Tensor solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  return linalg_solve_triangular(a, b, upper, left, unitriangular);
}
std::tuple<Tensor, Tensor> qr(const Tensor& a, std::string_view mode) { return linalg_qr(a, mode); }
}  // namespace linalg

std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& a, bool upper, bool transpose,
                                                    bool unitriangular) const {
  return ember::triangular_solve(*this, a, upper, transpose, unitriangular);
}
Tensor Tensor::cholesky_solve(const Tensor& l, bool upper) const {
  return ember::cholesky_solve(*this, l, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const { return ember::cholesky_inverse(*this, upper); }
std::tuple<Tensor, Tensor> Tensor::qr(bool some) const { return ember::qr(*this, some); }

}  // namespace ember
