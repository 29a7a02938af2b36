// Window functions of libtorch's ATen (hann, hamming, blackman, bartlett, kaiser), composed of
// arange and cos in the window's dtype with libtorch 1.13's formulas, so float32 windows
// round as libtorch's do.
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/math_ops.h"
#include "ember/ops.h"

namespace ember {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The window's options (default dtype when none is given), checked as libtorch checks them;
// `length` is the symmetric window's (n + 1 when periodic).
TensorOptions window_options(const char* op, int64_t n, const TensorOptions& options) {
  const ScalarType t = options.has_dtype() ? options.dtype() : get_default_dtype();
  EMBER_CHECK_ARG(is_floating_point(t), "{} expects floating point dtypes, got: {}", op,
                  detail::torch_name(t));
  EMBER_CHECK_ARG(n >= 0, "{} requires non-negative window_length, got window_length={}", op, n);
  return TensorOptions(options).dtype(t);
}

// Windows of length 0 and 1 are [] and [1]; a periodic window is a symmetric one of n + 1
// with its last point dropped.
template <class F>
Tensor make_window(const char* op, int64_t n, bool periodic, const TensorOptions& options, F symmetric) {
  const TensorOptions o = window_options(op, n, options);
  if (n == 0) return empty({0}, o);
  if (n == 1) return ones({1}, o);
  const int64_t length = periodic ? n + 1 : n;
  const Tensor w = symmetric(arange(length, o), length);
  return periodic ? w.slice(0, 0, n) : w;
}
}  // namespace

Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta,
                      const TensorOptions& options) {
  return make_window("hamming_window", window_length, periodic, options,
                     [&](const Tensor& k, int64_t length) {
                       return cos(k * (kPi * 2. / double(length - 1))) * -beta + alpha;
                     });
}
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  window_options("hann_window", window_length, options);
  return hamming_window(window_length, periodic, 0.5, 0.5, options);
}
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("blackman_window", window_length, periodic, options,
                     [](const Tensor& k, int64_t length) {
                       const Tensor phase = k * (kPi / double(length - 1));
                       return cos(phase * 4) * 0.08 - cos(phase * 2) * 0.5 + 0.42;
                     });
}
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return make_window("bartlett_window", window_length, periodic, options,
                     [](const Tensor& k, int64_t length) {
                       const Tensor ramp = k * (2. / double(length - 1));
                       const int64_t rising = ((length - 1) >> 1) + 1;
                       return cat({ramp.slice(0, 0, rising), 2 - ramp.slice(0, rising, length)}, 0);
                     });
}
// ATen's kaiser kernel computes in the window's dtype with I0 in that precision; composed of the
// same steps, the window is within an ulp of libtorch's (its kernel fuses 1 - r^2 into an FMA).
Tensor kaiser_window(int64_t window_length, bool periodic, double beta, const TensorOptions& options) {
  return make_window("kaiser_window", window_length, periodic, options,
                     [beta](const Tensor& k, int64_t length) {
                       const double alpha = double(length - 1) / 2.0;
                       const Tensor ratio = (k - alpha) / alpha;
                       const Tensor beta_t = full({}, beta, k.options());
                       return i0(sqrt(1 - ratio * ratio) * beta_t) / i0(beta_t);
                     });
}
Tensor kaiser_window(int64_t window_length, const TensorOptions& options) {
  return kaiser_window(window_length, true, 12.0, options);
}
Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, 0.54, 0.46, options);
}
Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}
Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}

}  // namespace ember
