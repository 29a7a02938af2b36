#pragma once
// The process-wide switch of the CPU's vendor-library kernels (Note [Library kernels]).

#include <atomic>

namespace ember::detail {

extern std::atomic<bool> g_onednn_user_enabled;

}  // namespace ember::detail
