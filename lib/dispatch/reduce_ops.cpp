// Reductions (sum .. any) and the along-one-dim ops (softmax, log_softmax, cumsum):
// argument checks and torch's output dtypes, placement, then one kernel call. A
// reduction describes the input by its strides (ReduceArgs), so views are never copied.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "autograd/grad_ops.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "dispatch/kernel_table.h"
#include "dispatch/type_promotion.h"
#include "ember/ops.h"
#include "placement/placement.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

using detail::DeviceEntry;

// One bit per dim; ember tensors have at most 64 dims.
using DimMask = uint64_t;

void check_defined(const Tensor& x, const char* op) {
  EMBER_CHECK_ARG(x.defined(), "{}: the input is an undefined tensor", op);
}

DimMask all_dims(int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  return n >= 64 ? ~DimMask(0) : (DimMask(1) << n) - 1;
}

// torch's dim-list rules: wrapped negative dims, no repeats; an empty list means every dim.
DimMask dim_mask(IntArrayRef dims, int64_t ndim, const char* op) {
  if (dims.size() == 0) return all_dims(ndim);
  DimMask mask = 0;
  for (int64_t d : dims) {
    const int64_t w = detail::wrap_dim(d, ndim, op);
    EMBER_CHECK_ARG(!(mask >> w & 1), "{}: dim {} appears multiple times in the list of dims {}", op, w,
                    detail::shape_str(dims));
    mask |= DimMask(1) << w;
  }
  return mask;
}

int64_t size_or_one(const Tensor& x, int64_t d) { return x.dim() == 0 ? 1 : x.size(d); }

// max / amax / argmax have no identity: a reduced dim of size 0 is an error, as in torch.
void check_no_identity(const Tensor& x, DimMask mask, bool dims_given, const char* op) {
  if (x.numel() != 0) return;
  EMBER_CHECK_ARG(dims_given,
                  "{}: Expected reduction dim to be specified for input.numel() == 0. Specify the "
                  "reduction dim with the 'dim' argument (input shape {}).",
                  op, detail::shape_str(x.sizes()));
  for (int64_t d = 0; d < x.dim(); ++d)
    EMBER_CHECK_ARG(!(mask >> d & 1) || x.size(d) != 0,
                    "{}: Expected reduction dim {} to have non-zero size (input shape {}).", op, d,
                    detail::shape_str(x.sizes()));
}

struct ReduceSpec {
  ReduceSpec(Op op_, const char* name_, DimMask mask_, bool keepdim_, ScalarType compute_, ScalarType out_)
      : op(op_), name(name_), mask(mask_), keepdim(keepdim_), compute(compute_), out_dtype(out_) {}
  Op op;
  const char* name;
  DimMask mask;
  bool keepdim;
  ScalarType compute;    // the dtype the kernel reads (the input is cast to it)
  ScalarType out_dtype;  // the values' dtype
  bool values = true;    // argmax / argmin write indices only
  bool index = false;
  bool keep_order = false;  // the reduced dims' flat order matters (indices)
  KernelScalar param[2];
};

// Merges neighbouring dims (listed innermost first) that are one run in memory, in the
// input and, when given, in the output; the flat order of the elements is unchanged.
void coalesce(int& n, int64_t* sizes, int64_t* strides, int64_t* strides2) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && strides[i] == strides[m - 1] * sizes[m - 1] &&
        (!strides2 || strides2[i] == strides2[m - 1] * sizes[m - 1])) {
      sizes[m - 1] *= sizes[i];
      continue;
    }
    sizes[m] = sizes[i];
    strides[m] = strides[i];
    if (strides2) strides2[m] = strides2[i];
    ++m;
  }
  n = m;
}

