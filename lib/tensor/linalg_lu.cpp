// LU factorizations of torch::linalg and ATen (libtorch 1.13's names, results and errors):
// linalg.lu_factor, linalg.lu, lu_unpack, linalg.lu_solve and lu_solve. The factorization
// is LAPACK's getrf on the host in float64 (host_linalg.h); lu and lu_factor carry
// libtorch's gradient in ember ops, and the solves are triangular solves of the unpacked
// factors, so autograd differentiates them (and again) on every device.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/linalg_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/host_linalg.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

void check_input(const Tensor& a, const char* op, const char* name) {
  EMBER_CHECK_ARG(a.defined(), "{}: {} is an undefined tensor", op, name);
  if (a.dim() < 2) {
    std::string sizes;
    for (int64_t d = 0; d < a.dim(); ++d) sizes += (d ? ", " : "") + std::to_string(a.size(d));
    EMBER_THROW(InvalidArgument, "{}: Expected tensor with 2 or more dimensions. Got size: [{}] instead", op,
                sizes);
  }
  EMBER_CHECK_ARG(a.is_floating_point(), "{}: Expected a floating point or complex tensor as input. Got {}",
                  op, detail::torch_name(a.dtype()));
  EMBER_CHECK_ARG(a.dtype() == kFloat || a.dtype() == kDouble,
                  "{}: Low precision dtypes not supported. Got {}", op, detail::torch_name(a.dtype()));
}

// P with A = P L U from getrf's pivots [.., k], for m rows: applying the swaps in order
// brings original row perm[i] to row i, so P[perm[i]][i] = 1.
Tensor permutation(const Tensor& pivots, int64_t m, const TensorOptions& options) {
  const int64_t k = pivots.size(-1);
  const Tensor piv = pivots.cpu().to(kInt).contiguous();
  const int64_t count = k == 0 ? 1 : piv.numel() / k;
  std::vector<int64_t> shape(pivots.sizes().begin(), pivots.sizes().end() - 1);
  shape.insert(shape.end(), {m, m});
  Tensor p = zeros(shape, kDouble);
  std::vector<int64_t> perm(static_cast<size_t>(m));
  for (int64_t t = 0; t < count; ++t) {
    std::iota(perm.begin(), perm.end(), 0);
    const int32_t* pv = piv.data_ptr<int32_t>() + t * k;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t r = int64_t(pv[i]) - 1;
      EMBER_CHECK_ARG(r >= i && r < m, "lu_unpack: pivot {} of {} is out of range (expected {} to {})", i,
                      pv[i], i + 1, m);
      std::swap(perm[size_t(i)], perm[size_t(r)]);
    }
    double* d = p.data_ptr<double>() + t * m * m;
    for (int64_t i = 0; i < m; ++i) d[perm[size_t(i)] * m + i] = 1;
  }
  return p.to(options);
}

struct Factors {
  Tensor p, l, u;
};

// L [.., m, k] (unit lower) and U [.., k, n] from the packed LU, in ember ops.
Factors unpack(const Tensor& lu, const Tensor& pivots) {
  const int64_t m = lu.size(-2), n = lu.size(-1), k = std::min(m, n);
  Factors f;
  f.l = lu.narrow(-1, 0, k).tril(-1) + eye(m, k, lu.options());
  f.u = lu.narrow(-2, 0, k).triu();
  f.p = permutation(pivots, m, lu.options());
  return f;
}

// libtorch's linalg_lu_backward: for square A = P L U,
// gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T; a wide A = P L [U1 U2] or a tall
// A = P [L1; L2] U adds what U2 = L^-1 P^T A2 (or L2 = (P^T A)2 U^-1) passes back.
Tensor lu_backward(Tensor gl, Tensor gu, const Tensor& p, const Tensor& l, const Tensor& u) {
  if (!gl.defined() && !gu.defined()) return Tensor();
  if (!gl.defined()) gl = zeros_like(l);
  if (!gu.defined()) gu = zeros_like(u);
  const auto square = [](const Tensor& gl, const Tensor& gu, const Tensor& l, const Tensor& u) {
    const Tensor phi = matmul(l.mT(), gl).tril(-1) + matmul(gu, u.mT()).triu();
    const Tensor x = linalg_solve_triangular(l.mT(), phi, true, true, true);
    return linalg_solve_triangular(u.mT(), x, false, false);
  };
  const int64_t m = l.size(-2), n = u.size(-1);
  Tensor g;
  if (m == n) {
    g = square(gl, gu, l, u);
  } else if (m < n) {
    const Tensor u1 = u.narrow(-1, 0, m), u2 = u.narrow(-1, m, n - m);
    const Tensor g2 = linalg_solve_triangular(l.mT(), gu.narrow(-1, m, n - m), true, true, true);
    g = cat({square(gl - matmul(g2, u2.mT()), gu.narrow(-1, 0, m), l, u1), g2}, -1);
  } else {
    const Tensor l1 = l.narrow(-2, 0, n), l2 = l.narrow(-2, n, m - n);
    const Tensor g2 = linalg_solve_triangular(u.mT(), gl.narrow(-2, n, m - n), false, false);
    g = cat({square(gl.narrow(-2, 0, n), gu - matmul(l2.mT(), g2), l1, u), g2}, -2);
  }
  return matmul(p, g);
}

