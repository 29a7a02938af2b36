// nn::init: in-place fills under no-grad, with libtorch's fans, gains and bounds.
#include "ember/nn/init.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/check.h"
#include "ember/check.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::init {

namespace {

void check_defined(const Tensor& t, const char* op) {
  EMBER_CHECK_ARG(t.defined(), "{}: the tensor to fill is undefined", op);
}

// (fan_in, fan_out): dims 1 and 0 times the receptive field (the product of the rest).
std::pair<double, double> fans(const Tensor& t, const char* op) {
  EMBER_CHECK_ARG(
      t.dim() >= 2,
      "{}: Fan in and fan out can not be computed for tensor with fewer than 2 dimensions (got shape of "
      "{} dims)",
      op, t.dim());
  double receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= double(t.size(d));
  return {double(t.size(1)) * receptive, double(t.size(0)) * receptive};
}

// ATen's calc_erfinv: a rational first guess refined by two Newton steps, in T's precision.
template <class T>
T calc_erfinv(T y) {
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = std::abs(y);
  if (y_abs > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = (((a[3] * z + a[2]) * z + a[1]) * z + a[0]);
    const T dem = ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1));
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T dem = (d[1] * z + d[0]) * z + T(1);
    x = std::copysign(num, y) / dem;
  }
  const T k = T(2) / T(std::sqrt(M_PI));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

template <class T>
void erfinv_inplace(const Tensor& t) {
  T* p = t.data_ptr<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = calc_erfinv(p[i]);
}

// The reduced Q of an (m, n) row-major matrix, m >= n, with each column multiplied by the sign
// of R's diagonal entry (Householder reflections; any QR gives this Q for a full-rank input).
std::vector<double> signed_q(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs(size_t(n), std::vector<double>(size_t(m), 0.0));
  std::vector<double> rdiag(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double>& v = vs[size_t(k)];
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += a[size_t(i * n + k)] * a[size_t(i * n + k)];
    norm = std::sqrt(norm);
    if (norm == 0) {
      rdiag[size_t(k)] = 0;
      continue;
    }
    const double x0 = a[size_t(k * n + k)];
    const double alpha = x0 >= 0 ? -norm : norm;
    for (int64_t i = k; i < m; ++i) v[size_t(i)] = a[size_t(i * n + k)];
    v[size_t(k)] -= alpha;
    double vn = 0;
    for (int64_t i = k; i < m; ++i) vn += v[size_t(i)] * v[size_t(i)];
    vn = std::sqrt(vn);
    for (int64_t i = k; i < m; ++i) v[size_t(i)] /= vn;
    for (int64_t j = k; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[size_t(i)] * a[size_t(i * n + j)];
      for (int64_t i = k; i < m; ++i) a[size_t(i * n + j)] -= 2 * dot * v[size_t(i)];
    }
    rdiag[size_t(k)] = a[size_t(k * n + k)];
  }
  // Q = H_0 ... H_{n-1} applied to the first n columns of the identity.
  std::vector<double> q(size_t(m * n), 0.0);
  for (int64_t j = 0; j < n; ++j) q[size_t(j * n + j)] = 1;
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double>& v = vs[size_t(k)];
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[size_t(i)] * q[size_t(i * n + j)];
      for (int64_t i = k; i < m; ++i) q[size_t(i * n + j)] -= 2 * dot * v[size_t(i)];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double d = rdiag[size_t(j)];
    const double s = d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) q[size_t(i * n + j)] *= s;
  }
  return q;
}

