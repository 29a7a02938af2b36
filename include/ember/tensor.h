#pragma once
/// Tensor: a reference-counted handle to a TensorImpl, mirroring torch::Tensor.
/// Copying a Tensor shares its data; views share storage; ops return new tensors.

#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/device.h"
#include "ember/export.h"
#include "ember/generator.h"
#include "ember/int_array_ref.h"
#include "ember/memory_format.h"
#include "ember/scalar.h"
#include "ember/scalar_type.h"
#include "ember/tensor_accessor.h"
#include "ember/tensor_impl.h"
#include "ember/tensor_options.h"

namespace ember {

namespace cuda {
class Stream;
}
namespace indexing {
class TensorIndex;
}
namespace autograd {
struct Node;
}
class DeprecatedTypeProperties;

class EMBER_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) = default;
  // As libtorch: assigning to a named Tensor rebinds the handle; assigning to a temporary
  // (`x[0][1] = 2.5`, `x.index({...}) = y`) writes into the elements it views.
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & = default;
  Tensor& operator=(const Scalar& value) && { return fill_(value); }
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }

  bool defined() const { return static_cast<bool>(impl_); }
  /// Drops this handle's reference: the tensor becomes undefined (libtorch's reset()).
  void reset() { impl_ = {}; }
  TensorImpl* unsafe_impl() const { return impl_.get(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }  // libtorch's name
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  int32_t use_count() const { return impl_.use_count(); }

  // ---- metadata
  // Accessors of an undefined tensor throw InvalidArgument ("sizes() called on an undefined
  // Tensor"); the check is one predicted branch, the throw is out of line.
  IntArrayRef sizes() const { return impl("sizes")->sizes_.ref(); }
  IntArrayRef strides() const { return impl("strides")->strides_.ref(); }
  /// Negative dims wrap; out of range is InvalidArgument.
  int64_t size(int64_t dim) const {
    const size_t i = wrap(dim, "size");
    return impl_->sizes_.ref()[i];
  }
  int64_t stride(int64_t dim) const {
    const size_t i = wrap(dim, "stride");
    return impl_->strides_.ref()[i];
  }
  int64_t dim() const { return static_cast<int64_t>(impl("dim")->sizes_.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl("numel")->numel_; }
  size_t nbytes() const {
    const TensorImpl* i = impl("nbytes");
    return size_t(i->numel_) * ember::element_size(i->dtype_);
  }
  size_t element_size() const { return ember::element_size(impl("element_size")->dtype_); }
  size_t itemsize() const { return element_size(); }
  int64_t storage_offset() const { return impl("storage_offset")->storage_offset_; }
  ScalarType scalar_type() const { return impl("scalar_type")->dtype_; }
  ScalarType dtype() const { return impl("dtype")->dtype_; }
  /// Where the data lives; cpu:0 reports as Device(kCPU), "cpu" (Note [CPU device index]).
  Device device() const { return impl("device")->storage_->reported_device(); }
  /// libtorch's get_device(): the device index, -1 for the CPU.
  int64_t get_device() const {
    const Device d = device();
    return d.is_cpu() ? -1 : d.index();
  }
  bool is_cpu() const { return impl("is_cpu")->storage_->device_.is_cpu(); }
  bool is_cuda() const { return impl("is_cuda")->storage_->device_.is_cuda(); }
  /// libtorch's layout and backend queries: every ember tensor is dense and strided, with
  /// storage, so these are false (for an undefined tensor too, as libtorch answers).
  bool has_storage() const { return defined(); }
  bool is_sparse() const { return false; }
  bool is_sparse_csr() const { return false; }
  bool is_mkldnn() const { return false; }
  bool is_quantized() const { return false; }
  bool is_meta() const { return false; }
  bool is_mps() const { return false; }
  bool is_hip() const { return false; }
  bool is_xla() const { return false; }
  bool is_vulkan() const { return false; }
  /// A copy in page-locked host memory, so that copies to a GPU can overlap (this tensor if
  /// it is already); DeviceError without a GPU. Only CPU tensors can be pinned.
  Tensor pin_memory(std::optional<Device> device = std::nullopt) const;
  /// Whether this CPU tensor's memory is page-locked for the GPUs (false without one).
  bool is_pinned(std::optional<Device> device = std::nullopt) const;
  /// libtorch's type name of the tensor: "CPUFloatType", "CUDALongType" ("UndefinedType").
  std::string toString() const;
  /// libtorch's deprecated backend-and-dtype pair (ember/type_properties.h), deprecated as there.
  [[deprecated("Tensor.type() is deprecated. Instead use Tensor.options(), which in many cases (e.g. in a "
               "constructor) is a drop-in replacement.")]] DeprecatedTypeProperties type() const;
  bool is_floating_point() const { return ember::is_floating_point(impl("is_floating_point")->dtype_); }
  TensorOptions options() const {
    return TensorOptions(impl("options")->dtype_).device(device()).layout(kStrided);
  }
  bool is_contiguous() const { return impl("is_contiguous")->is_contiguous_; }
  /// Dense in `memory_format`'s order (size-1 dims may have any stride), as libtorch's.
  bool is_contiguous(MemoryFormat memory_format) const;
  /// The format whose order the strides follow: ChannelsLast(3d) for 4-D (5-D) tensors laid
  /// out channels-last, else Contiguous (libtorch's rule, ambiguous cases included).
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  const Storage& storage() const { return impl("storage")->storage_; }

  template <class T>
  T* data_ptr() const;
  void* data_ptr() const { return impl("data_ptr")->data(); }
  /// libtorch's older name for data_ptr<T>() (data() without a type is the alias below).
  template <class T>
  T* data() const {
    return data_ptr<T>();
  }
  /// libtorch's accessor<T, N>(): `a[i][j]` over this tensor's data through its own sizes
  /// and strides (InvalidArgument for another dtype or dim count). It does not own the data,
  /// so a temporary's is refused at compile time, as libtorch's.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    check_accessor(N, false);
    return TensorAccessor<T, N>(data_ptr<T>(), impl_->sizes_.ref().data(), impl_->strides_.ref().data());
  }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  /// An accessor holding copies of the sizes and strides as index_t, to pass to a kernel.
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data_ptr<T>()");
    check_accessor(N, sizeof(index_t) < sizeof(int64_t));
    return GenericPackedTensorAccessor<T, N, PtrTraits, index_t>(
        static_cast<typename PtrTraits<T>::PtrType>(data_ptr<T>()), impl_->sizes_.ref().data(),
        impl_->strides_.ref().data());
  }
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() && = delete;
  /// 32-bit indices: InvalidArgument when an element or offset would not fit.
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    return generic_packed_accessor<T, N, PtrTraits, int32_t>();
  }
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    return generic_packed_accessor<T, N, PtrTraits, int64_t>();
  }
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
  /// The single element, converted to T as libtorch does; synchronizes a device tensor.
  template <class T>
  T item() const;
  /// The single element as a Scalar of its kind (bool, integer or double), as libtorch.
  Scalar item() const;

  // ---- conversion and movement
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const;
  Tensor cuda(int index = -1) const;
  /// This tensor when already dense in `memory_format`, else a copy that is (ChannelsLast
  /// needs 4 dims, ChannelsLast3d 5).
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  /// A copy; Preserve (the default, as libtorch) keeps a channels-last layout.
  Tensor clone(MemoryFormat memory_format = MemoryFormat::Preserve) const;
  /// This tensor with other's dtype and device.
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  /// to(dtype), as libtorch's toType.
  Tensor toType(ScalarType dtype) const;
  Layout layout() const { return kStrided; }
  /// A view with the given sizes, strides and offset (default: this tensor's) over the
  /// same storage; InvalidArgument when it would reach outside the storage.
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> storage_offset = {}) const;
  /// Gives this tensor new sizes with contiguous strides, in place; the storage grows
  /// (its old bytes kept) when it is too small.
  const Tensor& resize_(IntArrayRef sizes) const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  /// The tensor's memory is also in use on `stream` (libtorch's record_stream).
  void record_stream(const cuda::Stream& stream) const;

  // ---- views (share storage)
  Tensor view(IntArrayRef sizes) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const;
  /// In-place views, as libtorch's (return types included): self takes the view's sizes and
  /// strides (elements untouched, version bumped); autograd records TBackward1, ...
  Tensor& t_() const;
  Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor& swapdims_(int64_t dim0, int64_t dim1) const;
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) const;
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor& unsqueeze_(int64_t dim) const;
  const Tensor& as_strided_(IntArrayRef sizes, IntArrayRef strides,
                            std::optional<int64_t> storage_offset = {}) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape_as(const Tensor& other) const;
  /// A view of the whole tensor (same sizes, strides and offset); AliasBackward0 in autograd.
  Tensor alias() const;
  /// The tensor tiled repeats[i] times along dim i; extra leading repeats add leading dims.
  Tensor repeat(IntArrayRef repeats) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = {}, std::optional<int64_t> end = {},
               int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  /// narrow's elements in a new contiguous tensor (differentiable, where libtorch's is not).
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
  /// A view of every window of `size` elements along dim, `step` apart, in a new last dim.
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  /// Whether other views exactly this tensor's elements (storage, offset, sizes, strides).
  bool is_set_to(const Tensor& other) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /// Writes value into the indexed elements (a copy, or a sum with accumulate: duplicate
  /// positions then add up). value broadcasts to the indexing result; same dtype as self.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value,
                     bool accumulate = false) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value,
                     bool accumulate = false) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Scalar& value) const;
  /// libtorch's list-of-optional-tensors form: an empty optional is a full slice.
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                     bool accumulate = false) const;
  /// Out of place: a copy of this tensor with index_put_ applied.
  Tensor index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                   bool accumulate = false) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  /// self's slices at `index` along dim replaced by source's (libtorch's checks; a repeated
  /// index keeps one of its rows). IndexCopyBackward0 in autograd.
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  /// source's slices reduced into self's at `index` ("prod", "mean", "amax", "amin").
  Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                        bool include_self = true) const;
  Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true) const;
  Tensor nonzero() const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  /// libtorch's split by a list of sizes (split_with_sizes).
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;

  // ---- elementwise (same semantics as the free functions of ops.h)
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  /// rounding_mode "trunc" or "floor" (std::nullopt: true division).
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode) const;
  Tensor divide(const Tensor& other) const;
  Tensor divide(const Scalar& other) const;
  Tensor divide(const Tensor& other, std::optional<std::string_view> rounding_mode) const;
  Tensor multiply(const Tensor& other) const;
  Tensor multiply(const Scalar& other) const;
  Tensor negative() const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor atan2(const Tensor& other) const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor logical_not() const;
  // bitwise ops take integer and bool tensors; shifts, gcd and lcm integers only
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor& bitwise_and_(const Tensor& other) const;
  Tensor& bitwise_and_(const Scalar& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor& bitwise_or_(const Tensor& other) const;
  Tensor& bitwise_or_(const Scalar& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor& bitwise_xor_(const Tensor& other) const;
  Tensor& bitwise_xor_(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor& bitwise_not_() const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor& bitwise_left_shift_(const Tensor& other) const;
  Tensor& bitwise_left_shift_(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor& bitwise_right_shift_(const Tensor& other) const;
  Tensor& bitwise_right_shift_(const Scalar& other) const;
  Tensor gcd(const Tensor& other) const;
  Tensor& gcd_(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor& lcm_(const Tensor& other) const;
  Tensor nextafter(const Tensor& other) const;
  Tensor& nextafter_(const Tensor& other) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor& heaviside_(const Tensor& values) const;
  Tensor ldexp(const Tensor& other) const;
  Tensor& ldexp_(const Tensor& other) const;
  std::tuple<Tensor, Tensor> frexp() const;

  Tensor neg() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor square() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor gelu() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  /// Rounded to `decimals` places (negative: to tens, hundreds, ...), half to even, as libtorch.
  Tensor round(int64_t decimals) const;
  Tensor& round_(int64_t decimals) const;
  Tensor trunc() const;
  Tensor reciprocal() const;
  Tensor erf() const;
  Tensor erfc() const;
  Tensor erfinv() const;
  Tensor i0() const;
  Tensor lgamma() const;
  Tensor digamma() const;
  Tensor polygamma(int64_t n) const;
  Tensor& polygamma_(int64_t n) const;
  Tensor mvlgamma(int64_t p) const;
  Tensor& mvlgamma_(int64_t p) const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  const Tensor& nan_to_num_(std::optional<double> nan = std::nullopt,
                            std::optional<double> posinf = std::nullopt,
                            std::optional<double> neginf = std::nullopt) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = {}) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;
  /// The regularized incomplete gamma functions with this tensor as a (ember/math_ops.h).
  Tensor igamma(const Tensor& x) const;
  Tensor igammac(const Tensor& x) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value = 1) const;

  // ---- in place: return *this; const as in libtorch (the handle is const, not the data)
#include "ember/tensor_inplace_methods.inc"

  // ---- reductions
  Tensor sum(std::optional<ScalarType> dtype = {}) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
  Tensor mean(std::optional<ScalarType> dtype = {}) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
  Tensor prod(std::optional<ScalarType> dtype = {}) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = {}) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  /// libtorch's elementwise form: maximum(other).
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor min(const Tensor& other) const { return minimum(other); }
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(int dim, bool unbiased = true, bool keepdim = false) const;
  Tensor var(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor var(IntArrayRef dims, std::optional<int64_t> correction, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(int dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(IntArrayRef dims, bool unbiased = true, bool keepdim = false) const;
  Tensor std(IntArrayRef dims, std::optional<int64_t> correction, bool keepdim = false) const;
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dims, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = {}) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = {}) const;
  Tensor cumsum(int64_t dim, std::optional<ScalarType> dtype = {}) const;

  // ---- linear algebra
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor outer(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;

  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) const;
  // ---- composed ops as methods (ember/shape_ops.h, math_ops.h, linalg_ops.h)
#include "ember/tensor_composed_methods.inc"

  // ---- autograd (API.md section 9; lib/autograd)
  const Tensor& requires_grad_(bool requires_grad = true) const;
  /// As requires_grad_, except that false on a non-leaf is a no-op (libtorch's).
  const Tensor& set_requires_grad(bool requires_grad) const;
  bool requires_grad() const;
  bool is_leaf() const;
  /// Undefined until a backward reaches this tensor (or, for a non-leaf, without retain_grad).
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  int64_t output_nr() const;
  /// The storage's version counter: bumped by every in-place write through any view.
  /// InvalidArgument for an inference tensor, which has none (as libtorch).
  uint32_t _version() const;
  /// Made inside InferenceMode, or a view of such a tensor (ember/autograd.h).
  bool is_inference() const { return impl("is_inference")->is_inference_; }
  /// Made by a view op (select, view, alias, ...) from a tensor that is not an inference tensor,
  /// as libtorch's is_view(); detach() and data() are not views.
  bool is_view() const { return impl("is_view")->view_kind_ & kIsView; }
  /// inputs: accumulate into these tensors' grad() only (libtorch's inputs=; not empty).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = {}, bool create_graph = false,
                std::optional<ArrayRef<Tensor>> inputs = std::nullopt) const;
  Tensor detach() const;
  Tensor& detach_() const;
  /// A leaf that shares this tensor's storage, with no history (libtorch's .data()).
  Tensor data() const;
  /// libtorch's tensor_data(): data() (the version counter is shared, as libtorch's is).
  Tensor tensor_data() const { return data(); }
  /// Every ember tensor is a Variable (libtorch's is_variable()).
  bool is_variable() const noexcept { return true; }
  /// This tensor takes new_data's storage, sizes, strides and dtype; it keeps its autograd
  /// state (requires_grad, grad, hooks), as libtorch's set_data.
  void set_data(const Tensor& new_data) const;
  void retain_grad() const;
  bool retains_grad() const;
  /// The hook sees this tensor's gradient; a defined result replaces it.
  unsigned register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// A hook that returns nothing only looks at the gradient.
  template <class F, std::enable_if_t<std::is_void_v<std::invoke_result_t<F&, const Tensor&>>, int> = 0>
  unsigned register_hook(F hook) const {
    return register_hook(std::function<Tensor(const Tensor&)>([h = std::move(hook)](const Tensor& g) mutable {
      h(g);
      return Tensor();
    }));
  }
  void remove_hook(unsigned id) const;
  /// Leaves: `hook` runs with this tensor after a backward has accumulated its gradient
  /// into grad() (PyTorch 2.1's name); remove_hook takes the returned handle.
  unsigned register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;

  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;
  bool equal(const Tensor& other) const;

  // ---- random fills, in place (ember/generator.h; on the CPU libtorch's values for a seed)
  Tensor& uniform_(double from = 0, double to = 1, std::optional<Generator> generator = {}) const;
  Tensor& normal_(double mean = 0, double std = 1, std::optional<Generator> generator = {}) const;
  /// Integers in [from, to), or from `from` to the dtype's largest value when `to` is empty.
  Tensor& random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator = {}) const;
  Tensor& random_(int64_t to, std::optional<Generator> generator = {}) const;
  /// Integers in [0, 2^mantissa] for floating dtypes, [0, max] for integer ones.
  Tensor& random_(std::optional<Generator> generator = {}) const;
  Tensor& bernoulli_(double p = 0.5, std::optional<Generator> generator = {}) const;
  Tensor& bernoulli_(const Tensor& p, std::optional<Generator> generator = {}) const;
  Tensor bernoulli(std::optional<Generator> generator = {}) const;
  Tensor bernoulli(double p, std::optional<Generator> generator = {}) const;
  Tensor& exponential_(double lambd = 1, std::optional<Generator> generator = {}) const;
  /// median + sigma * tan(pi * (u - 0.5)) of float64 uniforms u (floating dtypes).
  Tensor& cauchy_(double median = 0, double sigma = 1, std::optional<Generator> generator = {}) const;
  /// exp of normal(mean, std) draws (floating dtypes; std > 0).
  Tensor& log_normal_(double mean = 1, double std = 2, std::optional<Generator> generator = {}) const;
  /// The number of Bernoulli(p) trials up to the first success, p in (0, 1) (any dtype but bool).
  Tensor& geometric_(double p, std::optional<Generator> generator = {}) const;
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     std::optional<Generator> generator = {}) const;

  // ---- selection (ops.h documents the free functions)
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value, const std::string& reduce) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim, bool descending = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;

  // ---- compound assignment: members as in libtorch, so `x[0] += 1` writes into x
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator+=(const Scalar& other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator-=(const Scalar& other) { return sub_(other); }
  Tensor& operator&=(const Tensor& other) { return bitwise_and_(other); }
  Tensor& operator&=(const Scalar& other) { return bitwise_and_(other); }
  Tensor& operator|=(const Tensor& other) { return bitwise_or_(other); }
  Tensor& operator|=(const Scalar& other) { return bitwise_or_(other); }
  Tensor& operator^=(const Tensor& other) { return bitwise_xor_(other); }
  Tensor& operator^=(const Scalar& other) { return bitwise_xor_(other); }
  Tensor operator~() const { return bitwise_not(); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator*=(const Scalar& other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator/=(const Scalar& other) { return div_(other); }

 private:
  size_t wrap(int64_t d, const char* what) const {
    const int64_t n = static_cast<int64_t>(impl(what)->sizes_.size());
    const int64_t w = d < 0 ? d + n : d;
    if (__builtin_expect(w < 0 || w >= n, 0)) throw_dim_out_of_range(d, what);
    return size_t(w);
  }
  [[noreturn]] void throw_dim_out_of_range(int64_t d, const char* what) const;
  TensorImpl* impl(const char* accessor) const {
    if (__builtin_expect(!impl_, 0)) throw_undefined(accessor);
    return impl_.get();
  }
  [[noreturn]] static void throw_undefined(const char* accessor);
  /// accessor()'s checks: `dims` dims, and with `index32` every size, stride and offset within int32.
  void check_accessor(size_t dims, bool index32) const;

  IntrusivePtr<TensorImpl> impl_;
};

}  // namespace ember

// The free operators (+, ==, &, ...), printing and TensorList; Tensor::type()'s class;
// Tensor::index's arguments, so that `x.index({0, Slice()})` just works.
#include "ember/tensor_operators.h"  // NOLINT(build/include_order)
#include "ember/type_properties.h"   // NOLINT(build/include_order)
#include "ember/indexing.h"          // NOLINT(build/include_order)
