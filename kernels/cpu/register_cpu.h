#pragma once
// Per-family registration functions of the CPU backend (called by register_cpu_kernels).

#include "cpu/vec.h"
#include "ember/registry.h"

namespace ember::detail {

// Compiled once, at the baseline instruction set: kernels that move memory or must draw
// the same random streams everywhere.
void register_cpu_random_kernels();
void register_cpu_matmul_kernels();
void register_cpu_select_kernels();
void register_cpu_index_kernels();
void register_cpu_pool_kernels();
void register_cpu_norm_kernels();
void register_cpu_special_kernels();
/// Vendor-library kernels (Note [Library kernels]): oneDNN's convolutions, in builds with it.
void register_cpu_library_kernels();

}  // namespace ember::detail

namespace ember::detail::EMBER_CPU_NS {

// Compiled once per capability (Note [CPU capability]).
void register_cpu_unary_kernels();
void register_cpu_binary_kernels();
void register_cpu_ternary_kernels();
void register_cpu_fill_kernels();
void register_cpu_reduce_kernels();
void register_cpu_dim_kernels();
void register_cpu_optim_kernels();
/// All of the above: the capability's part of the kernel table.
void register_capability_kernels();

}  // namespace ember::detail::EMBER_CPU_NS
