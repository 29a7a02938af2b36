// Host float64 factorizations for torch::linalg (host_linalg.h): Jacobi SVD and symmetric
// eigendecomposition, Householder QR, triangular solves and orthonormal completion.
#include "tensor/host_linalg.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember::detail {

namespace {

// The batch of a [..., r, c] tensor as contiguous float64 on the host.
Tensor host_copy(const Tensor& a) { return a.detach().cpu().to(kDouble).contiguous().clone(); }

int64_t batch_count(const Tensor& a) {
  int64_t count = 1;
  for (int64_t d = 0; d < a.dim() - 2; ++d) count *= a.size(d);
  return count;
}

std::vector<int64_t> with_matrix(const Tensor& a, int64_t rows, int64_t cols) {
  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end() - 2);
  shape.push_back(rows);
  if (cols >= 0) shape.push_back(cols);
  return shape;
}

}  // namespace

HostSvd host_svd(const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1);
  const bool wide = n > m;  // rotate the columns of the taller orientation
  const Tensor tall = (wide ? a.mT() : a).detach().cpu().to(kDouble).contiguous();
  const int64_t rows = wide ? n : m, cols = wide ? m : n;
  const int64_t count = rows * cols == 0 ? 0 : tall.numel() / (rows * cols);
  SizesVector batch(a.sizes().slice(0, size_t(a.dim() - 2)));
  std::vector<int64_t> u_shape(batch.begin(), batch.end()), s_shape = u_shape, v_shape = u_shape;
  u_shape.insert(u_shape.end(), {rows, cols});
  s_shape.push_back(cols);
  v_shape.insert(v_shape.end(), {cols, cols});
  Tensor u = zeros(u_shape, kDouble), s = zeros(s_shape, kDouble), v = zeros(v_shape, kDouble);
  std::vector<double> b(static_cast<size_t>(rows * cols)), w(static_cast<size_t>(cols * cols));
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t t = 0; t < count; ++t) {
    // b column-major (column j at b[j * rows]) so that rotations touch contiguous columns.
    const double* src = tall.data_ptr<double>() + t * rows * cols;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) b[size_t(j * rows + i)] = src[i * cols + j];
    std::fill(w.begin(), w.end(), 0.0);
    for (int64_t j = 0; j < cols; ++j) w[size_t(j * cols + j)] = 1;
    for (int sweep = 0; sweep < 60; ++sweep) {
      bool rotated = false;
      for (int64_t p = 0; p < cols; ++p) {
        for (int64_t q = p + 1; q < cols; ++q) {
          double* bp = &b[size_t(p * rows)];
          double* bq = &b[size_t(q * rows)];
          double alpha = 0, beta = 0, gamma = 0;
          for (int64_t i = 0; i < rows; ++i) {
            alpha += bp[i] * bp[i];
            beta += bq[i] * bq[i];
            gamma += bp[i] * bq[i];
          }
          if (std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta) || gamma == 0) continue;
          rotated = true;
          const double zeta = (beta - alpha) / (2 * gamma);
          const double tan = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
          const double c = 1 / std::sqrt(1 + tan * tan), sn = c * tan;
          for (int64_t i = 0; i < rows; ++i) {
            const double x = bp[i], y = bq[i];
            bp[i] = c * x - sn * y;
            bq[i] = sn * x + c * y;
          }
          double* wp = &w[size_t(p * cols)];
          double* wq = &w[size_t(q * cols)];
          for (int64_t i = 0; i < cols; ++i) {
            const double x = wp[i], y = wq[i];
            wp[i] = c * x - sn * y;
            wq[i] = sn * x + c * y;
          }
        }
      }
      if (!rotated) break;
    }
    std::vector<double> norms(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t i = 0; i < rows; ++i) acc += b[size_t(j * rows + i)] * b[size_t(j * rows + i)];
      norms[size_t(j)] = std::sqrt(acc);
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return norms[size_t(x)] > norms[size_t(y)]; });
    double* ud = u.data_ptr<double>() + t * rows * cols;
    double* sd = s.data_ptr<double>() + t * cols;
    double* vd = v.data_ptr<double>() + t * cols * cols;
    for (int64_t k = 0; k < cols; ++k) {
      const int64_t j = order[size_t(k)];
      const double sigma = norms[size_t(j)];
      sd[k] = sigma;
      for (int64_t i = 0; i < rows; ++i) ud[i * cols + k] = sigma > 0 ? b[size_t(j * rows + i)] / sigma : 0.0;
      for (int64_t i = 0; i < cols; ++i) vd[i * cols + k] = w[size_t(j * cols + i)];
    }
  }
  const auto back = [&](const Tensor& x) { return x.to(a.device(), a.dtype()); };
  // For a wide matrix A^T = U S V^T, so A = V S U^T: the roles swap.
  return wide ? HostSvd{back(v), back(s), back(u)} : HostSvd{back(u), back(s), back(v)};
}

