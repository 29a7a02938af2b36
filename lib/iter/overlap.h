#pragma once
// Memory overlap between the tensor an op writes and the tensors it reads (libtorch's
// MemOverlap.h): in-place, out= and copy_ refuse writes whose result would depend on
// the order elements are visited in.

#include <initializer_list>

#include "ember/tensor.h"

namespace ember::detail {

enum class MemOverlap : uint8_t { No, Full, Partial, TooHard };

/// Dense in some order of its dims: every element at a distinct offset, no gaps.
bool non_overlapping_and_dense(const Tensor& t);

/// Whether a and b share memory: Full (same elements, same strides), Partial, No, or
/// TooHard (one of them is not dense, so the answer would need a walk of both).
MemOverlap overlap_status(const Tensor& a, const Tensor& b);

/// Throws unless `out` is safe to write elementwise while reading `ins` (undefined
/// entries are skipped): no element of out written twice, no partial overlap with an input.
void check_no_write_overlap(const Tensor& out, const Tensor* ins, int n, const char* op);

/// libtorch's rule for writes at indexed places (index_copy_, index_add_, scatter_, put_ ...):
/// no element of out written twice, and no memory shared with an input, not even the very
/// same elements (null entries and undefined tensors are skipped).
void check_no_indexed_write_overlap(const Tensor& out, std::initializer_list<const Tensor*> ins,
                                    const char* op);

/// libtorch's assert_no_overlap without the internal check (index_put_ only warns about that).
void check_no_input_overlap(const Tensor& out, const Tensor& in, const char* op);

/// copy_'s stricter rule: out may share no memory with src at all (the caller has already
/// returned early when both name the very same elements).
void check_no_copy_overlap(const Tensor& out, const Tensor& src);

}  // namespace ember::detail
