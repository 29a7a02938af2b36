#pragma once
// Per-family registration functions of the CPU backend (called by register_cpu_kernels).

#include "ember/registry.h"

namespace ember::detail {

void register_cpu_unary_kernels();
void register_cpu_binary_kernels();
void register_cpu_ternary_kernels();
void register_cpu_fill_kernels();
void register_cpu_random_kernels();
void register_cpu_reduce_kernels();
void register_cpu_matmul_kernels();
void register_cpu_select_kernels();
void register_cpu_index_kernels();
void register_cpu_optim_kernels();

}  // namespace ember::detail