detail::HostLu factor(const Tensor& a, bool pivot, const char* op) {
  check_input(a, op, "A");
  EMBER_CHECK_TYPED(pivot, NotImplemented, "{}: LU without pivoting is not implemented on the CPU", op);
  return detail::host_lu_factor(a);
}

bool recording(const Tensor& a) { return GradMode::is_enabled() && a.requires_grad(); }

}  // namespace

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a, bool pivot) {
  const char* op = "torch.linalg.lu_factor";
  detail::HostLu h = factor(a, pivot, op);
  for (size_t t = 0; t < h.zero_pivot.size(); ++t) {
    if (!h.zero_pivot[t]) continue;
    const std::string batch = a.dim() > 2 ? fmt::format("(Batch element {}): ", t) : "";
    const int64_t j = h.zero_pivot[t];  // 1-based, as LAPACK's info in libtorch's text
    EMBER_THROW(
        InvalidArgument,
        "{}: {}U[{},{}] is zero and using it on lu_solve would result in a division by zero. If you still "
        "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
        "linalg.lu_factor_ex(A, pivot)",
        op, batch, j, j);
  }
  Tensor lu = h.lu, pivots = h.pivots;
  if (!recording(a)) return {lu, pivots};
  const Tensor p = permutation(pivots, a.size(-2), a.options());
  auto node = autograd::record(
      "LinalgLuFactorExBackward0", {&a}, {&lu},
      [p, pivots](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        const Tensor packed = node.saved(0);
        const int64_t k = std::min(packed.size(-2), packed.size(-1));
        const Factors f = unpack(packed, pivots);
        return {lu_backward(g[0].narrow(-1, 0, k).tril(-1), g[0].narrow(-2, 0, k).triu(), p, f.l, f.u)};
      });
  node->saved_[0] = autograd::SavedVariable(lu, true);
  return {lu, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& lu, const Tensor& pivots, bool unpack_data,
                                             bool unpack_pivots) {
  check_input(lu, "lu_unpack", "LU_data");
  EMBER_CHECK_ARG(pivots.defined() && pivots.dtype() == kInt,
                  "lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.");
  Factors f = unpack(lu, pivots);
  const Tensor none = empty({0}, lu.options());
  return {unpack_pivots ? f.p : none, unpack_data ? f.l : none, unpack_data ? f.u : none};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& a, bool pivot) {
  detail::HostLu h = factor(a, pivot, "linalg.lu");
  Factors f = unpack(h.lu, h.pivots);
  Tensor l = f.l, u = f.u;
  if (!recording(a)) return {f.p, l, u};
  auto node = autograd::record(
      "LinalgLuBackward0", {&a}, {&l, &u},
      [p = f.p](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        return {lu_backward(g[0], g[1], p, node.saved(1), node.saved(2))};
      });
  node->saved_[1] = autograd::SavedVariable(l, true);
  node->saved_[2] = autograd::SavedVariable(u, true);
  return {f.p, l, u};
}

Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_input(lu, op, "LU");
  check_input(b, op, "B");
  EMBER_CHECK_ARG(lu.size(-1) == lu.size(-2), "{}: Expected LU to be square, but got {} by {} matrices", op,
                  lu.size(-2), lu.size(-1));
  EMBER_CHECK_ARG(pivots.defined() && pivots.dtype() == kInt, "{}: Expected pivots to be int32, got {}", op,
                  pivots.defined() ? detail::torch_name(pivots.dtype()) : "an undefined tensor");
  const int64_t n = lu.size(-1);
  EMBER_CHECK_ARG(left ? b.size(-2) == n : b.size(-1) == n,
                  "{}: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})", op,
                  left ? "AX = B" : "XA = B", n, n, b.size(-2), b.size(-1));
  const Factors f = unpack(lu, pivots);
  const Tensor &l = f.l, &u = f.u, &p = f.p;
  if (left && !adjoint)  // A X = B: X = U^-1 L^-1 P^T B
    return linalg_solve_triangular(u, linalg_solve_triangular(l, matmul(p.mT(), b), false, true, true), true);
  if (left)  // A^T X = B: X = P L^-T U^-T B
    return matmul(
        p, linalg_solve_triangular(l.mT(), linalg_solve_triangular(u.mT(), b, false), true, true, true));
  if (!adjoint)  // X A = B: X = B U^-1 L^-1 P^T
    return matmul(linalg_solve_triangular(l, linalg_solve_triangular(u, b, true, false), false, false, true),
                  p.mT());
  // X A^T = B: X = B P L^-T U^-T
  return linalg_solve_triangular(u.mT(), linalg_solve_triangular(l.mT(), matmul(b, p), true, false, true),
                                 false, false);
}

Tensor lu_solve(const Tensor& b, const Tensor& lu, const Tensor& pivots) {
  return linalg_lu_solve(lu, pivots, b);
}

namespace linalg {
std::tuple<Tensor, Tensor> lu_factor(const Tensor& a, bool pivot) { return linalg_lu_factor(a, pivot); }
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& a, bool pivot) { return linalg_lu(a, pivot); }
Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
  return linalg_lu_solve(lu, pivots, b, left, adjoint);
}
}  // namespace linalg

}  // namespace ember
