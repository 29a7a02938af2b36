#pragma once
/// data::Example (libtorch's torch::data::Example): one example's data and target, or
/// data alone with example::NoTarget.

#include <utility>

#include "ember/tensor.h"

namespace ember::data {

namespace example {
/// The target type of examples that have none.
using NoTarget = void;
}  // namespace example

template <class Data = Tensor, class Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

template <class Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}

  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
