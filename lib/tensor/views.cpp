// View ops: new sizes / strides / offset over the same storage, never a copy
// (reshape and flatten copy only when no view can express the result, as in torch).
#include <algorithm>

#include "autograd/grad_ops.h"
#include "core/check.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::make_view;
using detail::shape_str;
using detail::wrap_dim;

namespace {

void check_defined(const Tensor& t, const char* op) {
  EMBER_CHECK_ARG(t.defined(), "{}: undefined tensor", op);
}

// Resolves one -1 in a requested shape against numel.
SizesVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  SizesVector out(shape);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK_ARG(infer < 0, "{}: only one dimension can be inferred (shape {})", op, shape_str(shape));
      infer = int64_t(i);
    } else {
      EMBER_CHECK_ARG(shape[i] >= 0, "{}: invalid shape dimension {} in {}", op, shape[i], shape_str(shape));
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK_ARG(known != 0 && numel % known == 0, "{}: shape '{}' is invalid for input of size {}", op,
                    shape_str(shape), numel);
    out[size_t(infer)] = numel / known;
  } else {
    EMBER_CHECK_ARG(known == numel, "{}: shape '{}' is invalid for input of size {}", op, shape_str(shape), numel);
  }
  return out;
}

// Strides for viewing (sizes, strides) as new_sizes without copying, if possible
// (torch's computeStride): each run of old dims that is contiguous may be re-split.
bool view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes, SizesVector& out) {
  out = SizesVector(new_sizes.size());
  if (sizes.empty()) {  // a 0-d tensor views as any shape of one element
    out = SizesVector(new_sizes.size(), 1);
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) {
    out = detail::contiguous_strides(new_sizes);
    return true;
  }
  int64_t view_d = int64_t(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.size() ? strides.back() : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

void Tensor::throw_undefined(const char* accessor) {
  EMBER_THROW(InvalidArgument, "{}() called on an undefined Tensor", accessor);
}

void Tensor::throw_dim_out_of_range(int64_t d, const char* what) const {
  wrap_dim(d, dim(), what);  // throws the standard message
  EMBER_THROW(InvalidArgument, "{}: dimension {} out of range for a {}-D tensor", what, d, dim());
}

Tensor Tensor::view(IntArrayRef shape) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::view(*this, shape, false);
  check_defined(*this, "view");
  SizesVector ns = infer_size(shape, numel(), "view");
  SizesVector st;
  EMBER_CHECK_ARG(view_strides(sizes(), strides(), ns, st),
                  "view: view size {} is not compatible with input tensor's size {} and stride {} (at least "
                  "one dimension spans across two contiguous subspaces); use reshape instead",
                  shape_str(ns), shape_str(sizes()), shape_str(strides()));
  return make_view(*this, ns, st, storage_offset());
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::view(*this, shape, true);
  check_defined(*this, "reshape");
  SizesVector ns = infer_size(shape, numel(), "reshape");
  SizesVector st;
  if (view_strides(sizes(), strides(), ns, st)) return make_view(*this, ns, st, storage_offset());
  Tensor copy = clone().view(ns);
  copy.unsafe_impl()->view_kind_ = 0;  // a new tensor, as libtorch's _unsafe_view of the clone
  return copy;
}

Tensor Tensor::view_as(const Tensor& o) const {
  check_defined(o, "view_as");
  return view(o.sizes());
}
Tensor Tensor::reshape_as(const Tensor& o) const {
  check_defined(o, "reshape_as");
  return reshape(o.sizes());
}

Tensor Tensor::flatten(int64_t start, int64_t end) const {
  check_defined(*this, "flatten");
  start = wrap_dim(start, dim(), "flatten");
  end = wrap_dim(end, dim(), "flatten");
  EMBER_CHECK_ARG(start <= end, "flatten: start_dim ({}) cannot come after end_dim ({})", start, end);
  if (dim() == 0) return reshape({1});  // after the checks: a 0-d tensor takes dims 0 and -1 only
  SizesVector ns;
  for (int64_t d = 0; d < start; ++d) ns.push_back(size(d));
  int64_t m = 1;
  for (int64_t d = start; d <= end; ++d) m *= size(d);
  ns.push_back(m);
  for (int64_t d = end + 1; d < dim(); ++d) ns.push_back(size(d));
  return reshape(ns);
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::transpose(*this, d0, d1);
  check_defined(*this, "transpose");
  if (dim() == 0) {  // only dims 0 and -1 name the (absent) dim of a 0-d tensor
    wrap_dim(d0, 0, "transpose");
    wrap_dim(d1, 0, "transpose");
    return make_view(*this, sizes(), strides(), storage_offset());
  }
  d0 = wrap_dim(d0, dim(), "transpose");
  d1 = wrap_dim(d1, dim(), "transpose");
  SizesVector sz(sizes()), st(strides());
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::t() const {
  check_defined(*this, "t");
  EMBER_CHECK_ARG(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is {}D", dim());
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::transpose(*this, 0, dim() < 2 ? 0 : 1, "TBackward0");
  return dim() < 2 ? transpose(0, 0) : transpose(0, 1);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::permute(*this, dims);
  check_defined(*this, "permute");
  EMBER_CHECK_ARG(int64_t(dims.size()) == dim(),
                  "permute: number of dims don't match in permute (got {} dims for a {}-D tensor)", dims.size(), dim());
  SizesVector sz(dims.size()), st(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], dim(), "permute");
    EMBER_CHECK_ARG(!seen[d], "permute: repeated dim {} in {}", d, shape_str(dims));
    seen[d] = true;
    sz[i] = size(d);
    st[i] = stride(d);
  }
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::squeeze() const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::squeeze(*this, std::nullopt);
  check_defined(*this, "squeeze");
  SizesVector sz, st;
  for (int64_t d = 0; d < dim(); ++d)
    if (size(d) != 1) sz.push_back(size(d)), st.push_back(stride(d));
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::squeeze(int64_t d) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::squeeze(*this, d);
  check_defined(*this, "squeeze");
  d = wrap_dim(d, dim(), "squeeze");
  if (dim() == 0) return make_view(*this, sizes(), strides(), storage_offset());
  if (size(d) != 1) return make_view(*this, sizes(), strides(), storage_offset());
  SizesVector sz(sizes()), st(strides());
  sz.erase(size_t(d));
  st.erase(size_t(d));
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::unsqueeze(int64_t d) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::unsqueeze(*this, d);
  check_defined(*this, "unsqueeze");
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  SizesVector sz(sizes()), st(strides());
  int64_t new_stride = d < dim() ? size(d) * stride(d) : 1;
  sz.insert(size_t(d), 1);
  st.insert(size_t(d), new_stride);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::expand(IntArrayRef shape) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::expand(*this, shape);
  check_defined(*this, "expand");
  EMBER_CHECK_ARG(int64_t(shape.size()) >= dim(),
                  "expand: the number of sizes provided ({}) must be greater or equal to the number of "
                  "dimensions in the tensor ({})", shape.size(), dim());
  const int64_t n = int64_t(shape.size()), lead = n - dim();
  SizesVector sz(shape.size()), st(shape.size());
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t td = i - lead;
    int64_t want = shape[i];
    if (td < 0) {
      EMBER_CHECK_ARG(want >= 0, "expand: the expanded size of the tensor ({}) isn't allowed in a leading, "
                      "non-existing dimension {}", want, i);
      sz[i] = want;
      st[i] = 0;
      continue;
    }
    int64_t have = size(td);
    EMBER_CHECK_ARG(want >= -1, "expand: invalid size {} at dimension {}; sizes must be >= 0 (or -1 to keep one)",
                    want, i);
    if (want == -1) want = have;
    EMBER_CHECK_ARG(have == want || have == 1,
                    "expand: the expanded size of the tensor ({}) must match the existing size ({}) at "
                    "non-singleton dimension {}; target sizes: {}, tensor sizes: {}",
                    want, have, i, shape_str(shape), shape_str(sizes()));
    sz[i] = want;
    st[i] = have == want ? stride(td) : 0;
  }
  int64_t count = 1;
  for (int64_t v : sz)
    EMBER_CHECK_ARG(!__builtin_mul_overflow(count, v, &count),
                    "expand: the expanded size {} has more elements than an int64 can count", shape_str(sz));
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::expand_as(const Tensor& o) const {
  check_defined(o, "expand_as");
  return expand(o.sizes());
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::slice(*this, d, start, end, step);
  check_defined(*this, "slice");
  EMBER_CHECK_ARG(dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "slice");
  EMBER_CHECK_ARG(step > 0, "slice: step must be positive, got {}", step);
  const int64_t n = size(d);
  int64_t s = start.value_or(0), e = end.value_or(n);
  if (s < 0) s += n;
  if (e < 0) e += n;
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, s, n);
  SizesVector sz(sizes()), st(strides());
  sz[d] = (e - s + step - 1) / step;
  st[d] = stride(d) * step;
  return make_view(*this, sz, st, storage_offset() + s * stride(d));
}

