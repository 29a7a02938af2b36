// mode: the most frequent value along a dim, found as libtorch's CPU kernel finds it, so
// that ties pick the same value and index: each row's (value, position) pairs are put in
// order with std::sort on the value, and the first longest run of equal values wins with
// the position of its last pair. Rows are scanned on the host; the value is then gathered
// from the input at that index, so autograd passes the gradient to that element.
#include <algorithm>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/dtype_dispatch.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

template <class T>
void mode_rows(const T* rows, int64_t count, int64_t n, int64_t* index) {
  std::vector<std::pair<T, int64_t>> elements(static_cast<size_t>(n));
  for (int64_t r = 0; r < count; ++r) {
    const T* row = rows + r * n;
    for (int64_t k = 0; k < n; ++k) elements[size_t(k)] = {row[k], k};
    std::sort(elements.begin(), elements.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t best = 0, run = 0, best_run = 0;
    for (int64_t k = 0; k < n; ++k) {
      ++run;
      if (k == n - 1 || elements[size_t(k)].first != elements[size_t(k) + 1].first) {
        if (run > best_run) {
          best = elements[size_t(k)].second;
          best_run = run;
        }
        run = 0;
      }
    }
    index[r] = best;
  }
}

}  // namespace

std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim, bool keepdim) {
  EMBER_CHECK_ARG(x.defined(), "mode: undefined tensor");
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t d = detail::wrap_dim(dim, x.dim(), "mode");
  const int64_t n = in.size(d);
  EMBER_CHECK_ARG(n > 0, "mode(): Expected reduction dim {} to have non-zero size.", d);
  Tensor rows;
  {
    NoGradGuard no_grad;
    rows = in.movedim(d, -1).to(Device(kCPU)).contiguous();
  }
  Tensor index = empty({rows.numel() / n}, TensorOptions(kLong).device(Device(kCPU, 0)));  // written on the host
  detail::dispatch_dtype(rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    mode_rows(static_cast<const T*>(rows.data_ptr()), index.numel(), n, index.data_ptr<int64_t>());
  });
  std::vector<int64_t> kept = in.sizes().vec();
  kept[size_t(d)] = 1;
  index = index.view(kept).to(x.device());
  Tensor values = in.gather(d, index);
  if (x.dim() == 0) return {values.reshape({}), index.reshape({})};
  if (!keepdim) return {values.squeeze(d), index.squeeze(d)};
  return {values, index};
}

std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const { return ember::mode(*this, dim, keepdim); }

}  // namespace ember
