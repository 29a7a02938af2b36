// Creation ops: empty, zeros, ones, full, arange, linspace, eye, *_like,
// tensor(...) and from_blob (random ones: random_ops.cpp). The device comes from the
// options, the scope or the default.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/check.h"
#include "dispatch/elementwise_ops.h"
#include "dispatch/kernel_table.h"
#include "ember/math_ops.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "iter/overlap.h"
#include "placement/placement.h"
#include "tensor/memory_format.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::DeviceEntry;

namespace {

DeviceEntry& creation_device(const TensorOptions& o, Op op) { return detail::place_creation(o, op); }

// TensorOptions::requires_grad: the new tensor is a leaf that requires grad.
Tensor with_grad(Tensor t, const TensorOptions& o) {
  if (__builtin_expect(o.requires_grad(), 0)) t.requires_grad_();
  return t;
}

Tensor make_filled(IntArrayRef sizes, const Scalar& value, const TensorOptions& o, const char* what) {
  detail::check_sizes(sizes, what);
  DeviceEntry& dev = creation_device(o, Op::Fill);
  if (detail::g_log_placement.load(std::memory_order_relaxed)) detail::log_op(Op::Fill, dev);
  Tensor t = detail::empty_on(sizes, o.dtype(), dev);
  detail::fill_tensor(t, value);
  return with_grad(std::move(t), o);
}

// Runs a nullary kernel (arange, linspace) over a fresh contiguous tensor.
Tensor run_generator(Op op, IntArrayRef sizes, const TensorOptions& o, const detail::OpParams& p) {
  DeviceEntry& dev = creation_device(o, op);
  if (detail::g_log_placement.load(std::memory_order_relaxed)) detail::log_op(op, dev);
  auto kernel = detail::lookup_kernel<ElementwiseKernel>(op, dev.device.type(), o.dtype());
  Tensor t = detail::empty_on(sizes, o.dtype(), dev);
  ElementwiseArgs args;
  args.dtype = args.out_dtype = o.dtype();
  for (int i = 0; i < 3; ++i) args.param[i] = p.param[i], args.has_param[i] = p.has_param[i];
  detail::build_elementwise(args, t, nullptr, 0);
  if (args.numel) kernel(args);
  return with_grad(std::move(t), o);
}

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

TensorOptions with_default_dtype(TensorOptions o, ScalarType t) { return o.has_dtype() ? o : o.dtype(t); }

}  // namespace

Tensor empty(IntArrayRef sizes, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  detail::check_sizes(sizes, "empty");
  const MemoryFormat format = detail::requested_format(o, memory_format).value_or(MemoryFormat::Contiguous);
  EMBER_CHECK_ARG(format != MemoryFormat::Preserve, "unsupported memory format Preserve");
  DeviceEntry& dev = creation_device(o, Op::Fill);
  return with_grad(format == MemoryFormat::Contiguous ? detail::empty_on(sizes, o.dtype(), dev)
                                                      : detail::empty_in_format(sizes, o.dtype(), dev, format),
                   o);
}
Tensor zeros(IntArrayRef sizes, const TensorOptions& o) { return make_filled(sizes, 0, o, "zeros"); }
Tensor ones(IntArrayRef sizes, const TensorOptions& o) { return make_filled(sizes, 1, o, "ones"); }
Tensor full(IntArrayRef sizes, const Scalar& value, const TensorOptions& o) {
  // full infers its dtype from the value: bool, int64 or the default float.
  return make_filled(sizes, value, with_default_dtype(o, value.natural_type()), "full");
}

