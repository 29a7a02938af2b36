// nn::init: in-place fills under no-grad, with libtorch's fans, gains and bounds.
#include "ember/nn/init.h"

#include <cmath>
#include <utility>

#include "core/check.h"
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

}  // namespace ember::nn::init
