#pragma once
/// The instruction set of the CPU kernels (Note [CPU capability] in kernels/cpu/vec.h).
/// ember compiles its elementwise, reduction, softmax, copy and optimizer kernels once per
/// instruction set ("default" = baseline x86-64 or any other CPU, "avx2" = AVX2+FMA,
/// "avx512" = AVX-512 F/BW/DQ/VL) and runs the widest one that both the build and the CPU
/// have. The environment variable EMBER_CPU_CAPABILITY=default|avx2|avx512, read once when
/// the kernels are first needed, forces a lower one (as PyTorch's ATEN_CPU_CAPABILITY);
/// a value the CPU cannot run, or an unknown one, is ignored with a warning.

#include <string>
#include <vector>

#include "ember/export.h"

namespace ember {

/// The capability whose kernels this process runs: "default", "avx2" or "avx512".
EMBER_API const char* cpu_capability();
/// The capabilities this build has kernels for and this CPU can run, lowest first
/// (always starts with "default").
EMBER_API std::vector<std::string> available_cpu_capabilities();

/// Whether this build runs float32 CPU convolutions on oneDNN (CMake EMBER_ONEDNN;
/// Note [Library kernels]). Without it the portable im2col + GEMM form runs: same results
/// within rounding, slower.
EMBER_API bool onednn_available();
/// Switches oneDNN off or back on for the whole process (libtorch's
/// at::globalContext().setUserEnabledMkldnn): off, the portable kernels run. Default on.
EMBER_API void set_onednn_enabled(bool enabled);
/// Whether oneDNN is available and switched on.
EMBER_API bool onednn_enabled();

}  // namespace ember
