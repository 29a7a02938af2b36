#pragma once
// libtorch's names of the dtypes ("Float", "Long", ...: c10::toString), for error texts
// that libtorch users compare against; ember::name() gives the NumPy-style "float32".

#include "ember/scalar_type.h"

namespace ember::detail {

inline const char* torch_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "Bool";
    case ScalarType::UInt8: return "Byte";
    case ScalarType::Int8: return "Char";
    case ScalarType::Int16: return "Short";
    case ScalarType::Int32: return "Int";
    case ScalarType::Int64: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::BFloat16: return "BFloat16";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
  }
  return "Undefined";
}

}  // namespace ember::detail
