#pragma once
/// Warnings on libtorch's pattern (c10::WarningHandler): ember reports each warning to the
/// calling thread's handler; the default one prints "Warning: <msg>" to stderr. Tests
/// install their own handler to capture them.

#include <string>

#include "ember/export.h"

namespace ember {

class EMBER_API Warning {
 public:
  explicit Warning(std::string msg) : msg_(std::move(msg)) {}
  const std::string& msg() const { return msg_; }

 private:
  std::string msg_;
};

class EMBER_API WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  /// Called once per warning; the default prints it to stderr.
  virtual void process(const Warning& warning);
};

namespace WarningUtils {
/// The calling thread's handler (nullptr restores the default one).
EMBER_API void set_warning_handler(WarningHandler* handler);
EMBER_API WarningHandler* get_warning_handler();

/// Installs a handler for its lifetime, then restores the previous one.
class EMBER_API WarningHandlerGuard {
 public:
  explicit WarningHandlerGuard(WarningHandler* handler) : prev_(get_warning_handler()) {
    set_warning_handler(handler);
  }
  ~WarningHandlerGuard() { set_warning_handler(prev_); }
  WarningHandlerGuard(const WarningHandlerGuard&) = delete;
  WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

 private:
  WarningHandler* prev_;
};

/// When set (process-wide), EMBER_WARN_ONCE warns every time, as c10's set_warnAlways.
EMBER_API void set_warnAlways(bool setting) noexcept;
EMBER_API bool get_warnAlways() noexcept;
/// Sets warn-always for its lifetime, then restores the previous setting.
class EMBER_API WarnAlways {
 public:
  explicit WarnAlways(bool setting = true) : prev_(get_warnAlways()) { set_warnAlways(setting); }
  ~WarnAlways() { set_warnAlways(prev_); }
  WarnAlways(const WarnAlways&) = delete;
  WarnAlways& operator=(const WarnAlways&) = delete;

 private:
  bool prev_;
};
}  // namespace WarningUtils

using WarningUtils::get_warning_handler;
using WarningUtils::set_warning_handler;

namespace detail {
/// Hands msg to the thread's handler (EMBER_WARN in the library calls this).
EMBER_API void warn(const std::string& msg);
}  // namespace detail

}  // namespace ember
