#pragma once
/// The names behind ember's libtorch drop-in (target ember::torch, API.md section 16):
/// `torch::`, `at::` and `c10::` refer to ember's API, plus the few libtorch utilities
/// that programs use directly. Only the drop-in's include directory holds this file's
/// <torch/torch.h> front door, so ember::ember users never see these names.

#include <ember/ember.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

// libtorch's X-macros over dtypes: _(C++ type, ScalarType name) for each.
#define AT_FORALL_SCALAR_TYPES(_) \
  _(uint8_t, Byte)                \
  _(int8_t, Char)                 \
  _(int16_t, Short)               \
  _(int, Int)                     \
  _(int64_t, Long)                \
  _(float, Float)                 \
  _(double, Double)
#define EMBER_CPP_TYPE_Bool bool
#define EMBER_CPP_TYPE_Half ::ember::Half
#define EMBER_CPP_TYPE_BFloat16 ::ember::BFloat16
#define AT_FORALL_SCALAR_TYPES_AND(A, _) AT_FORALL_SCALAR_TYPES(_) _(EMBER_CPP_TYPE_##A, A)
#define AT_FORALL_SCALAR_TYPES_AND2(A, B, _) AT_FORALL_SCALAR_TYPES_AND(A, _) _(EMBER_CPP_TYPE_##B, B)
#define AT_FORALL_SCALAR_TYPES_AND3(A, B, C, _) AT_FORALL_SCALAR_TYPES_AND2(A, B, _) _(EMBER_CPP_TYPE_##C, C)

namespace c10 {
using namespace ::ember;

template <class T>
using optional = std::optional<T>;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using Error = ::ember::Error;

/// The elements of `items` written with operator<< and separated by `delimiter` (c10::Join).
template <class Container>
std::string Join(const std::string& delimiter, const Container& items) {
  std::ostringstream out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out << delimiter;
    out << item;
    first = false;
  }
  return out.str();
}

using OptionalIntArrayRef = std::optional<::ember::IntArrayRef>;

/// libtorch describes a dtype by its C++ type in a few places (caffe2::TypeMeta::Make<float>());
/// here that is a ScalarType under TypeMeta's interface. As in libtorch, a ScalarType
/// converts to it implicitly, it compares with a ScalarType, options take it
/// (TensorOptions's toScalarType() constructor), and toScalarType() gives the ScalarType back.
class TypeMeta {
 public:
  constexpr TypeMeta(ScalarType type) : type_(type) {}  // NOLINT(google-explicit-constructor)
  template <class T>
  static constexpr TypeMeta Make() {
    return TypeMeta(::ember::ScalarTypeOf<T>::value);
  }
  static constexpr TypeMeta fromScalarType(ScalarType type) { return TypeMeta(type); }
  constexpr ScalarType toScalarType() const { return type_; }
  constexpr size_t itemsize() const { return ::ember::element_size(type_); }
  /// The C++ type's name: "float", "long int".
  constexpr const char* name() const { return ::ember::cpp_type_name(type_); }
  template <class T>
  constexpr bool Match() const {
    return type_ == ::ember::ScalarTypeOf<T>::value;
  }
  friend constexpr bool operator==(TypeMeta a, TypeMeta b) { return a.type_ == b.type_; }
  friend constexpr bool operator!=(TypeMeta a, TypeMeta b) { return a.type_ != b.type_; }

 private:
  ScalarType type_;
};
inline std::ostream& operator<<(std::ostream& stream, TypeMeta type) { return stream << type.name(); }
constexpr ScalarType typeMetaToScalarType(TypeMeta type) { return type.toScalarType(); }
constexpr TypeMeta scalarTypeToTypeMeta(ScalarType type) { return TypeMeta(type); }
inline void set_default_dtype(TypeMeta type) { ::ember::set_default_dtype(type.toScalarType()); }
using Backend = ::ember::TypeBackend;
inline const char* toString(Backend backend) { return ::ember::backend_name(backend); }

