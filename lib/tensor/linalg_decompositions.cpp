// Determinants, inverses, Cholesky factors, solves and matrix powers of batches of square
// matrices (libtorch 1.13's det, slogdet, logdet, inverse, cholesky, matrix_power and
// torch::linalg's forms, with their errors). The factorizations run on the host in float64
// (partial-pivoting LU, Cholesky); results come back in the input's dtype and device.
// Gradients are libtorch's formulas written in ember ops, so they differentiate again.
//
// Note [Host factorizations]
// LU and Cholesky run here, on the host, rather than as registered kernels: they are
// sequential O(n^3) loops that matter for small matrices (covariances, Jacobians, test
// fixtures), where one float64 pass is exact enough and simplest. A CUDA tensor is copied
// to the host and back. cuSOLVER and LAPACK kernels behind the registry would take over
// for large batches without changing the front-ends or the gradients.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/linalg_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

void check_square(const Tensor& a, const char* op) {
  EMBER_CHECK_ARG(a.defined(), "{}: A is an undefined tensor", op);
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK_ARG(a.size(-1) == a.size(-2),
                  "{}: A must be batches of square matrices, but they are {} by {} matrices", op, a.size(-2),
                  a.size(-1));
  EMBER_CHECK_ARG(a.is_floating_point(), "{}: Expected a floating point or complex tensor as input. Got {}",
                  op, detail::torch_name(a.dtype()));
  EMBER_CHECK_ARG(a.dtype() == kFloat || a.dtype() == kDouble,
                  "{}: Low precision dtypes not supported. Got {}", op, detail::torch_name(a.dtype()));
}

// The matrices of a [..., n, n] tensor as contiguous float64 on the host.
struct HostMatrices {
  Tensor data;
  int64_t count, n;
  double* at(int64_t b) { return data.data_ptr<double>() + b * n * n; }
};
HostMatrices host_matrices(const Tensor& a) {
  HostMatrices h;
  h.n = a.size(-1);
  h.data = a.detach().cpu().to(kDouble).contiguous().clone();
  h.count = h.n == 0 ? a.numel() : a.numel() / (h.n * h.n);
  if (h.n == 0) {
    h.count = 1;
    for (int64_t d = 0; d < a.dim() - 2; ++d) h.count *= a.size(d);
  }
  return h;
}

SizesVector batch_shape(const Tensor& a) { return SizesVector(a.sizes().slice(0, size_t(a.dim() - 2))); }

// In-place LU with partial pivoting of one row-major n x n matrix (L unit lower, U upper);
// perm[i] is the original row now at row i. Returns the first zero pivot (1-based), or 0.
int64_t lu_in_place(double* a, int64_t n, std::vector<int64_t>& perm, int& parity) {
  perm.resize(size_t(n));
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = i;
  parity = 1;
  int64_t first_zero = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (a[p * n + k] == 0) {
      if (!first_zero) first_zero = k + 1;
      continue;
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(perm[size_t(k)], perm[size_t(p)]);
      parity = -parity;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const double l = a[i * n + k] / a[k * n + k];
      a[i * n + k] = l;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
    }
  }
  return first_zero;
}

// sign(det), log|det| and det of each matrix, from one LU each.
struct Determinants {
  Tensor sign, logabs, det;
};
Determinants host_determinants(const Tensor& a) {
  HostMatrices h = host_matrices(a);
  Tensor sign = empty({h.count}, kDouble), logabs = empty({h.count}, kDouble),
         det = empty({h.count}, kDouble);
  std::vector<int64_t> perm;
  for (int64_t b = 0; b < h.count; ++b) {
    int parity;
    double* m = h.at(b);
    lu_in_place(m, h.n, perm, parity);
    double s = parity, l = 0, p = parity;
    for (int64_t i = 0; i < h.n; ++i) {
      const double d = m[i * h.n + i];
      s *= d > 0 ? 1 : d < 0 ? -1 : 0;
      l += std::log(std::fabs(d));
      p *= d;
    }
    sign.data_ptr<double>()[b] = s == 0 ? -0.0 : s;  // libtorch's sign of a singular matrix
    logabs.data_ptr<double>()[b] = l;
    det.data_ptr<double>()[b] = p;
  }
  const SizesVector shape = batch_shape(a);
  const auto back = [&](const Tensor& t) { return t.reshape(shape.ref()).to(a.device(), a.dtype()); };
  return {back(sign), back(logabs), back(det)};
}