Tensor arange(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& o) { return arange(start, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  const bool all_int = start.is_integral(true) && end.is_integral(true) && step.is_integral(true);
  TensorOptions opts = with_default_dtype(o, all_int ? kInt64 : get_default_dtype());
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK_ARG(st != 0, "arange: step must be nonzero");
  EMBER_CHECK_ARG(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: {} -> {}", s, e);
  EMBER_CHECK_ARG((st > 0 && e >= s) || (st < 0 && e <= s),
                  "arange: upper bound and larger bound inconsistent with step sign (start {}, end {}, step {})",
                  s, e, st);
  // The length in a wider type first: int64 ends and tiny steps must not wrap (libtorch's check).
  const double size_d = all_int ? double((__int128(end.to_long()) - start.to_long() + step.to_long() - (st > 0 ? 1 : -1)) /
                                         step.to_long())
                                : std::ceil((e - s) / st);
  EMBER_CHECK_ARG(size_d < 9223372036854775807.0,
                  "arange: invalid size {}, possible overflow? (start {}, end {}, step {})", size_d, s, e, st);
  const int64_t n = all_int ? int64_t((__int128(end.to_long()) - start.to_long() + step.to_long() - (st > 0 ? 1 : -1)) /
                                      step.to_long())
                            : int64_t(size_d);
  detail::OpParams p;
  p.param[0] = detail::kernel_scalar(start);
  p.param[1] = detail::kernel_scalar(step);
  const int64_t len = n > 0 ? n : 0;
  return run_generator(Op::Arange, IntArrayRef(&len, 1), opts, p);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, const TensorOptions& o) {
  EMBER_CHECK_ARG(steps >= 0, "linspace: number of steps must be non-negative, got {}", steps);
  detail::OpParams p;
  const double s = start.to_double(), e = end.to_double();
  p.param[0].f = s;
  p.param[1].f = steps > 1 ? (e - s) / double(steps - 1) : 0.0;
  p.param[2].f = steps == 1 ? s : e;  // a single step is the start, as torch
  p.param[2].i = steps;
  p.has_param[2] = true;
  return run_generator(Op::Arange, IntArrayRef(&steps, 1), with_default_dtype(o, get_default_dtype()), p);
}

Tensor eye(int64_t n, const TensorOptions& o) { return eye(n, n, o); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& o) {
  EMBER_CHECK_ARG(n >= 0 && m >= 0, "eye: n and m must be non-negative, got {} and {}", n, m);
  Tensor t = zeros({n, m}, o);
  const int64_t k = std::min(n, m);
  // The diagonal is a strided view: stride m + 1 over the flat storage.
  const int64_t diag_stride = m + 1;
  detail::make_view(t, IntArrayRef(&k, 1), IntArrayRef(&diag_stride, 1), 0).fill_(1);
  return t;
}

namespace detail {
std::optional<MemoryFormat> requested_format(const TensorOptions& options, std::optional<MemoryFormat> arg) {
  EMBER_CHECK_ARG(!(arg && options.has_memory_format()),
                  "Cannot set memory_format both in TensorOptions and explicit argument; please delete the "
                  "redundant setter.");
  return arg ? arg : options.memory_format_opt();
}

Tensor empty_like_in(const Tensor& t, const TensorOptions& options, MemoryFormat format) {
  const TensorOptions o = options.requires_grad(false).memory_format(std::nullopt);
  if (format == MemoryFormat::Preserve) {
    if (non_overlapping_and_dense(t)) return empty_strided(t.sizes(), t.strides(), o);
    format = t.suggest_memory_format();
  }
  return empty(t.sizes(), o, format);
}
}  // namespace detail

namespace {
// The options of a *_like result: the input's dtype and device unless the options name
// them; the memory format is resolved apart (detail::requested_format).
TensorOptions like(const Tensor& t, const TensorOptions& o) {
  EMBER_CHECK_ARG(t.defined(), "*_like: undefined tensor");
  return TensorOptions(o.has_dtype() ? o.dtype() : t.dtype())
      .device(o.has_device() ? o.device() : t.device())
      .layout(o.layout())
      .requires_grad(o.requires_grad());
}

// A *_like result: the factory's own path when no memory format is asked for, else an
// uninitialised tensor in that format which `fill` writes.
template <class Factory, class Fill>
Tensor like_result(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format,
                   Factory factory, Fill fill) {
  const TensorOptions r = like(t, o);
  const auto format = detail::requested_format(o, memory_format);
  if (!format) return factory(r);
  Tensor out = detail::empty_like_in(t, r, *format);
  fill(out);
  return with_grad(std::move(out), r);
}
}  // namespace

Tensor zeros_like(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return zeros(t.sizes(), r); },
      [](Tensor& out) { out.zero_(); });
}
Tensor ones_like(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return ones(t.sizes(), r); },
      [](Tensor& out) { out.fill_(1); });
}
Tensor full_like(const Tensor& t, const Scalar& v, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return full(t.sizes(), v, r); },
      [&](Tensor& out) { out.fill_(v); });
}
Tensor empty_like(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return empty(t.sizes(), r); }, [](Tensor&) {});
}
Tensor rand_like(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return rand(t.sizes(), r); },
      [](Tensor& out) { out.uniform_(0, 1); });
}
Tensor randn_like(const Tensor& t, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return randn(t.sizes(), r); },
      [](Tensor& out) { out.normal_(0, 1); });
}
Tensor randint_like(const Tensor& t, int64_t high, const TensorOptions& o, std::optional<MemoryFormat> memory_format) {
  return randint_like(t, 0, high, o, memory_format);
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, const TensorOptions& o,
                    std::optional<MemoryFormat> memory_format) {
  return like_result(
      t, o, memory_format, [&](const TensorOptions& r) { return randint(low, high, t.sizes(), r); },
      [&](Tensor& out) { out.random_(low, high); });
}

