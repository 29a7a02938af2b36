// allclose and equal: whole-tensor answers, computed on the CPU in float64.
#include <cmath>

#include "core/check.h"
#include "core/dtype_dispatch.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
// Values of t as float64 on the CPU, contiguous.
Tensor as_cpu_double(const Tensor& t) { return t.to(Device(kCPU, 0), kDouble).contiguous(); }
}  // namespace

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "allclose: undefined tensor");
  SizesVector shape = detail::broadcast_shapes(a.sizes(), b.sizes(), "allclose");
  Tensor x = as_cpu_double(a.expand(shape)), y = as_cpu_double(b.expand(shape));
  const double* px = x.data_ptr<double>();
  const double* py = y.data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double u = px[i], v = py[i];
    if (std::isnan(u) || std::isnan(v)) {
      if (equal_nan && std::isnan(u) && std::isnan(v)) continue;
      return false;
    }
    if (u == v) continue;  // equal infinities
    if (!(std::abs(u - v) <= atol + rtol * std::abs(v))) return false;
  }
  return true;
}

bool equal(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "equal: undefined tensor");
  if (a.sizes() != b.sizes()) return false;
  // Compared in the promoted dtype, so int64 values beyond 2^53 stay exact.
  return eq(a, b.device() == a.device() ? b : b.to(a.device())).all().item<bool>();
}

}  // namespace ember