std::pair<Tensor, Tensor> host_eigh(const Tensor& a, bool upper) {
  const int64_t n = a.size(-1), count = batch_count(a);
  const Tensor h = host_copy(a);
  Tensor values = empty(with_matrix(a, n, -1), kDouble), vectors = empty(a.sizes(), kDouble);
  std::vector<double> m(static_cast<size_t>(n * n)), v(static_cast<size_t>(n * n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t t = 0; t < count; ++t) {
    const double* src = h.data_ptr<double>() + t * n * n;
    for (int64_t i = 0; i < n; ++i)  // the symmetric matrix of the chosen triangle
      for (int64_t j = 0; j < n; ++j) {
        const bool lower_entry = i >= j;
        m[size_t(i * n + j)] = lower_entry != upper || i == j ? src[i * n + j] : src[j * n + i];
      }
    std::fill(v.begin(), v.end(), 0.0);
    for (int64_t i = 0; i < n; ++i) v[size_t(i * n + i)] = 1;
    for (int sweep = 0; sweep < 100; ++sweep) {
      bool rotated = false;
      for (int64_t p = 0; p < n; ++p)
        for (int64_t q = p + 1; q < n; ++q) {
          const double apq = m[size_t(p * n + q)], app = m[size_t(p * n + p)], aqq = m[size_t(q * n + q)];
          if (apq == 0 || std::fabs(apq) <= 1e-17 * std::sqrt(std::fabs(app * aqq))) continue;
          rotated = true;
          // t = tan of the angle that zeroes A'[p][q] (the smaller root, for stability).
          const double theta = (aqq - app) / (2 * apq);
          const double tan = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
          const double c = 1 / std::sqrt(tan * tan + 1), s = tan * c;
          for (int64_t k = 0; k < n; ++k) {  // A J
            const double x = m[size_t(k * n + p)], y = m[size_t(k * n + q)];
            m[size_t(k * n + p)] = c * x - s * y;
            m[size_t(k * n + q)] = s * x + c * y;
          }
          for (int64_t k = 0; k < n; ++k) {  // J^T (A J)
            const double x = m[size_t(p * n + k)], y = m[size_t(q * n + k)];
            m[size_t(p * n + k)] = c * x - s * y;
            m[size_t(q * n + k)] = s * x + c * y;
          }
          for (int64_t k = 0; k < n; ++k) {  // V J
            const double x = v[size_t(k * n + p)], y = v[size_t(k * n + q)];
            v[size_t(k * n + p)] = c * x - s * y;
            v[size_t(k * n + q)] = s * x + c * y;
          }
        }
      if (!rotated) break;
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return m[size_t(x * n + x)] < m[size_t(y * n + y)]; });
    double* w = values.data_ptr<double>() + t * n;
    double* vec = vectors.data_ptr<double>() + t * n * n;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t j = order[size_t(k)];
      w[k] = m[size_t(j * n + j)];
      for (int64_t i = 0; i < n; ++i) vec[i * n + k] = v[size_t(i * n + j)];
    }
  }
  return {values.to(a.device(), a.dtype()), vectors.to(a.device(), a.dtype())};
}

