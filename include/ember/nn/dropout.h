#pragma once
/// Dropout of whole feature maps (libtorch's torch::feature_dropout, F::dropout2d and
/// nn::Dropout2d) and libtorch's ATen-level torch::dropout(input, p, train).

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

namespace nn {

using Dropout2dOptions = DropoutOptions;

namespace functional {
using Dropout2dFuncOptions = DropoutFuncOptions;
/// feature_dropout of (N, C, H, W), or of (C, H, W) as one batch (any other input is
/// taken as unbatched, as libtorch 1.13 does).
EMBER_API Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
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

}  // namespace nn
}  // namespace ember
