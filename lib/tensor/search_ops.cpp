// Searching and counting (ember/math_ops.h): isin, searchsorted, bucketize, bincount and
// histc, composed of comparisons, sums and index_add, so every device runs them. The
// comparisons of isin and searchsorted are made a block of rows at a time, so their
// temporary stays near kBlockElements whatever the sizes.
#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::long_on;
using detail::shape_str;

namespace {

constexpr int64_t kBlockElements = int64_t{1} << 22;

// f(rows [r, ...]) for blocks of the leading dim of `rows`, joined along dim 0.
template <class F>
Tensor by_row_blocks(const Tensor& rows, int64_t per_row, const F& f) {
  const int64_t n = rows.size(0),
                block = std::max<int64_t>(1, kBlockElements / std::max<int64_t>(per_row, 1));
  if (n <= block) return f(rows);
  std::vector<Tensor> parts;
  for (int64_t start = 0; start < n; start += block)
    parts.push_back(f(rows.narrow(0, start, std::min(block, n - start))));
  return cat(parts, 0);
}

}  // namespace

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  NoGradGuard no_grad;
  const Tensor flat = elements.reshape({-1, 1}), tests = test_elements.reshape({1, -1});
  const Tensor found =
      by_row_blocks(flat, tests.numel(), [&](const Tensor& rows) { return (rows == tests).any(1); });
  const Tensor result = found.view(elements.sizes());
  return invert ? logical_not(result) : result;
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  NoGradGuard no_grad;
  if (side) {
    EMBER_CHECK_ARG(*side == "left" || *side == "right",
                    "torch.searchsorted(): side can only be 'left' or 'right' but got {}", *side);
    EMBER_CHECK_ARG(
        !(right && *side == "left"),
        "torch.searchsorted(): side and right can't be set to opposites, got side of left while right "
        "was True");
    right = *side == "right";
  }
  const Tensor& seq = sorted_sequence;
  EMBER_CHECK_ARG(
      seq.dim() >= 1,
      "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  if (seq.dim() > 1) {
    const bool leading_match = values.dim() == seq.dim() &&
                               std::equal(seq.sizes().begin(), seq.sizes().end() - 1, values.sizes().begin());
    EMBER_CHECK_ARG(
        leading_match,
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
        "boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input "
        "value tensor {}",
        shape_str(seq.sizes()), shape_str(values.sizes()));
  }
  Tensor boundaries = seq;
  if (sorter && sorter->defined()) {
    EMBER_CHECK_ARG(
        sorter->sizes() == seq.sizes(),
        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor {} "
        "and got sorter tensor {}",
        shape_str(seq.sizes()), shape_str(sorter->sizes()));
    boundaries = seq.gather(-1, *sorter);
  }
  // Count the boundaries below each value (or not above it, for right).
  const auto count = [right](const Tensor& b, const Tensor& v) { return sum(right ? b <= v : b < v, {-1}); };
  const ScalarType out = out_int32 ? kInt : kLong;
  if (boundaries.dim() == 1) {
    const Tensor b = boundaries.reshape({1, -1});
    const Tensor counted =
        by_row_blocks(values.reshape({-1, 1}), b.numel(), [&](const Tensor& rows) { return count(b, rows); });
    return counted.view(values.sizes()).to(out);
  }
  // Row r of the values searches row r of the boundaries.
  const int64_t m = boundaries.size(-1), k = values.size(-1);
  const Tensor b = boundaries.reshape({-1, 1, m}), v = values.reshape({-1, k, 1});
  return count(b, v).view(values.sizes()).to(out);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK_ARG(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim({})",
                  boundaries.dim());
  return searchsorted(boundaries, input, out_int32, right);
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  NoGradGuard no_grad;
  EMBER_CHECK_ARG(x.dim() == 1 && is_integral(x.dtype(), false),
                  "bincount only supports 1-d non-negative integral inputs.");
  EMBER_CHECK_ARG(minlength >= 0, "minlength should be >= 0");
  const bool weighted = weights && weights->defined();
  if (weighted)
    EMBER_CHECK_ARG(weights->dim() == 1 && weights->size(0) == x.size(0),
                    "weights should be 1-d and have the same length as input");
  int64_t length = minlength;
  if (x.numel() > 0) {
    EMBER_CHECK_ARG(x.min().item<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, x.max().item<int64_t>() + 1);
  }
  const ScalarType dt = !weighted ? kLong : weights->is_floating_point() ? weights->dtype() : kDouble;
  const Tensor source = weighted ? weights->to(dt) : ones({x.size(0)}, TensorOptions(dt).device(x.device()));
  return zeros({length}, TensorOptions(dt).device(x.device())).index_add(0, x.to(kLong), source);
}

Tensor histc(const Tensor& x, int64_t bins, const Scalar& min, const Scalar& max) {
  NoGradGuard no_grad;
  EMBER_CHECK_TYPED(x.is_floating_point(), NotImplemented, "\"histogram_cpu\" not implemented for '{}'",
                    detail::torch_name(x.dtype()));
  EMBER_CHECK_ARG(bins > 0, "torch.histc: bins must be > 0, but got {} for bins", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  EMBER_CHECK_ARG(lo <= hi, "torch.histc: max must be larger than min");
  if (lo == hi && x.numel() > 0) {
    lo = x.min().item<double>();
    hi = x.max().item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK_ARG(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [{}, {}] is not finite", lo,
                  hi);
  const Tensor flat = x.reshape({-1});
  const Tensor inside = logical_and(flat >= lo, flat <= hi);
  const Tensor kept = flat.masked_select(inside).to(kDouble);
  // Bin floor((v - lo) * bins / (hi - lo)); the maximum falls in the last bin.
  const Tensor bin = floor((kept - lo) * (double(bins) / (hi - lo))).to(kLong).clamp_max(bins - 1);
  return zeros({bins}, x.options()).index_add(0, bin, ones({bin.numel()}, x.options()));
}

}  // namespace ember
