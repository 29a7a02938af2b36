#pragma once
/// Normalization layers as libtorch has them: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d,
/// GroupNorm, LocalResponseNorm and CrossMapLRN2d (modules), their F:: forms plus
/// F::normalize, and the ATen-level torch::batch_norm / instance_norm / group_norm /
/// layer_norm. Each is composed of ordinary ember ops, so every device has gradients and
/// double backward.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/arg.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/options.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// Normalizes over every dim but 1 (the channels) with the batch's statistics while
/// training, updating running_mean/running_var in place when given (unbiased variance,
/// running = (1 - momentum) * running + momentum * batch); with the running statistics
/// otherwise. libtorch's argument order.
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const Tensor& running_mean, const Tensor& running_var, bool training,
                            double momentum, double eps, bool cudnn_enabled = true);
/// batch_norm of each (n, c) slice on its own; running statistics (when given) are updated
/// with the mean over the batch.
EMBER_API Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                               const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                               double momentum, double eps, bool cudnn_enabled = true);
/// Normalizes each of num_groups channel groups of each sample, then applies the
/// per-channel weight and bias.
EMBER_API Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                            const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enabled = true);
EMBER_API Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                            const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enable = true);

namespace nn {

struct EMBER_API BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  /// Unset: the running statistics are the cumulative average of all batches.
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(bool, affine) = true;
  EMBER_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct EMBER_API InstanceNormOptions {
  InstanceNormOptions(int64_t num_features)
      : num_features_(num_features) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, num_features);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(bool, affine) = false;
  EMBER_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

struct EMBER_API GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(int64_t, num_channels);
  EMBER_ARG(double, eps) = 1e-5;
  EMBER_ARG(bool, affine) = true;
};

struct EMBER_API LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(double, k) = 1.;
};

struct EMBER_API CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, size);
  EMBER_ARG(double, alpha) = 1e-4;
  EMBER_ARG(double, beta) = 0.75;
  EMBER_ARG(int64_t, k) = 1;
};

namespace functional {

struct EMBER_API BatchNormFuncOptions {
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, training) = false;
  EMBER_ARG(std::optional<double>, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct EMBER_API InstanceNormFuncOptions {
  EMBER_ARG(Tensor, running_mean) = Tensor();
  EMBER_ARG(Tensor, running_var) = Tensor();
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(bool, use_input_stats) = true;
  EMBER_ARG(double, momentum) = 0.1;
  EMBER_ARG(double, eps) = 1e-5;
};

struct EMBER_API GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(int64_t, num_groups);
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(Tensor, bias) = Tensor();
  EMBER_ARG(double, eps) = 1e-5;
};

using LocalResponseNormFuncOptions = LocalResponseNormOptions;

struct EMBER_API NormalizeFuncOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-12;
  /// Where to write the result (libtorch's div out=); it is also returned.
  EMBER_ARG(std::optional<Tensor>, out) = std::nullopt;
};

/// While training, refuses a batch with one value per channel (libtorch's check).
/// options.momentum() must be set (libtorch fails on an unset one too).
EMBER_API Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                            const BatchNormFuncOptions& options = {});
EMBER_API Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
EMBER_API Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
/// input / (k + alpha * mean of squares over `size` neighbouring channels) ^ beta.
EMBER_API Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);
/// input / max(norm_p(input, dim), eps).
EMBER_API Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});

}  // namespace functional

namespace detail {
/// Registers NormImplBase's parameters and buffers on `m` (undefined ones where not
/// affine / not tracking) and gives them their initial values.
EMBER_API void register_norm_state(Module& m, int64_t num_features, bool affine, bool track_running_stats,
                                   Tensor& weight, Tensor& bias, Tensor& running_mean, Tensor& running_var,
                                   Tensor& num_batches_tracked);
/// running_mean 0, running_var 1, num_batches_tracked 0 (each when defined).
EMBER_API void reset_norm_running_stats(Tensor& running_mean, Tensor& running_var,
                                        Tensor& num_batches_tracked);
/// weight 1, bias 0 (each when defined).
EMBER_API void reset_norm_affine(Tensor& weight, Tensor& bias);
EMBER_API Tensor batch_norm_module_forward(const Tensor& input, const BatchNormOptions& options,
                                           bool training, const Tensor& weight, const Tensor& bias,
                                           const Tensor& running_mean, const Tensor& running_var,
                                           Tensor& num_batches_tracked);
EMBER_API Tensor instance_norm_module_forward(const Tensor& input, const InstanceNormOptions& options,
                                              bool training, size_t spatial_dims, const Tensor& weight,
                                              const Tensor& bias, const Tensor& running_mean,
                                              const Tensor& running_var);
/// "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)"
EMBER_API void print_norm(std::ostream& stream, const char* name, int64_t num_features, double eps,
                          std::optional<double> momentum, bool affine, bool track_running_stats);
/// "expected 2D or 3D input (got 4D input)" unless input.dim() is one of `ranks`.
EMBER_API void check_norm_input_rank(const Tensor& input, std::initializer_list<int64_t> ranks);
}  // namespace detail

