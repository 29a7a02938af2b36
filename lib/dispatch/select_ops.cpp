// Selection ops: gather, scatter, scatter_add, masked_fill, one_hot, sort, argsort, topk.
// Argument checks and messages follow libtorch's; out-of-range indices come back from
// the kernel through a two-int64 status block on the op's device (Note [Select kernels]).
#include <cstring>
#include <string>

#include "autograd/grad_index.h"
#include "autograd/grad_ops.h"
#include "autograd/hooks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/index_ops.h"
#include "dispatch/kernel_table.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::DeviceEntry;

namespace {

void check_defined(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK_ARG(t.defined(), "{}: {} is an undefined tensor", op, what);
}

int64_t size_or_one(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }
int64_t stride_or_zero(const Tensor& t, int64_t d) { return t.dim() == 0 ? 0 : t.stride(d); }

// Two int64 on the op's device, zeroed: the kernel's out-of-range report.
Tensor make_status(DeviceEntry& dev) {
  Tensor s = detail::empty_on({2}, kInt64, dev);
  if (dev.device.is_cpu()) std::memset(s.data_ptr(), 0, 2 * sizeof(int64_t));
  else detail::fill_tensor(s, 0);
  return s;
}

void check_status(const Tensor& status, const char* op, int64_t dim, int64_t size) {
  Tensor host = status.is_cpu() ? status : status.cpu();
  const int64_t* p = host.data_ptr<int64_t>();
  EMBER_CHECK_ARG(p[0] == 0, "{}: index {} is out of bounds for dimension {} with size {}", op, p[1], dim, size);
}

// Fills the loop over the index's shape; the indexed operand has stride 0 along dim.
void fill_loop(SelectArgs& a, const Tensor& index, const Tensor& out, const Tensor* in, int64_t dim,
               bool out_indexed) {
  const int64_t nd = index.dim();
  a.ndim = int(nd);
  a.numel = index.numel();
  for (int64_t k = 0; k < nd; ++k) {
    const int64_t d = nd - 1 - k;
    a.sizes[k] = index.size(d);
    a.index_strides[k] = index.stride(d);
    a.out_strides[k] = out_indexed && d == dim ? 0 : stride_or_zero(out, d);
    a.in_strides[k] = in ? (!out_indexed && d == dim ? 0 : stride_or_zero(*in, d)) : 0;
  }
}

void check_index_dims(const char* op, const Tensor& self, const Tensor& index) {
  EMBER_CHECK_ARG(index.dtype() == kInt64, "{}(): Expected dtype int64 for index, got {}", op,
                  detail::torch_name(index.dtype()));
  EMBER_CHECK_ARG(index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
                  "{}: Index tensor must have the same number of dimensions as {} tensor ({} vs {})", op,
                  std::string(op) == "gather" ? "input" : "self", index.dim(), self.dim());
  EMBER_CHECK_ARG(index.dim() <= SelectArgs::kMaxDims, "{}: at most {} dims are supported, got {}", op,
                  SelectArgs::kMaxDims, index.dim());
}

Tensor& scatter_impl(const char* op, Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     const Scalar* value, int reduce) {
  check_defined(self, op, "self");
  check_defined(index, op, "index");
  detail::check_writable(self);
  detail::check_no_indexed_write_overlap(self, {&index, src}, op);
  const int64_t d = detail::wrap_dim(dim, self.dim(), op);
  check_index_dims(op, self, index);
  if (src) {
    check_defined(*src, op, "src");
    EMBER_CHECK_ARG(src->dtype() == self.dtype(),
                    "{}(): Expected self.dtype to be equal to src.dtype (got {} and {})", op,
                    detail::torch_name(self.dtype()), detail::torch_name(src->dtype()));
    EMBER_CHECK_ARG(index.dim() == src->dim() || (index.dim() <= 1 && src->dim() <= 1),
                    "{}: Index tensor must have the same number of dimensions as src tensor ({} vs {})", op,
                    index.dim(), src->dim());
  }
  for (int64_t i = 0; i < index.dim(); ++i) {
    const bool ok = (i == d || index.size(i) <= size_or_one(self, i)) && (!src || index.size(i) <= size_or_one(*src, i));
    EMBER_CHECK_ARG(ok,
                    "{}: Expected index {} to be smaller than self {} apart from dimension {}{}{}", op,
                    detail::shape_str(index.sizes()), detail::shape_str(self.sizes()), d,
                    src ? " and to be smaller size than src " : "", src ? detail::shape_str(src->sizes()) : "");
  }
  if (EMBER_GRAD_RECORDING2(self, src ? *src : self)) {
    const bool is_add = reduce == 1 && std::strcmp(op, "scatter_add") == 0;
    if (reduce == 0 || is_add) return autograd::detail::scatter_(self, d, index, src, value, is_add);
    EMBER_CHECK_TYPED(!self.requires_grad() && !(src && src->requires_grad()), NotImplemented,
                      "{}: the derivative of scatter with reduce='{}' is not implemented", op, reduce == 1 ? "add" : "multiply");
  }
  Tensor inputs[3] = {self, index, src ? *src : Tensor()};
  DeviceEntry& dev = detail::place_op(Op::Scatter, inputs, src ? 3 : 2, self.dtype());
  EMBER_CHECK_ARG(inputs[0].is_same(self), "{}: self lives on {} but the op runs on {}; move it first", op,
                  self.device().str(), dev.device.str());
  auto kernel = detail::lookup_kernel<SelectKernel>(Op::Scatter, dev.device.type(), self.dtype());
  if (index.numel() == 0) return self;
  Tensor status = make_status(dev);
  SelectArgs a;
  fill_loop(a, inputs[1], self, src ? &inputs[2] : nullptr, d, true);
  a.out = static_cast<char*>(self.data_ptr());
  a.in = src ? static_cast<const char*>(inputs[2].data_ptr()) : nullptr;
  a.index = inputs[1].data_ptr<int64_t>();
  a.status = status.data_ptr<int64_t>();
  a.dim_size = size_or_one(self, d);
  a.indexed_stride = stride_or_zero(self, d);
  a.dtype = self.dtype();
  a.reduce = reduce;
  if (value) {
    a.in_is_scalar = true;
    detail::store_scalar(a.scalar_value, *value, self.dtype());
  }
  kernel(a);
  check_status(status, op, d, a.dim_size);
  return self;
}

}  // namespace