// Each matrix's inverse; a singular one raises libtorch's error, worded for `op`.
Tensor host_inverse(const Tensor& a, const char* op, const char* what) {
  HostMatrices h = host_matrices(a);
  const int64_t n = h.n;
  Tensor out = empty({h.count, n, n}, kDouble);
  std::vector<int64_t> perm;
  std::vector<double> col(static_cast<size_t>(n));
  for (int64_t b = 0; b < h.count; ++b) {
    int parity;
    double* m = h.at(b);
    const int64_t zero = lu_in_place(m, n, perm, parity);
    if (zero) {
      const std::string batch = a.dim() > 2 ? fmt::format("(Batch element {}): ", b) : "";
      EMBER_THROW(InvalidArgument,
                  "{}: {}The diagonal element {} is zero, the {} could not be completed because the "
                  "input matrix is singular.",
                  op, batch, zero, what);
    }
    double* x = out.data_ptr<double>() + b * n * n;
    for (int64_t c = 0; c < n; ++c) {  // column c of the inverse: solve L U x = P e_c
      for (int64_t i = 0; i < n; ++i) {
        double s = perm[size_t(i)] == c ? 1.0 : 0.0;
        for (int64_t k = 0; k < i; ++k) s -= m[i * n + k] * col[size_t(k)];
        col[size_t(i)] = s;
      }
      for (int64_t i = n - 1; i >= 0; --i) {
        double s = col[size_t(i)];
        for (int64_t k = i + 1; k < n; ++k) s -= m[i * n + k] * col[size_t(k)];
        col[size_t(i)] = s / m[i * n + i];
      }
      for (int64_t i = 0; i < n; ++i) x[i * n + c] = col[size_t(i)];
    }
  }
  return out.reshape(a.sizes()).to(a.device(), a.dtype());
}

