#pragma once
/// Dropout of whole feature maps (libtorch's torch::feature_dropout, F::dropout2d / dropout3d,
/// nn::Dropout2d / Dropout3d), alpha dropout (torch::alpha_dropout, torch::feature_alpha_dropout,
/// their F:: forms and modules) and libtorch's ATen-level torch::dropout(input, p, train).

#include <ostream>

#include "ember/nn/cloneable.h"
#include "ember/nn/options.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// While train: each element zeroed with probability p, the rest scaled by 1 / (1 - p).
EMBER_API Tensor dropout(const Tensor& input, double p, bool train);
/// While train: each (n, c) slice of an (N, C, *) input zeroed with probability p (one draw
/// per slice, from the default generator as libtorch draws it), the rest scaled by 1 / (1 - p).
EMBER_API Tensor feature_dropout(const Tensor& input, double p, bool train);
/// The in-place forms: input multiplied by the same mask, and returned.
EMBER_API Tensor& dropout_(Tensor& input, double p, bool train);
EMBER_API Tensor& feature_dropout_(Tensor& input, double p, bool train);
/// While train: each element kept with probability 1 - p as a x + b, dropped ones set to b - a alpha'
/// (alpha' = 1.7580993408473766, a = 1 / sqrt((alpha'^2 p + 1) (1 - p)), b = a alpha' p), so that
/// zero mean and unit variance are kept (SELU's self-normalisation).
EMBER_API Tensor alpha_dropout(const Tensor& input, double p, bool train);
/// alpha_dropout with one draw per (n, c) slice of an (N, C, *) input.
EMBER_API Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
EMBER_API Tensor& alpha_dropout_(Tensor& input, double p, bool train);
EMBER_API Tensor& feature_alpha_dropout_(Tensor& input, double p, bool train);

namespace nn {

using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

/// libtorch's: unlike DropoutFuncOptions, training defaults to false.
struct EMBER_API AlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

struct EMBER_API FeatureAlphaDropoutFuncOptions {
  EMBER_ARG(double, p) = 0.5;
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(bool, inplace) = false;
};

/// feature_dropout of (N, C, H, W), or of (C, H, W) as one batch (any other input is
/// taken as unbatched, as libtorch 1.13 does).
EMBER_API Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
/// feature_dropout of (N, C, D, H, W); any other input is one unbatched sample.
EMBER_API Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
EMBER_API Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
EMBER_API Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});
}  // namespace functional

/// Zeroes whole channels with probability p while training; the identity in eval().
class EMBER_API Dropout2dImpl : public Cloneable<Dropout2dImpl> {
 public:
  explicit Dropout2dImpl(const Dropout2dOptions& options = {});
  explicit Dropout2dImpl(double p) : Dropout2dImpl(Dropout2dOptions(p)) {}
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  Dropout2dOptions options;
};
EMBER_MODULE(Dropout2d);

/// Zeroes whole (D, H, W) feature maps with probability p while training; the identity in eval().
class EMBER_API Dropout3dImpl : public Cloneable<Dropout3dImpl> {
 public:
  explicit Dropout3dImpl(const Dropout3dOptions& options = {});
  explicit Dropout3dImpl(double p) : Dropout3dImpl(Dropout3dOptions(p)) {}
  void reset() override {}
  Tensor forward(Tensor input);
  void pretty_print(std::ostream& stream) const override;

  Dropout3dOptions options;
};
EMBER_MODULE(Dropout3d);

/// alpha_dropout while training (never in place, as libtorch's module); the identity in eval().
class EMBER_API AlphaDropoutImpl : public Cloneable<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options = {});
  explicit AlphaDropoutImpl(double p) : AlphaDropoutImpl(AlphaDropoutOptions(p)) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  AlphaDropoutOptions options;
};
EMBER_MODULE(AlphaDropout);

/// feature_alpha_dropout while training (never in place); the identity in eval().
class EMBER_API FeatureAlphaDropoutImpl : public Cloneable<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options = {});
  explicit FeatureAlphaDropoutImpl(double p) : FeatureAlphaDropoutImpl(FeatureAlphaDropoutOptions(p)) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FeatureAlphaDropoutOptions options;
};
EMBER_MODULE(FeatureAlphaDropout);

}  // namespace nn
}  // namespace ember
