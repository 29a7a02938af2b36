#pragma once
// Whether a same-dtype copy is a (batched-free) 2-D transpose that a tiled kernel should
// take: after build_elementwise, dim 0 is the output's unit-stride dim; when the input is
// unit-stride along dim 1 instead, element-wise threads could coalesce only one side, so
// the copy goes through shared-memory tiles (read along dim 1, write along dim 0).
// Plain C++ so that the CPU-only test suite checks the choice.

#include <cstdint>

#include "ember/kernel_args.h"

namespace ember::detail {

struct TransposePlan {
  bool tiled = false;
  int64_t n0 = 0, n1 = 0;         // sizes: dim 0 (output unit-stride), dim 1 (input unit-stride)
  int64_t out_stride1 = 0;        // output stride of dim 1
  int64_t in_stride0 = 0;         // input stride of dim 0
};

/// `max_tiles1`: the most tiles the launcher can place along dim 1 (a grid limit).
inline TransposePlan plan_transpose_copy(const ElementwiseArgs& a, int64_t tile, int64_t max_tiles1) {
  TransposePlan p;
  if (a.ninputs != 1 || a.is_scalar[1] || a.dtype != a.out_dtype || a.ndim != 2) return p;
  if (a.strides[0][0] != 1 || a.strides[1][1] != 1 || a.strides[1][0] == 1 || a.strides[1][0] == 0) return p;
  // Skinny copies (a dim shorter than a tile) waste most of each tile: the element-wise
  // kernel, coalesced on the output side, does better.
  if (a.sizes[0] < tile || a.sizes[1] < tile) return p;
  if ((a.sizes[1] + tile - 1) / tile > max_tiles1) return p;
  p.tiled = true;
  p.n0 = a.sizes[0];
  p.n1 = a.sizes[1];
  p.out_stride1 = a.strides[0][1];
  p.in_stride0 = a.strides[1][0];
  return p;
}

}  // namespace ember::detail