std::pair<Tensor, Tensor> host_qr(const Tensor& a, bool complete) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n), count = batch_count(a);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  const Tensor h = host_copy(a);
  Tensor q_out = empty(with_matrix(a, m, q_cols), kDouble), r_out = empty(with_matrix(a, r_rows, n), kDouble);
  std::vector<double> r(static_cast<size_t>(m * n)), vs(static_cast<size_t>(m * k)),
      taus(static_cast<size_t>(k));
  std::vector<double> q(static_cast<size_t>(m * q_cols));
  for (int64_t t = 0; t < count; ++t) {
    std::copy_n(h.data_ptr<double>() + t * m * n, m * n, r.begin());
    for (int64_t j = 0; j < k; ++j) {
      // dlarfg: H = I - tau v v^T with v[j] = 1 maps column j below the diagonal to beta e_j.
      const double alpha = r[size_t(j * n + j)];
      double xnorm = 0;
      for (int64_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, r[size_t(i * n + j)]);
      double* v = &vs[size_t(j * m)];
      std::fill(v, v + m, 0.0);
      v[j] = 1;
      if (xnorm == 0) {
        taus[size_t(j)] = 0;
        continue;
      }
      const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
      const double tau = (beta - alpha) / beta, scale = 1 / (alpha - beta);
      for (int64_t i = j + 1; i < m; ++i) v[i] = r[size_t(i * n + j)] * scale;
      taus[size_t(j)] = tau;
      for (int64_t c = j + 1; c < n; ++c) {
        double w = 0;
        for (int64_t i = j; i < m; ++i) w += v[i] * r[size_t(i * n + c)];
        for (int64_t i = j; i < m; ++i) r[size_t(i * n + c)] -= tau * v[i] * w;
      }
      r[size_t(j * n + j)] = beta;
      for (int64_t i = j + 1; i < m; ++i) r[size_t(i * n + j)] = 0;
    }
    // orgqr: Q = H_0 H_1 ... H_{k-1} applied to the first q_cols columns of I.
    std::fill(q.begin(), q.end(), 0.0);
    for (int64_t i = 0; i < std::min(m, q_cols); ++i) q[size_t(i * q_cols + i)] = 1;
    for (int64_t j = k - 1; j >= 0; --j) {
      const double tau = taus[size_t(j)];
      if (tau == 0) continue;
      const double* v = &vs[size_t(j * m)];
      for (int64_t c = 0; c < q_cols; ++c) {
        double w = 0;
        for (int64_t i = j; i < m; ++i) w += v[i] * q[size_t(i * q_cols + c)];
        for (int64_t i = j; i < m; ++i) q[size_t(i * q_cols + c)] -= tau * v[i] * w;
      }
    }
    std::copy(q.begin(), q.end(), q_out.data_ptr<double>() + t * m * q_cols);
    double* ro = r_out.data_ptr<double>() + t * r_rows * n;
    for (int64_t i = 0; i < r_rows; ++i)
      for (int64_t c = 0; c < n; ++c) ro[i * n + c] = i < m && c >= i ? r[size_t(i * n + c)] : 0.0;
  }
  return {q_out.to(a.device(), a.dtype()), r_out.to(a.device(), a.dtype())};
}

Tensor host_triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool unitriangular) {
  const int64_t n = a.size(-1), k = b.size(-1), count = batch_count(a);
  const Tensor ha = host_copy(a);
  Tensor x = host_copy(b);
  for (int64_t t = 0; t < count; ++t) {
    const double* m = ha.data_ptr<double>() + t * n * n;
    double* xs = x.data_ptr<double>() + t * n * k;
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = upper ? n - 1 - step : step;
        double s = xs[i * k + c];
        if (upper)
          for (int64_t j = i + 1; j < n; ++j) s -= m[i * n + j] * xs[j * k + c];
        else
          for (int64_t j = 0; j < i; ++j) s -= m[i * n + j] * xs[j * k + c];
        xs[i * k + c] = unitriangular ? s : s / m[i * n + i];
      }
    }
  }
  return x.to(b.device(), b.dtype());
}

