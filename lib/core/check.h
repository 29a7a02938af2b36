#pragma once
// EMBER_CHECK_TYPED: turns a failed condition into a typed ember error with a formatted
// message. The message is only formatted on failure, so a passing check costs a branch.
// (EMBER_CHECK / EMBER_WARN without a suffix are the public, libtorch-style ones of ember/check.h.)

#include <fmt/format.h>

#include "ember/error.h"
#include "ember/warning.h"

namespace ember::detail {

template <class E, class... Args>
[[noreturn]] __attribute__((noinline, cold)) void throw_error(fmt::format_string<Args...> f,
                                                             Args&&... args) {
  throw E(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ember::detail

#define EMBER_CHECK_TYPED(cond, ErrorType, ...)                                \
  do {                                                                         \
    if (__builtin_expect(!(cond), 0)) {                                        \
      ::ember::detail::throw_error<::ember::ErrorType>(__VA_ARGS__);           \
    }                                                                          \
  } while (0)

#define EMBER_CHECK_ARG(cond, ...) EMBER_CHECK_TYPED(cond, InvalidArgument, __VA_ARGS__)

#define EMBER_THROW(ErrorType, ...) ::ember::detail::throw_error<::ember::ErrorType>(__VA_ARGS__)

/// Reports a warning (formatted as EMBER_CHECK_TYPED's message) to the thread's WarningHandler.
#define EMBER_WARN_FMT(...) ::ember::detail::warn(fmt::format(__VA_ARGS__))
