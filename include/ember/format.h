#pragma once
/// fmt formatters for Device, ScalarType and Tensor: fmt::format("{}", t).
/// Only fmt/core.h is pulled in, to keep users' compile times low.

#include <fmt/core.h>

#include <string>
#include <string_view>

#include "ember/device.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace ember::detail {
EMBER_API std::string tensor_to_string(const Tensor& t);

/// Formats a value through its string form; takes no format spec.
struct StringFormatter {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  // Copied out directly, not through format_to: clang mangles that path's instantiation in a
  // GCC-built libfmt differently, and the program would not link.
  template <class Ctx>
  static auto write(std::string_view s, Ctx& ctx) {
    auto out = ctx.out();
    for (char c : s) *out++ = c;
    return out;
  }
};
}  // namespace ember::detail

template <>
struct fmt::formatter<ember::Device> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(const ember::Device& d, Ctx& ctx) const {
    return write(d.str(), ctx);
  }
};
template <>
struct fmt::formatter<ember::ScalarType> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(ember::ScalarType t, Ctx& ctx) const {
    return write(ember::name(t), ctx);
  }
};
template <>
struct fmt::formatter<ember::Tensor> : ember::detail::StringFormatter {
  template <class Ctx>
  auto format(const ember::Tensor& t, Ctx& ctx) const {
    return write(ember::detail::tensor_to_string(t), ctx);
  }
};