/// The parameters and buffers BatchNorm and InstanceNorm share (libtorch's NormImplBase):
/// weight/bias when affine, running_mean/running_var/num_batches_tracked when tracking.
template <size_t D, class Derived, class DerivedOptions>
class NormImplBase : public Cloneable<Derived> {
 public:
  explicit NormImplBase(const DerivedOptions& options_) : options(options_) { reset_state(); }

  void reset() override { reset_state(); }
  /// "BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)".
  void pretty_print(std::ostream& stream) const override {
    detail::print_norm(stream, Derived::kName, options.num_features(), options.eps(), options.momentum(),
                       options.affine(), options.track_running_stats());
  }
  void reset_running_stats() {
    detail::reset_norm_running_stats(running_mean, running_var, num_batches_tracked);
  }
  void reset_parameters() {
    reset_running_stats();
    detail::reset_norm_affine(weight, bias);
  }

  DerivedOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;

 protected:
  /// Refuses inputs of the wrong rank with libtorch's message.
  virtual void check_input_dim(const Tensor& input) const = 0;

 private:
  // Non-virtual, so that the constructor can call it.
  void reset_state() {
    detail::register_norm_state(*this, options.num_features(), options.affine(),
                                options.track_running_stats(), weight, bias, running_mean, running_var,
                                num_batches_tracked);
  }
};

/// Batch normalization; train() uses and updates the batch statistics, eval() uses the
/// running ones (or the batch's when not tracking them).
template <size_t D, class Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input) {
    this->check_input_dim(input);
    return detail::batch_norm_module_forward(input, this->options, this->is_training(), this->weight,
                                             this->bias, this->running_mean, this->running_var,
                                             this->num_batches_tracked);
  }
};

class EMBER_API BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  static constexpr const char* kName = "BatchNorm1d";
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override { detail::check_norm_input_rank(input, {2, 3}); }
};
EMBER_MODULE(BatchNorm1d);

class EMBER_API BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 public:
  static constexpr const char* kName = "BatchNorm2d";
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override { detail::check_norm_input_rank(input, {4}); }
};
EMBER_MODULE(BatchNorm2d);

class EMBER_API BatchNorm3dImpl : public BatchNormImplBase<3, BatchNorm3dImpl> {
 public:
  static constexpr const char* kName = "BatchNorm3d";
  using BatchNormImplBase<3, BatchNorm3dImpl>::BatchNormImplBase;

 protected:
  void check_input_dim(const Tensor& input) const override { detail::check_norm_input_rank(input, {5}); }
};
EMBER_MODULE(BatchNorm3d);

/// Instance normalization: each sample's channels normalized on their own; an input without
/// the batch dim is one sample.
template <size_t D, class Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  using NormImplBase<D, Derived, InstanceNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input) {
    this->check_input_dim(input);
    return detail::instance_norm_module_forward(input, this->options, this->is_training(), D, this->weight,
                                                this->bias, this->running_mean, this->running_var);
  }

 protected:
  void check_input_dim(const Tensor& input) const override {
    detail::check_norm_input_rank(input, {int64_t(D) + 1, int64_t(D) + 2});
  }
};

class EMBER_API InstanceNorm1dImpl : public InstanceNormImpl<1, InstanceNorm1dImpl> {
 public:
  static constexpr const char* kName = "InstanceNorm1d";
  using InstanceNormImpl<1, InstanceNorm1dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm1d);

class EMBER_API InstanceNorm2dImpl : public InstanceNormImpl<2, InstanceNorm2dImpl> {
 public:
  static constexpr const char* kName = "InstanceNorm2d";
  using InstanceNormImpl<2, InstanceNorm2dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm2d);

class EMBER_API InstanceNorm3dImpl : public InstanceNormImpl<3, InstanceNorm3dImpl> {
 public:
  static constexpr const char* kName = "InstanceNorm3d";
  using InstanceNormImpl<3, InstanceNorm3dImpl>::InstanceNormImpl;
};
EMBER_MODULE(InstanceNorm3d);

/// Normalizes groups of channels of each sample; weight and bias per channel when affine.
class EMBER_API GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};
EMBER_MODULE(GroupNorm);

/// F::local_response_norm as a module (no parameters).
class EMBER_API LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}  // NOLINT
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  LocalResponseNormOptions options;
};
EMBER_MODULE(LocalResponseNorm);

/// Lua Torch's cross-channel LRN on (N, C, H, W): x * (k + alpha / size * sum of squares
/// over the channels within (size - 1) / 2 either side) ^ -beta.
class EMBER_API CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}  // NOLINT
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  CrossMapLRN2dOptions options;
};
EMBER_MODULE(CrossMapLRN2d);

}  // namespace nn
}  // namespace ember
