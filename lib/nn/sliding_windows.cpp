// Sliding windows (im2col) by an as_strided view of the contiguous input and one copy;
// col2im adds each kernel position's slab into a strided slice of a zero tensor (kh * kw
// in-place adds). Each is the other's gradient, so double backward needs nothing more.
#include "nn/sliding_windows.h"

#include <vector>

#include "autograd/node.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::detail {

Tensor sliding_windows(const Tensor& x, const Window2d& w, int64_t out_h, int64_t out_w,
                       const std::array<int, 6>& order) {
  const std::vector<int64_t> perm(order.begin(), order.end());
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor c = x.contiguous();
    const int64_t n = c.size(0), ch = c.size(1), h = c.size(2), wd = c.size(3);
    // Row-major strides from the sizes: a contiguous tensor's size-1 dims may carry any stride.
    const int64_t s_w = 1, s_h = wd, s_c = h * wd, s_n = ch * h * wd;
    out = c.as_strided({n, ch, w.kh, w.kw, out_h, out_w},
                       {s_n, s_c, w.dh * s_h, w.dw * s_w, w.sh * s_h, w.sw * s_w}, c.storage_offset())
              .permute(perm)
              .contiguous();
  }
  if (!(GradMode::is_enabled() && x.requires_grad())) return out;
  std::vector<int64_t> inverse(6);
  for (size_t k = 0; k < 6; ++k) inverse[size_t(order[k])] = int64_t(k);
  autograd::record("Im2ColBackward0", {&x}, {&out},
                   [in_sizes = x.sizes().vec(), w, inverse](
                       autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                     return {fold_windows(g[0].permute(inverse), in_sizes, w)};
                   });
  return out;
}

Tensor fold_windows(const Tensor& cols, IntArrayRef sizes, const Window2d& w) {
  const int64_t oh = cols.size(kWinOutH), ow = cols.size(kWinOutW);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = zeros(sizes, cols.options());
    if (cols.numel() > 0)
      for (int64_t i = 0; i < w.kh; ++i) {
        Tensor rows = out.slice(2, i * w.dh, i * w.dh + (oh - 1) * w.sh + 1, w.sh);
        for (int64_t j = 0; j < w.kw; ++j)
          rows.slice(3, j * w.dw, j * w.dw + (ow - 1) * w.sw + 1, w.sw).add_(cols.select(2, i).select(2, j));
      }
  }
  if (!(GradMode::is_enabled() && cols.requires_grad())) return out;
  autograd::record(
      "Col2ImBackward0", {&cols}, {&out},
      [w, oh, ow](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
        return {sliding_windows(g[0], w, oh, ow,
                                {kWinBatch, kWinChannel, kWinKernelH, kWinKernelW, kWinOutH, kWinOutW})};
      });
  return out;
}

int64_t pooling_output_size(int64_t in, int64_t kernel, int64_t pad_l, int64_t pad_r, int64_t stride,
                            int64_t dilation, bool ceil_mode) {
  // div_rtn: division rounding toward negative infinity, as libtorch's.
  const int64_t num = in + pad_l + pad_r - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t q = num / stride;
  const int64_t r = num % stride;
  if (r != 0 && ((r < 0) != (stride < 0))) --q;
  int64_t out = q + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_l) --out;
  return out;
}

}  // namespace ember::nn::detail
