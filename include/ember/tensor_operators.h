#pragma once
/// Tensor's free operators (a + b, a == 2, a & b, ...), its printing and
/// libtorch's TensorList; included by ember/tensor.h after the class.

#include <iosfwd>

#include "ember/array_ref.h"
#include "ember/export.h"
#include "ember/scalar.h"

namespace ember {

class Tensor;

/// Prints values, then "[ CPUFloatType{2,3} ]", as libtorch does.
EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

// operators
EMBER_API Tensor operator+(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator+(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator+(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator-(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator-(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator-(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator*(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator*(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator*(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator/(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator/(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator/(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator%(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator%(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator==(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator==(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator!=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator!=(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator<(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator<=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator<=(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator>(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator>=(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator>=(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator==(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator!=(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator<(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator<=(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator>(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator>=(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator%(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator&&(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator||(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator!(const Tensor& a);
EMBER_API Tensor operator&(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator&(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator&(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator|(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator|(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator|(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator^(const Tensor& a, const Tensor& b);
EMBER_API Tensor operator^(const Tensor& a, const Scalar& b);
EMBER_API Tensor operator^(const Scalar& a, const Tensor& b);
EMBER_API Tensor operator-(const Tensor& a);

/// libtorch's at::TensorList: a non-owning view of tensors.
using TensorList = ArrayRef<Tensor>;

}  // namespace ember