// Each matrix's lower Cholesky factor, from its lower triangle.
Tensor host_cholesky(const Tensor& a, const char* op) {
  HostMatrices h = host_matrices(a);
  const int64_t n = h.n;
  Tensor out = zeros({h.count, n, n}, kDouble);
  for (int64_t b = 0; b < h.count; ++b) {
    const double* m = h.at(b);
    double* l = out.data_ptr<double>() + b * n * n;
    for (int64_t j = 0; j < n; ++j) {
      double d = m[j * n + j];
      for (int64_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
      if (!(d > 0)) {
        const std::string batch = a.dim() > 2 ? fmt::format("(Batch element {}): ", b) : "";
        EMBER_THROW(InvalidArgument,
                    "{}: {}The factorization could not be completed because the input is not "
                    "positive-definite (the leading minor of order {} is not positive-definite).",
                    op, batch, j + 1);
      }
      const double ljj = std::sqrt(d);
      l[j * n + j] = ljj;
      for (int64_t i = j + 1; i < n; ++i) {
        double s = m[i * n + j];
        for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
        l[i * n + j] = s / ljj;
      }
    }
  }
  return out.reshape(a.sizes()).to(a.device(), a.dtype());
}

bool recording(const Tensor& a) { return GradMode::is_enabled() && a.requires_grad(); }

Tensor as_matrix_scale(const Tensor& t) { return t.unsqueeze(-1).unsqueeze(-1); }

Tensor inverse_impl(const Tensor& a, const char* op, const char* what = "inversion") {
  check_square(a, op);
  Tensor y = host_inverse(a, op, what);
  if (!recording(a)) return y;
  // d(A^-1) = -A^-T g A^-T
  auto node =
      autograd::record("LinalgInvExBackward0", {&a}, {&y},
                       [](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
                         const Tensor yt = n.saved(2).mT();
                         return {-matmul(matmul(yt, g[0]), yt)};
                       });
  node->saved_[2] = autograd::SavedVariable(y, true);
  return y;
}

std::tuple<Tensor, Tensor> slogdet_impl(const Tensor& a, const char* op) {
  check_square(a, op);
  Determinants d = host_determinants(a);
  Tensor sign = d.sign, logabs = d.logabs;
  if (!recording(a)) return {sign, logabs};
  // d log|det A| = A^-T
  auto node =
      autograd::record("LinalgSlogdetBackward0", {&a}, {&logabs},
                       [op](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
                         return {as_matrix_scale(g[0]) * inverse_impl(n.saved(0), op).mT()};
                       });
  node->saved_[0] = autograd::SavedVariable(a, false);
  return {sign, logabs};
}

Tensor det_impl(const Tensor& a, const char* op) {
  check_square(a, op);
  Tensor d = host_determinants(a).det;
  if (!recording(a)) return d;
  // d det A = det A * A^-T (A invertible; libtorch goes through an SVD at singular A)
  auto node = autograd::record(
      "LinalgDetBackward0", {&a}, {&d},
      [op](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
        const Tensor out = n.saved(2);
        EMBER_CHECK_TYPED(!(out == 0).any().item<bool>(), NotImplemented,
                          "{}: the gradient at a singular matrix is not implemented in ember "
                          "(libtorch computes it through an SVD)",
                          op);
        return {as_matrix_scale(g[0] * out) * inverse_impl(n.saved(0), op).mT()};
      });
  node->saved_[0] = autograd::SavedVariable(a, false);
  node->saved_[2] = autograd::SavedVariable(d, true);
  return d;
}

Tensor cholesky_impl(const Tensor& a, bool upper, const char* op) {
  check_square(a, op);
  // upper reads A's upper triangle: the lower one of A^T.
  Tensor l = host_cholesky(upper ? a.mT() : a, op);
  if (upper) l = l.mT().contiguous();
  if (!recording(a)) return l;
  // Murray's formula: gA = sym(L^-H Phi(L^H gL) L^-1), Phi the lower triangle with its
  // diagonal halved (libtorch's cholesky_backward).
  auto node = autograd::record(
      "LinalgCholeskyExBackward0", {&a}, {&l},
      [upper](autograd::FormulaNode& n, autograd::variable_list& g) -> autograd::variable_list {
        const Tensor lower = upper ? n.saved(2).mT() : n.saved(2);
        const Tensor gl = upper ? g[0].mT() : g[0];
        const Tensor p = matmul(lower.mT(), gl);
        const Tensor phi = p.tril() - 0.5 * diag_embed(diagonal(p, 0, -2, -1));
        const Tensor inv = inverse_impl(lower, "cholesky_backward");
        const Tensor s = matmul(matmul(inv.mT(), phi), inv);
        return {0.5 * (s + s.mT())};
      });
  node->saved_[2] = autograd::SavedVariable(l, true);
  return l;
}

Tensor matrix_power_impl(const Tensor& a, int64_t k, const char* op) {
  EMBER_CHECK_ARG(a.defined(), "{}: A is an undefined tensor", op);
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: The input tensor A must have at least 2 dimensions.", op);
  EMBER_CHECK_ARG(a.size(-1) == a.size(-2),
                  "{}: A must be batches of square matrices, but they are {} by {} matrices", op, a.size(-2),
                  a.size(-1));
  if (k == 0) return eye(a.size(-1), a.options()).expand(a.sizes()).clone();
  Tensor base = k < 0 ? inverse_impl(a, op) : a;
  uint64_t e = k < 0 ? uint64_t(-(k + 1)) + 1 : uint64_t(k);
  Tensor result;
  // Square and multiply: about 2 log2(k) products.
  while (e) {
    if (e & 1) result = result.defined() ? matmul(result, base) : base.clone();  // never a itself
    e >>= 1;
    if (e) base = matmul(base, base);
  }
  return result;
}

// linalg.solve: X with A X = B (B a matrix, or a vector per matrix).
Tensor solve_impl(const Tensor& a, const Tensor& b, bool left) {
  check_square(a, "linalg.solve");
  EMBER_CHECK_ARG(b.defined(), "linalg.solve: B is an undefined tensor");
  EMBER_CHECK_ARG(
      a.dtype() == b.dtype(),
      "linalg.solve: Expected A and B to have the same dtype, but found A of type {} and B of type {} "
      "instead",
      detail::torch_name(a.dtype()), detail::torch_name(b.dtype()));
  const bool vector =
      b.dim() == 1 || (b.dim() == a.dim() - 1 && b.sizes() == a.sizes().slice(0, size_t(a.dim() - 1)));
  const int64_t rows = vector ? b.size(-1) : b.size(-2), cols = vector ? 1 : b.size(-1);
  EMBER_CHECK_ARG(left ? rows == a.size(-1) : (!vector && cols == a.size(-1)),
                  "linalg.solve: Incompatible shapes of A and B for the equation {} ({}x{} and {}x{})",
                  left ? "AX = B" : "XA = B", a.size(-2), a.size(-1), rows, cols);
  const Tensor inv = inverse_impl(a, "linalg.solve", "solve");
  if (!left) return matmul(b, inv);
  return vector ? matmul(inv, b.unsqueeze(-1)).squeeze(-1) : matmul(inv, b);
}

}  // namespace

