// ember/cpu.h's oneDNN switch: the library's kernels are registered when the build has it;
// the switch only decides whether the op front-ends use them.
#include "dispatch/library_kernels.h"

#include "ember/cpu.h"
#include "ember/registry.h"

namespace ember {

namespace detail {
std::atomic<bool> g_onednn_user_enabled{true};
}  // namespace detail

bool onednn_available() { return has_kernel(Op::Convolution, kCPU, kFloat); }

void set_onednn_enabled(bool enabled) { detail::g_onednn_user_enabled.store(enabled, std::memory_order_relaxed); }

bool onednn_enabled() { return onednn_available() && detail::g_onednn_user_enabled.load(std::memory_order_relaxed); }

}  // namespace ember