/// The integers of [begin, end) (c10::irange), empty when end <= begin.
template <class I>
class integer_range {
 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = I;
    using difference_type = std::ptrdiff_t;
    using pointer = const I*;
    using reference = const I&;
    explicit iterator(I v) : v_(v) {}
    I operator*() const { return v_; }
    iterator& operator++() {
      ++v_;
      return *this;
    }
    bool operator==(const iterator& o) const { return v_ == o.v_; }
    bool operator!=(const iterator& o) const { return v_ != o.v_; }

   private:
    I v_;
  };
  integer_range(I begin, I end) : begin_(begin), end_(end < begin ? begin : end) {}
  iterator begin() const { return iterator(begin_); }
  iterator end() const { return iterator(end_); }

 private:
  I begin_, end_;
};

template <class I1, class I2, class = std::enable_if_t<std::is_integral_v<I1> && std::is_integral_v<I2>>>
integer_range<std::common_type_t<I1, I2>> irange(I1 begin, I2 end) {
  using I = std::common_type_t<I1, I2>;
  return integer_range<I>(I(begin), I(end));
}
template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
integer_range<I> irange(I end) {
  return integer_range<I>(I(0), end);
}

// libtorch's typed errors. ember throws InvalidArgument for bad indices, values and types,
// so each names that class (catching c10::IndexError catches it); TORCH_CHECK_INDEX & co.
// throw them.
using IndexError = ::ember::InvalidArgument;
using ValueError = ::ember::InvalidArgument;
using TypeError = ::ember::InvalidArgument;
using LinAlgError = ::ember::InvalidArgument;
using NotImplementedError = ::ember::NotImplemented;
using OutOfMemoryError = ::ember::OutOfMemory;

// Dtype queries under their c10 names.
constexpr const char* toString(ScalarType t) { return ::ember::torch_name(t); }
constexpr size_t elementSize(ScalarType t) { return ::ember::element_size(t); }
constexpr bool isFloatingType(ScalarType t) { return ::ember::is_floating_point(t); }
constexpr bool isIntegralType(ScalarType t, bool includeBool) { return ::ember::is_integral(t, includeBool); }
constexpr bool isReducedFloatingType(ScalarType t) { return t == kHalf || t == kBFloat16; }
constexpr bool isComplexType(ScalarType) { return false; }  // ember has no complex dtypes
constexpr bool isSignedType(ScalarType t) { return t != kBool && t != kByte; }

namespace impl {
/// The C++ type of a dtype (scalar_t in AT_DISPATCH_* bodies).
template <ScalarType S>
struct ScalarTypeToCPPType;
#define EMBER_SCALAR_TYPE_TO_CPP(T, S) \
  template <>                          \
  struct ScalarTypeToCPPType<ScalarType::S> { using type = T; };
AT_FORALL_SCALAR_TYPES_AND3(Bool, Half, BFloat16, EMBER_SCALAR_TYPE_TO_CPP)
#undef EMBER_SCALAR_TYPE_TO_CPP
template <ScalarType S>
using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<S>::type;
}  // namespace impl

namespace detail_fatal {
// TORCH_CHECK_EQ & co. stop the process as libtorch's (glog-style FATAL), after printing
// what the message stream collected.
class FatalMessage {
 public:
  FatalMessage(const char* file, int line) { stream_ << "[F " << file << ":" << line << "] "; }
  [[noreturn]] ~FatalMessage() {
    std::cerr << stream_.str() << std::endl;
    std::abort();
  }
  std::ostringstream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};
struct Voidify {
  void operator&(std::ostream&) {}
};
}  // namespace detail_fatal
}  // namespace c10

namespace caffe2 {
using TypeMeta = ::c10::TypeMeta;
}  // namespace caffe2

