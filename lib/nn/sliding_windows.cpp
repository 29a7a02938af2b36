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

Tensor sliding_windows_nd(const Tensor& x, const WindowNd& w, IntArrayRef out) {
  const size_t dims = w.kernel.size();
  Tensor cols;
  {
    NoGradGuard no_grad;
    const Tensor c = x.contiguous();
    // Row-major strides from the sizes (a contiguous tensor's size-1 dims may carry any stride).
    std::vector<int64_t> row(size_t(c.dim()), 1);
    for (int64_t i = c.dim() - 1; i-- > 0;) row[size_t(i)] = row[size_t(i) + 1] * c.size(i + 1);
    std::vector<int64_t> sizes{c.size(0), c.size(1)}, strides{row[0], row[1]};
    for (size_t i = 0; i < dims; ++i) {
      sizes.push_back(w.kernel[i]);
      strides.push_back(w.dilation[i] * row[i + 2]);
    }
    for (size_t i = 0; i < dims; ++i) {
      sizes.push_back(out[i]);
      strides.push_back(w.stride[i] * row[i + 2]);
    }
    cols = c.as_strided(sizes, strides, c.storage_offset()).contiguous();
  }
  if (!(GradMode::is_enabled() && x.requires_grad())) return cols;
  autograd::record("Im2ColBackward0", {&x}, {&cols},
                   [in_sizes = x.sizes().vec(), w](autograd::FormulaNode&, autograd::variable_list& g)
                       -> autograd::variable_list { return {fold_windows_nd(g[0], in_sizes, w)}; });
  return cols;
}

Tensor fold_windows_nd(const Tensor& cols, IntArrayRef sizes, const WindowNd& w) {
  const int64_t dims = int64_t(w.kernel.size());
  const std::vector<int64_t> out(cols.sizes().begin() + 2 + dims, cols.sizes().end());
  Tensor folded;
  {
    NoGradGuard no_grad;
    folded = zeros(sizes, cols.options());
    int64_t positions = 1;
    for (int64_t k : w.kernel) positions *= k;
    if (cols.numel() > 0)
      for (int64_t p = 0; p < positions; ++p) {
        // Kernel position p (row-major over the kernel dims): its slab of cols goes to a
        // strided slice of the output.
        Tensor target = folded, slab = cols;
        for (int64_t d = dims, rest = p; d-- > 0;) {
          const size_t i = size_t(d);
          const int64_t k = rest % w.kernel[i];
          rest /= w.kernel[i];
          target = target.slice(d + 2, k * w.dilation[i], k * w.dilation[i] + (out[i] - 1) * w.stride[i] + 1,
                                w.stride[i]);
          slab = slab.select(d + 2, k);
        }
        target.add_(slab);
      }
  }
  if (!(GradMode::is_enabled() && cols.requires_grad())) return folded;
  autograd::record("Col2ImBackward0", {&cols}, {&folded},
                   [w, out](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                     return {sliding_windows_nd(g[0], w, out)};
                   });
  return folded;
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
