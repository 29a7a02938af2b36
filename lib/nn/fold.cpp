// im2col and col2im on the sliding windows of lib/nn/sliding_windows.h: im2col pads, takes
// the windows (n, c, kh, kw, oh, ow) and views them as (n, c kh kw, oh ow); col2im views its
// input so, sums the windows into a padded zero tensor and crops the padding. libtorch's
// checks (im2col_shape_check, col2im_shape_check) and texts, in its order.
#include "ember/nn/fold.h"

#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/nn/padding.h"
#include "ember/ops.h"
#include "nn/sliding_windows.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

namespace {

// Division rounding toward negative infinity (libtorch's div_rtn).
int64_t div_rtn(int64_t x, int64_t y) {
  int64_t q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) --q;
  return q;
}

void check_pair(IntArrayRef values, const char* name) {
  EMBER_CHECK_ARG(values.size() == 2, "It is expected {} equals to 2, but got size {}", name, values.size());
}

void check_floating(const Tensor& x, const char* kernel) {
  EMBER_CHECK_TYPED(is_floating_point(x.dtype()), NotImplemented, "\"{}_{}\" not implemented for '{}'",
                    kernel, x.device().is_cuda() ? "cuda" : "cpu", detail::torch_name(x.dtype()));
}

struct Geometry {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  nn::detail::Window2d window() const { return {kh, kw, sh, sw, dh, dw}; }
};

Geometry geometry(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  return {kernel_size[0], kernel_size[1], dilation[0], dilation[1],
          padding[0],     padding[1],     stride[0],   stride[1]};
}

void check_kernel_size(const Geometry& g) {
  EMBER_CHECK_ARG(g.kw > 0 && g.kh > 0,
                  "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}", g.kh,
                  g.kw);
}
void check_dilation(const Geometry& g) {
  EMBER_CHECK_ARG(g.dw > 0 && g.dh > 0,
                  "dilation should be greater than zero, but got dilation_height: {} dilation_width: {}",
                  g.dh, g.dw);
}
void check_padding(const Geometry& g) {
  EMBER_CHECK_ARG(g.pw >= 0 && g.ph >= 0,
                  "padding should be non-negative, but got pad_height: {} pad_width: {}", g.ph, g.pw);
}
void check_stride(const Geometry& g) {
  EMBER_CHECK_ARG(g.sw > 0 && g.sh > 0,
                  "stride should be greater than zero, but got stride_height: {} stride_width: {}", g.sh,
                  g.sw);
}

