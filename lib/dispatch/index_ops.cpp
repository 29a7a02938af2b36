// index_select, index_add_, nonzero, masked_select, and the block gather / put that
// advanced indexing stands on. A tensor is described to the index kernels as
// [outer, size, inner] by strides (views are not copied when their dims collapse);
// out-of-range positions come back from the kernel as a typed error.
#include "dispatch/index_ops.h"

#include <cmath>
#include <optional>
#include <string>

#include "autograd/grad_index.h"
#include "autograd/grad_ops.h"
#include "autograd/hooks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/kernel_table.h"
#include "ember/device_api.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace detail {

namespace {

// Dims [b, e) of (sizes, strides) as one dim of n elements with stride st, if they
// collapse (size-1 dims are ignored; an empty range is one element).
bool collapse(IntArrayRef sizes, IntArrayRef strides, int64_t b, int64_t e, int64_t& n, int64_t& st) {
  n = 1;
  st = 0;
  bool have = false;
  int64_t expect = 0;
  for (int64_t d = e - 1; d >= b; --d) {
    const int64_t sz = sizes[size_t(d)];
    if (sz == 0) {  // nothing is ever addressed
      n = 0;
      st = 0;
      return true;
    }
    if (sz == 1) continue;
    if (!have) {
      st = strides[size_t(d)];
      have = true;
    } else if (strides[size_t(d)] != expect) {
      return false;
    }
    n *= sz;
    expect = st * n;
  }
  return true;
}

// t viewed as [outer, size, inner] around dims [b, e): strides into st[3].
bool as3(const Tensor& t, int64_t b, int64_t e, int64_t st[3], int64_t& outer, int64_t& size, int64_t& inner) {
  return collapse(t.sizes(), t.strides(), 0, b, outer, st[0]) && collapse(t.sizes(), t.strides(), b, e, size, st[1]) &&
         collapse(t.sizes(), t.strides(), e, t.dim(), inner, st[2]);
}

// Runs the kernel; the out-of-range position it reported, if any.
std::optional<int64_t> run_select(IndexKernel kernel, IndexArgs& a, DeviceEntry& dev) {
  if (dev.device.is_cpu()) {
    int64_t err[2] = {0, 0};
    a.error = err;
    kernel(a);
    if (err[0]) return err[1];
    return std::nullopt;
  }
  Tensor err = empty_on({2}, kInt64, dev);
  err.zero_();
  a.error = err.data_ptr<int64_t>();
  kernel(a);
  Tensor host = err.cpu();  // synchronizes with the kernel
  if (host.data_ptr<int64_t>()[0]) return host.data_ptr<int64_t>()[1];
  return std::nullopt;
}

[[noreturn]] void throw_out_of_range(const IndexErrorText& err, int64_t pos, int64_t size) {
  if (err.op)
    EMBER_THROW(InvalidArgument, "{}: index out of range in self (index {} for dimension {} with size {})", err.op, pos,
                err.user_dim, size);
  EMBER_CHECK_ARG(size > 0, "index is out of bounds for dimension with size 0");  // libtorch's text
  EMBER_THROW(InvalidArgument, "index {} is out of bounds for dimension {} with size {}", pos, err.user_dim, size);
}

// The positions as one strided run: (pointer source, stride).
Tensor flat_index(const Tensor& lin, int64_t& stride) {
  Tensor idx = lin.reshape({-1});
  stride = idx.numel() > 1 ? idx.stride(0) : 1;
  return idx;
}

}  // namespace

