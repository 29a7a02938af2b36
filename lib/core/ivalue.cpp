// IValue's accessors: a wrong kind is InvalidArgument in libtorch's words.
#include "ember/ivalue.h"

#include "core/check.h"

namespace ember {

namespace {
constexpr const char* kKinds[] = {"None", "Tensor", "Double", "Int", "Bool", "String", "TensorList"};
}

std::string IValue::tagKind() const { return kKinds[v_.index()]; }

const Tensor& IValue::toTensor() const {
  EMBER_CHECK_ARG(isTensor(), "Expected Tensor but got {}", tagKind());
  return std::get<Tensor>(v_);
}

double IValue::toDouble() const {
  EMBER_CHECK_ARG(isDouble(), "Expected Double but got {}", tagKind());
  return std::get<double>(v_);
}

int64_t IValue::toInt() const {
  EMBER_CHECK_ARG(isInt(), "Expected Int but got {}", tagKind());
  return std::get<int64_t>(v_);
}

bool IValue::toBool() const {
  EMBER_CHECK_ARG(isBool(), "Expected Bool but got {}", tagKind());
  return std::get<bool>(v_);
}

const std::string& IValue::toStringRef() const {
  EMBER_CHECK_ARG(isString(), "Expected String but got {}", tagKind());
  return std::get<std::string>(v_);
}

const std::vector<Tensor>& IValue::toTensorList() const {
  EMBER_CHECK_ARG(isTensorList(), "Expected TensorList but got {}", tagKind());
  return std::get<std::vector<Tensor>>(v_);
}

}  // namespace ember