// The number of blocks along a dim of `size` (before padding).
int64_t blocks(int64_t size, int64_t pad, int64_t kernel, int64_t dilation, int64_t stride) {
  return div_rtn(size + 2 * pad - (dilation * (kernel - 1) + 1), stride) + 1;
}

}  // namespace

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  EMBER_CHECK_ARG(self.defined(), "im2col: undefined input tensor");
  check_pair(kernel_size, "kernel_size");
  check_pair(dilation, "dilation");
  check_pair(padding, "padding");
  check_pair(stride, "stride");
  const Geometry g = geometry(kernel_size, dilation, padding, stride);
  check_kernel_size(g);
  check_dilation(g);
  check_padding(g);
  check_stride(g);
  const int64_t ndim = self.dim();
  // libtorch reads dims 1 and 2 before it checks the rank: a smaller input fails there.
  EMBER_CHECK_ARG(ndim != 0, "Dimension specified as 1 but tensor has no dimensions");
  for (int64_t d : {1, 2})
    EMBER_CHECK_ARG(d < ndim, "Dimension out of range (expected to be in range of [{}, {}], but got {})",
                    -ndim, ndim - 1, d);
  // Only the batch dim may be empty.
  const bool valid_dims = self.size(1) != 0 && self.size(2) != 0;
  EMBER_CHECK_ARG(
      (ndim == 3 && self.size(0) != 0 && valid_dims) || (ndim == 4 && valid_dims && self.size(3) != 0),
      "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
      "for input, but got: {}",
      shape_str(self.sizes()));
  const int64_t h = self.size(-2), w = self.size(-1);
  const int64_t oh = blocks(h, g.ph, g.kh, g.dh, g.sh), ow = blocks(w, g.pw, g.kw, g.dw, g.sw);
  EMBER_CHECK_ARG(
      oh >= 1 && ow >= 1,
      "Given input with spatial size ({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, "
      "{}), calculated shape of the array of sliding blocks as ({}, {}), but its components must be at "
      "least one.",
      h, h, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, oh, ow);  // sic: libtorch 1.13 prints H twice
  check_floating(self, "im2col_out");
  const bool batched = ndim == 4;
  Tensor x = batched ? self : self.unsqueeze(0);
  if (g.ph != 0 || g.pw != 0) x = constant_pad_nd(x, {g.pw, g.pw, g.ph, g.ph});
  using namespace nn::detail;
  Tensor cols = sliding_windows(x, g.window(), oh, ow,
                                {kWinBatch, kWinChannel, kWinKernelH, kWinKernelW, kWinOutH, kWinOutW});
  // A 1 x 1 kernel at stride 1 leaves the windows a view of the input: libtorch returns a copy.
  if (cols.storage() == x.storage()) cols = cols.clone();
  cols = cols.view({x.size(0), x.size(1) * g.kh * g.kw, oh * ow});
  return batched ? cols : cols.squeeze(0);
}

Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK_ARG(self.defined(), "col2im: undefined input tensor");
  check_pair(output_size, "output_size");
  check_pair(kernel_size, "kernel_size");
  check_pair(dilation, "dilation");
  check_pair(padding, "padding");
  check_pair(stride, "stride");
  const Geometry g = geometry(kernel_size, dilation, padding, stride);
  const int64_t out_h = output_size[0], out_w = output_size[1];
  check_kernel_size(g);
  check_stride(g);
  check_dilation(g);
  check_padding(g);
  const int64_t ndim = self.dim();
  EMBER_CHECK_ARG((ndim == 2 && self.size(0) != 0 && self.size(1) != 0) ||
                      (ndim == 3 && self.size(1) != 0 && self.size(2) != 0),
                  "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                  "dimensions for input, but got: {}",
                  shape_str(self.sizes()));
  const int64_t planes = self.size(-2), length = self.size(-1);
  EMBER_CHECK_ARG(
      planes % (g.kw * g.kh) == 0,
      "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
      "input.size(1)={} and kernel_size=({}, {}).",
      planes, g.kh, g.kw);
  const int64_t bh = blocks(out_h, g.ph, g.kh, g.dh, g.sh), bw = blocks(out_w, g.pw, g.kw, g.dw, g.sw);
  EMBER_CHECK_ARG(
      length == bh * bw,
      "Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), "
      "stride=({}, {}), expected size of input's dimension 2 to match the calculated number of sliding "
      "blocks {} * {} = {}, but got input.size(2)={}.",
      out_h, out_w, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, g.sh, g.sw, bh, bw, bh * bw, length);
  EMBER_CHECK_ARG(
      bh >= 1 && bw >= 1,
      "Given output_size=({}, {}), kernel_size=({}, {}), dilation=({}, {}), padding=({}, {}), "
      "stride=({}, {}), calculated shape of the array of sliding blocks as ({}, {}), which is too small "
      "(non-positive)",
      out_h, out_w, g.kh, g.kw, g.dh, g.dw, g.ph, g.pw, g.sh, g.sw, bh, bw);
  EMBER_CHECK_ARG(out_w >= 1 && out_h >= 1,
                  "Expected output spatial size to be positive, but got: output_size=({}, {}).", out_h,
                  out_w);
  check_floating(self, "col2im_out");
  const bool batched = ndim == 3;
  const Tensor cols = batched ? self : self.unsqueeze(0);
  const int64_t n = cols.size(0), c = planes / (g.kh * g.kw);
  Tensor out = nn::detail::fold_windows(cols.reshape({n, c, g.kh, g.kw, bh, bw}),
                                        {n, c, out_h + 2 * g.ph, out_w + 2 * g.pw}, g.window());
  if (g.ph != 0 || g.pw != 0) out = constant_pad_nd(out, {-g.pw, -g.pw, -g.ph, -g.ph});
  return batched ? out : out.squeeze(0);
}

namespace nn {

namespace functional {

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "fold: undefined input tensor");
  EMBER_CHECK_ARG(input.dim() == 3 || input.dim() == 2,
                  "Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {}D)",
                  input.dim());
  return col2im(input, options.output_size(), options.kernel_size(), options.dilation(), options.padding(),
                options.stride());
}

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "unfold: undefined input tensor");
  EMBER_CHECK_ARG(input.dim() == 4, "Input Error: Only 4D input Tensors are supported (got {}D)",
                  input.dim());
  return im2col(input, options.kernel_size(), options.dilation(), options.padding(), options.stride());
}

}  // namespace functional

Tensor FoldImpl::forward(const Tensor& input) { return functional::fold(input, options); }

void FoldImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Fold(output_size=" << options.output_size()
         << ", kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
         << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
}

Tensor UnfoldImpl::forward(const Tensor& input) { return functional::unfold(input, options); }

void UnfoldImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "Unfold(kernel_size=" << options.kernel_size()
         << ", dilation=" << options.dilation() << ", padding=" << options.padding()
         << ", stride=" << options.stride() << ")";
}

}  // namespace nn
}  // namespace ember