Tensor gather_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, bool allow_negative,
                    const IndexErrorText& err) {
  Tensor ins[2] = {t, lin};
  DeviceEntry& dev = place_op(Op::IndexSelect, ins, 2, t.dtype());
  auto kernel = lookup_kernel<IndexKernel>(Op::IndexSelect, dev.device.type(), t.dtype());
  IndexArgs a;
  Tensor src = ins[0];
  if (!as3(src, b, e, a.self_strides, a.outer, a.size, a.inner)) {
    src = src.contiguous();
    as3(src, b, e, a.self_strides, a.outer, a.size, a.inner);
  }
  Tensor idx = flat_index(ins[1], a.index_stride);
  SizesVector out_sizes;
  for (int64_t d = 0; d < b; ++d) out_sizes.push_back(t.size(d));
  for (int64_t s : lin.sizes()) out_sizes.push_back(s);
  for (int64_t d = e; d < t.dim(); ++d) out_sizes.push_back(t.size(d));
  Tensor out = empty_on(out_sizes.ref(), t.dtype(), dev);
  a.nindex = idx.numel();
  if (a.nindex == 0) return out;
  a.dtype = t.dtype();
  a.allow_negative = allow_negative;
  a.self = static_cast<char*>(src.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  a.index = idx.data_ptr<int64_t>();
  a.other_strides[2] = 1;
  a.other_strides[1] = a.inner;
  a.other_strides[0] = a.inner * a.nindex;
  if (auto bad = run_select(kernel, a, dev)) throw_out_of_range(err, *bad, a.size);
  return out;
}

void put_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, const Tensor& src, bool accumulate,
               bool allow_negative, const IndexErrorText& err) {
  const Op op = accumulate ? Op::IndexAdd : Op::IndexCopy;
  DeviceScope scope(t.device());  // in place: the op runs where self lives
  Tensor ins[3] = {t, lin, src};
  DeviceEntry& dev = place_op(op, ins, 3, t.dtype());
  auto kernel = lookup_kernel<IndexKernel>(op, dev.device.type(), t.dtype());
  IndexArgs a;
  Tensor tgt = t;
  const bool via_temp = !as3(tgt, b, e, a.self_strides, a.outer, a.size, a.inner);
  if (via_temp) {
    tgt = t.contiguous();
    as3(tgt, b, e, a.self_strides, a.outer, a.size, a.inner);
  }
  Tensor s = ins[2];
  // A source that shares self's memory is read from a copy, as the writes may reach it.
  if (s.storage().get() == t.storage().get()) s = s.clone();
  int64_t so = 0, sn = 0, si = 0;
  if (!as3(s, b, b + lin.dim(), a.other_strides, so, sn, si)) {
    s = s.contiguous();
    as3(s, b, b + lin.dim(), a.other_strides, so, sn, si);
  }
  Tensor idx = flat_index(ins[1], a.index_stride);
  a.nindex = idx.numel();
  if (a.nindex == 0) return;
  a.dtype = t.dtype();
  a.allow_negative = allow_negative;
  a.self = static_cast<char*>(tgt.data_ptr());
  a.src = static_cast<const char*>(s.data_ptr());
  a.index = idx.data_ptr<int64_t>();
  if (auto bad = run_select(kernel, a, dev)) throw_out_of_range(err, *bad, a.size);
  if (via_temp) const_cast<Tensor&>(t).copy_(tgt);
  else
    bump_version(t);  // tensors saved for backward before this write see it
}

Tensor flat_nonzero(const Tensor& mask) {
  Tensor m = mask;
  DeviceEntry& dev = place_op(Op::Nonzero, &m, 1, kBool);
  auto kernel = lookup_kernel<IndexKernel>(Op::Nonzero, dev.device.type(), kBool);
  m = m.contiguous();
  const int64_t count = m.numel() == 0 ? 0 : m.sum().item<int64_t>();
  Tensor out = empty_on({count}, kInt64, dev);
  if (count == 0) return out;
  IndexArgs a;
  a.dtype = kBool;
  a.self = static_cast<char*>(m.data_ptr());
  a.size = m.numel();
  a.nindex = count;
  a.out = static_cast<char*>(out.data_ptr());
  kernel(a);
  return out;
}

}  // namespace detail