HostLu host_lu_factor(const Tensor& a) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n), count = batch_count(a);
  Tensor lu = host_copy(a);
  Tensor pivots = empty(with_matrix(a, k, -1), kInt);
  HostLu out;
  out.zero_pivot.assign(static_cast<size_t>(count), 0);
  for (int64_t t = 0; t < count; ++t) {
    double* x = lu.data_ptr<double>() + t * m * n;
    int32_t* piv = pivots.data_ptr<int32_t>() + t * k;
    for (int64_t j = 0; j < k; ++j) {
      int64_t p = j;  // the first row of largest magnitude (idamax)
      for (int64_t i = j + 1; i < m; ++i)
        if (std::fabs(x[i * n + j]) > std::fabs(x[p * n + j])) p = i;
      piv[j] = int32_t(p + 1);
      if (p != j)
        for (int64_t c = 0; c < n; ++c) std::swap(x[j * n + c], x[p * n + c]);
      const double d = x[j * n + j];
      if (d == 0) {
        if (!out.zero_pivot[size_t(t)]) out.zero_pivot[size_t(t)] = j + 1;
        continue;
      }
      for (int64_t i = j + 1; i < m; ++i) {
        const double f = x[i * n + j] /= d;
        for (int64_t c = j + 1; c < n; ++c) x[i * n + c] -= f * x[j * n + c];
      }
    }
  }
  out.lu = lu.to(a.device(), a.dtype());
  out.pivots = pivots.to(a.device());
  return out;
}

Tensor host_complete_orthonormal(const Tensor& q, int64_t cols) {
  const int64_t m = q.size(-2), k = q.size(-1), count = batch_count(q);
  const Tensor h = host_copy(q);
  Tensor out = zeros(with_matrix(q, m, cols), kDouble);
  std::vector<double> col(static_cast<size_t>(m));
  for (int64_t t = 0; t < count; ++t) {
    const double* src = h.data_ptr<double>() + t * m * k;
    double* dst = out.data_ptr<double>() + t * m * cols;
    const auto norm_of = [&](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x * x;
      return std::sqrt(s);
    };
    // q's orthonormal columns first, so that the new ones are orthogonal to all of them.
    std::vector<char> kept(static_cast<size_t>(cols), 0);
    for (int64_t c = 0; c < std::min(k, cols); ++c) {
      for (int64_t i = 0; i < m; ++i) col[size_t(i)] = src[i * k + c];
      if (norm_of(col) < 0.5) continue;
      kept[size_t(c)] = 1;
      for (int64_t i = 0; i < m; ++i) dst[i * cols + c] = col[size_t(i)];
    }
    int64_t next_unit = 0;
    for (int64_t c = 0; c < cols; ++c) {
      if (kept[size_t(c)]) continue;
      // The next unit vector with a part orthogonal to the columns so far (twice, for
      // accuracy); columns not yet filled are zero and take no part.
      for (; next_unit < m; ++next_unit) {
        std::fill(col.begin(), col.end(), 0.0);
        col[size_t(next_unit)] = 1;
        for (int pass = 0; pass < 2; ++pass)
          for (int64_t o = 0; o < cols; ++o) {
            double dot = 0;
            for (int64_t i = 0; i < m; ++i) dot += dst[i * cols + o] * col[size_t(i)];
            for (int64_t i = 0; i < m; ++i) col[size_t(i)] -= dot * dst[i * cols + o];
          }
        if (norm_of(col) > 1e-3) break;
      }
      const double norm = norm_of(col);
      for (int64_t i = 0; i < m; ++i) dst[i * cols + c] = col[size_t(i)] / norm;
      ++next_unit;
    }
  }
  return out.to(q.device(), q.dtype());
}

}  // namespace ember::detail
