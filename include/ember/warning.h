#pragma once
/// Warnings on libtorch's pattern (c10::WarningHandler): ember reports each warning to the
/// calling thread's handler; the default one prints "Warning: <msg>" to stderr. Tests
/// install their own handler to capture them. A handler may override either libtorch 1.13's
/// process(SourceLocation, msg, verbatim) or the newer process(const Warning&).

#include <cstdint>
#include <string>

#include "ember/export.h"

namespace ember {

/// Where a warning was raised (c10::SourceLocation); ember's warnings leave it empty.
struct SourceLocation {
  const char* function = "";
  const char* file = "";
  uint32_t line = 0;
};

class WarningHandler;
namespace WarningUtils {
class WarningHandlerGuard;
class WarnAlways;
}  // namespace WarningUtils

class EMBER_API Warning {
 public:
  // libtorch 1.13 spells these c10::Warning::...
  using WarningHandlerGuard = WarningUtils::WarningHandlerGuard;
  using WarnAlways = WarningUtils::WarnAlways;

  explicit Warning(std::string msg, SourceLocation source_location = {}, bool verbatim = false)
      : msg_(std::move(msg)), source_location_(source_location), verbatim_(verbatim) {}
  const std::string& msg() const { return msg_; }
  const SourceLocation& source_location() const { return source_location_; }
  bool verbatim() const { return verbatim_; }

  /// libtorch 1.13's spelling (c10::Warning::set_warning_handler); the same per-thread handler.
  static void set_warning_handler(WarningHandler* handler);
  static WarningHandler* get_warning_handler();

 private:
  std::string msg_;
  SourceLocation source_location_;
  bool verbatim_;
};

class EMBER_API WarningHandler {
 public:
  virtual ~WarningHandler() = default;
  /// Called once per warning; the default hands it to the libtorch 1.13 form below.
  virtual void process(const Warning& warning);
  /// libtorch 1.13's form; the default prints "Warning: <msg>" to stderr.
  virtual void process(const SourceLocation& source_location, const std::string& msg, bool verbatim);
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

inline void Warning::set_warning_handler(WarningHandler* handler) {
  WarningUtils::set_warning_handler(handler);
}
inline WarningHandler* Warning::get_warning_handler() { return WarningUtils::get_warning_handler(); }

namespace detail {
/// Hands msg to the thread's handler (EMBER_WARN in the library calls this).
EMBER_API void warn(const std::string& msg);
}  // namespace detail

}  // namespace ember