std::tuple<Tensor, Tensor> run_reduce(const Tensor& x, const ReduceSpec& s) {
  Tensor in = x;
  DeviceEntry& dev = detail::place_op(s.op, &in, 1, s.compute);
  auto kernel = detail::lookup_kernel<ReduceKernel>(s.op, dev.device.type(), s.compute);
  if (in.dtype() != s.compute) in = in.to(s.compute);

  const int64_t ndim = in.dim();
  EMBER_CHECK_TYPED(ndim <= 64, NotImplemented, "{}: reductions take at most 64 dims, got {}", s.name, ndim);
  SizesVector out_shape, keep_shape;
  for (int64_t d = 0; d < ndim; ++d) {
    const bool red = s.mask >> d & 1;
    keep_shape.push_back(red ? 1 : in.size(d));
    if (!red || s.keepdim) out_shape.push_back(red ? 1 : in.size(d));
  }
  Tensor values = s.values ? detail::empty_on(out_shape, s.out_dtype, dev) : Tensor();
  Tensor index = s.index ? detail::empty_on(out_shape, kInt64, dev) : Tensor();
  const SizesVector out_strides = detail::contiguous_strides(keep_shape);

  ReduceArgs a;
  a.in_dtype = s.compute;
  a.out_dtype = s.values ? s.out_dtype : kInt64;
  a.param[0] = s.param[0];
  a.param[1] = s.param[1];
  a.reduce_size = 1;
  int64_t num_outputs = 1;
  constexpr int kMax = ReduceArgs::kMaxDims;
  // Dims beyond kMaxDims would overflow the arrays before coalescing; collect into
  // larger scratch arrays first.
  int64_t ks[64], kis[64], kos[64], rs[64], ris[64];
  int nk = 0, nr = 0;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    const int64_t size = in.size(d);
    if (s.mask >> d & 1) {
      a.reduce_size *= size;
      if (size == 1) continue;
      rs[nr] = size;
      ris[nr++] = in.stride(d);
    } else {
      num_outputs *= size;
      if (size == 1) continue;
      ks[nk] = size;
      kis[nk] = in.stride(d);
      kos[nk++] = out_strides[size_t(d)];
    }
  }
  if (!s.keep_order) {  // walk memory in order: smallest reduced stride innermost
    for (int i = 1; i < nr; ++i)
      for (int j = i; j > 0 && std::abs(ris[j]) < std::abs(ris[j - 1]); --j) {
        std::swap(ris[j], ris[j - 1]);
        std::swap(rs[j], rs[j - 1]);
      }
  }
  coalesce(nr, rs, ris, nullptr);
  coalesce(nk, ks, kis, kos);
  EMBER_CHECK_TYPED(nr <= kMax && nk <= kMax, NotImplemented,
                    "{}: input of shape {} has too many non-contiguous dims (at most {} reduced and {} kept)",
                    s.name, detail::shape_str(in.sizes()), kMax, kMax);
  if (nr == 0) {
    rs[0] = 1;
    ris[0] = 0;
    nr = 1;
  }
  a.nreduced = nr;
  a.nkept = nk;
  std::copy(rs, rs + nr, a.reduced_sizes);
  std::copy(ris, ris + nr, a.reduced_in_strides);
  std::copy(ks, ks + nk, a.kept_sizes);
  std::copy(kis, kis + nk, a.kept_in_strides);
  std::copy(kos, kos + nk, a.kept_out_strides);
  a.num_outputs = num_outputs;
  a.in = static_cast<const char*>(in.data_ptr());
  a.out = values.defined() ? static_cast<char*>(values.data_ptr()) : nullptr;
  a.out_index = index.defined() ? static_cast<char*>(index.data_ptr()) : nullptr;
  if (num_outputs > 0) kernel(a);
  return {values, index};
}

ScalarType sum_dtype(const Tensor& x, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(x.dtype(), true) ? kInt64 : x.dtype();
}

Tensor sum_like(Op op, const char* name, const Tensor& x, DimMask mask, bool keepdim,
                std::optional<ScalarType> dtype) {
  ReduceSpec s{op, name, mask, keepdim, dtype ? *dtype : x.dtype(), sum_dtype(x, dtype)};
  return std::get<0>(run_reduce(x, s));
}

