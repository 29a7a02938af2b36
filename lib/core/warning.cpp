// The per-thread warning handler (ember/warning.h), as c10's.
#include "ember/warning.h"

#include <atomic>
#include <cstdio>

namespace ember {

void WarningHandler::process(const Warning& warning) {
  process(warning.source_location(), warning.msg(), warning.verbatim());
}

void WarningHandler::process(const SourceLocation&, const std::string& msg, bool) {
  std::fprintf(stderr, "Warning: %s\n", msg.c_str());
}

namespace {
WarningHandler* base_handler() {
  static WarningHandler handler;
  return &handler;
}
thread_local WarningHandler* t_handler = nullptr;
}  // namespace

namespace WarningUtils {
void set_warning_handler(WarningHandler* handler) { t_handler = handler; }
WarningHandler* get_warning_handler() { return t_handler ? t_handler : base_handler(); }
namespace {
std::atomic<bool> g_warn_always{false};
}
void set_warnAlways(bool setting) noexcept { g_warn_always.store(setting, std::memory_order_relaxed); }
bool get_warnAlways() noexcept { return g_warn_always.load(std::memory_order_relaxed); }
}  // namespace WarningUtils

void detail::warn(const std::string& msg) { get_warning_handler()->process(Warning(msg)); }

}  // namespace ember
