#pragma once
// Per-family registration functions of the CUDA backend (called by register_cuda_kernels).

namespace ember {
class StreamEvents;  // memory/caching_allocator.h; lives in ember, not ember::detail
}

namespace ember::detail {

void register_cuda_unary_kernels();
void register_cuda_binary_kernels();
void register_cuda_ternary_kernels();
void register_cuda_fill_kernels();
void register_cuda_matmul_kernels();
void register_cuda_reduce_kernels();
void register_cuda_dim_kernels();

/// The cudaEvent-backed StreamEvents for the caching allocator of a physical GPU.
StreamEvents* cuda_stream_events(int device);

}  // namespace ember::detail
