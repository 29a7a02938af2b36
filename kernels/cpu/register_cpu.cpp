#include "cpu/register_cpu.h"

#include "cpu/cpu_capability.h"
#include "kernels_registration.h"

namespace ember::detail {

// Each capability's registration (capability_kernels.cpp, compiled per capability).
namespace cpu_default {
void register_capability_kernels();
}
#if defined(EMBER_CPU_HAVE_AVX2)
namespace cpu_avx2 {
void register_capability_kernels();
}
#endif
#if defined(EMBER_CPU_HAVE_AVX512)
namespace cpu_avx512 {
void register_capability_kernels();
}
#endif

void register_cpu_kernels() {
  switch (selected_cpu_capability()) {
#if defined(EMBER_CPU_HAVE_AVX512)
    case CpuCapability::AVX512:
      cpu_avx512::register_capability_kernels();
      break;
#endif
#if defined(EMBER_CPU_HAVE_AVX2)
    case CpuCapability::AVX2:
      cpu_avx2::register_capability_kernels();
      break;
#endif
    default:
      cpu_default::register_capability_kernels();
      break;
  }
  register_cpu_random_kernels();
  register_cpu_matmul_kernels();
  register_cpu_select_kernels();
  register_cpu_index_kernels();
  register_cpu_pool_kernels();
  register_cpu_norm_kernels();
  register_cpu_special_kernels();
#if defined(EMBER_WITH_ONEDNN)
  register_cpu_library_kernels();
#endif
}

}  // namespace ember::detail
