// Tensor::index and index_put_ with libtorch's rules. Integers, slices, None, Ellipsis
// and bools make a view first; index tensors (int64 positions, bool/uint8 masks) then
// broadcast together and select their dims, which become one block of linear positions
// read or written by the index primitives (index_ops.h), so every device gets
// advanced indexing from its select kernels. See Note [Indexed dims placement].
#include <ostream>
#include <string>
#include <vector>

#include "autograd/grad_ops.h"
#include "autograd/hooks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/index_ops.h"
#include "ember/ops.h"
#include "ember/warning.h"
#include "iter/overlap.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace indexing {

TensorIndex::TensorIndex(const char* s) : kind_(Kind::Ellipsis) {
  EMBER_CHECK_ARG(std::string(s) == "...", "Expected \"...\" to represent an ellipsis index, but got \"{}\"",
                  s);
}

TensorIndex::TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {
  EMBER_CHECK_ARG(tensor_.defined(), "TensorIndex: an undefined tensor cannot be an index");
}

std::ostream& operator<<(std::ostream& os, const Slice& s) {
  return os << s.start() << ":" << s.stop() << ":" << s.step();
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& i) {
  switch (i.kind()) {
    case TensorIndex::Kind::Integer: return os << i.integer();
    case TensorIndex::Kind::Slice: return os << i.slice();
    case TensorIndex::Kind::None: return os << "None";
    case TensorIndex::Kind::Ellipsis: return os << "...";
    case TensorIndex::Kind::Boolean: return os << (i.boolean() ? "true" : "false");
    case TensorIndex::Kind::Tensor: return os << i.tensor();
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices) {
  os << '(';
  for (size_t k = 0; k < indices.size(); ++k) os << (k ? ", " : "") << indices[k];
  return os << ')';
}

}  // namespace indexing

namespace {

using indexing::TensorIndex;

// Note [Indexed dims placement]
// As in NumPy and libtorch: when the dims taken by index tensors are adjacent, the
// broadcast index shape replaces them in place; when they are separated (by a slice),
// it goes first and the remaining dims follow in order.

struct Advanced {
  int64_t dim;       // in the basic-indexed view
  int64_t user_dim;  // in the tensor the user indexed, for error messages
  Tensor index;      // int64 positions, or a bool mask over mask.dim() dims
};

struct Parsed {
  Tensor view;
  std::vector<Advanced> adv;
};

[[noreturn]] void out_of_bounds(int64_t i, int64_t user_dim, int64_t size) {
  EMBER_THROW(InvalidArgument, "index {} is out of bounds for dimension {} with size {}", i, user_dim, size);
}

Tensor bool_index(bool b, Device device) {
  return b ? zeros({1}, TensorOptions(kInt64).device(device)) : empty({0}, TensorOptions(kInt64).device(device));
}

Parsed parse(const Tensor& self, const std::vector<TensorIndex>& indices) {
  EMBER_CHECK_ARG(self.defined(), "index: self is an undefined tensor");
  int64_t specified = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) ++specified;
    if (i.is_tensor()) {
      const ScalarType t = i.tensor().dtype();
      specified += (t == kBool || t == kUInt8) ? std::max<int64_t>(1, i.tensor().dim()) : 1;
      if ((t == kBool || t == kUInt8) && i.tensor().dim() == 0) --specified;
    }
    if (i.is_ellipsis()) ++ellipses;
  }
  EMBER_CHECK_ARG(ellipses <= 1, "index: an index can only have a single ellipsis ('...')");
  // libtorch's single-integer path on a 0-dim tensor, with its texts.
  if (self.dim() == 0 && indices.size() == 1 && indices[0].is_integer()) {
    EMBER_CHECK_ARG(indices[0].integer() != 0,
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                    "C++ to convert a 0-dim tensor to a number");
    out_of_bounds(indices[0].integer(), 0, 0);
  }
  EMBER_CHECK_ARG(specified <= self.dim(), "too many indices for tensor of dimension {}", self.dim());
  Parsed p;
  Tensor& r = p.view;
  r = self;
  int64_t d = 0, user = 0;
  auto select = [&](int64_t i) {
    const int64_t n = r.size(d);
    if (i < -n || i >= n) out_of_bounds(i, user, n);
    r = r.select(d, i);
    ++user;
  };
  auto record_bool = [&](bool b) {
    r = r.unsqueeze(d);
    p.adv.push_back({d, user, bool_index(b, self.device())});
    ++d;
  };
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case TensorIndex::Kind::Integer: select(i.integer()); break;
      case TensorIndex::Kind::Slice: {
        const auto& s = i.slice();
        r = r.slice(d, s.start(), s.stop(), s.step());
        ++d, ++user;
        break;
      }
      case TensorIndex::Kind::None: r = r.unsqueeze(d); ++d; break;
      case TensorIndex::Kind::Ellipsis: d += self.dim() - specified; user += self.dim() - specified; break;
      case TensorIndex::Kind::Boolean: record_bool(i.boolean()); break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = i.tensor();
        const ScalarType st = t.dtype();
        const bool mask = st == kBool || st == kUInt8;
        // A 0-dim integer tensor of any width is an integer, as in libtorch; positions
        // may be int32 as well as int64 (libtorch 2.x; 1.13 takes int64 only).
        if (t.dim() == 0 && (mask || is_integral(st))) {
          if (mask) record_bool(t.item<int64_t>() != 0);
          else select(t.item<int64_t>());
          break;
        }
        EMBER_CHECK_ARG(st == kInt64 || st == kInt32 || mask,
                        "tensors used as indices must be long, int, byte or bool tensors, got {}",
                        detail::torch_name(st));
        Tensor idx = st == kInt32 ? t.to(kInt64) : t;
        if (st == kUInt8) {
          EMBER_WARN_FMT("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.");
          idx = t.to(kBool);
        }
        p.adv.push_back({d, user, idx});
        const int64_t k = mask ? t.dim() : 1;
        d += k, user += k;
        break;
      }
    }
  }
  return p;
}

