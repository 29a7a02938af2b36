#pragma once
/// SyncBatchNorm: batch normalization whose training statistics span every rank of a
/// process group (PyTorch's torch.nn.SyncBatchNorm; libtorch's C++ API has none). Each rank
/// normalizes its own part of the batch with the mean and variance of the whole batch, and
/// the running statistics follow the whole batch's; in backward the per-channel sums that
/// the input gradient needs are all-reduced as well. Weight and bias gradients stay local,
/// as PyTorch's: DistributedDataParallel then averages them like any other gradient. Outside
/// training, or without an initialized process group (or with one rank), it is BatchNorm.

#include "ember/distributed.h"
#include "ember/nn/normalization.h"

namespace ember {

/// The ATen-level form: as batch_norm (training), with the statistics all-reduced over
/// `group` (nullptr: the default group). Every rank must call it with the same channels.
EMBER_API Tensor sync_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                 const Tensor& running_mean, const Tensor& running_var, bool training,
                                 double momentum, double eps, distributed::ProcessGroup* group = nullptr);

namespace nn {

/// BatchNorm over (N, C, *) inputs of any rank >= 2 whose statistics span the process group.
class EMBER_API SyncBatchNormImpl : public NormImplBase<0, SyncBatchNormImpl, BatchNormOptions> {
 public:
  static constexpr const char* kName = "SyncBatchNorm";
  /// `group`: the ranks that share statistics (nullptr: the default group when training).
  explicit SyncBatchNormImpl(const BatchNormOptions& options, distributed::ProcessGroup* group = nullptr)
      : NormImplBase(options), group_(group) {}
  explicit SyncBatchNormImpl(int64_t num_features) : SyncBatchNormImpl(BatchNormOptions(num_features)) {}
  Tensor forward(const Tensor& input);

 protected:
  void check_input_dim(const Tensor& input) const override;

 private:
  distributed::ProcessGroup* group_;
};
EMBER_MODULE(SyncBatchNorm);

}  // namespace nn
}  // namespace ember
