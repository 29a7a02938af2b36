#pragma once
/// Zero-copy exchange with other libraries through DLPack (PyTorch, NumPy, CuPy, JAX):
/// Debian's dlpack.h is DLPack 0.6, whose exchanged struct is DLManagedTensor. Include
/// <dlpack/dlpack.h> (or another copy of it, such as ATen's) to read the struct's fields.

#include "ember/export.h"
#include "ember/tensor.h"

struct DLManagedTensor;

namespace ember {

/// A DLManagedTensor viewing `tensor`'s memory (CPU or CUDA; strides in elements). The
/// tensor's storage stays alive until the consumer calls the struct's deleter, once.
/// Bool goes out as kDLUInt 8 bits (DLPack 0.6 has no bool code): consumers see uint8 0 / 1.
EMBER_API DLManagedTensor* to_dlpack(const Tensor& tensor);

/// A tensor viewing the memory `src` describes (kDLCPU, kDLCUDAHost or kDLCUDA; byte_offset
/// and strides kept). Takes ownership on success: src's deleter runs once, when the last
/// view of the result dies. On error (InvalidArgument: unsupported dtype, lanes, device or
/// negative strides) the caller still owns src.
EMBER_API Tensor from_dlpack(DLManagedTensor* src);

}  // namespace ember
