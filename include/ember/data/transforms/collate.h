#pragma once
/// Collation: a batch transform that turns a vector of examples into one batch; Collate
/// makes one from a function.

#include <vector>

#include "ember/data/transforms/base.h"
#include "ember/data/transforms/lambda.h"

namespace ember::data::transforms {

template <class BatchType, class T = std::vector<BatchType>>
using Collation = BatchTransform<T, BatchType>;

template <class T, class BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace ember::data::transforms
