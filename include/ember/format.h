#pragma once
/// fmt formatters for Device, ScalarType and Tensor: fmt::format("{}", t).
/// Only fmt/core.h is pulled in, to keep users' compile times low.

#include <fmt/core.h>

#include <string>

#include "ember/device.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace ember::detail {
EMBER_API std::string tensor_to_string(const Tensor& t);

/// Formats a value through its string form; takes no format spec.
struct StringFormatter {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
};
}  // namespace ember::detail

template <>
struct fmt::formatter<ember::Device> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(const ember::Device& d, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{}", d.str());
  }
};
template <>
struct fmt::formatter<ember::ScalarType> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(ember::ScalarType t, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{}", ember::name(t));
  }
};
template <>
struct fmt::formatter<ember::Tensor> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(const ember::Tensor& t, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{}", ember::detail::tensor_to_string(t));
  }
};
