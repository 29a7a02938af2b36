#pragma once
/// Lookup tables (libtorch's torch::embedding, torch::embedding_renorm_, torch::embedding_bag,
/// F::embedding, F::embedding_bag and the Embedding and EmbeddingBag modules) with libtorch's
/// options, initialisation, printing and error texts. Built from index_select / index_add so
/// autograd differentiates them (twice as well). ember has no sparse tensors: sparse(true)
/// throws NotImplemented.

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "ember/arg.h"
#include "ember/nn/any_module.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/options.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember {

namespace nn {
/// EmbeddingBag's reduction: kSum, kMean (ember's Reduction constants) or kMax.
class EMBER_API EmbeddingBagMode {
 public:
  enum class Kind { Sum = 0, Mean = 1, Max = 2, Invalid = 3 };
  constexpr EmbeddingBagMode(Reduction r)  // NOLINT: implicit, as libtorch's variant
      : kind_(r == Reduction::Sum    ? Kind::Sum
              : r == Reduction::Mean ? Kind::Mean
                                     : Kind::Invalid) {}
  constexpr explicit EmbeddingBagMode(Kind k) : kind_(k) {}
  constexpr Kind kind() const { return kind_; }
  /// libtorch's enum name: "kSum", "kMean" or "kMax".
  const char* name() const;
  friend constexpr bool operator==(EmbeddingBagMode a, EmbeddingBagMode b) { return a.kind_ == b.kind_; }
  friend constexpr bool operator!=(EmbeddingBagMode a, EmbeddingBagMode b) { return a.kind_ != b.kind_; }

 private:
  Kind kind_;
};
}  // namespace nn

/// EmbeddingBag's max mode (torch::kMax).
constexpr nn::EmbeddingBagMode kMax{nn::EmbeddingBagMode::Kind::Max};

/// Rows of weight (num_embeddings, embedding_dim) picked by the int64 / int32 indices (any
/// shape). The padding_idx row (when >= 0) gets no gradient; scale_grad_by_freq divides each
/// row's gradient by how often the indices name it.
EMBER_API Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                           bool scale_grad_by_freq = false, bool sparse = false);
/// Rescales, in place, each row of self named by indices whose norm_type-norm exceeds
/// max_norm to norm max_norm / (norm + 1e-7) * norm (libtorch's formula). Not recorded.
EMBER_API Tensor& embedding_renorm_(Tensor& self, const Tensor& indices, double max_norm, double norm_type);
/// (output, offset2bag, bag_size, max_indices) as libtorch's CPU kernel: indices 1-D, offsets
/// 1-D bag starts; mode 0 sum, 1 mean, 2 max. offset2bag is each index's bag; bag_size counts
/// the non-padding indices of each bag (zeros in sum mode); max_indices is the row each max
/// came from (num_bags, embedding_dim) in max mode, else bag_size's values.
EMBER_API std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq = false,
    int64_t mode = 0, bool sparse = false, const std::optional<Tensor>& per_sample_weights = std::nullopt,
    bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt);

namespace nn {

struct EMBER_API EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  /// A row that gets no gradient (zeroed at initialisation); negative counts from the end.
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  /// Rows looked up whose norm exceeds max_norm are rescaled in place first.
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
  /// Rows to start from (num_embeddings x embedding_dim) instead of normal_(0, 1).
  EMBER_ARG(Tensor, _weight) = Tensor();
};

struct EMBER_API EmbeddingFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

struct EMBER_API EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EMBER_ARG(int64_t, num_embeddings);
  EMBER_ARG(int64_t, embedding_dim);
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(Tensor, _weight) = Tensor();
  /// offsets has num_bags + 1 entries, the last one the end of the last bag.
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

struct EMBER_API EmbeddingBagFromPretrainedOptions {
  EMBER_ARG(bool, freeze) = true;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EMBER_API EmbeddingFuncOptions {
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(bool, sparse) = false;
};

struct EMBER_API EmbeddingBagFuncOptions {
  /// Bag starts of a 1-D input; none for a 2-D input (one bag per row).
  EMBER_ARG(Tensor, offsets) = Tensor();
  EMBER_ARG(std::optional<double>, max_norm) = std::nullopt;
  EMBER_ARG(double, norm_type) = 2.;
  EMBER_ARG(bool, scale_grad_by_freq) = false;
  EMBER_ARG(EmbeddingBagMode, mode) = kMean;
  EMBER_ARG(bool, sparse) = false;
  /// Weights of input's shape multiplying each row (kSum only).
  EMBER_ARG(Tensor, per_sample_weights) = Tensor();
  EMBER_ARG(bool, include_last_offset) = false;
  EMBER_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// Rows of weight picked by the integer input (libtorch's F::embedding: max_norm renormalises
/// the rows looked up in place first, under no-grad).
EMBER_API Tensor embedding(const Tensor& input, const Tensor& weight,
                           const EmbeddingFuncOptions& options = {});
/// Sums, means or maxima of bags of rows of weight: a 2-D input is one bag per row, a 1-D
/// input is split at offsets. Padding indices are left out of their bag; an empty bag is zeros.
EMBER_API Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                               const EmbeddingBagFuncOptions& options = {});
}  // namespace functional

/// A lookup table: weight (num_embeddings, embedding_dim) ~ N(0, 1), padding row zeroed.
class EMBER_API EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& indices);
  void pretty_print(std::ostream& stream) const override;

  EmbeddingOptions options;
  Tensor weight;
};

class EMBER_API Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;
  /// A module whose weight is `embeddings` itself (shared), frozen unless freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

/// Bags of rows reduced by sum, mean or max: weight ~ N(0, 1) (libtorch normalises after
/// zeroing the padding row, so that row is not zero).
class EMBER_API EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  void pretty_print(std::ostream& stream) const override;

  EmbeddingBagOptions options;
  Tensor weight;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})
};

class EMBER_API EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  using Impl = EmbeddingBagImpl;
  /// A module whose weight is `embeddings` itself (shared), frozen unless freeze(false).
  static EmbeddingBag from_pretrained(const Tensor& embeddings,
                                      const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace nn
}  // namespace ember