double fan(const Tensor& t, FanMode mode, const char* op) {
  auto [in, out] = fans(t, op);
  return mode == kFanIn ? in : out;
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case kTanh:
      return 5.0 / 3.0;
    case kReLU:
      return std::sqrt(2.0);
    case kLeakyReLU:
      return std::sqrt(2.0 / (1 + param * param));
    default:
      return 1.0;  // linear, the convolutions and sigmoid
  }
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_defined(tensor, "uniform_");
  NoGradGuard no_grad;
  tensor.uniform_(low, high);  // libtorch's draws (Note [Random generators])
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_defined(tensor, "normal_");
  EMBER_CHECK_ARG(std >= 0, "normal_: expects std >= 0.0, but found std {}", std);
  NoGradGuard no_grad;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined(tensor, "constant_");
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }
Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_defined(tensor, "xavier_uniform_");
  auto [in, out] = fans(tensor, "xavier_uniform_");
  const double a = gain * std::sqrt(2.0 / (in + out)) * std::sqrt(3.0);
  return uniform_(std::move(tensor), -a, a);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_defined(tensor, "xavier_normal_");
  auto [in, out] = fans(tensor, "xavier_normal_");
  return normal_(std::move(tensor), 0, gain * std::sqrt(2.0 / (in + out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_defined(tensor, "kaiming_uniform_");
  const double bound =
      std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode, "kaiming_uniform_"));
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_defined(tensor, "kaiming_normal_");
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode, "kaiming_normal_"));
  return normal_(std::move(tensor), 0, std);
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  check_defined(tensor, "dirac_");
  const int64_t dims = tensor.dim();
  EMBER_CHECK_ARG(dims >= 3 && dims <= 5, "Only tensors with 3, 4, or 5 dimensions are supported");
  EMBER_CHECK_ARG(groups > 0 && tensor.size(0) % groups == 0, "dim 0 must be divisible by groups");
  NoGradGuard no_grad;
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, tensor.size(1));
  tensor.zero_();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor t = tensor.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 2; k < dims; ++k) t = t.select(0, tensor.size(k) / 2);
      t.fill_(1);
    }
  }
  return tensor;
}

Tensor eye_(Tensor matrix) {
  check_defined(matrix, "eye_");
  EMBER_CHECK_ARG(matrix.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  matrix.copy_(eye(matrix.size(0), matrix.size(1), matrix.options()));
  return matrix;
}

Tensor orthogonal_(Tensor tensor, double gain) {
  check_defined(tensor, "orthogonal_");
  EMBER_CHECK_ARG(tensor.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  NoGradGuard no_grad;
  if (tensor.numel() == 0) return tensor;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.numel() / rows;
  // libtorch draws a default-dtype CPU matrix whatever the tensor's dtype and device.
  Tensor flattened = randn({rows, cols});
  const bool transposed = rows < cols;
  const int64_t m = transposed ? cols : rows;
  const int64_t n = transposed ? rows : cols;
  const Tensor src = (transposed ? flattened.t() : flattened).to(kDouble).contiguous();
  std::vector<double> a(src.data_ptr<double>(), src.data_ptr<double>() + m * n);
  std::vector<double> qv = signed_q(std::move(a), m, n);
  Tensor q = from_blob(qv.data(), {m, n}, TensorOptions().dtype(kDouble)).to(flattened.dtype());
  if (transposed) q = q.t();
  tensor.view_as(q).copy_(q);
  tensor.mul_(gain);
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  check_defined(tensor, "sparse_");
  EMBER_CHECK_ARG(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.size(1);
  const auto num_zeros = int64_t(std::ceil(sparsity * double(rows)));
  tensor.normal_(0, std);
  for (int64_t c = 0; c < cols; ++c) {
    const Tensor perm = randperm(rows, tensor.options().dtype(kLong));
    const Tensor zero_rows = perm.slice(0, 0, num_zeros);
    tensor.select(1, c).index_put_({zero_rows}, 0.0);
  }
  return tensor;
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  check_defined(tensor, "trunc_normal_");
  if (mean < a - 2 * std || mean > b + 2 * std)
    EMBER_WARN(
        "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
        "incorrect.");
  auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = norm_cdf((a - mean) / std);
  const double u = norm_cdf((b - mean) / std);
  NoGradGuard no_grad;
  tensor.uniform_(2 * l - 1, 2 * u - 1);
  // erfinv_ in the tensor's precision (ATen's CPU kernel), on a CPU copy.
  const ScalarType work = tensor.dtype() == kDouble ? kDouble : kFloat;
  Tensor cpu = tensor.to(Device(kCPU), work, false, true).contiguous();
  if (work == kDouble)
    erfinv_inplace<double>(cpu);
  else
    erfinv_inplace<float>(cpu);
  tensor.copy_(cpu);
  tensor.mul_(std * std::sqrt(2.));
  tensor.add_(mean);
  tensor.clamp_(a, b);
  return tensor;
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK_ARG(tensor.dim() >= 2,
                  "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

}  // namespace ember::nn::init