Tensor inverse(const Tensor& a) { return inverse_impl(a, "linalg.inv"); }
Tensor det(const Tensor& a) { return det_impl(a, "linalg.det"); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& a) { return slogdet_impl(a, "linalg.slogdet"); }
Tensor logdet(const Tensor& a) {
  auto [sign, logabs] = slogdet_impl(a, "linalg.slogdet");
  return where(sign < 0, full({}, NAN, logabs.options()), logabs);
}
Tensor cholesky(const Tensor& a, bool upper) { return cholesky_impl(a, upper, "cholesky"); }
Tensor matrix_power(const Tensor& a, int64_t n) { return matrix_power_impl(a, n, "linalg.matrix_power"); }

Tensor linalg_inv(const Tensor& a) { return inverse(a); }
Tensor linalg_det(const Tensor& a) { return det(a); }
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a) { return slogdet(a); }
Tensor linalg_cholesky(const Tensor& a, bool upper) { return cholesky_impl(a, upper, "linalg.cholesky"); }
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left) { return solve_impl(a, b, left); }
Tensor linalg_matrix_power(const Tensor& a, int64_t n) { return matrix_power(a, n); }

namespace linalg {
Tensor inv(const Tensor& a) { return linalg_inv(a); }
Tensor det(const Tensor& a) { return linalg_det(a); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& a) { return linalg_slogdet(a); }
Tensor cholesky(const Tensor& a, bool upper) { return linalg_cholesky(a, upper); }
Tensor solve(const Tensor& a, const Tensor& b, bool left) { return linalg_solve(a, b, left); }
Tensor matrix_power(const Tensor& a, int64_t n) { return linalg_matrix_power(a, n); }
}  // namespace linalg

Tensor Tensor::det() const { return ember::det(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return ember::slogdet(*this); }
Tensor Tensor::logdet() const { return ember::logdet(*this); }
Tensor Tensor::inverse() const { return ember::inverse(*this); }
Tensor Tensor::cholesky(bool upper) const { return ember::cholesky(*this, upper); }
Tensor Tensor::matrix_power(int64_t n) const { return ember::matrix_power(*this, n); }

}  // namespace ember