// libtorch's checks and texts: start may be the size (an empty narrow at the end).
Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  check_defined(*this, "narrow");
  EMBER_CHECK_ARG(dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "narrow");
  const int64_t n = size(d);
  EMBER_CHECK_ARG(start >= -n && start <= n,
                  "narrow: start out of range (expected to be in range of [{}, {}], but got {})", -n, n, start);
  if (start < 0) start += n;
  EMBER_CHECK_ARG(length >= 0 && start <= n - length, "start ({}) + length ({}) exceeds dimension size ({}).",
                  start, length, n);
  return slice(d, start, start + length, 1);
}

Tensor Tensor::narrow_copy(int64_t d, int64_t start, int64_t length) const {
  return narrow(d, start, length).clone(MemoryFormat::Contiguous);
}

// Window w's element k is element w * step + k along d; a 0-dim tensor has one element
// along its only dim, as libtorch's.
Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::unfold(*this, d, size, step);
  check_defined(*this, "unfold");
  d = wrap_dim(d, dim(), "unfold");
  const int64_t n = dim() == 0 ? 1 : this->size(d);
  EMBER_CHECK_ARG(size <= n, "maximum size for tensor at dimension {} is {} but size is {}", d, n, size);
  EMBER_CHECK_ARG(size >= 0, "size is {} but must be >= 0", size);
  EMBER_CHECK_ARG(step > 0, "step is {} but must be > 0", step);
  SizesVector sz(sizes()), st(strides());
  if (dim() > 0) {
    sz[size_t(d)] = (n - size) / step + 1;
    st[size_t(d)] = stride(d) * step;
  }
  sz.push_back(size);
  st.push_back(dim() == 0 ? 1 : stride(d));
  return make_view(*this, sz, st, storage_offset());
}

