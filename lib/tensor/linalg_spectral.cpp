// Spectral decompositions of torch::linalg (libtorch 1.13's names, results and errors):
// eigh / eigvalsh of symmetric matrices, svd (linalg's U, S, Vh and torch::svd's U, S, V),
// pinv / pinverse. The factorizations run on the host in float64 (host_linalg.h); the
// gradients are libtorch's formulas in ember ops (linalg_eig_backward for the symmetric
// case, svd_backward, pinv_backward), so they run on every device and differentiate again.
// Eigen- and singular vectors are unique only up to sign: compare gauge-free quantities.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

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

void check_matrix(const Tensor& a, const char* op) {
  EMBER_CHECK_ARG(a.defined(), "{}: A is an undefined tensor", op);
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK_ARG(a.is_floating_point(), "{}: Expected a floating point or complex tensor as input. Got {}",
                  op, detail::torch_name(a.dtype()));
  EMBER_CHECK_ARG(a.dtype() == kFloat || a.dtype() == kDouble,
                  "{}: Low precision dtypes not supported. Got {}", op, detail::torch_name(a.dtype()));
}

void check_square(const Tensor& a, const char* op) {
  check_matrix(a, op);
  EMBER_CHECK_ARG(a.size(-1) == a.size(-2),
                  "{}: A must be batches of square matrices, but they are {} by {} matrices", op, a.size(-2),
                  a.size(-1));
}

bool upper_of(std::string_view uplo) {
  EMBER_CHECK_ARG(uplo == "L" || uplo == "l" || uplo == "U" || uplo == "u",
                  "Expected UPLO argument to be 'L' or 'U', but got {}", uplo);
  return uplo == "U" || uplo == "u";
}

bool recording(const Tensor& a) { return GradMode::is_enabled() && a.requires_grad(); }

// E[i][j] = x_j - x_i off the diagonal and 1 on it: the denominators of the gauge terms.
Tensor differences(const Tensor& x) {
  Tensor e = x.unsqueeze(-2) - x.unsqueeze(-1);
  const int64_t n = x.size(-1);
  return e + eye(n, x.options());  // the diagonal of e is 0
}

Tensor skew(const Tensor& x) { return x - x.mT(); }

// libtorch's linalg_eig_backward for symmetric A = V diag(L) V^T:
// gA = V (skew(V^T gV) / 2 / E with diag(gL)) V^T.
Tensor eigh_backward(const Tensor& gl, const Tensor& gv, const Tensor& l, const Tensor& v) {
  if (!gl.defined() && !gv.defined()) return Tensor();
  Tensor inner;
  if (gv.defined()) {
    inner = 0.5 * skew(matmul(v.mT(), gv)) / differences(l);
    inner = inner * (1 - eye(l.size(-1), l.options()));  // the skew part has no diagonal
    if (gl.defined()) inner = inner + diag_embed(gl);
  } else {
    inner = diag_embed(gl);
  }
  return matmul(v, matmul(inner, v.mT()));
}

std::tuple<Tensor, Tensor> eigh_impl(const Tensor& a, std::string_view uplo, bool vectors, const char* op) {
  check_square(a, op);
  const bool upper = upper_of(uplo);
  auto [l, v] = detail::host_eigh(a, upper);
  if (!recording(a)) return {l, vectors ? v : Tensor()};
  // V is an output of the node for eigvalsh too, so that a double backward reaches A
  // through it (as libtorch computes the vectors when the values need a gradient). The
  // outputs are saved as outputs: no reference cycle through their grad_fn.
  auto node = autograd::record(
      "LinalgEighBackward0", {&a}, {&l, &v},
      [](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        return {eigh_backward(g[0], g[1], node.saved(0), node.saved(1))};
      });
  node->saved_[0] = autograd::SavedVariable(l, true);
  node->saved_[1] = autograd::SavedVariable(v, true);
  return {l, vectors ? v : Tensor()};
}