Tensor scalar_tensor(const Scalar& value, const TensorOptions& o) {
  return full({}, value, with_default_dtype(o, get_default_dtype()));  // torch: the default dtype unless told
}

namespace detail {
Tensor tensor_from_data(const void* data, ScalarType src_type, IntArrayRef sizes, const TensorOptions& o) {
  // Wrap the caller's values as a host tensor (no allocation), convert the dtype into
  // host memory of the target's own when it is a CPU device, else into a heap staging
  // buffer that does not touch cpu:0's allocator, then move it.
  auto wrap = [&](void* p, ScalarType t, DataDeleter deleter) {
    Storage st = Storage::adopt(new StorageImpl(p, size_t(numel_of(sizes)) * element_size(t), Device(kCPU, 0),
                                                deleter, nullptr));
    return Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(st), t, sizes)));
  };
  Tensor src = wrap(const_cast<void*>(data), src_type, nullptr);
  DeviceEntry& dev = place_creation(o, Op::Copy);
  if (g_log_placement.load(std::memory_order_relaxed)) log_op("_EagerConst", dev);
  if (dev.device.is_cpu()) {
    Tensor out = empty_on(sizes, o.dtype(), dev);
    copy_same_device(out, src);
    return with_grad(std::move(out), o);
  }
  void* staging = std::malloc(std::max<size_t>(1, size_t(numel_of(sizes)) * element_size(o.dtype())));
  EMBER_CHECK_TYPED(staging != nullptr, OutOfMemory, "tensor: could not allocate {} bytes of host staging memory",
                    size_t(numel_of(sizes)) * element_size(o.dtype()));
  Tensor host = wrap(staging, o.dtype(), [](void*, void* p) { std::free(p); });
  copy_same_device(host, src);
  return with_grad(move_to_device(host, dev), o);
}
}  // namespace detail

namespace {
void delete_function(void* context, void* data) {
  auto* fn = static_cast<std::function<void(void*)>*>(context);
  (*fn)(data);
  delete fn;
}
Tensor blob(void* data, IntArrayRef sizes, IntArrayRef strides, std::function<void(void*)>* deleter,
            const TensorOptions& o) {
  detail::check_sizes(sizes, "from_blob");
  detail::check_strided_layout(o);
  EMBER_CHECK_ARG(data != nullptr || numel_of(sizes) == 0, "from_blob: null data pointer for a non-empty tensor");
  EMBER_CHECK_ARG(strides.size() == sizes.size(), "from_blob: {} strides given for {} dims", strides.size(), sizes.size());
  Device d = o.has_device() ? detail::resolve_index(o.device()) : Device(kCPU, 0);
  EMBER_CHECK_ARG(detail::find_device(d) != nullptr, "from_blob: device {} ({}) does not exist", d.tf_str(), d.str());
  size_t nbytes = size_t(detail::storage_extent(sizes, strides)) * element_size(o.dtype());
  Storage storage = Storage::adopt(new StorageImpl(data, nbytes, d, deleter ? &delete_function : nullptr, deleter));
  return with_grad(
      Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(storage), o.dtype(), sizes, strides, 0))), o);
}
}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& o) {
  return blob(data, sizes, detail::contiguous_strides(sizes), nullptr, o);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& o) {
  return blob(data, sizes, strides, nullptr, o);
}
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter, const TensorOptions& o) {
  return from_blob(data, sizes, detail::contiguous_strides(sizes), std::move(deleter), o);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, std::function<void(void*)> deleter,
                 const TensorOptions& o) {
  auto* fn = new std::function<void(void*)>(std::move(deleter));
  try {
    return blob(data, sizes, strides, fn, o);
  } catch (...) {
    delete fn;
    throw;
  }
}

}  // namespace ember
