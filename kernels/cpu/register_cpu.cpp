#include "cpu/register_cpu.h"

#include "kernels_registration.h"

namespace ember::detail {

void register_cpu_kernels() {
  register_cpu_fill_kernels();
  register_cpu_random_kernels();
  register_cpu_unary_kernels();
  register_cpu_binary_kernels();
  register_cpu_ternary_kernels();
  register_cpu_reduce_kernels();
  register_cpu_matmul_kernels();
  register_cpu_select_kernels();
  register_cpu_index_kernels();
  register_cpu_optim_kernels();
}

}  // namespace ember::detail