Tensor mean_impl(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  if (x.defined() && EMBER_AUTOCAST_FP32(x, dtype)) return mean_impl(x.to(kFloat), dims, keepdim, dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::mean(x, dims, keepdim, dtype);
  check_defined(x, "mean()");
  if (dtype)
    EMBER_CHECK_ARG(is_floating_point(*dtype),
                    "mean(): could not infer output dtype. Optional dtype must be either a floating "
                    "point or complex dtype. Got: {}",
                    detail::torch_name(*dtype));
  else
    EMBER_CHECK_ARG(is_floating_point(x.dtype()),
                    "mean(): could not infer output dtype. Input dtype must be either a floating point "
                    "or complex dtype. Got: {}",
                    detail::torch_name(x.dtype()));
  const ScalarType t = dtype ? *dtype : x.dtype();
  ReduceSpec s{Op::Sum, "mean()", dim_mask(dims, x.dim(), "mean()"), keepdim, t, t};
  s.param[0].i = 1;  // divide by the reduced count
  return std::get<0>(run_reduce(x, s));
}

// max / min / amax / amin / argmax / argmin.
std::tuple<Tensor, Tensor> extreme(Op op, const char* name, const Tensor& x, DimMask mask,
                                   bool dims_given, bool keepdim, bool values, bool index) {
  check_no_identity(x, mask, dims_given, name);
  ReduceSpec s{op, name, mask, keepdim, x.dtype(), x.dtype()};
  s.values = values;
  s.index = s.keep_order = index;
  return run_reduce(x, s);
}

std::tuple<Tensor, Tensor> extreme_dim(Op op, const char* name, const Tensor& x, int64_t dim,
                                       bool keepdim, bool values) {
  check_defined(x, name);
  const int64_t d = detail::wrap_dim(dim, x.dim(), name);
  EMBER_CHECK_ARG(size_or_one(x, d) != 0,
                  "{}: Expected reduction dim {} to have non-zero size (input shape {}).", name, d,
                  detail::shape_str(x.sizes()));
  return extreme(op, name, x, DimMask(1) << d, true, keepdim, values, true);
}

// Divides by max(0, count - correction): unbiased is correction 1, biased 0.
Tensor var_impl(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim, bool take_sqrt) {
  if (x.defined() && EMBER_AUTOCAST_FP32(x, false))
    return var_impl(x.to(kFloat), dims, correction, keepdim, take_sqrt);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::var_std(x, dims, correction, keepdim, take_sqrt);
  const char* op = take_sqrt ? "std()" : "var()";
  check_defined(x, op);
  EMBER_CHECK_ARG(is_floating_point(x.dtype()),
                  "{}: std and var only support floating point and complex dtypes, but the input is {}", op,
                  detail::torch_name(x.dtype()));
  ReduceSpec s{Op::Var, op, dim_mask(dims, x.dim(), op), keepdim, x.dtype(), x.dtype()};
  s.param[0].f = double(correction);
  s.param[0].i = correction;
  s.param[1].i = take_sqrt ? 1 : 0;
  return std::get<0>(run_reduce(x, s));
}

Tensor norm_impl(const Tensor& x, const Scalar& p, IntArrayRef dims, bool keepdim) {
  if (x.defined() && EMBER_AUTOCAST_FP32(x, false)) return norm_impl(x.to(kFloat), p, dims, keepdim);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::norm(x, p, dims, keepdim);
  check_defined(x, "norm()");
  EMBER_CHECK_ARG(is_floating_point(x.dtype()),
                  "norm(): input dtype should be either floating point or complex. Got {} instead.",
                  detail::torch_name(x.dtype()));
  const double pv = p.to_double();
  EMBER_CHECK_ARG(!std::isnan(pv), "norm(): p must not be NaN");
  const DimMask mask = dim_mask(dims, x.dim(), "norm()");
  if (std::isinf(pv) && x.numel() == 0) {
    bool reduces_empty = x.dim() == 0;
    for (int64_t d = 0; d < x.dim(); ++d) reduces_empty |= (mask >> d & 1) && x.size(d) == 0;
    EMBER_CHECK_ARG(!reduces_empty,
                    "norm(): cannot compute the {} norm over a zero-size dim of the input of shape {} "
                    "because the operation does not have an identity",
                    pv > 0 ? "inf" : "-inf", detail::shape_str(x.sizes()));
  }
  ReduceSpec s{Op::Norm, "norm()", mask, keepdim, x.dtype(), x.dtype()};
  s.param[0].f = pv;
  return std::get<0>(run_reduce(x, s));
}

Tensor logical_reduce(Op op, const char* name, const Tensor& x, DimMask mask, bool keepdim) {
  ReduceSpec s{op, name, mask, keepdim, x.dtype(), kBool};
  return std::get<0>(run_reduce(x, s));
}

// softmax / log_softmax / cumsum: the input cast and made contiguous, then [outer, size, inner].
Tensor along_dim(Op op, const char* op_str, const Tensor& x, int64_t dim, ScalarType compute) {
  const int64_t d = detail::wrap_dim(dim, x.dim(), op_str);
  Tensor in = x;
  DeviceEntry& dev = detail::place_op(op, &in, 1, compute);
  auto kernel = detail::lookup_kernel<DimKernel>(op, dev.device.type(), compute);
  if (in.dtype() != compute) in = in.to(compute);
  in = in.contiguous();
  Tensor out = detail::empty_on(in.sizes(), compute, dev);
  DimArgs a;
  a.in_dtype = a.out_dtype = compute;
  a.size = size_or_one(in, d);
  for (int64_t i = 0; i < d; ++i) a.outer *= in.size(i);
  for (int64_t i = d + 1; i < in.dim(); ++i) a.inner *= in.size(i);
  a.in = static_cast<const char*>(in.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  if (in.numel() > 0) kernel(a);
  return out;
}

Tensor softmax_like(Op op, const char* op_str, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (x.defined() && EMBER_AUTOCAST_FP32(x, dtype)) return softmax_like(op, op_str, x.to(kFloat), dim, dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::softmax(x, dim, dtype, op == Op::LogSoftmax);
  check_defined(x, op_str);
  if (dtype)
    EMBER_CHECK_ARG(is_floating_point(*dtype), "{}: dtype must be a floating point dtype, got {}", op_str,
                    detail::torch_name(*dtype));
  return along_dim(op, op_str, x, dim, dtype ? *dtype : detail::to_floating(x.dtype()));
}

}  // namespace

// ---- sum, mean, prod
Tensor sum(const Tensor& x, std::optional<ScalarType> dtype) { return sum(x, IntArrayRef(), false, dtype); }
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined(x, "sum()");
  if (EMBER_AUTOCAST_FP32(x, dtype)) return sum(x.to(kFloat), dims, keepdim, dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::sum(x, dims, keepdim, dtype);
  return sum_like(Op::Sum, "sum()", x, dim_mask(dims, x.dim(), "sum()"), keepdim, dtype);
}
Tensor mean(const Tensor& x, std::optional<ScalarType> dtype) { return mean_impl(x, {}, false, dtype); }
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) {
  return mean_impl(x, dims, keepdim, dtype);
}
Tensor prod(const Tensor& x, std::optional<ScalarType> dtype) {
  check_defined(x, "prod()");
  if (EMBER_AUTOCAST_FP32(x, dtype)) return prod(x.to(kFloat), dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::prod(x, std::nullopt, false, dtype);
  return sum_like(Op::Prod, "prod()", x, all_dims(x.dim()), false, dtype);
}
Tensor prod(const Tensor& x, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_defined(x, "prod()");
  if (EMBER_AUTOCAST_FP32(x, dtype)) return prod(x.to(kFloat), dim, keepdim, dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::prod(x, dim, keepdim, dtype);
  return sum_like(Op::Prod, "prod()", x, dim_mask(dim, x.dim(), "prod()"), keepdim, dtype);
}

// ---- max, min, amax, amin, argmax, argmin
Tensor max(const Tensor& x) {
  check_defined(x, "max()");
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::amax_amin(true, "MaxBackward1", x, {}, false);
  return std::get<0>(extreme(Op::Max, "max()", x, all_dims(x.dim()), false, false, true, false));
}
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::max_min_dim(true, x, dim, keepdim);
  return extreme_dim(Op::Max, "max()", x, dim, keepdim, true);
}
Tensor min(const Tensor& x) {
  check_defined(x, "min()");
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::amax_amin(false, "MinBackward1", x, {}, false);
  return std::get<0>(extreme(Op::Min, "min()", x, all_dims(x.dim()), false, false, true, false));
}
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::max_min_dim(false, x, dim, keepdim);
  return extreme_dim(Op::Min, "min()", x, dim, keepdim, true);
}
Tensor amax(const Tensor& x, IntArrayRef dims, bool keepdim) {
  check_defined(x, "amax()");
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::amax_amin(true, "AmaxBackward0", x, dims, keepdim);
  return std::get<0>(
      extreme(Op::Max, "amax()", x, dim_mask(dims, x.dim(), "amax()"), dims.size() > 0, keepdim, true, false));
}
Tensor amin(const Tensor& x, IntArrayRef dims, bool keepdim) {
  check_defined(x, "amin()");
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::amax_amin(false, "AminBackward0", x, dims, keepdim);
  return std::get<0>(
      extreme(Op::Min, "amin()", x, dim_mask(dims, x.dim(), "amin()"), dims.size() > 0, keepdim, true, false));
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_dim(Op::ArgMax, "argmax()", x, *dim, keepdim, false));
  check_defined(x, "argmax()");
  return std::get<1>(extreme(Op::ArgMax, "argmax()", x, all_dims(x.dim()), false, keepdim, false, true));
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return std::get<1>(extreme_dim(Op::ArgMin, "argmin()", x, *dim, keepdim, false));
  check_defined(x, "argmin()");
  return std::get<1>(extreme(Op::ArgMin, "argmin()", x, all_dims(x.dim()), false, keepdim, false, true));
}

