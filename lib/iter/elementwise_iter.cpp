#include "iter/elementwise_iter.h"

#include <cstring>

#include "core/check.h"
#include "tensor/tensor_factory.h"

namespace ember::detail {

SizesVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = a.size() > b.size() ? a.size() : b.size();
  SizesVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK_TYPED(sa == sb || sa == 1 || sb == 1, InvalidArgument,
                      "{}: the size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                      "dimension {} (shapes {} and {})",
                      op, sa, sb, i, shape_str(a), shape_str(b));
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

void build_elementwise(ElementwiseArgs& args, const Tensor& out, const Tensor* inputs, int n) {
  constexpr int kMax = ElementwiseArgs::kMaxDims;
  const int nops = n + 1;
  const int64_t ndim = out.dim();
  IntArrayRef osizes = out.sizes();
  args.ninputs = n;
  args.numel = out.numel();
  args.data[0] = static_cast<char*>(out.data_ptr());
  for (int k = 1; k < nops; ++k)
    if (inputs[k - 1].defined()) args.data[k] = static_cast<char*>(inputs[k - 1].data_ptr());

  // Fast path: every tensor contiguous with the output's shape (scalars broadcast).
  bool dense = out.is_contiguous();
  for (int k = 1; dense && k < nops; ++k) {
    const Tensor& t = inputs[k - 1];
    dense = !t.defined() || (t.is_contiguous() && t.sizes() == osizes);
  }
  if (dense) {
    args.ndim = 1;
    args.sizes[0] = args.numel;
    for (int k = 0; k < nops; ++k) args.strides[k][0] = inputs && k > 0 && !inputs[k - 1].defined() ? 0 : 1;
    args.contiguous = true;
    return;
  }

  // Collect non-trivial dims, innermost first.
  int nd = 0;
  int64_t sizes[64];
  int64_t strides[ElementwiseArgs::kMaxOperands][64];
  EMBER_CHECK_ARG(ndim <= 64, "elementwise: tensors of {} dims are not supported (at most 64)", ndim);
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (osizes[d] == 1) continue;
    sizes[nd] = osizes[d];
    strides[0][nd] = out.strides()[d];
    for (int k = 1; k < nops; ++k) {
      const Tensor& t = inputs[k - 1];
      int64_t td = d - (ndim - (t.defined() ? t.dim() : 0));
      strides[k][nd] = (!t.defined() || td < 0 || t.sizes()[td] == 1) ? 0 : t.strides()[td];
    }
    ++nd;
  }
  // Order dims by the output's strides (innermost = smallest), so in-place ops on
  // transposed tensors still walk memory in order. Insertion sort: nd is tiny.
  for (int i = 1; i < nd; ++i) {
    for (int j = i; j > 0 && strides[0][j] < strides[0][j - 1]; --j) {
      std::swap(sizes[j], sizes[j - 1]);
      for (int k = 0; k < nops; ++k) std::swap(strides[k][j], strides[k][j - 1]);
    }
  }
  // Coalesce dim j into the previous one when every operand is contiguous across them.
  int m = 0;
  for (int j = 0; j < nd; ++j) {
    bool merge = m > 0;
    for (int k = 0; merge && k < nops; ++k)
      merge = strides[k][j] == strides[k][m - 1] * sizes[m - 1];
    if (merge) {
      sizes[m - 1] *= sizes[j];
      continue;
    }
    sizes[m] = sizes[j];
    for (int k = 0; k < nops; ++k) strides[k][m] = strides[k][j];
    ++m;
  }
  EMBER_CHECK_ARG(m <= kMax,
                  "elementwise: after merging contiguous dims {} dims remain; at most {} are supported", m,
                  kMax);
  args.ndim = m;
  bool contiguous = m <= 1;
  for (int d = 0; d < m; ++d) {
    args.sizes[d] = sizes[d];
    for (int k = 0; k < nops; ++k) {
      args.strides[k][d] = strides[k][d];
      if (strides[k][d] != 1 && !(k > 0 && strides[k][d] == 0)) contiguous = false;
    }
  }
  if (m == 0) {  // a single element
    args.ndim = 1;
    args.sizes[0] = args.numel;
    for (int k = 0; k < nops; ++k) args.strides[k][0] = 1;
    contiguous = true;
  }
  args.contiguous = contiguous;
}

void store_scalar(void* dst, const Scalar& v, ScalarType dtype) {
  switch (dtype) {
#define EMBER_STORE(T, st)   \
  case st: {                 \
    T x = v.to<T>();         \
    std::memcpy(dst, &x, sizeof(T)); \
    break;                   \
  }
    EMBER_STORE(bool, kBool)
    EMBER_STORE(uint8_t, kUInt8)
    EMBER_STORE(int8_t, kInt8)
    EMBER_STORE(int16_t, kInt16)
    EMBER_STORE(int32_t, kInt32)
    EMBER_STORE(int64_t, kInt64)
    EMBER_STORE(float, kFloat)
    EMBER_STORE(double, kDouble)
#undef EMBER_STORE
    case kHalf: {
      Half h(float(v.to_double()));
      std::memcpy(dst, &h, 2);
      break;
    }
    case kBFloat16: {
      BFloat16 h(float(v.to_double()));
      std::memcpy(dst, &h, 2);
      break;
    }
  }
}

void set_scalar_operand(ElementwiseArgs& args, int k, const Scalar& v, ScalarType dtype) {
  store_scalar(args.scalar_value[k], v, dtype);
  args.is_scalar[k] = true;
  args.data[k] = args.scalar_value[k];
  for (int d = 0; d < ElementwiseArgs::kMaxDims; ++d) args.strides[k][d] = 0;
}

}  // namespace ember::detail
