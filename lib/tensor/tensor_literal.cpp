// tensor(...) from scalars and (nested) braced lists: libtorch's TensorDataContainer.
#include <sstream>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/ops.h"

namespace ember {
namespace detail {

namespace {
// Prints a list as libtorch's error messages do: {1, 2}, {{1, 2}, {3, 4}}.
void print_values(std::ostream& os, const unsigned char* bytes, ScalarType t, IntArrayRef sizes, size_t& pos) {
  if (sizes.empty()) {
    const unsigned char* p = bytes + pos * element_size(t);
    ++pos;
    switch (t) {
      case kBool: os << (*p ? 1 : 0); return;  // libtorch streams the bool: 1 or 0
      case kUInt8: os << int(*p); return;
      case kInt8: os << int(*reinterpret_cast<const int8_t*>(p)); return;
      case kInt16: os << *reinterpret_cast<const int16_t*>(p); return;
      case kInt32: os << *reinterpret_cast<const int32_t*>(p); return;
      case kInt64: os << *reinterpret_cast<const int64_t*>(p); return;
      case kHalf: os << float(*reinterpret_cast<const Half*>(p)); return;
      case kBFloat16: os << float(*reinterpret_cast<const BFloat16*>(p)); return;
      case kFloat: os << *reinterpret_cast<const float*>(p); return;
      case kDouble: os << *reinterpret_cast<const double*>(p); return;
    }
    return;
  }
  os << '{';
  for (int64_t i = 0; i < sizes[0]; ++i) {
    if (i) os << ", ";
    print_values(os, bytes, t, sizes.slice(1), pos);
  }
  os << '}';
}

std::string describe(const TensorDataContainer& c) {
  std::ostringstream os;
  size_t pos = 0;
  print_values(os, c.bytes().data(), c.scalar_type(), c.sizes(), pos);
  return os.str();
}

// libtorch prints a list's sizes without brackets: "2" for a 1-D list, "2 2" beyond.
std::string sizes_text(IntArrayRef sizes) {
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? " " : "") + std::to_string(sizes[i]);
  return s;
}
}  // namespace

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> list)
    : kind_(Kind::List), type_(get_default_dtype()) {
  sizes_.push_back(int64_t(list.size()));
  if (list.size() == 0) return;  // tensor({}) is an empty tensor of the default dtype
  const TensorDataContainer& first = *list.begin();
  type_ = first.type_;
  sizes_.insert(sizes_.end(), first.sizes_.begin(), first.sizes_.end());
  bytes_.reserve(first.bytes_.size() * list.size());
  for (const TensorDataContainer& e : list) {
    EMBER_CHECK_ARG(e.type_ == type_,
                    "tensor: Expected all elements of the tensor to have the same scalar type: {}, but got element "
                    "of scalar type: {}",
                    detail::torch_name(type_), detail::torch_name(e.type_));
    EMBER_CHECK_ARG(e.sizes() == first.sizes(),
                    "tensor: Expected all sub-lists to have sizes: {} (e.g. {}), but got sub-list {} with sizes: {}",
                    sizes_text(first.sizes()), describe(first), describe(e), sizes_text(e.sizes()));
    bytes_.insert(bytes_.end(), e.bytes_.begin(), e.bytes_.end());
  }
}

Scalar TensorDataContainer::scalar() const {
  EMBER_CHECK_ARG(is_scalar(), "Can only call `scalar()` on a TensorDataContainer that has `is_scalar() == true`");
  const unsigned char* p = bytes_.data();
  auto read = [p](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return value;
  };
  switch (type_) {
    case kBool: return Scalar(read(bool()));
    case kUInt8: return Scalar(int64_t(read(uint8_t())));
    case kInt8: return Scalar(int64_t(read(int8_t())));
    case kInt16: return Scalar(int64_t(read(int16_t())));
    case kInt32: return Scalar(int64_t(read(int32_t())));
    case kInt64: return Scalar(read(int64_t()));
    case kHalf: return Scalar(double(float(read(Half()))));
    case kBFloat16: return Scalar(double(float(read(BFloat16()))));
    case kFloat: return Scalar(double(read(float())));
    case kDouble: return Scalar(read(double()));
  }
  return Scalar(int64_t(0));
}

std::vector<TensorDataContainer> TensorDataContainer::init_list() const {
  EMBER_CHECK_ARG(is_init_list(),
                  "Can only call `init_list()` on a TensorDataContainer that has `is_init_list() == true`");
  std::vector<TensorDataContainer> elements;
  const size_t stride = sizes_[0] == 0 ? 0 : bytes_.size() / size_t(sizes_[0]);
  for (int64_t i = 0; i < sizes_[0]; ++i) {
    TensorDataContainer e(false);
    e.kind_ = sizes_.size() == 1 ? Kind::Scalar : Kind::List;
    e.type_ = type_;
    e.sizes_.assign(sizes_.begin() + 1, sizes_.end());
    e.bytes_.assign(bytes_.begin() + std::ptrdiff_t(size_t(i) * stride),
                    bytes_.begin() + std::ptrdiff_t(size_t(i + 1) * stride));
    elements.push_back(std::move(e));
  }
  return elements;
}

Tensor TensorDataContainer::tensor() const {
  EMBER_CHECK_ARG(is_tensor(), "Can only call `tensor()` on a TensorDataContainer that has `is_tensor() == true`");
  // On the CPU whatever the DeviceScope, as libtorch's (it keeps the values as a CPU tensor).
  return tensor_from_data(bytes_.data(), type_, sizes_, TensorOptions(type_).device(Device(kCPU)));
}

std::ostream& operator<<(std::ostream& os, const TensorDataContainer& data) { return os << describe(data); }

}  // namespace detail

Tensor tensor(const detail::TensorDataContainer& data, const TensorOptions& options) {
  TensorOptions o = options.has_dtype() ? options : options.dtype(detail::literal_dtype(data.scalar_type()));
  return detail::tensor_from_data(data.bytes().data(), data.scalar_type(), data.sizes(), o);
}

}  // namespace ember
