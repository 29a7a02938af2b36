#include "ember/scalar_type.h"

#include <ostream>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/scalar.h"
#include "ember/tensor_options.h"

namespace ember {

const char* name(ScalarType t) {
  static constexpr const char* names[] = {"bool",  "uint8",   "int8",     "int16",   "int32",
                                          "int64", "float16", "bfloat16", "float32", "float64"};
  return names[static_cast<int>(t)];
}

namespace detail {
std::atomic<ScalarType> g_default_dtype{kFloat};
}

// Any dtype, as libtorch's C++ set_default_dtype (Python's refuses integers): with an
// integral default, floating factories such as rand refuse it, as libtorch's do.
void set_default_dtype(ScalarType t) {
  detail::g_default_dtype.store(t, std::memory_order_relaxed);
}

namespace {
constexpr int category(ScalarType t) {  // bool < integral < floating
  return t == kBool ? 0 : is_integral(t) ? 1 : 2;
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  if (category(a) == 2) {
    // half and bfloat16 have no common 16-bit type: torch promotes the pair to float32.
    if ((a == kHalf && b == kBFloat16) || (a == kBFloat16 && b == kHalf)) return kFloat;
    return element_size(a) >= element_size(b) ? a : b;
  }
  // integers: uint8 with a signed type needs a signed type wider than 8 bits.
  if (a == kUInt8 || b == kUInt8) {
    ScalarType other = a == kUInt8 ? b : a;
    return other == kInt8 ? kInt16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

std::ostream& operator<<(std::ostream& stream, ScalarType type) { return stream << detail::torch_name(type); }

std::ostream& operator<<(std::ostream& stream, const Scalar& scalar) {
  if (scalar.isBoolean()) return stream << (scalar.toBool() ? "true" : "false");
  if (scalar.isFloatingPoint()) return stream << scalar.toDouble();
  return stream << scalar.toLong();
}

std::ostream& operator<<(std::ostream& stream, Layout layout) { return stream << layout_name(layout); }

std::ostream& operator<<(std::ostream& stream, const TensorOptions& options) {
  auto defaulted = [](bool given) { return given ? "" : " (default)"; };
  // libtorch names a dtype by its TypeMeta, the C++ type's name.
  stream << "TensorOptions(dtype=" << cpp_type_name(options.dtype()) << defaulted(options.has_dtype())
         << ", device=" << options.device() << defaulted(options.has_device()) << ", layout=" << options.layout()
         << defaulted(options.has_layout())
         << ", requires_grad=" << (options.requires_grad() ? "true" : "false (default)")
         << ", pinned_memory=false (default), memory_format=";
  if (options.has_memory_format()) return stream << *options.memory_format_opt() << ")";
  return stream << "(nullopt))";
}

}  // namespace ember
