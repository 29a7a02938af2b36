#pragma once
/// Transforms (libtorch's torch::data::transforms): a BatchTransform maps a whole batch; a
/// Transform maps one example and is applied to each example of a batch in order.

#include <utility>
#include <vector>

namespace ember::data::transforms {

template <class InputBatch, class OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

template <class Input, class Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual OutputType apply(InputType input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

}  // namespace ember::data::transforms