// ---- var, std, norm, logsumexp
Tensor var(const Tensor& x, bool unbiased) { return var_impl(x, {}, unbiased, false, false); }
Tensor var(const Tensor& x, int dim, bool unbiased, bool keepdim) {
  const int64_t d = dim;
  return var_impl(x, IntArrayRef(d), unbiased, keepdim, false);
}
Tensor var(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return var_impl(x, dims, unbiased, keepdim, false);
}
Tensor var(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction, bool keepdim) {
  return var_impl(x, dims, correction.value_or(1), keepdim, false);
}
Tensor std(const Tensor& x, bool unbiased) { return var_impl(x, {}, unbiased, false, true); }
Tensor std(const Tensor& x, int dim, bool unbiased, bool keepdim) {
  const int64_t d = dim;
  return var_impl(x, IntArrayRef(d), unbiased, keepdim, true);
}
Tensor std(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return var_impl(x, dims, unbiased, keepdim, true);
}
Tensor std(const Tensor& x, IntArrayRef dims, std::optional<int64_t> correction, bool keepdim) {
  return var_impl(x, dims, correction.value_or(1), keepdim, true);
}
Tensor norm(const Tensor& x, const Scalar& p) { return norm_impl(x, p, {}, false); }
Tensor norm(const Tensor& x, const Scalar& p, IntArrayRef dims, bool keepdim) {
  return norm_impl(x, p, dims, keepdim);
}
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim) {
  check_defined(x, "logsumexp()");
  if (EMBER_AUTOCAST_FP32(x, false)) return logsumexp(x.to(kFloat), dims, keepdim);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::logsumexp(x, dims, keepdim);
  const ScalarType t = detail::to_floating(x.dtype());  // integers give float32, as torch
  ReduceSpec s{Op::LogSumExp, "logsumexp()", dim_mask(dims, x.dim(), "logsumexp()"), keepdim, t, t};
  return std::get<0>(run_reduce(x, s));
}