Tensor& detail::scatter_combine_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                 int mode) {
  NoGradGuard no_grad;
  return scatter_impl("scatter_reduce", self, dim, index, &src, nullptr, mode);
}

namespace {

int reduce_mode(const std::string& reduce) {
  if (reduce == "add") return 1;
  if (reduce == "multiply") return 2;
  EMBER_THROW(InvalidArgument, "scatter: reduce argument must be either add or multiply, got '{}'", reduce);
}

Scalar value_of(const Tensor& value) {
  check_defined(value, "masked_fill", "value");
  EMBER_CHECK_ARG(value.dim() == 0,
                  "masked_fill_: only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                  value.dim());
  if (value.dtype() == kBool) return Scalar(value.item<bool>());
  if (is_integral(value.dtype())) return Scalar(value.item<int64_t>());
  return Scalar(value.item<double>());
}

}  // namespace

// ---- gather
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  (void)sparse_grad;  // only changes the gradient's layout in libtorch
  check_defined(self, "gather", "self");
  check_defined(index, "gather", "index");
  const int64_t d = detail::wrap_dim(dim, self.dim(), "gather");
  check_index_dims("gather", self, index);
  if (EMBER_GRAD_RECORDING(self)) return autograd::detail::gather(self, dim, index);
  for (int64_t i = 0; i < index.dim(); ++i)
    EMBER_CHECK_ARG(i == d || index.size(i) <= size_or_one(self, i),
                    "gather: Size does not match at dimension {} expected index {} to be smaller than self {} apart "
                    "from dimension {}",
                    i, detail::shape_str(index.sizes()), detail::shape_str(self.sizes()), d);
  Tensor inputs[2] = {self, index};
  DeviceEntry& dev = detail::place_op(Op::Gather, inputs, 2, self.dtype());
  auto kernel = detail::lookup_kernel<SelectKernel>(Op::Gather, dev.device.type(), self.dtype());
  Tensor out = detail::empty_on(index.sizes(), self.dtype(), dev);
  if (index.numel() == 0) return out;
  Tensor status = make_status(dev);
  SelectArgs a;
  fill_loop(a, inputs[1], out, &inputs[0], d, false);
  a.out = static_cast<char*>(out.data_ptr());
  a.in = static_cast<const char*>(inputs[0].data_ptr());
  a.index = inputs[1].data_ptr<int64_t>();
  a.status = status.data_ptr<int64_t>();
  a.dim_size = size_or_one(inputs[0], d);
  a.indexed_stride = stride_or_zero(inputs[0], d);
  a.dtype = self.dtype();
  kernel(a);
  check_status(status, "gather", d, a.dim_size);
  return out;
}

