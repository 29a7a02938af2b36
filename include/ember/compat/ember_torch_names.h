#pragma once
/// The names behind ember's libtorch drop-in (target ember::torch, API.md section 16):
/// `torch::`, `at::` and `c10::` refer to ember's API, plus the few libtorch utilities
/// that programs use directly. Only the drop-in's include directory holds this file's
/// <torch/torch.h> front door, so ember::ember users never see these names.

#include <ember/ember.h>

#include <cstdint>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

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

// libtorch describes dtypes by caffe2::TypeMeta in a few places (get_default_dtype()); ember's
// ScalarType plays both parts, so the conversions between them are the identity.
using TypeMeta = ::ember::ScalarType;
constexpr ScalarType typeMetaToScalarType(ScalarType type) { return type; }
constexpr ScalarType scalarTypeToTypeMeta(ScalarType type) { return type; }

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
}  // namespace c10

namespace caffe2 {
using TypeMeta = ::ember::ScalarType;
}  // namespace caffe2

namespace at {
using namespace ::ember;
using TensorBase = ::ember::Tensor;  // libtorch's base of Tensor; one class here
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
using c10::irange;
using c10::nullopt;
using c10::optional;
using c10::scalarTypeToTypeMeta;
using c10::typeMetaToScalarType;
}  // namespace at

namespace torch {
using namespace ::ember;
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

#define TORCH_CHECK(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define TORCH_WARN(...) EMBER_WARN(__VA_ARGS__)
#define TORCH_WARN_ONCE(...) EMBER_WARN_ONCE(__VA_ARGS__)
#define AT_ASSERT(cond, ...) EMBER_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) throw ::ember::Error(::ember::str(__VA_ARGS__))
#define TORCH_MODULE(Name) EMBER_MODULE(Name)
#define FORWARD_HAS_DEFAULT_ARGS(...) EMBER_FORWARD_HAS_DEFAULT_ARGS(__VA_ARGS__)
#define TORCH_ARG(T, name) EMBER_ARG(T, name)