namespace ember::detail {
// The dtype an AT_DISPATCH_* macro switches on; older code passes x.type(), which libtorch
// still takes with a deprecation warning.
constexpr ScalarType dispatch_scalar_type(ScalarType type) { return type; }
[[deprecated("passing at::DeprecatedTypeProperties to an AT_DISPATCH macro is deprecated, pass an "
             "at::ScalarType instead")]] inline ScalarType
dispatch_scalar_type(const DeprecatedTypeProperties& type) {
  return type.scalarType();
}

// ATen's at::tensor (not torch::tensor): `n` values of C++ dtype `from`, one dimension,
// converted to the options' dtype (the default dtype when they name none), as C++ converts.
inline Tensor aten_tensor(const void* data, size_t n, ScalarType from, const TensorOptions& options) {
  Tensor values = n == 0 ? ::ember::empty({0}, TensorOptions(from))
                         : ::ember::from_blob(const_cast<void*>(data), {int64_t(n)}, TensorOptions(from)).clone();
  Tensor out = values.to(options.device_opt().value_or(Device(kCPU)),
                         options.dtype_opt().value_or(::ember::get_default_dtype()));
  if (options.requires_grad()) out.requires_grad_(true);
  return out;
}
}  // namespace ember::detail

namespace at {
using namespace ::ember;
using TensorBase = ::ember::Tensor;  // libtorch's base of Tensor; one class here
// ATen's shorthands for the dense backends' type properties: at::CPU(kFloat).
using Backend = ::ember::TypeBackend;
inline DeprecatedTypeProperties CPU(ScalarType type) { return {Backend::CPU, type}; }
inline DeprecatedTypeProperties CUDA(ScalarType type) { return {Backend::CUDA, type}; }
namespace native {
using ::ember::is_nonzero;
}  // namespace native
/// libtorch's deprecated guard that runs ops below autograd: here, grad mode off while it lives.
struct AutoNonVariableTypeMode : ::ember::NoGradGuard {
  explicit AutoNonVariableTypeMode(bool enabled = true) {
    EMBER_WARN_ONCE(
        "AutoNonVariableTypeMode is deprecated and will be removed in 1.10 release. For kernel "
        "implementations "
        "please use AutoDispatchBelowADInplaceOrView instead, If you are looking for a user facing API to "
        "enable "
        "running your inference-only workload, please use c10::InferenceMode. Using "
        "AutoDispatchBelowADInplaceOrView in user code is under risk of producing silent wrong result in "
        "some edge "
        "cases. See Note [AutoDispatchBelowAutograd] for more details.");
    EMBER_CHECK(enabled, "AutoNonVariableTypeMode(false) is not supported, as in libtorch");
  }
};
using c10::elementSize;
using c10::irange;
using c10::isComplexType;
using c10::isFloatingType;
using c10::isIntegralType;
using c10::isReducedFloatingType;
using c10::isSignedType;
using c10::nullopt;
using c10::optional;
using c10::scalarTypeToTypeMeta;
using c10::toString;
using c10::TypeMeta;
using c10::typeMetaToScalarType;


// at::tensor is ATen's own, declared here so that it hides torch::tensor for at:: calls
// (at::detail stays ember's: the helper above lives in ember::detail):
// `at::tensor(123)` is a one-element Int tensor, `at::tensor({1.5, 2.25})` Double.
#define EMBER_AT_TENSOR(T, S)                                                                  \
  inline Tensor tensor(ArrayRef<T> values, const TensorOptions& options) {                     \
    return ::ember::detail::aten_tensor(values.data(), values.size(), k##S, options);                   \
  }                                                                                             \
  inline Tensor tensor(std::initializer_list<T> values, const TensorOptions& options) {        \
    return tensor(ArrayRef<T>(values), options);                                                \
  }                                                                                             \
  inline Tensor tensor(T value, const TensorOptions& options) { return tensor(ArrayRef<T>(value), options); } \
  inline Tensor tensor(ArrayRef<T> values) { return tensor(values, TensorOptions(k##S)); }     \
  inline Tensor tensor(std::initializer_list<T> values) { return tensor(ArrayRef<T>(values)); } \
  inline Tensor tensor(T value) { return tensor(ArrayRef<T>(value)); }
AT_FORALL_SCALAR_TYPES_AND3(Bool, Half, BFloat16, EMBER_AT_TENSOR)
#undef EMBER_AT_TENSOR
}  // namespace at

namespace torch {
using namespace ::ember;
using Backend = ::ember::TypeBackend;
using c10::set_default_dtype;  // beside ember's: a ScalarType or a caffe2::TypeMeta
using c10::irange;
using c10::nullopt;
using c10::optional;
using c10::scalarTypeToTypeMeta;
using c10::typeMetaToScalarType;
}  // namespace torch

namespace ember::detail {
// Printed modules read "torch::nn::Linear(...)" in a drop-in program, as libtorch's do.
inline const bool torch_module_names = ::ember::nn::detail::print_torch_module_names();
}  // namespace ember::detail

#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define TORCH_WARN(...) EMBER_WARN(__VA_ARGS__)
#define TORCH_WARN_ONCE(...) EMBER_WARN_ONCE(__VA_ARGS__)
#define AT_ASSERT(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) throw ::ember::Error(::ember::str(__VA_ARGS__))
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define FORWARD_HAS_DEFAULT_ARGS(...) EMBER_FORWARD_HAS_DEFAULT_ARGS(__VA_ARGS__)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)

// The rest of libtorch's checks: typed errors (c10::IndexError names InvalidArgument, see
// above), argument checks, and the glog-style comparisons that stop the process.
#define TORCH_CHECK_WITH(error_t, cond, ...)                                                          \
  do {                                                                                                \
    if (__builtin_expect(!(cond), 0))                                                                 \
      throw ::c10::error_t(::ember::detail::check_msg(                                                \
          "Expected " #cond " to be true, but got false.  (Could this error message be improved?  "   \
          "If so, please report an enhancement request to PyTorch.)",                                 \
          ##__VA_ARGS__));                                                                            \
  } while (0)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK_WITH(IndexError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK_WITH(ValueError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK_WITH(TypeError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_LINALG(cond, ...) TORCH_CHECK_WITH(LinAlgError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK_WITH(NotImplementedError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_ARG(cond, argN, ...) TORCH_CHECK(cond, "invalid argument ", argN, ": ", __VA_ARGS__)
#define TORCH_CHECK_OP(val1, val2, op)                                                                \
  ((val1)op(val2)) ? (void)0                                                                          \
                   : ::c10::detail_fatal::Voidify() &                                                 \
                         ::c10::detail_fatal::FatalMessage(__FILE__, __LINE__).stream()               \
                             << "Check failed: " #val1 " " #op " " #val2 " (" << (val1) << " vs. " << (val2) << ") "
#define TORCH_CHECK_EQ(val1, val2) TORCH_CHECK_OP(val1, val2, ==)
#define TORCH_CHECK_NE(val1, val2) TORCH_CHECK_OP(val1, val2, !=)
#define TORCH_CHECK_LE(val1, val2) TORCH_CHECK_OP(val1, val2, <=)
#define TORCH_CHECK_LT(val1, val2) TORCH_CHECK_OP(val1, val2, <)
#define TORCH_CHECK_GE(val1, val2) TORCH_CHECK_OP(val1, val2, >=)
#define TORCH_CHECK_GT(val1, val2) TORCH_CHECK_OP(val1, val2, >)
#ifdef NDEBUG
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) \
  while (false) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define TORCH_DCHECK_EQ(val1, val2) while (false) TORCH_CHECK_EQ(val1, val2)
#define TORCH_DCHECK_NE(val1, val2) while (false) TORCH_CHECK_NE(val1, val2)
#define TORCH_DCHECK_LE(val1, val2) while (false) TORCH_CHECK_LE(val1, val2)
#define TORCH_DCHECK_LT(val1, val2) while (false) TORCH_CHECK_LT(val1, val2)
#define TORCH_DCHECK_GE(val1, val2) while (false) TORCH_CHECK_GE(val1, val2)
#define TORCH_DCHECK_GT(val1, val2) while (false) TORCH_CHECK_GT(val1, val2)
#else
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define TORCH_DCHECK_EQ(val1, val2) TORCH_CHECK_EQ(val1, val2)
#define TORCH_DCHECK_NE(val1, val2) TORCH_CHECK_NE(val1, val2)
#define TORCH_DCHECK_LE(val1, val2) TORCH_CHECK_LE(val1, val2)
#define TORCH_DCHECK_LT(val1, val2) TORCH_CHECK_LT(val1, val2)
#define TORCH_DCHECK_GE(val1, val2) TORCH_CHECK_GE(val1, val2)
#define TORCH_DCHECK_GT(val1, val2) TORCH_CHECK_GT(val1, val2)
#endif

// c10's portability macros that kernels written for libtorch use.
#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define C10_UNUSED __attribute__((__unused__))
#define C10_RESTRICT __restrict
#define C10_HOST_DEVICE EMBER_HOST_DEVICE
#if defined(__CUDACC__) || defined(__HIPCC__)
#define C10_HOST __host__
#define C10_DEVICE __device__
#else
#define C10_HOST
#define C10_DEVICE
#endif

// AT_DISPATCH_*: a switch over a dtype that runs the lambda with scalar_t (index_t for
// the index types) as its C++ type; another dtype is libtorch's error,
// "\"name\" not implemented for 'Int'". ember has no complex dtypes, so the complex
// variants dispatch over the real types they include.
#define AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, HINT, ...)                         \
  case enum_type: {                                                                   \
    using HINT C10_UNUSED = ::c10::impl::ScalarTypeToCPPTypeT<enum_type>;             \
    return __VA_ARGS__();                                                             \
  }
#define AT_DISPATCH_CASE(enum_type, ...) AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, scalar_t, __VA_ARGS__)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                                                \
  [&] {                                                                                                    \
    const ::ember::ScalarType _st = ::ember::detail::dispatch_scalar_type(TYPE);                          \
    constexpr const char* at_dispatch_name = NAME;                                                         \
    switch (_st) {                                                                                         \
      __VA_ARGS__                                                                                          \
      default:                                                                                             \
        AT_ERROR('"', at_dispatch_name, "\" not implemented for '", ::ember::torch_name(_st), "'");        \
    }                                                                                                      \
  }()
#define AT_DISPATCH_CASE_FLOATING_TYPES(...)          \
  AT_DISPATCH_CASE(::ember::ScalarType::Double, __VA_ARGS__) \
  AT_DISPATCH_CASE(::ember::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)        \
  AT_DISPATCH_CASE(::ember::ScalarType::Half, __VA_ARGS__)
#define AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(...)        \
  AT_DISPATCH_CASE(::ember::ScalarType::Half, __VA_ARGS__) \
  AT_DISPATCH_CASE(::ember::ScalarType::BFloat16, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)                \
  AT_DISPATCH_CASE(::ember::ScalarType::Byte, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::ember::ScalarType::Char, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::ember::ScalarType::Int, __VA_ARGS__)   \
  AT_DISPATCH_CASE(::ember::ScalarType::Long, __VA_ARGS__)  \
  AT_DISPATCH_CASE(::ember::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...)        \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_COMPLEX_TYPES(...)
#define AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES(...) AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX(...) AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(__VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...)                                      \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                                    \
                     AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) \
                         AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...)                                  \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                                    \
                     AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) \
                         AT_DISPATCH_CASE(S2, __VA_ARGS__) AT_DISPATCH_CASE(S3, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND1(S1, TYPE, NAME, ...) \
  AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(S1, S2, TYPE, NAME, ...) \
  AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, )
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...)                                     \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                              \
                     AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) \
                         AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...)                                 \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                              \
                     AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(S1, __VA_ARGS__) \
                         AT_DISPATCH_CASE(S2, __VA_ARGS__) AT_DISPATCH_CASE(S3, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...) AT_DISPATCH_ALL_TYPES(TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(S1, TYPE, NAME, ...) AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(S1, S2, TYPE, NAME, ...) \
  AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(S1, S2, S3, TYPE, NAME, ...) \
  AT_DISPATCH_ALL_TYPES_AND3(S1, S2, S3, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...)                                              \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                            \
                     AT_PRIVATE_CASE_TYPE_USING_HINT(::ember::ScalarType::Int, index_t, __VA_ARGS__) \
                         AT_PRIVATE_CASE_TYPE_USING_HINT(::ember::ScalarType::Long, index_t, __VA_ARGS__))