bool Tensor::is_set_to(const Tensor& other) const {
  check_defined(*this, "is_set_to");
  EMBER_CHECK_ARG(other.defined(), "is_set_to: the other tensor is undefined");
  return storage().get() == other.storage().get() && storage_offset() == other.storage_offset() &&
         sizes() == other.sizes() && strides() == other.strides();
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::select(*this, d, index);
  check_defined(*this, "select");
  EMBER_CHECK_ARG(dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  const int64_t n = size(d);
  EMBER_CHECK_ARG(index >= -n && index < n, "select(): index {} out of range for tensor of size {} at dimension {}",
                  index, shape_str(sizes()), d);
  if (index < 0) index += n;
  SizesVector sz(sizes()), st(strides());
  sz.erase(size_t(d));
  st.erase(size_t(d));
  return make_view(*this, sz, st, storage_offset() + index * stride(d));
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  check_defined(*this, "split");
  EMBER_CHECK_ARG(dim() > 0, "split: expects at least a 1-dimensional tensor");
  d = wrap_dim(d, dim(), "split");
  EMBER_CHECK_ARG(split_size >= 0, "split: split_size must be non-negative, got {}", split_size);
  const int64_t n = size(d);
  EMBER_CHECK_ARG(split_size > 0 || n == 0, "split: split_size can only be 0 if dimension size is 0, got dimension size {}", n);
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::split(*this, split_size, d);
  std::vector<Tensor> out;
  if (n == 0) return {*this};
  for (int64_t s = 0; s < n; s += split_size) out.push_back(narrow(d, s, std::min(split_size, n - s)));
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  check_defined(*this, "chunk");
  EMBER_CHECK_ARG(dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  EMBER_CHECK_ARG(chunks > 0, "chunk: number of chunks must be greater than 0, got {}", chunks);
  d = wrap_dim(d, dim(), "chunk");
  const int64_t n = size(d);
  const int64_t each = (n + chunks - 1) / chunks;
  if (each == 0) {  // torch returns `chunks` empty pieces only for an empty dim
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(d, 0, 0));
    return out;
  }
  return split(each, d);
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  check_defined(*this, "unbind");
  EMBER_CHECK_ARG(dim() > 0, "unbind: dimension specified as {} but tensor has no dimensions", d);
  d = wrap_dim(d, dim(), "unbind");
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::unbind(*this, d);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < size(d); ++i) out.push_back(select(d, i));
  return out;
}

Tensor Tensor::alias() const {
  check_defined(*this, "alias");
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::alias(*this);
  return make_view(*this, sizes(), strides(), storage_offset());
}

// Tiling as a view plus one copy: x viewed as [1, s0, 1, s1, ...], expanded to
// [r0, s0, r1, s1, ...] and made contiguous as [r0*s0, r1*s1, ...].
Tensor Tensor::repeat(IntArrayRef repeats) const {
  check_defined(*this, "repeat");
  EMBER_CHECK_ARG(int64_t(repeats.size()) >= dim(),
                  "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const size_t n = repeats.size(), lead = n - size_t(dim());
  SizesVector target(n), spread, expanded;
  bool has_zero = false;
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = i < lead ? 1 : size(int64_t(i - lead));
    target[i] = s * repeats[i];
    spread.push_back(1);
    spread.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    has_zero = has_zero || target[i] == 0;
  }
  for (size_t i = 0; i < n; ++i)
    EMBER_CHECK_ARG(target[i] >= 0, "Trying to create tensor with negative dimension {}: {}", target[i],
                    shape_str(target.ref()));
  Tensor y;
  {
    NoGradGuard no_grad;
    y = has_zero ? ember::empty(target.ref(), options())
                 : reshape(spread.ref()).expand(expanded.ref()).contiguous().view(target.ref());
  }
  if (EMBER_GRAD_RECORDING(*this)) return autograd::detail::repeat(*this, repeats, y);
  return y;
}

Tensor t(const Tensor& x) { return x.t(); }
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) { return x.transpose(dim0, dim1); }
Tensor alias(const Tensor& x) { return x.alias(); }

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) { return x.split(split_size, dim); }
std::vector<Tensor> split(const Tensor& x, IntArrayRef split_sizes, int64_t dim) {
  return split_with_sizes(x, split_sizes, dim);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) { return x.chunk(chunks, dim); }
std::vector<Tensor> unbind(const Tensor& x, int64_t dim) { return x.unbind(dim); }

}  // namespace ember