// libtorch's broadcast of the index tensors, with its error text.
SizesVector broadcast_indices(const std::vector<Tensor>& idx) {
  SizesVector shape(idx[0].sizes());
  for (size_t j = 1; j < idx.size(); ++j) {
    IntArrayRef b = idx[j].sizes();
    const size_t n = std::max(shape.size(), b.size());
    SizesVector out(n, 1);
    bool ok = true;
    for (size_t k = 0; k < n; ++k) {
      const int64_t x = k + shape.size() >= n ? shape[k + shape.size() - n] : 1;
      const int64_t y = k + b.size() >= n ? b[k + b.size() - n] : 1;
      ok = ok && (x == y || x == 1 || y == 1);
      out[k] = x == 1 ? y : x;
    }
    if (!ok) {
      std::string shapes;
      for (const Tensor& t : idx) shapes += (shapes.empty() ? "" : ", ") + detail::shape_str(t.sizes());
      EMBER_THROW(InvalidArgument, "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                  shapes);
    }
    shape = out;
  }
  return shape;
}

// The advanced part as a block [b, e) of `t` (a view of self) read at positions `lin`.
struct Block {
  Tensor t;
  int64_t b = 0, e = 0;
  Tensor lin;
  int64_t user_dim = 0;
};

Block make_block(const Parsed& p) {
  const Tensor& r = p.view;
  Block blk;
  // A single mask: its flat true positions are the linear positions over its dims.
  if (p.adv.size() == 1 && p.adv[0].index.dtype() == kBool) {
    const Advanced& a = p.adv[0];
    for (int64_t j = 0; j < a.index.dim(); ++j)
      EMBER_CHECK_ARG(a.index.size(j) == r.size(a.dim + j),
                      "The shape of the mask {} at index {} does not match the shape of the indexed tensor {} at index {}",
                      detail::shape_str(a.index.sizes()), j, detail::shape_str(r.sizes()), a.dim + j);
    return {r, a.dim, a.dim + a.index.dim(), detail::flat_nonzero(a.index), a.user_dim};
  }
  // Masks become their coordinate columns, one int64 index per dim.
  std::vector<int64_t> dims, users;
  std::vector<Tensor> idx;
  std::vector<bool> checked;
  for (const Advanced& a : p.adv) {
    if (a.index.dtype() != kBool) {
      dims.push_back(a.dim), users.push_back(a.user_dim), idx.push_back(a.index), checked.push_back(false);
      continue;
    }
    for (int64_t j = 0; j < a.index.dim(); ++j)
      EMBER_CHECK_ARG(a.index.size(j) == r.size(a.dim + j),
                      "The shape of the mask {} at index {} does not match the shape of the indexed tensor {} at index {}",
                      detail::shape_str(a.index.sizes()), j, detail::shape_str(r.sizes()), a.dim + j);
    Tensor nz = nonzero(a.index);
    for (int64_t j = 0; j < a.index.dim(); ++j)
      dims.push_back(a.dim + j), users.push_back(a.user_dim + j), idx.push_back(nz.select(1, j)),
          checked.push_back(true);
  }
  const SizesVector shape = broadcast_indices(idx);
  const size_t k = dims.size();
  bool adjacent = true;
  for (size_t j = 1; j < k; ++j) adjacent = adjacent && dims[j] == dims[j - 1] + 1;
  if (adjacent) {
    blk.t = r;
    blk.b = dims[0];
  } else {
    SizesVector perm;
    for (int64_t d : dims) perm.push_back(d);
    for (int64_t d = 0; d < r.dim(); ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d);
    blk.t = r.permute(perm.ref());
    blk.b = 0;
  }
  blk.e = blk.b + int64_t(k);
  blk.user_dim = users[0];
  if (k == 1) {  // the kernel checks and wraps the positions itself
    blk.lin = idx[0];
    return blk;
  }
  // Several dims: each index is checked against its own dim and wrapped, then the
  // positions combine row-major over the block.
  Tensor lin;
  int64_t mult = 1;
  for (size_t j = k; j-- > 0;) {
    const int64_t n = blk.t.size(blk.b + int64_t(j));
    Tensor x = idx[j];
    if (!checked[j] && x.numel() > 0) {
      EMBER_CHECK_ARG(n > 0, "index is out of bounds for dimension with size 0");  // libtorch's text
      const int64_t lo = x.min().item<int64_t>(), hi = x.max().item<int64_t>();
      if (lo < -n) out_of_bounds(lo, users[j], n);
      if (hi >= n) out_of_bounds(hi, users[j], n);
      if (lo < 0) x = x + x.lt(0).to(kInt64) * n;
    }
    Tensor term = mult == 1 ? x : x * mult;
    lin = lin.defined() ? lin + term : term;
    mult *= n;
  }
  blk.lin = lin.expand(shape.ref());
  return blk;
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  EMBER_CHECK_ARG(!indices.empty(), "Passing an empty index list to Tensor::index() is not valid syntax");
  Parsed p = parse(*this, indices);
  // x.index({"..."}) is a new view of x (libtorch's alias), never x's own handle.
  if (p.adv.empty()) return p.view.is_same(*this) ? p.view.alias() : p.view;
  Block blk = make_block(p);
  if (EMBER_GRAD_RECORDING(blk.t)) return autograd::detail::index_block(blk.t, blk.b, blk.e, blk.lin, blk.user_dim);
  return detail::gather_block(blk.t, blk.b, blk.e, blk.lin, true, {nullptr, blk.user_dim});
}

namespace {

// index_put_ of both index forms. from_index_list: the TensorIndex form, which (as
// libtorch's) first drops the value's leading size-1 dims, so a [1, 1, 2, 3] value fills a
// [1, 2, 3] slot; libtorch's list-of-optional-tensors form (aten::index_put_) does not.
void put_indexed(const Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value_in,
                 bool accumulate, bool from_index_list) {
  EMBER_CHECK_ARG(self.defined(), "index_put_: self is an undefined tensor");
  EMBER_CHECK_ARG(value_in.defined(), "index_put_: the value is an undefined tensor");
  detail::check_writable(self);
  EMBER_CHECK_ARG(!indices.empty(),
                  "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  Tensor value = value_in;
  if (from_index_list) {
    while (value.dim() > 0 && value.size(0) == 1) value = value.squeeze(0);
  }
  if (EMBER_GRAD_RECORDING(self)) autograd::detail::check_inplace(self);  // before the views are made
  Parsed p = parse(self, indices);
  // An advanced write may not read the memory it writes (a basic one goes through copy_,
  // whose own rule allows the very same elements).
  if (!p.adv.empty()) {
    detail::check_no_input_overlap(self, value_in, "index_put_");
    for (const TensorIndex& i : indices)
      if (i.kind() == TensorIndex::Kind::Tensor)
        detail::check_no_input_overlap(self, i.tensor(), "index_put_");
  }
  // libtorch's copy into a basic-indexed view casts the value; its index_put_ does not.
  EMBER_CHECK_ARG(value.dtype() == self.dtype() || (from_index_list && p.adv.empty()),
                  "Index put requires the source and destination dtypes match, got {} for the destination and {} for "
                  "the source.",
                  detail::torch_name(self.dtype()), detail::torch_name(value.dtype()));
  if (p.adv.empty()) {
    Tensor v = value.expand(p.view.sizes());
    if (accumulate) p.view.add_(v);
    else p.view.copy_(v);
    return;
  }
  Block blk = make_block(p);
  SizesVector result;
  for (int64_t d = 0; d < blk.b; ++d) result.push_back(blk.t.size(d));
  for (int64_t s : blk.lin.sizes()) result.push_back(s);
  for (int64_t d = blk.e; d < blk.t.dim(); ++d) result.push_back(blk.t.size(d));
  bool ok = value.dim() <= int64_t(result.size());
  for (int64_t k = 1; ok && k <= value.dim(); ++k) {
    const int64_t v = value.size(-k);
    ok = v == 1 || v == result[result.size() - size_t(k)];
  }
  EMBER_CHECK_ARG(ok, "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                  detail::shape_str(value.sizes()), detail::shape_str(result.ref()));
  if (EMBER_GRAD_RECORDING2(blk.t, value)) {
    autograd::detail::index_put_block(blk.t, blk.b, blk.e, blk.lin, value.expand(result.ref()), accumulate,
                                      blk.user_dim);
    return;
  }
  detail::put_block(blk.t, blk.b, blk.e, blk.lin, value.expand(result.ref()), accumulate, true,
                    {nullptr, blk.user_dim});
}

}  // namespace

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                           bool accumulate) const {
  return index_put_(std::vector<TensorIndex>(indices), value, accumulate);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value,
                           bool accumulate) const {
  put_indexed(*this, indices, value, accumulate, true);
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const {
  return index_put_(std::vector<TensorIndex>(indices), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) const {
  EMBER_CHECK_ARG(defined(), "index_put_: self is an undefined tensor");
  return index_put_(indices, full({}, value, TensorOptions(dtype()).device(device())), false);
}

Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                           bool accumulate) const {
  std::vector<TensorIndex> ti;
  for (const auto& t : indices) ti.push_back(t ? TensorIndex(*t) : TensorIndex(indexing::Slice()));
  put_indexed(*this, ti, value, accumulate, false);
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& value, bool accumulate) const {
  EMBER_CHECK_ARG(defined(), "index_put: self is an undefined tensor");
  Tensor r = clone();
  r.index_put_(indices, value, accumulate);
  return r;
}

Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                   bool accumulate) {
  return self.index_put_(indices, value, accumulate);
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& value,
                 bool accumulate) {
  return self.index_put(indices, value, accumulate);
}

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  EMBER_CHECK_ARG(self.defined(), "index: self is an undefined tensor");
  // libtorch's at::index is advanced indexing only: every tensor indexes (a 0-dim integer
  // one too, where Tensor::index would select), and the result is a copy. A 0-dim index
  // goes in as shape [1], which broadcasts away unless every index is 0-dim; then the one
  // extra dim is squeezed where the broadcast dims went (Note [Indexed dims placement]).
  std::vector<TensorIndex> ti;
  std::vector<size_t> tensor_positions;
  bool all_zero_dim = true;
  for (size_t k = 0; k < indices.size(); ++k) {
    const std::optional<Tensor>& t = indices[k];
    if (!t || !t->defined()) {
      ti.push_back(TensorIndex(indexing::Slice()));
      continue;
    }
    tensor_positions.push_back(k);
    const bool zero_dim_integer = t->dim() == 0 && t->dtype() != kBool && t->dtype() != kUInt8;
    all_zero_dim = all_zero_dim && zero_dim_integer;
    ti.push_back(TensorIndex(zero_dim_integer ? t->reshape({1}) : *t));
  }
  EMBER_CHECK_ARG(!tensor_positions.empty(),
                  "index: expected at least one index tensor (an empty entry takes a whole dim), got none of {}",
                  indices.size());
  Tensor r = self.index(ti);
  if (all_zero_dim) {
    const bool adjacent = tensor_positions.back() - tensor_positions.front() + 1 == tensor_positions.size();
    r = r.squeeze(adjacent ? int64_t(tensor_positions.front()) : 0);
  }
  return r;
}

}  // namespace ember
