#pragma once
// The running-statistics bookkeeping that BatchNorm's and SyncBatchNorm's module forwards
// share (libtorch's momentum rules and num_batches_tracked).

#include <functional>

#include "ember/nn/normalization.h"

namespace ember::nn::detail {

/// Calls normalize(use_batch_stats, factor): use_batch_stats when training or not tracking
/// running statistics; factor the momentum, or with momentum unset the cumulative average
/// 1 / (batches seen + 1). Counts the batch in num_batches_tracked once it has gone through
/// (libtorch counts first, so a refused batch would shift every later average).
Tensor with_running_stats(const BatchNormOptions& options, bool training, Tensor& num_batches_tracked,
                          const std::function<Tensor(bool use_batch_stats, double factor)>& normalize);

}  // namespace ember::nn::detail
