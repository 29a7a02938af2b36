#pragma once
// libtorch's names of the dtypes ("Float", "Long", ...: c10::toString), for error texts
// that libtorch users compare against; ember::name() gives the NumPy-style "float32".

#include "ember/scalar_type.h"

namespace ember::detail {

using ::ember::torch_name;

}  // namespace ember::detail
