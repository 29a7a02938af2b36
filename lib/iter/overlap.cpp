#include "iter/overlap.h"

#include <algorithm>

#include "core/check.h"

namespace ember::detail {

namespace {

constexpr const char* kInternalOverlap =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";
constexpr const char* kInputOverlap =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
    "single memory location. Please clone() the tensor before performing the operation.";

// libtorch's has_internal_overlap: a zero stride over more than one element is certain;
// anything else that is not dense is too hard to tell and allowed.
bool has_internal_overlap(const Tensor& t) {
  if (t.is_contiguous()) return false;
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  for (size_t d = 0; d < sizes.size(); ++d)
    if (strides[d] == 0 && sizes[d] > 1) return true;
  return false;
}

}  // namespace

bool non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  SizesVector order;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] != 1) order.push_back(int64_t(d));
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return strides[x] < strides[y]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

MemOverlap overlap_status(const Tensor& a, const Tensor& b) {
  if (a.is_same(b)) return MemOverlap::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlap::No;
  if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return MemOverlap::TooHard;
  if (a.storage() != b.storage()) return MemOverlap::No;
  const char* a_begin = static_cast<const char*>(a.data_ptr());
  const char* a_end = a_begin + a.nbytes();
  const char* b_begin = static_cast<const char*>(b.data_ptr());
  const char* b_end = b_begin + b.nbytes();
  if (a_begin == b_begin && a_end == b_end) return a.strides() == b.strides() ? MemOverlap::Full : MemOverlap::Partial;
  return a_begin < b_end && b_begin < a_end ? MemOverlap::Partial : MemOverlap::No;
}

void check_no_write_overlap(const Tensor& out, const Tensor* ins, int n, const char* op) {
  EMBER_CHECK_ARG(!has_internal_overlap(out), "{}: {}", op, kInternalOverlap);
  for (int i = 0; i < n; ++i) {
    // Distinct storages (the common case) cannot overlap: one pointer compare.
    if (!ins[i].defined() || ins[i].storage() != out.storage()) continue;
    EMBER_CHECK_ARG(overlap_status(out, ins[i]) != MemOverlap::Partial, "{}: {}", op, kInputOverlap);
  }
}

void check_no_input_overlap(const Tensor& out, const Tensor& in, const char* op) {
  if (!in.defined() || in.storage() != out.storage()) return;
  const MemOverlap o = overlap_status(out, in);
  EMBER_CHECK_ARG(o != MemOverlap::Partial && o != MemOverlap::Full, "{}: {}", op, kInputOverlap);
}

void check_no_indexed_write_overlap(const Tensor& out, std::initializer_list<const Tensor*> ins,
                                    const char* op) {
  if (!out.defined()) return;  // the op's own check names the undefined operand
  EMBER_CHECK_ARG(!has_internal_overlap(out), "{}: {}", op, kInternalOverlap);
  for (const Tensor* in : ins)
    if (in) check_no_input_overlap(out, *in, op);
}

void check_no_copy_overlap(const Tensor& out, const Tensor& src) {
  EMBER_CHECK_ARG(!has_internal_overlap(out), "copy_: {}", kInternalOverlap);
  if (src.storage() != out.storage()) return;
  const MemOverlap o = overlap_status(out, src);
  EMBER_CHECK_ARG(o != MemOverlap::Partial && o != MemOverlap::Full, "copy_: {}", kInputOverlap);
}

}  // namespace ember::detail
