// Matrices built from pieces, composed of ember's own ops (libtorch 1.13's names and
// errors): mT / mH / adjoint, diagflat, block_diag, cartesian_prod and combinations.
#include <vector>

#include "core/check.h"
#include "dispatch/type_promotion.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {
Tensor last_two_swapped(const Tensor& x, const char* what) {
  EMBER_CHECK_ARG(x.defined(), "{}: the input is an undefined tensor", what);
  EMBER_CHECK_ARG(x.dim() >= 2, "{} is only supported on matrices or batches of matrices. Got {}-D tensor.",
                  what, x.dim());
  return x.transpose(-2, -1);
}
}  // namespace

Tensor Tensor::mT() const { return last_two_swapped(*this, "tensor.mT"); }
Tensor Tensor::mH() const { return last_two_swapped(*this, "tensor.mH"); }
Tensor Tensor::adjoint() const { return last_two_swapped(*this, "tensor.adjoint()"); }
Tensor adjoint(const Tensor& x) { return x.adjoint(); }

Tensor diagflat(const Tensor& x, int64_t offset) {
  EMBER_CHECK_ARG(x.defined(), "diagflat: the input is an undefined tensor");
  return diag(x.reshape({-1}), offset);
}
Tensor Tensor::diagflat(int64_t offset) const { return ember::diagflat(*this, offset); }

Tensor block_diag(const std::vector<Tensor>& tensors) {
  ScalarType dtype = get_default_dtype();
  Device device(kCPU, 0);
  int64_t rows = 0, cols = 0;
  std::vector<Tensor> blocks;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK_ARG(t.defined(), "torch.block_diag: input {} is an undefined tensor", i);
    EMBER_CHECK_ARG(
        t.dim() <= 2,
        "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {} has {} dimensions", i,
        t.dim());
    dtype = i == 0 ? t.dtype() : promote_types(dtype, t.dtype());
    if (i == 0) device = t.device();
    EMBER_CHECK_ARG(
        t.device() == device,
        "torch.block_diag: input tensors must all be on the same device. Input 0 is on device {} and "
        "input {} is on device {}",
        device.str(), i, t.device().str());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, -1}));
    rows += blocks.back().size(0);
    cols += blocks.back().size(1);
  }
  const TensorOptions o = TensorOptions(dtype).device(device);
  if (blocks.empty()) return empty({1, 0}, o);
  // Each block's rows, padded with zeros left and right; then the rows stacked.
  std::vector<Tensor> bands;
  int64_t left = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.size(0), c = b.size(1);
    bands.push_back(cat({zeros({r, left}, o), b.to(dtype), zeros({r, cols - left - c}, o)}, 1));
    left += c;
  }
  return cat(bands, 0);
}

Tensor cartesian_prod(const std::vector<Tensor>& tensors) {
  EMBER_CHECK_ARG(!tensors.empty(), "cartesian_prod: expected at least one tensor");
  for (const Tensor& t : tensors)
    EMBER_CHECK_ARG(t.defined() && t.dim() == 1, "Expect a 1D vector, but got shape {}",
                    t.defined() ? detail::shape_str(t.sizes()) : "undefined");
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> columns;
  for (const Tensor& g : meshgrid(tensors, "ij")) columns.push_back(g.reshape({-1}));
  return stack(columns, 1);
}

Tensor combinations(const Tensor& x, int64_t r, bool with_replacement) {
  EMBER_CHECK_ARG(x.defined() && x.dim() == 1, "Expect a 1D vector, but got shape {}",
                  x.defined() ? detail::shape_str(x.sizes()) : "undefined");
  EMBER_CHECK_ARG(r >= 0, "Expect a non-negative number, but got {}", r);
  if (r == 0) return empty({0}, x.options());
  const int64_t n = x.size(0);
  // The index tuples, in lexicographic order, built on the host: i_1 < ... < i_r (or <=).
  std::vector<int64_t> flat;
  std::vector<int64_t> idx(size_t(r), 0);
  if (!with_replacement)
    for (int64_t k = 0; k < r; ++k) idx[size_t(k)] = k;
  if (n > 0 && (with_replacement || r <= n)) {
    const auto limit = [&](int64_t pos) { return with_replacement ? n - 1 : n - r + pos; };
    while (true) {
      flat.insert(flat.end(), idx.begin(), idx.end());
      int64_t k = r - 1;  // the last position that can still grow
      while (k >= 0 && idx[size_t(k)] == limit(k)) --k;
      if (k < 0) break;
      ++idx[size_t(k)];
      for (int64_t j = k + 1; j < r; ++j)
        idx[size_t(j)] = with_replacement ? idx[size_t(k)] : idx[size_t(j - 1)] + 1;
    }
  }
  const int64_t count = int64_t(flat.size()) / r;
  if (count == 0) return empty({0, r}, x.options());
  // A copy: autograd keeps the index for the backward, past this vector's life.
  const Tensor index =
      from_blob(flat.data(), {count * r}, TensorOptions(kLong)).to(x.device(), kLong, false, true);
  return x.index_select(0, index).reshape({count, r});
}

}  // namespace ember
