// Sliding windows (im2col) by an as_strided view of the contiguous input and one copy;
// the backward (col2im) adds each kernel position's slab back into a strided slice of the
// input's gradient (kh * kw in-place adds), or under create_graph is one index_add.
#include "nn/sliding_windows.h"

#include <vector>

#include "autograd/node.h"
#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::detail {

namespace {

// The gradient of the windows, given in canonical order (n, c, i, j, oh, ow).
Tensor fold_windows(const Tensor& g, const std::vector<int64_t>& in_sizes, const Window2d& w) {
  const int64_t oh = g.size(kWinOutH), ow = g.size(kWinOutW);
  if (GradMode::is_enabled() && g.requires_grad()) {
    // create_graph: one index_add of every window element at its flat position in the
    // plane, so that the gradient is itself differentiable (an in-place add into a fresh
    // tensor's views would not record).
    const int64_t n = in_sizes[0], c = in_sizes[1], h = in_sizes[2], wd = in_sizes[3];
    Tensor pos;
    {
      NoGradGuard no_grad;
      pos = arange(h * wd, TensorOptions(kInt64).device(g.device()))
                .as_strided({w.kh, w.kw, oh, ow}, {w.dh * wd, w.dw, w.sh * wd, w.sw})
                .reshape({-1});
    }
    return zeros({n, c, h * wd}, g.options())
        .index_add(2, pos, g.reshape({n, c, w.kh * w.kw * oh * ow}))
        .view(in_sizes);
  }
  Tensor gx = zeros(in_sizes, g.options());
  if (g.numel() == 0) return gx;
  for (int64_t i = 0; i < w.kh; ++i) {
    Tensor rows = gx.slice(2, i * w.dh, i * w.dh + (oh - 1) * w.sh + 1, w.sh);
    for (int64_t j = 0; j < w.kw; ++j)
      rows.slice(3, j * w.dw, j * w.dw + (ow - 1) * w.sw + 1, w.sw).add_(g.select(2, i).select(2, j));
  }
  return gx;
}

}  // namespace

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
