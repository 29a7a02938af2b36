#pragma once
/// Checks and warnings for user code, as libtorch's TORCH_CHECK / TORCH_WARN /
/// TORCH_WARN_ONCE. Message pieces of any streamable type are joined with operator<<
/// (ember::str, as c10::str):
///   EMBER_CHECK(x.dim() == 2, "expected a matrix, got ", x.dim(), " dims");   // throws ember::Error
///   EMBER_WARN("learning rate ", lr, " is large");          // to the thread's WarningHandler
///   EMBER_WARN_ONCE("deprecated option");                   // once per call site

#include <sstream>
#include <string>

#include "ember/error.h"
#include "ember/warning.h"

namespace ember {

/// The arguments streamed one after another into a string (c10::str); "" for none.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (void)(os << ... << args);
  return os.str();
}

namespace detail {

// As c10::detail::torchCheckMsgImpl: the default text when no message is given, a lone
// C string as it is, anything else joined by str().
inline const char* check_msg(const char* default_msg) { return default_msg; }
inline const char* check_msg(const char*, const char* msg) { return msg; }
template <class... Args>
std::string check_msg(const char*, const Args&... args) {
  return ::ember::str(args...);
}

// Out of line and cold, so that a passing check costs one branch at the call site.
[[noreturn]] __attribute__((noinline, cold)) inline void check_fail(const char* msg) { throw Error(msg); }
[[noreturn]] __attribute__((noinline, cold)) inline void check_fail(const std::string& msg) {
  throw Error(msg);
}

}  // namespace detail
}  // namespace ember

/// Throws ember::Error with the joined message (libtorch's default text when none is given)
/// unless cond holds.
#define EMBER_CHECK(cond, ...)                                                                       \
  do {                                                                                               \
    if (__builtin_expect(!(cond), 0)) {                                                              \
      ::ember::detail::check_fail(::ember::detail::check_msg(                                        \
          "Expected " #cond " to be true, but got false.  (Could this error message be improved?  "  \
          "If so, please report an enhancement request to PyTorch.)",                                \
          ##__VA_ARGS__));                                                                           \
    }                                                                                                \
  } while (0)

/// Hands the joined message to the calling thread's WarningHandler (ember/warning.h).
#define EMBER_WARN(...) ::ember::detail::warn(::ember::str(__VA_ARGS__))

/// EMBER_WARN the first time this call site runs (every time under
/// WarningUtils::set_warnAlways(true)); the message is built only when it is reported.
#define EMBER_WARN_ONCE(...)                                          \
  do {                                                                \
    if (::ember::WarningUtils::get_warnAlways()) {                    \
      EMBER_WARN(__VA_ARGS__);                                        \
    } else {                                                          \
      [[maybe_unused]] static const bool ember_warned_once_ = [&] {   \
        EMBER_WARN(__VA_ARGS__);                                      \
        return true;                                                  \
      }();                                                            \
    }                                                                 \
  } while (0)