namespace {

void check_defined(const Tensor& x, const char* op, const char* what) {
  EMBER_CHECK_ARG(x.defined(), "{}: {} is an undefined tensor", op, what);
}

// index_select / index_add_'s index: int32 or int64, at most 1-D; returned as int64.
Tensor vector_index(const Tensor& index, const char* op) {
  check_defined(index, op, "the index");
  // libtorch's two wordings, each naming the dtype it got as libtorch does ("Short").
  const bool ok = index.dtype() == kInt64 || index.dtype() == kInt32;
  EMBER_CHECK_ARG(ok || std::string(op) != "index_add_()",
                  "index_add_(): Expected dtype int32/int64 for index but got: {}",
                  detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(ok, "{}: Expected dtype int32 or int64 for index, got {}", op,
                  detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(index.dim() <= 1, "{}: Index is supposed to be a vector, got a {}-dim tensor", op, index.dim());
  return index.dtype() == kInt64 ? index.reshape({-1}) : index.to(kInt64).reshape({-1});
}

}  // namespace

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  check_defined(self, "index_select()", "self");
  if (EMBER_GRAD_RECORDING(self)) return autograd::detail::index_select(self, dim, index);
  Tensor idx = vector_index(index, "index_select()");
  const int64_t d = detail::wrap_dim(dim, self.dim(), "index_select()");
  if (self.dim() == 0) {
    EMBER_CHECK_ARG(idx.numel() == 1, "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                    idx.numel());
    return detail::gather_block(self.reshape({1}), 0, 1, idx, false, {"index_select()", 0}).reshape({});
  }
  return detail::gather_block(self, d, d + 1, idx, false, {"index_select()", d});
}

Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) const {
  const char* op = "index_add_()";
  check_defined(*this, op, "self");
  check_defined(source, op, "source");
  detail::check_writable(*this);
  detail::check_no_indexed_write_overlap(*this, {&index, &source}, op);
  if (EMBER_GRAD_RECORDING2(*this, source)) {
    autograd::detail::index_add_(const_cast<Tensor&>(*this), dim, index, source, alpha);
    return const_cast<Tensor&>(*this);
  }
  Tensor idx = vector_index(index, op);
  const int64_t d = detail::wrap_dim(dim, this->dim(), op);
  EMBER_CHECK_ARG(dtype() == source.dtype(), "{}: self ({}) and source ({}) must have the same scalar type", op,
                  detail::torch_name(dtype()), detail::torch_name(source.dtype()));
  Tensor self = this->dim() == 0 ? reshape({1}) : *this;
  Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  EMBER_CHECK_ARG(src.dim() == self.dim(),
                  "{}: source ({} dims) must have as many dims as self ({} dims)", op, src.dim(), self.dim());
  EMBER_CHECK_ARG(idx.numel() == src.size(d),
                  "{}: Number of indices ({}) should be equal to source.size(dim): ({}), for dim: {}", op, idx.numel(),
                  src.size(d), d);
  for (int64_t k = 0; k < self.dim(); ++k)
    EMBER_CHECK_ARG(k == d || src.size(k) == self.size(k),
                    "{}: source {} and self {} must have the same size in every dim but {}", op,
                    detail::shape_str(src.sizes()), detail::shape_str(self.sizes()), d);
  if (!(alpha.to<double>() == 1.0)) src = src.mul(alpha).to(dtype());
  detail::put_block(self, d, d + 1, idx, src, true, false, {op, d});
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  check_defined(*this, "index_add()", "self");
  Tensor r = clone();
  r.index_add_(dim, index, source, alpha);
  return r;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return self.index_add(dim, index, source, alpha);
}

// ---- index_copy: libtorch 1.13's checks in its order; the rows are written by the put
// kernel after the bounds check, so a failing call leaves self unchanged.
namespace {
std::string slice_shape(IntArrayRef sizes, int64_t dim) {
  std::string s;
  for (int64_t k = 0; k < int64_t(sizes.size()); ++k)
    if (k != dim) s += (s.empty() ? "" : " ") + std::to_string(sizes[size_t(k)]);
  return s;
}
}  // namespace

namespace detail {
void check_index_copy(const Tensor& self, int64_t d, const Tensor& index, const Tensor& source) {
  const char* op = "index_copy_()";
  EMBER_CHECK_ARG(index.dim() < 2, "{}: Index should have dimension 1 or 0 (got {})", op, index.dim());
  const int64_t n = index.numel();
  EMBER_CHECK_ARG(source.dim() != 0 || n == 1,
                  "{}: When source is scalar, index should have one element (got {})", op, n);
  EMBER_CHECK_ARG(source.dim() == self.dim() || source.dim() == 0 || self.dim() == 0,
                  "{}: When source and destination are not scalars, their dimensionality must match. Source "
                  "dimensionality ({}), destination dimensionality ({})",
                  op, source.dim(), self.dim());
  EMBER_CHECK_ARG(index.dtype() == kInt64, "{}: Expected a long tensor for index, but got {}", op,
                  detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(self.dtype() == source.dtype(),
                  "{}: self and source expected to have the same dtype, but got (self) {} and (source) {}",
                  op, detail::torch_name(self.dtype()), detail::torch_name(source.dtype()));
  EMBER_CHECK_ARG(
      self.device() == source.device() && self.device() == index.device(),
      "{}: self, index and source must be on one device, but got self on {}, index on {} and source on {}",
      op, self.device().str(), index.device().str(), source.device().str());
  const std::string dst_slice = slice_shape(self.sizes(), self.dim() == 0 ? -1 : d);
  const std::string src_slice = slice_shape(source.sizes(), source.dim() == 0 ? -1 : d);
  EMBER_CHECK_ARG(dst_slice == src_slice,
                  "{}: Source/destination tensor must have same slice shapes. Destination slice shape: {} at "
                  "dimension {} and source slice shape: {} at dimension 0.",
                  op, dst_slice, d, src_slice);
  EMBER_CHECK_ARG(source.dim() == 0 || n == source.size(d),
                  "{}: Number of indices ({}) should be equal to source.size(dim) ({})", op, n,
                  source.size(d));
  const int64_t size = self.dim() == 0 ? 1 : self.size(d);
  if (n == 0) return;
  const Tensor bad = masked_select(index, logical_or(index < 0, index >= size));
  EMBER_CHECK_ARG(bad.numel() == 0, "{}: index {} is out of bounds for dimension {} with size {}", op,
                  bad.numel() ? bad.reshape({-1})[0].item<int64_t>() : 0, d, size);
}
}  // namespace detail

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  const char* op = "index_copy_()";
  check_defined(*this, op, "self");
  check_defined(index, op, "index");
  check_defined(source, op, "source");
  detail::check_writable(*this);
  detail::check_no_indexed_write_overlap(*this, {&index, &source}, op);
  if (EMBER_GRAD_RECORDING2(*this, source)) {
    autograd::detail::index_copy_(const_cast<Tensor&>(*this), dim, index, source);
    return const_cast<Tensor&>(*this);
  }
  const int64_t d = detail::wrap_dim(dim, this->dim(), op);
  detail::check_index_copy(*this, d, index, source);
  if (index.numel() == 0) return const_cast<Tensor&>(*this);
  Tensor self = this->dim() == 0 ? reshape({1}) : *this;
  Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  detail::put_block(self, d, d + 1, index.reshape({-1}), src, false, false, {op, d});
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  check_defined(*this, "index_copy()", "self");
  Tensor r = clone();
  r.index_copy_(dim, index, source);
  return r;
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return self.index_copy(dim, index, source);
}

std::vector<Tensor> where(const Tensor& cond) {
  check_defined(cond, "where()", "condition");
  // libtorch's nonzero_numpy: a 0-dim condition is one element.
  return (cond.dim() == 0 ? cond.unsqueeze(0) : cond).nonzero().unbind(1);
}

Tensor nonzero(const Tensor& self) {
  check_defined(self, "nonzero()", "self");
  Tensor mask = self.dtype() == kBool ? self : self.ne(0);
  Tensor flat = detail::flat_nonzero(mask);
  const int64_t n = self.dim();
  if (n == 0) return empty({flat.numel(), 0}, TensorOptions(kInt64).device(flat.device()));
  if (n == 1) return flat.unsqueeze(1);
  // Coordinates from flat positions: floor(p / stride) % size, exact in double below 2^53.
  Tensor p = flat.to(kDouble);
  std::vector<Tensor> cols;
  int64_t stride = 1;
  std::vector<int64_t> strides(size_t(n), 1);
  for (int64_t d = n - 1; d >= 0; --d) {
    strides[size_t(d)] = stride;
    stride *= self.size(d);
  }
  for (int64_t d = 0; d < n; ++d) cols.push_back(ember::floor(p / double(strides[size_t(d)])).remainder(double(self.size(d))).to(kInt64));
  return stack(cols, 1);
}
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  check_defined(self, "masked_select()", "self");
  check_defined(mask, "masked_select()", "the mask");
  EMBER_CHECK_ARG(mask.dtype() == kBool || mask.dtype() == kUInt8,
                  "masked_select: expected BoolTensor or ByteTensor for mask, got {}",
                  detail::torch_name(mask.dtype()));
  const SizesVector shape = detail::broadcast_shapes(self.sizes(), mask.sizes(), "masked_select()");
  Tensor m = mask.dtype() == kBool ? mask : mask.to(kBool);
  Tensor flat = detail::flat_nonzero(m.expand(shape.ref()));
  if (EMBER_GRAD_RECORDING(self)) return autograd::detail::masked_select(self, flat, shape.ref());
  return detail::gather_block(self.expand(shape.ref()).reshape({-1}), 0, 1, flat, false, {"masked_select()", 0});
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { return ember::index_select(*this, dim, index); }

}  // namespace ember