// ---- scatter family (out-of-place ones scatter into a clone)
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_impl("scatter", const_cast<Tensor&>(*this), dim, index, &src, nullptr, 0);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  return scatter_impl("scatter", const_cast<Tensor&>(*this), dim, index, nullptr, &value, 0);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         const std::string& reduce) const {
  return scatter_impl("scatter", const_cast<Tensor&>(*this), dim, index, &src, nullptr,
                      reduce_mode(reduce));
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                         const std::string& reduce) const {
  return scatter_impl("scatter", const_cast<Tensor&>(*this), dim, index, nullptr, &value,
                      reduce_mode(reduce));
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  return scatter_impl("scatter_add", const_cast<Tensor&>(*this), dim, index, &src, nullptr, 1);
}

namespace {
Tensor cloned(const Tensor& self, const char* op) {
  check_defined(self, op, "self");
  return self.clone();
}
}  // namespace

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return cloned(self, "scatter").scatter_(dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return cloned(self, "scatter").scatter_(dim, index, value);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  return cloned(self, "scatter").scatter_(dim, index, src, reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) {
  return cloned(self, "scatter").scatter_(dim, index, value, reduce);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return cloned(self, "scatter_add").scatter_add_(dim, index, src);
}

// ---- masked_fill: where(mask, value, self) in self's dtype
namespace {
void check_masked_fill(const Tensor& self, const Tensor& mask, bool in_place) {
  const char* op = in_place ? "masked_fill_" : "masked_fill";
  check_defined(self, op, "self");
  check_defined(mask, op, "mask");
  EMBER_CHECK_ARG(mask.dtype() == kBool, "{}: only supports boolean masks, but got mask with dtype {}", op,
                  detail::torch_name(mask.dtype()));
  const SizesVector shape = detail::broadcast_shapes(self.sizes(), mask.sizes(), op);
  EMBER_CHECK_ARG(!in_place || shape.ref() == self.sizes(),
                  "masked_fill_: output with shape {} doesn't match the broadcast shape {}",
                  detail::shape_str(self.sizes()), detail::shape_str(shape.ref()));
}
}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_masked_fill(self, mask, false);
  if (EMBER_GRAD_RECORDING(self)) return autograd::detail::masked_fill(self, mask, value, nullptr);
  return where(mask, full({}, value, self.options()), self);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const Scalar v = value_of(value);
  if (!EMBER_GRAD_RECORDING(self) && !EMBER_GRAD_RECORDING(value)) return masked_fill(self, mask, v);
  check_masked_fill(self, mask, false);
  return autograd::detail::masked_fill(self, mask, v, &value);  // MaskedFillBackward1: value's gradient too
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  check_masked_fill(*this, mask, true);
  if (EMBER_GRAD_RECORDING(*this)) {
    autograd::detail::masked_fill_(const_cast<Tensor&>(*this), mask, value, nullptr);
    return const_cast<Tensor&>(*this);
  }
  return copy_(where(mask, full({}, value, options()), *this));
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  const Scalar v = value_of(value);
  if (!EMBER_GRAD_RECORDING(*this) && !EMBER_GRAD_RECORDING(value)) return masked_fill_(mask, v);
  check_masked_fill(*this, mask, true);
  autograd::detail::masked_fill_(const_cast<Tensor&>(*this), mask, v, &value);
  return const_cast<Tensor&>(*this);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { return ember::masked_fill(*this, mask, value); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const { return ember::masked_fill(*this, mask, value); }

// ---- one_hot
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  check_defined(self, "one_hot", "self");
  EMBER_CHECK_ARG(self.dtype() == kInt64, "one_hot: is only applicable to index tensor, got dtype {}",
                  detail::torch_name(self.dtype()));
  if (num_classes == -1) {
    EMBER_CHECK_ARG(self.numel() > 0, "one_hot: Can not infer total number of classes from empty tensor.");
    num_classes = self.max().item<int64_t>() + 1;
  }
  if (self.numel() > 0) {
    const int64_t lo = self.min().item<int64_t>();
    EMBER_CHECK_ARG(lo >= 0, "one_hot: Class values must be non-negative, got {}", lo);
    const int64_t hi = self.max().item<int64_t>();
    EMBER_CHECK_ARG(hi < num_classes, "one_hot: Class values must be smaller than num_classes ({}), got {}",
                    num_classes, hi);
  }
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, self.options());
  if (self.numel() == 0) return out;
  return out.scatter_(-1, self.unsqueeze(-1), 1);
}

