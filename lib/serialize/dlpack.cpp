// to_dlpack / from_dlpack: zero-copy in both directions. An exported tensor lives in the
// DLManagedTensor's context; an imported one owns the DLManagedTensor through its storage.
#include <dlpack/dlpack.h>

#include <algorithm>
#include <vector>

#include "core/check.h"
#include "ember/dlpack.h"
#include "placement/device_table.h"

namespace ember {

namespace {

struct Exported {
  Tensor tensor;  // keeps the storage alive until the consumer's deleter call
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

void delete_exported(DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); }

DLDataType dl_dtype(ScalarType t) {
  switch (t) {
    case kBool: return {kDLUInt, 8, 1};
    case kUInt8: return {kDLUInt, 8, 1};
    case kInt8: return {kDLInt, 8, 1};
    case kInt16: return {kDLInt, 16, 1};
    case kInt32: return {kDLInt, 32, 1};
    case kInt64: return {kDLInt, 64, 1};
    case kHalf: return {kDLFloat, 16, 1};
    case kBFloat16: return {kDLBfloat, 16, 1};
    case kFloat: return {kDLFloat, 32, 1};
    case kDouble: return {kDLFloat, 64, 1};
  }
  EMBER_THROW(InvalidArgument, "to_dlpack: unsupported dtype {}", int(t));
}

ScalarType ember_dtype(DLDataType t) {
  EMBER_CHECK_ARG(t.lanes == 1, "from_dlpack: vector types are not supported (lanes = {}, expected 1)", t.lanes);
  switch (t.code) {
    case kDLUInt:
      if (t.bits == 8) return kUInt8;
      break;
    case kDLInt:
      if (t.bits == 8) return kInt8;
      if (t.bits == 16) return kInt16;
      if (t.bits == 32) return kInt32;
      if (t.bits == 64) return kInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return kHalf;
      if (t.bits == 32) return kFloat;
      if (t.bits == 64) return kDouble;
      break;
    case kDLBfloat:
      if (t.bits == 16) return kBFloat16;
      break;
    default: break;
  }
  EMBER_THROW(InvalidArgument,
              "from_dlpack: unsupported dtype (code {}, {} bits); valid: uint8, int8/16/32/64, float16/32/64, bfloat16",
              int(t.code), int(t.bits));
}

Device ember_device(DLDevice d) {
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return Device(kCPU, 0);  // pinned host memory is ordinary CPU memory to ember
    case kDLCUDA: {
      EMBER_CHECK_ARG(d.device_id >= 0, "from_dlpack: negative CUDA device id {}", d.device_id);
      Device dev(kCUDA, d.device_id);
      EMBER_CHECK_ARG(detail::find_device(dev) != nullptr, "from_dlpack: device {} ({}) does not exist", dev.tf_str(),
                      dev.str());
      return dev;
    }
    default: break;
  }
  EMBER_THROW(InvalidArgument, "from_dlpack: unsupported device type {} (valid: kDLCPU, kDLCUDAHost, kDLCUDA)",
              int(d.device_type));
}

void delete_imported(void* context, void*) {
  auto* m = static_cast<DLManagedTensor*>(context);
  if (m->deleter) m->deleter(m);
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& tensor) {
  EMBER_CHECK_ARG(tensor.defined(), "to_dlpack: undefined tensor");
  const Device dev = tensor.device();
  DLDevice dl_dev{};
  if (dev.is_cpu()) {
    dl_dev = {kDLCPU, 0};
  } else if (dev.is_cuda()) {
    // A logical device's index is not what other libraries know it by.
    const detail::DeviceEntry* e = detail::find_device(dev);
    dl_dev = {kDLCUDA, e ? e->physical_index : dev.index()};
  } else {
    EMBER_THROW(InvalidArgument, "to_dlpack: tensors on {} ({}) cannot be exported (valid: CPU and CUDA)", dev.tf_str(),
                dev.str());
  }
  auto* x = new Exported;
  x->tensor = tensor;
  x->shape.assign(tensor.sizes().begin(), tensor.sizes().end());
  x->strides.assign(tensor.strides().begin(), tensor.strides().end());
  DLTensor& t = x->managed.dl_tensor;
  t.data = tensor.numel() ? tensor.data_ptr() : nullptr;
  t.device = dl_dev;
  t.ndim = int(x->shape.size());
  t.dtype = dl_dtype(tensor.scalar_type());
  t.shape = x->shape.data();
  t.strides = x->strides.data();
  t.byte_offset = 0;
  x->managed.manager_ctx = x;
  x->managed.deleter = &delete_exported;
  return &x->managed;
}

Tensor from_dlpack(DLManagedTensor* src) {
  EMBER_CHECK_ARG(src != nullptr, "from_dlpack: null DLManagedTensor");
  const DLTensor& t = src->dl_tensor;
  EMBER_CHECK_ARG(t.ndim >= 0 && t.ndim <= 64, "from_dlpack: ndim {} out of range [0, 64]", t.ndim);
  EMBER_CHECK_ARG(t.ndim == 0 || t.shape != nullptr, "from_dlpack: null shape for {} dims", t.ndim);
  const ScalarType dtype = ember_dtype(t.dtype);
  const Device dev = ember_device(t.device);
  std::vector<int64_t> sizes(t.shape, t.shape + t.ndim), strides(size_t(t.ndim));
  int64_t numel = 1;
  for (int i = 0; i < t.ndim; ++i) {
    EMBER_CHECK_ARG(sizes[i] >= 0, "from_dlpack: negative size {} in dim {}", sizes[i], i);
    EMBER_CHECK_ARG(!__builtin_mul_overflow(numel, sizes[i], &numel), "from_dlpack: shape overflows int64 elements");
  }
  int64_t compact = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {  // NULL strides: compact row-major
    strides[i] = t.strides ? t.strides[i] : compact;
    compact *= std::max<int64_t>(1, sizes[i]);
    EMBER_CHECK_ARG(strides[i] >= 0, "from_dlpack: negative stride {} in dim {} (ember views need strides >= 0)",
                    strides[i], i);
  }
  EMBER_CHECK_ARG(t.data != nullptr || numel == 0, "from_dlpack: null data pointer for a tensor of {} elements", numel);
  int64_t extent = 1;
  for (int i = 0; i < t.ndim; ++i) extent += (sizes[i] - 1) * strides[i];
  const size_t nbytes = numel ? size_t(extent) * element_size(dtype) : 0;
  void* data = t.data ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  Storage storage = Storage::adopt(new StorageImpl(data, nbytes, dev, &delete_imported, src));
  return Tensor(IntrusivePtr<TensorImpl>::adopt(new TensorImpl(std::move(storage), dtype, sizes, strides, 0)));
}

}  // namespace ember