// ---- all, any
Tensor all(const Tensor& x) {
  check_defined(x, "all()");
  return logical_reduce(Op::All, "all()", x, all_dims(x.dim()), false);
}
Tensor all(const Tensor& x, int64_t dim, bool keepdim) {
  check_defined(x, "all()");
  return logical_reduce(Op::All, "all()", x, dim_mask(dim, x.dim(), "all()"), keepdim);
}
Tensor any(const Tensor& x) {
  check_defined(x, "any()");
  return logical_reduce(Op::Any, "any()", x, all_dims(x.dim()), false);
}
Tensor any(const Tensor& x, int64_t dim, bool keepdim) {
  check_defined(x, "any()");
  return logical_reduce(Op::Any, "any()", x, dim_mask(dim, x.dim(), "any()"), keepdim);
}

// ---- softmax, log_softmax, cumsum
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like(Op::Softmax, "softmax()", x, dim, dtype);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_like(Op::LogSoftmax, "log_softmax()", x, dim, dtype);
}
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  check_defined(x, "cumsum()");
  if (EMBER_AUTOCAST_FP32(x, dtype)) return cumsum(x.to(kFloat), dim, dtype);
  if (EMBER_GRAD_RECORDING(x)) return autograd::detail::cumsum(x, dim, dtype);
  return along_dim(Op::Cumsum, "cumsum()", x, dim, sum_dtype(x, dtype));
}

// ---- Tensor methods
Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dims, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dims, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return ember::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return ember::amin(*this, dims, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return ember::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return ember::argmin(*this, dim, keepdim); }
Tensor Tensor::var(bool unbiased) const { return ember::var(*this, unbiased); }
Tensor Tensor::var(int dim, bool unbiased, bool keepdim) const { return ember::var(*this, dim, unbiased, keepdim); }
Tensor Tensor::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return ember::var(*this, dims, unbiased, keepdim);
}
Tensor Tensor::var(IntArrayRef dims, std::optional<int64_t> correction, bool keepdim) const {
  return ember::var(*this, dims, correction, keepdim);
}
Tensor Tensor::std(bool unbiased) const { return ember::std(*this, unbiased); }
Tensor Tensor::std(int dim, bool unbiased, bool keepdim) const { return ember::std(*this, dim, unbiased, keepdim); }
Tensor Tensor::std(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return ember::std(*this, dims, unbiased, keepdim);
}
Tensor Tensor::std(IntArrayRef dims, std::optional<int64_t> correction, bool keepdim) const {
  return ember::std(*this, dims, correction, keepdim);
}
Tensor Tensor::norm(const Scalar& p) const { return ember::norm(*this, p); }
Tensor Tensor::norm(const Scalar& p, IntArrayRef dims, bool keepdim) const {
  return ember::norm(*this, p, dims, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const { return ember::logsumexp(*this, dims, keepdim); }
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}

}  // namespace ember
