// pixel_shuffle, pixel_unshuffle and channel_shuffle as a reshape, a permute and one copy
// (clone, so that the result never shares the input's storage, as libtorch's kernels
// return a new tensor), with libtorch's checks and texts.
#include "ember/nn/pixelshuffle.h"

#include <vector>

#include "core/check.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

// The leading (batch) dims of a (*, C, H, W) tensor, followed by `rest`.
std::vector<int64_t> batch_dims_and(const Tensor& x, std::initializer_list<int64_t> rest) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 3);
  shape.insert(shape.end(), rest);
  return shape;
}

// The identity on the leading dims, followed by `rest` (offsets past them).
std::vector<int64_t> batch_perm_and(int64_t batch, std::initializer_list<int64_t> rest) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < batch; ++i) perm.push_back(i);
  for (int64_t r : rest) perm.push_back(batch + r);
  return perm;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  EMBER_CHECK_ARG(self.defined(), "pixel_shuffle: undefined input tensor");
  EMBER_CHECK_ARG(
      self.dim() >= 3,
      "pixel_shuffle expects input to have at least 3 dimensions, but got input with {} dimension(s)",
      self.dim());
  EMBER_CHECK_ARG(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got {}",
                  upscale_factor);
  const int64_t r = upscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK_ARG(c % (r * r) == 0,
                  "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                  "upscale_factor, but input.size(-3)={} is not divisible by {}",
                  c, r * r);
  const int64_t oc = c / (r * r), batch = self.dim() - 3;
  // (*, oc, r, r, h, w) -> (*, oc, h, r, w, r)
  return self.reshape(batch_dims_and(self, {oc, r, r, h, w}))
      .permute(batch_perm_and(batch, {0, 3, 1, 4, 2}))
      .clone()
      .view(batch_dims_and(self, {oc, h * r, w * r}));
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  EMBER_CHECK_ARG(self.defined(), "pixel_unshuffle: undefined input tensor");
  EMBER_CHECK_ARG(self.dim() >= 3,
                  "pixel_unshuffle expects input to have at least 3 dimensions, but got input with {} "
                  "dimension(s)",
                  self.dim());
  EMBER_CHECK_ARG(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got {}",
                  downscale_factor);
  const int64_t r = downscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK_ARG(
      h % r == 0,
      "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={} is "
      "not divisible by {}",
      h, r);
  EMBER_CHECK_ARG(
      w % r == 0,
      "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={} is "
      "not divisible by {}",
      w, r);
  const int64_t oh = h / r, ow = w / r, batch = self.dim() - 3;
  // (*, c, oh, r, ow, r) -> (*, c, r, r, oh, ow)
  return self.reshape(batch_dims_and(self, {c, oh, r, ow, r}))
      .permute(batch_perm_and(batch, {0, 2, 4, 1, 3}))
      .clone()
      .view(batch_dims_and(self, {c * r * r, oh, ow}));
}

Tensor channel_shuffle(const Tensor& self, int64_t groups) {
  EMBER_CHECK_ARG(self.defined(), "channel_shuffle: undefined input tensor");
  EMBER_CHECK_ARG(self.dim() > 2, "channel_shuffle expects input with > 2 dims, but got input with sizes {}",
                  detail::shape_str(self.sizes()));
  EMBER_CHECK_ARG(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:{}",
                  groups);
  const int64_t n = self.size(0), c = self.size(1);
  EMBER_CHECK_ARG(c % groups == 0,
                  "Number of channels must be divisible by groups. Got {} channels and {} groups.", c,
                  groups);
  const int64_t rest = c == 0 || n == 0 ? 0 : self.numel() / (n * c);
  return self.reshape({n, groups, c / groups, rest}).permute({0, 2, 1, 3}).clone().view(self.sizes());
}

namespace nn {

namespace functional {

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

}  // namespace functional

Tensor PixelShuffleImpl::forward(const Tensor& input) {
  return ember::pixel_shuffle(input, options.upscale_factor());
}

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}

Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return ember::pixel_unshuffle(input, options.downscale_factor());
}

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

Tensor ChannelShuffleImpl::forward(const Tensor& input) {
  return ember::channel_shuffle(input, options.groups());
}

void ChannelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "ChannelShuffle(groups=" << options.groups() << ")";
}

}  // namespace nn
}  // namespace ember
