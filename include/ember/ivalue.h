#pragma once
/// IValue: one value of the kinds an archive stores beside its tensors and a custom autograd
/// function keeps in ctx->saved_data (libtorch's c10::IValue, for None, Tensor, Double, Int,
/// Bool, String and TensorList): `archive.write("epoch", IValue(3))`, then
/// `IValue v; archive.read("epoch", v); v.toInt()`.

#include <cstdint>
#include <string>
#include <type_traits>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "ember/export.h"
#include "ember/tensor.h"

namespace ember {

class EMBER_API IValue {
 public:
  /// None.
  IValue() = default;
  IValue(std::nullopt_t) {}  // NOLINT
  IValue(Tensor t) : v_(std::move(t)) {}  // NOLINT: implicit as in libtorch
  IValue(double d) : v_(d) {}             // NOLINT
  /// Every integer type is an Int (int64), as libtorch stores them; bool is a Bool.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T i) : v_(int64_t(i)) {}                // NOLINT
  IValue(bool b) : v_(b) {}                      // NOLINT
  IValue(std::string s) : v_(std::move(s)) {}    // NOLINT
  IValue(const char* s) : v_(std::string(s)) {}  // NOLINT: a literal is a String, not a Bool
  IValue(std::vector<Tensor> ts) : v_(std::move(ts)) {}  // NOLINT

  bool isNone() const { return v_.index() == 0; }
  bool isTensor() const { return v_.index() == 1; }
  bool isDouble() const { return v_.index() == 2; }
  bool isInt() const { return v_.index() == 3; }
  bool isBool() const { return v_.index() == 4; }
  bool isString() const { return v_.index() == 5; }
  bool isTensorList() const { return v_.index() == 6; }

  /// Each throws InvalidArgument "Expected Int but got Double" (libtorch's words) for
  /// another kind.
  const Tensor& toTensor() const;
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
  const std::string& toStringRef() const;
  std::string toString() const { return toStringRef(); }
  const std::vector<Tensor>& toTensorList() const;

  /// "None", "Tensor", "Double", "Int", "Bool", "String" or "TensorList" (libtorch's tagKind()).
  std::string tagKind() const;

 private:
  std::variant<std::monostate, Tensor, double, int64_t, bool, std::string, std::vector<Tensor>> v_;
};

}  // namespace ember