// libtorch's svd_backward (real case) for A = U diag(S) Vh with U [m, k], Vh [k, n].
Tensor svd_backward(const Tensor& gu_in, const Tensor& gs, const Tensor& gvh_in, const Tensor& u_in,
                    const Tensor& s, const Tensor& vh_in) {
  const int64_t m = u_in.size(-2), n = vh_in.size(-1), k = s.size(-1);
  // full_matrices: only the first k columns of U (rows of Vh) carry the decomposition.
  const Tensor u = u_in.narrow(-1, 0, k), vh = vh_in.narrow(-2, 0, k);
  const Tensor gu = gu_in.defined() ? gu_in.narrow(-1, 0, k) : Tensor();
  const Tensor gvh = gvh_in.defined() ? gvh_in.narrow(-2, 0, k) : Tensor();
  if (!gu.defined() && !gvh.defined()) return gs.defined() ? matmul(u * gs.unsqueeze(-2), vh) : Tensor();
  const Tensor s2 = s * s;
  const Tensor e = differences(s2);
  Tensor inner;
  if (gu.defined() && gvh.defined())
    inner = (skew(matmul(u.mT(), gu)) * s.unsqueeze(-2) + s.unsqueeze(-1) * skew(matmul(vh, gvh.mT()))) / e;
  else if (gu.defined())
    inner = skew(matmul(u.mT(), gu)) * s.unsqueeze(-2) / e;
  else
    inner = s.unsqueeze(-1) * skew(matmul(vh, gvh.mT())) / e;
  inner = inner * (1 - eye(k, s.options()));
  if (gs.defined()) inner = inner + diag_embed(gs);
  if (m > n && gu.defined()) {  // the part of gU outside U's span
    const Tensor gus = gu / s.unsqueeze(-2);
    return matmul(matmul(u, inner) + gus - matmul(u, matmul(u.mT(), gus)), vh);
  }
  if (m < n && gvh.defined()) {
    const Tensor sgvh = gvh / s.unsqueeze(-1);
    return matmul(u, matmul(inner, vh) + sgvh - matmul(matmul(sgvh, vh.mT()), vh));
  }
  return matmul(u, matmul(inner, vh));
}

std::tuple<Tensor, Tensor, Tensor> svd_impl(const Tensor& a, bool full_matrices, const char* op) {
  check_matrix(a, op);
  const int64_t m = a.size(-2), n = a.size(-1);
  detail::HostSvd h = detail::host_svd(a);
  // Zero singular values leave zero columns: complete U and V to orthonormal bases.
  Tensor u = detail::host_complete_orthonormal(h.u, full_matrices ? m : h.u.size(-1));
  Tensor v = detail::host_complete_orthonormal(h.v, full_matrices ? n : h.v.size(-1));
  Tensor s = h.s, vh = v.mT().contiguous();
  if (!recording(a)) return {u, s, vh};
  auto node = autograd::record(
      "LinalgSvdBackward0", {&a}, {&u, &s, &vh},
      [](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        return {svd_backward(g[0], g[1], g[2], node.saved(0), node.saved(1), node.saved(2))};
      });
  for (int i = 0; i < 3; ++i)
    node->saved_[size_t(i)] = autograd::SavedVariable(i == 0 ? u : i == 1 ? s : vh, true);
  return {u, s, vh};
}

// libtorch's pinv_backward.
Tensor pinv_backward(const Tensor& g, const Tensor& p, const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1);
  const Tensor ph = p.mT(), gh = g.mT();
  if (m <= n) {
    const Tensor k = matmul(gh, p), kph = matmul(k, ph);
    return -matmul(p, k).mT() + kph - matmul(matmul(a, p), kph) + matmul(matmul(ph, p), gh - matmul(k, a));
  }
  const Tensor k = matmul(p, gh), phk = matmul(ph, k);
  return -matmul(k, p).mT() + matmul(matmul(gh - matmul(a, k), p), ph) + phk - matmul(matmul(phk, p), a);
}

