#pragma once
/// Rearranging channels into space and back: torch::pixel_shuffle / pixel_unshuffle (and
/// F:: forms, the PixelShuffle / PixelUnshuffle modules) and torch::channel_shuffle (with
/// a ChannelShuffle module as Python's nn.ChannelShuffle; libtorch 1.13 has none). Views,
/// a permute and one copy, so autograd and every device need no code of their own.

#include <cstdint>
#include <ostream>

#include "ember/arg.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"
#include "ember/tensor.h"

namespace ember {

/// (*, C r^2, H, W) -> (*, C, H r, W r): out[c][h r + i][w r + j] = in[c r^2 + i r + j][h][w].
EMBER_API Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
/// The inverse of pixel_shuffle: (*, C, H r, W r) -> (*, C r^2, H, W).
EMBER_API Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);
/// (N, g k, *) -> (N, k g, *): channel i g' + j of the output is channel j k + i of the input
/// (the channels, seen as a g x k matrix, transposed).
EMBER_API Tensor channel_shuffle(const Tensor& self, int64_t groups);

namespace nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT: as libtorch
  EMBER_ARG(int64_t, upscale_factor);
};

struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  EMBER_ARG(int64_t, downscale_factor);
};

struct ChannelShuffleOptions {
  ChannelShuffleOptions(int64_t groups) : groups_(groups) {}  // NOLINT
  EMBER_ARG(int64_t, groups);
};

namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
EMBER_API Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
EMBER_API Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);
}  // namespace functional

/// Sub-pixel upsampling: channels C r^2 become an r x r block of pixels each.
class EMBER_API PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  PixelShuffleOptions options;
};
EMBER_MODULE(PixelShuffle);

/// The inverse of PixelShuffle: each r x r block of pixels becomes r^2 channels.
class EMBER_API PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  PixelUnshuffleOptions options;
};
EMBER_MODULE(PixelUnshuffle);

/// Interleaves the channels of `groups` groups (ShuffleNet), as torch::channel_shuffle.
class EMBER_API ChannelShuffleImpl : public Cloneable<ChannelShuffleImpl> {
 public:
  explicit ChannelShuffleImpl(const ChannelShuffleOptions& options_) : options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

  ChannelShuffleOptions options;
};
EMBER_MODULE(ChannelShuffle);

}  // namespace nn
}  // namespace ember
