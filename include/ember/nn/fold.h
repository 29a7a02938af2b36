#pragma once
/// Sliding blocks: torch::im2col / torch::col2im, F::unfold / F::fold and the Unfold / Fold
/// modules, with libtorch's options, layouts and error texts. Built on the convolutions'
/// sliding windows (each the other's gradient), so autograd needs no code of its own.

#include <cstdint>
#include <ostream>

#include "ember/arg.h"
#include "ember/expanding_array.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember {

/// The sliding (kh, kw) blocks of an (N, C, H, W) or (C, H, W) input, zero-padded by
/// `padding`, as the columns of (N, C kh kw, L) or (C kh kw, L): row c kh kw + i kw + j of
/// block l = oh W_blocks + ow holds x[c][oh sh + i dh - ph][ow sw + j dw - pw].
EMBER_API Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation,
                        IntArrayRef padding, IntArrayRef stride);
/// The adjoint of im2col: the blocks of (N, C kh kw, L) or (C kh kw, L) summed into an
/// (N, C, output_size) or (C, output_size) tensor where im2col would have taken them from.
EMBER_API Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size,
                        IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride);

namespace nn {

/// FoldOptions(output_size, kernel_size): the spatial size of the output and of a block.
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

/// UnfoldOptions(kernel_size).
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size)
      : kernel_size_(kernel_size) {}  // NOLINT: implicit as in libtorch
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {
using FoldFuncOptions = FoldOptions;
using UnfoldFuncOptions = UnfoldOptions;
/// col2im of a batched (3-D) or unbatched (2-D) input.
EMBER_API Tensor fold(const Tensor& input, const FoldFuncOptions& options);
/// im2col of a 4-D input.
EMBER_API Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
}  // namespace functional

/// Combines sliding blocks into a tensor (summing where they overlap).
class EMBER_API FoldImpl : public Cloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  FoldOptions options;
};
EMBER_MODULE(Fold);

/// Extracts sliding blocks of a batched input as columns.
class EMBER_API UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}  // NOLINT
  explicit UnfoldImpl(const UnfoldOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

}  // namespace nn
}  // namespace ember