// ---- sort, argsort, topk
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  check_defined(self, "sort", "self");
  const int64_t d = detail::wrap_dim(dim, self.dim(), "sort");
  if (EMBER_GRAD_RECORDING(self)) return autograd::detail::sort(self, dim, descending);
  Tensor in = self;
  DeviceEntry& dev = detail::place_op(Op::Sort, &in, 1, self.dtype());
  auto kernel = detail::lookup_kernel<SortKernel>(Op::Sort, dev.device.type(), self.dtype());
  in = in.contiguous();
  Tensor values = detail::empty_on(in.sizes(), in.dtype(), dev);
  Tensor indices = detail::empty_on(in.sizes(), kInt64, dev);
  if (in.numel() == 0) return {values, indices};
  SortArgs a;
  a.size = size_or_one(in, d);
  for (int64_t i = 0; i < d; ++i) a.outer *= in.size(i);
  for (int64_t i = d + 1; i < in.dim(); ++i) a.inner *= in.size(i);
  a.in = static_cast<const char*>(in.data_ptr());
  a.values = static_cast<char*>(values.data_ptr());
  a.indices = indices.data_ptr<int64_t>();
  a.dtype = in.dtype();
  a.descending = descending;
  kernel(a);
  return {values, indices};
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  (void)stable;  // ember's sort is always stable, which satisfies both requests
  return sort(self, dim, descending);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) { return std::get<1>(sort(self, dim, descending)); }
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(sort(self, std::optional<bool>(stable), dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // the k results always come sorted (libtorch leaves the order unspecified otherwise)
  check_defined(self, "topk", "self");
  const int64_t d = detail::wrap_dim(dim, self.dim(), "topk");
  const int64_t n = size_or_one(self, d);
  EMBER_CHECK_ARG(k >= 0 && k <= n, "topk: selected index k out of range (k = {}, dimension {} has size {})", k, d, n);
  auto [values, indices] = sort(self, d, largest);
  if (self.dim() == 0) return {values, indices};
  return {values.narrow(d, 0, k).contiguous(), indices.narrow(d, 0, k).contiguous()};
}

// ---- methods
Tensor Tensor::gather(int64_t dim, const Tensor& index, bool sparse_grad) const {
  return ember::gather(*this, dim, index, sparse_grad);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) const {
  return ember::scatter(*this, dim, index, src, reduce);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) const {
  return ember::scatter(*this, dim, index, value, reduce);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const { return ember::sort(*this, dim, descending); }
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim, bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const { return ember::argsort(*this, dim, descending); }
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ember::argsort(*this, stable, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}

}  // namespace ember
