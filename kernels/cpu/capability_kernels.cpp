// The kernel families compiled per capability, registered together (Note [CPU capability]).
#include "cpu/register_cpu.h"

namespace ember::detail::EMBER_CPU_NS {

void register_capability_kernels() {
  register_cpu_fill_kernels();
  register_cpu_unary_kernels();
  register_cpu_binary_kernels();
  register_cpu_ternary_kernels();
  register_cpu_reduce_kernels();
  register_cpu_dim_kernels();
  register_cpu_optim_kernels();
}

}  // namespace ember::detail::EMBER_CPU_NS
