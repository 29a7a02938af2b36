#pragma once
// Entry points through which the built-in backends fill the kernel table and install
// their device services; called once from ensure_builtin_kernels().

namespace ember::detail {

void register_cpu_kernels();
/// Registers CUDA kernels and the CUDA Backend; a no-op in builds without CUDA.
void register_cuda_kernels();

}  // namespace ember::detail
