#pragma once
/// Options of the activation layers and their functional forms (libtorch's
/// nn/options/activation.h: the same names, setters and defaults). ReLU, GELU and
/// Softmax's options are in ember/nn/options.h.

#include <cstdint>
#include <optional>

#include "ember/nn/options.h"

namespace ember::nn {

struct EMBER_API ELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(bool, inplace);
};

struct EMBER_API GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};

struct EMBER_API HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lambda);
};

struct EMBER_API HardtanhOptions {
  EMBER_ARG(double, min_val) = -1.0;
  EMBER_ARG(double, max_val) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API LeakyReLUOptions {
  EMBER_ARG(double, negative_slope) = 1e-2;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};

struct EMBER_API LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
};

struct EMBER_API PReLUOptions {
  EMBER_ARG(int64_t, num_parameters) = 1;
  EMBER_ARG(double, init) = 0.25;
};

struct EMBER_API ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(bool, inplace);
};

struct EMBER_API RReLUOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API CELUOptions {
  EMBER_ARG(double, alpha) = 1.0;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API SoftplusOptions {
  EMBER_ARG(double, beta) = 1.0;
  EMBER_ARG(double, threshold) = 20.0;
};

struct EMBER_API SoftshrinkOptions {
  SoftshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(double, lambda);
};

struct EMBER_API ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  EMBER_ARG(double, threshold);
  EMBER_ARG(double, value);
  EMBER_ARG(bool, inplace) = false;
};

namespace functional {

using ELUFuncOptions = ELUOptions;
using SELUFuncOptions = SELUOptions;
using GLUFuncOptions = GLUOptions;
using HardshrinkFuncOptions = HardshrinkOptions;
using HardtanhFuncOptions = HardtanhOptions;
using LeakyReLUFuncOptions = LeakyReLUOptions;
using ReLU6FuncOptions = ReLU6Options;
using CELUFuncOptions = CELUOptions;
using SoftplusFuncOptions = SoftplusOptions;
using SoftshrinkFuncOptions = SoftshrinkOptions;
using ThresholdFuncOptions = ThresholdOptions;

/// F::gumbel_softmax's options: temperature tau, one-hot (straight-through) samples when
/// hard, the softmax dim.
struct EMBER_API GumbelSoftmaxFuncOptions {
  EMBER_ARG(double, tau) = 1.0;
  EMBER_ARG(bool, hard) = false;
  EMBER_ARG(int, dim) = -1;
};

struct EMBER_API SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, dim);
  EMBER_ARG(std::optional<ScalarType>, dtype) = std::nullopt;
};

/// training defaults to false, as in libtorch (the module passes is_training()).
struct EMBER_API RReLUFuncOptions {
  EMBER_ARG(double, lower) = 1.0 / 8.0;
  EMBER_ARG(double, upper) = 1.0 / 3.0;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

}  // namespace functional
}  // namespace ember::nn
