#pragma once
// Per-family registration functions of the CUDA backend (called by register_cuda_kernels).

#include <cstddef>

#include <cuda_runtime.h>

namespace ember {
class StreamEvents;
}

namespace ember::detail {

void register_cuda_unary_kernels();
void register_cuda_special_kernels();
void register_cuda_binary_kernels();
void register_cuda_ternary_kernels();
void register_cuda_fill_kernels();
void register_cuda_matmul_kernels();
void register_cuda_reduce_kernels();
void register_cuda_dim_kernels();
void register_cuda_select_kernels();
void register_cuda_index_kernels();
void register_cuda_optim_kernels();
/// Convolution through cuDNN (kernels/cuda/cudnn/, built when cuDNN 9 is found).
void register_cuda_cudnn_kernels();

/// The cudaEvent-backed StreamEvents for the caching allocator of a physical GPU.
StreamEvents* cuda_stream_events(int device);

/// Host-to-device copy that returns at once: src is staged in pinned memory from a
/// caching allocator whose block is reused only after the copy on `stream` completes.
void copy_host_to_device_async(void* dst, const void* src, size_t nbytes, int device, cudaStream_t stream);

/// nbytes of page-locked host memory for a pinned tensor (Tensor::pin_memory), handed back
/// by free_pinned_host (a DataDeleter).
void* allocate_pinned_host(size_t nbytes);
void free_pinned_host(void* context, void* ptr);
/// Whether ptr is page-locked host memory known to CUDA (cudaPointerGetAttributes).
bool is_pinned_host(const void* ptr);

}  // namespace ember::detail
