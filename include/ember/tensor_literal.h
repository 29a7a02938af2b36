#pragma once
/// tensor(...): tensors from C++ values, as torch::tensor. Scalars give 0-dim tensors,
/// (nested) braced lists, std::vector<T> and ArrayRef<T> give 1-D or N-D tensors.
/// dtypes as libtorch infers them: int and long give int64, float and double the default
/// dtype (get_default_dtype()); bool, uint8, int8, int16, Half and BFloat16 keep theirs.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <type_traits>
#include <vector>

#include "ember/array_ref.h"
#include "ember/export.h"
#include "ember/scalar.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"
#include "ember/tensor_options.h"

namespace ember {

namespace detail {

EMBER_API Tensor tensor_from_data(const void* data, ScalarType src_type, IntArrayRef sizes,
                                  const TensorOptions& options);

template <class T>
inline constexpr bool kIsLiteralElement =
    std::is_arithmetic_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The element type values of type T are stored as: libtorch's source types as they are
/// (int is Int, so that mixed-type errors name it as libtorch does), other integers widened
/// to int64_t.
template <class T>
using LiteralStored = std::conditional_t<std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
                                             std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
                                             std::is_same_v<T, int32_t> || !std::is_integral_v<T>,
                                         std::conditional_t<std::is_same_v<T, long double>, double, T>, int64_t>;

/// The dtype a literal of source dtype `t` gets when the options name none (libtorch's
/// compute_desired_dtype): int becomes int64, float and double the default dtype.
inline ScalarType literal_dtype(ScalarType t) {
  if (t == kInt32) return kInt64;
  return t == kFloat || t == kDouble ? get_default_dtype() : t;
}

/// A scalar, a (nested) braced list of them, or a flat array: what torch::tensor takes
/// (libtorch's TensorDataContainer). Every element must have the same C++ type.
class EMBER_API TensorDataContainer {
 public:
  template <class T, std::enable_if_t<kIsLiteralElement<T>, int> = 0>
  TensorDataContainer(T value) : kind_(Kind::Scalar), type_(ScalarTypeOf<LiteralStored<T>>::value) {
    store(&value, 1);
  }
  TensorDataContainer(std::initializer_list<TensorDataContainer> list);
  template <class T, std::enable_if_t<kIsLiteralElement<T>, int> = 0>
  TensorDataContainer(ArrayRef<T> values) : kind_(Kind::Array), type_(ScalarTypeOf<LiteralStored<T>>::value) {
    sizes_.push_back(int64_t(values.size()));
    store(values.data(), values.size());
  }
  template <class T, std::enable_if_t<kIsLiteralElement<T>, int> = 0>
  TensorDataContainer(const std::vector<T>& values)
      : kind_(Kind::Array), type_(ScalarTypeOf<LiteralStored<T>>::value) {
    sizes_.push_back(int64_t(values.size()));
    for (const T& v : values) store(&v, 1);  // std::vector<bool> has no data()
  }

  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_init_list() const { return kind_ == Kind::List; }
  /// Made from an ArrayRef or a std::vector (libtorch keeps those as a tensor).
  bool is_tensor() const { return kind_ == Kind::Array; }
  /// A scalar container's value (InvalidArgument for the other kinds, as each accessor).
  Scalar scalar() const;
  /// A braced list's elements, each a container of its own.
  std::vector<TensorDataContainer> init_list() const;
  /// An array container's values as a 1-D tensor of its source dtype.
  Tensor tensor() const;
  /// The C++ source type's dtype (int32 for int), before literal_dtype applies.
  ScalarType scalar_type() const { return type_; }
  IntArrayRef sizes() const { return sizes_; }
  /// The elements in row-major order, each element_size(scalar_type()) bytes.
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  enum class Kind : uint8_t { Scalar, List, Array };
  template <class T>
  void store(const T* values, size_t n) {
    using S = LiteralStored<T>;
    const size_t old = bytes_.size();
    bytes_.resize(old + n * sizeof(S));
    for (size_t i = 0; i < n; ++i) {
      const S s = static_cast<S>(values[i]);
      std::memcpy(bytes_.data() + old + i * sizeof(S), &s, sizeof(S));
    }
  }
  Kind kind_;
  ScalarType type_;
  std::vector<int64_t> sizes_;
  std::vector<unsigned char> bytes_;
};

/// libtorch's form: "1.5" for a scalar, "{{1, 2}, {3, 4}}" for lists and arrays.
EMBER_API std::ostream& operator<<(std::ostream& os, const TensorDataContainer& data);

}  // namespace detail

/// tensor(123) is a 0-dim int64, tensor(1.5) has the default dtype, tensor({{1, 2}, {3, 4}})
/// is 2x2 int64; ragged lists are InvalidArgument. Options / a dtype / a Device may follow.
EMBER_API Tensor tensor(const detail::TensorDataContainer& data, const TensorOptions& options = {});

template <class T, std::enable_if_t<detail::kIsLiteralElement<T>, int> = 0>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options = {}) {
  return tensor(detail::TensorDataContainer(values), options);
}
template <class T, std::enable_if_t<detail::kIsLiteralElement<T>, int> = 0>
Tensor tensor(const std::vector<T>& values, const TensorOptions& options = {}) {
  return tensor(detail::TensorDataContainer(values), options);
}
template <class T, std::enable_if_t<detail::kIsLiteralElement<T>, int> = 0>
Tensor tensor(std::initializer_list<T> values, const TensorOptions& options = {}) {
  return tensor(detail::TensorDataContainer(ArrayRef<T>(values)), options);
}

}  // namespace ember
