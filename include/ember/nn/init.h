#pragma once
/// nn::init (libtorch's torch::nn::init): fills a tensor in place under no-grad and returns
/// it; the bounds and standard deviations are libtorch's.

#include <tuple>

#include "ember/tensor.h"

namespace ember {

/// The nonlinearity calculate_gain and the kaiming initialisers take (torch::kReLU ...).
enum class Nonlinearity {
  Linear,
  Conv1D,
  Conv2D,
  Conv3D,
  ConvTranspose1D,
  ConvTranspose2D,
  ConvTranspose3D,
  Sigmoid,
  Tanh,
  ReLU,
  LeakyReLU
};
constexpr Nonlinearity kLinear = Nonlinearity::Linear;
constexpr Nonlinearity kConv1D = Nonlinearity::Conv1D;
constexpr Nonlinearity kConv2D = Nonlinearity::Conv2D;
constexpr Nonlinearity kConv3D = Nonlinearity::Conv3D;
constexpr Nonlinearity kConvTranspose1D = Nonlinearity::ConvTranspose1D;
constexpr Nonlinearity kConvTranspose2D = Nonlinearity::ConvTranspose2D;
constexpr Nonlinearity kConvTranspose3D = Nonlinearity::ConvTranspose3D;
constexpr Nonlinearity kSigmoid = Nonlinearity::Sigmoid;
constexpr Nonlinearity kTanh = Nonlinearity::Tanh;
constexpr Nonlinearity kReLU = Nonlinearity::ReLU;
constexpr Nonlinearity kLeakyReLU = Nonlinearity::LeakyReLU;

/// Which fan the kaiming initialisers keep the variance of.
enum class FanMode { FanIn, FanOut };
constexpr FanMode kFanIn = FanMode::FanIn;
constexpr FanMode kFanOut = FanMode::FanOut;

namespace nn::init {

/// 1 for linear, convolutions and sigmoid; 5/3 for tanh; sqrt(2) for relu;
/// sqrt(2 / (1 + param^2)) for leaky_relu (param: the negative slope).
EMBER_API double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);

EMBER_API Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
EMBER_API Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
EMBER_API Tensor constant_(Tensor tensor, Scalar value);
EMBER_API Tensor zeros_(Tensor tensor);
EMBER_API Tensor ones_(Tensor tensor);
/// U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)).
EMBER_API Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
/// N(0, std), std = gain * sqrt(2 / (fan_in + fan_out)).
EMBER_API Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
/// U(-b, b), b = sqrt(3) * calculate_gain(nonlinearity, a) / sqrt(fan).
EMBER_API Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                                  Nonlinearity nonlinearity = kLeakyReLU);
/// N(0, std), std = calculate_gain(nonlinearity, a) / sqrt(fan).
EMBER_API Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = kFanIn,
                                 Nonlinearity nonlinearity = kLeakyReLU);
/// Zeros with ones at the centre of each kernel where output channel == input channel (per group:
/// groups is torch.nn.init.dirac_'s, Python); 3-, 4- or 5-dim tensors.
EMBER_API Tensor dirac_(Tensor tensor, int64_t groups = 1);
/// The identity matrix (of a 2-dim tensor).
EMBER_API Tensor eye_(Tensor matrix);
/// libtorch's: a float (rows, numel / rows) randn draw (transposed while rows < cols), its QR
/// factorisation's Q with columns signed by diag(R), times gain.
EMBER_API Tensor orthogonal_(Tensor tensor, double gain = 1.0);
/// N(0, std), then in each column ceil(sparsity * rows) entries (the first of a randperm) zeroed.
EMBER_API Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);
/// Not in libtorch 1.13's C++: torch.nn.init.trunc_normal_'s (Python) draws: uniform_ over
/// [2 cdf(a') - 1, 2 cdf(b') - 1], erfinv_, times std sqrt(2), plus mean, clamped to [a, b].
EMBER_API Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);
/// (fan_in, fan_out): dims 1 and 0 times the product of the rest.
EMBER_API std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

}  // namespace nn::init
}  // namespace ember
