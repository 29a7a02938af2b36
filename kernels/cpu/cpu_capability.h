#pragma once
// The capability chosen for this process (Note [CPU capability]); cpu_capability.cpp.

namespace ember::detail {

enum class CpuCapability { Default = 0, AVX2 = 1, AVX512 = 2 };

/// Chosen on the first call (from the CPU, the build and EMBER_CPU_CAPABILITY), then fixed.
CpuCapability selected_cpu_capability();

}  // namespace ember::detail
