#pragma once
// The block primitives advanced indexing stands on (index_ops.cpp): a tensor's dims
// [b, e) read or written at linear positions, through the index kernels of any device.

#include <cstdint>

#include "ember/tensor.h"

namespace ember::detail {

/// What the dims of an out-of-range error are called: the op's prefix, and the dim of
/// the user's tensor (-1: the message names the op's own dim).
struct IndexErrorText {
  const char* op;
  int64_t user_dim = -1;
};

/// t's dims [b, e) read at the int64 positions `lin` (any shape, row-major over those
/// dims; negatives wrap when allow_negative): sizes t[:b] + lin.shape + t[e:].
Tensor gather_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, bool allow_negative,
                    const IndexErrorText& err);

/// t's dims [b, e) at positions `lin` set to (or, with accumulate, increased by) `src`,
/// of shape t[:b] + lin.shape + t[e:] and t's dtype, on t's device. In place on t.
void put_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, const Tensor& src, bool accumulate,
               bool allow_negative, const IndexErrorText& err);

/// scatter of src into self in place, combining with what is there: mode 1 adds, 2
/// multiplies, 3 keeps the larger, 4 the smaller (a NaN wins). Records no autograd.
Tensor& scatter_combine_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int mode);

/// The flat row-major positions of the trues of a bool tensor, int64 1-D.
Tensor flat_nonzero(const Tensor& mask);

}  // namespace ember::detail
