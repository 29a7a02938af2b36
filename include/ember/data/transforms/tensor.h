#pragma once
/// Transforms of an example's data tensor: TensorTransform (override operator()),
/// TensorLambda, and Normalize (subtract a mean, divide by a standard deviation, per
/// channel).

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/array_ref.h"
#include "ember/data/example.h"
#include "ember/data/transforms/base.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::data::transforms {

template <class Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  virtual Tensor operator()(Tensor input) = 0;

  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <class Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}

  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

/// As libtorch's: the statistics are float32 tensors of shape [C, 1, 1], so an image
/// [C, H, W] (or a batch [N, C, H, W]) is normalized per channel.
template <class Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(statistic(mean, "mean")), stddev(statistic(stddev, "stddev")) {
    if (mean.size() != stddev.size() && mean.size() != 1 && stddev.size() != 1) {
      throw InvalidArgument("Normalize: mean has " + std::to_string(mean.size()) + " channels and stddev has " +
                            std::to_string(stddev.size()) + "; give one value, or one per channel for both");
    }
  }

  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  Tensor mean, stddev;

 private:
  static Tensor statistic(ArrayRef<double> values, const char* name) {
    if (values.empty()) {
      throw InvalidArgument(std::string("Normalize: ") + name + " is empty; give one value, or one per channel");
    }
    return tensor(std::vector<double>(values.begin(), values.end()), kFloat32).unsqueeze(1).unsqueeze(2);
  }
};

}  // namespace ember::data::transforms