Tensor pinv_impl(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "linalg.pinv";
  check_matrix(a, op);
  const int64_t m = a.size(-2), n = a.size(-1);
  const double eps = a.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                          : double(std::numeric_limits<float>::epsilon());
  // libtorch's default: rtol = eps * max(m, n) when neither tolerance is given.
  const double rel = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : eps * double(std::max(m, n)));
  const double abs_tol = atol ? *atol : 0.0;
  Tensor p;
  {
    NoGradGuard no_grad;
    if (hermitian) {
      check_square(a, op);
      auto [l, v] = detail::host_eigh(a, false);
      const Tensor mag = l.abs();
      const Tensor cutoff = clamp_min(std::get<0>(mag.max(-1, true)) * rel, abs_tol);
      const Tensor inv = where(mag > cutoff, l.reciprocal(), zeros_like(l));
      p = matmul(v * inv.unsqueeze(-2), v.mT());
    } else {
      detail::HostSvd h = detail::host_svd(a);
      const Tensor smax = h.s.numel() ? h.s.narrow(-1, 0, 1) : h.s;
      const Tensor cutoff = clamp_min(smax * rel, abs_tol);
      const Tensor inv = where(h.s > cutoff, h.s.reciprocal(), zeros_like(h.s));
      p = matmul(h.v * inv.unsqueeze(-2), h.u.mT());
    }
  }
  if (!recording(a)) return p;
  auto node = autograd::record(
      "LinalgPinvBackward0", {&a}, {&p},
      [](autograd::FormulaNode& node, autograd::variable_list& g) -> autograd::variable_list {
        return {pinv_backward(g[0], node.saved(2), node.saved(0))};
      });
  node->saved_[0] = autograd::SavedVariable(a, false);
  node->saved_[2] = autograd::SavedVariable(p, true);
  return p;
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, std::string_view uplo) {
  return eigh_impl(a, uplo, true, "linalg.eigh");
}
Tensor linalg_eigvalsh(const Tensor& a, std::string_view uplo) {
  return std::get<0>(eigh_impl(a, uplo, false, "linalg.eigvalsh"));
}
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices) {
  return svd_impl(a, full_matrices, "linalg.svd");
}
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool some, bool compute_uv) {
  if (!compute_uv) {  // libtorch: zero-filled U [m, m] and V [n, n]
    Tensor s = linalg_svdvals(a);
    std::vector<int64_t> us(a.sizes().begin(), a.sizes().end()), vs = us;
    us.back() = a.size(-2);
    vs[vs.size() - 2] = a.size(-1);
    return {zeros(us, a.options()), s, zeros(vs, a.options())};
  }
  auto [u, s, vh] = svd_impl(a, !some, "svd");
  return {u, s, vh.mT()};
}
Tensor linalg_pinv(const Tensor& a, double rcond, bool hermitian) {
  return pinv_impl(a, 0.0, rcond, hermitian);
}
Tensor linalg_pinv(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return pinv_impl(a, atol, rtol, hermitian);
}
Tensor pinverse(const Tensor& a, double rcond) { return linalg_pinv(a, rcond, false); }

namespace linalg {
std::tuple<Tensor, Tensor> eigh(const Tensor& a, std::string_view uplo) { return linalg_eigh(a, uplo); }
Tensor eigvalsh(const Tensor& a, std::string_view uplo) { return linalg_eigvalsh(a, uplo); }
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices) {
  return linalg_svd(a, full_matrices);
}
Tensor pinv(const Tensor& a, double rcond, bool hermitian) { return linalg_pinv(a, rcond, hermitian); }
Tensor pinv(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return linalg_pinv(a, atol, rtol, hermitian);
}
}  // namespace linalg

std::tuple<Tensor, Tensor, Tensor> Tensor::svd(bool some, bool compute_uv) const {
  return ember::svd(*this, some, compute_uv);
}
Tensor Tensor::pinverse(double rcond) const { return ember::pinverse(*this, rcond); }

}  // namespace ember
