#pragma once
// OffsetCalculator: linear index -> element offset of each operand, for the strided
// path. Plain data and EMBER_HOST_DEVICE code, so the CUDA kernels use this very struct.

#include <cstdint>

#include "ember/export.h"
#include "ember/kernel_args.h"

namespace ember::detail {

template <int N>
struct OffsetCalculator {
  static constexpr int kMaxDims = ElementwiseArgs::kMaxDims;
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};

  OffsetCalculator() = default;
  /// Operands first..first+N-1 of args (0 is the output).
  explicit OffsetCalculator(const ElementwiseArgs& args, int first = 0) {
    ndim = args.ndim;
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = args.sizes[d];
      for (int k = 0; k < N; ++k) strides[k][d] = args.strides[first + k][d];
    }
  }

  /// Dims are innermost first: peel the fastest-varying index off the linear one.
  EMBER_HOST_DEVICE void get(int64_t linear, int64_t (&offsets)[N]) const {
    for (int k = 0; k < N; ++k) offsets[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      int64_t idx = linear % sizes[d];
      linear /= sizes[d];
      for (int k = 0; k < N; ++k) offsets[k] += idx * strides[k][d];
    }
  }
};

}  // namespace ember::detail
