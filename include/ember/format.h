#pragma once
/// fmt formatters for Device, ScalarType and Tensor: fmt::format("{}", t).

#include <fmt/core.h>

#include <string>

#include "ember/device.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace ember::detail {
EMBER_API std::string tensor_to_string(const Tensor& t);
}

template <>
struct fmt::formatter<ember::Device> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const ember::Device& d, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(d.str(), ctx);
  }
};
template <>
struct fmt::formatter<ember::ScalarType> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(ember::ScalarType t, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(ember::name(t), ctx);
  }
};
template <>
struct fmt::formatter<ember::Tensor> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const ember::Tensor& t, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(ember::detail::tensor_to_string(t), ctx);
  }
};
