#pragma once
// Recording paths of the non-elementwise ops: a front-end whose input may require grad
// calls these (after `if (EMBER_GRAD_RECORDING(x))`); each runs the op under no-grad and
// records libtorch's node.

#include <optional>
#include <tuple>
#include <vector>

#include "autograd/meta.h"

namespace ember::autograd::detail {

// reductions (grad_reduce.cpp)
Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype);
Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<ScalarType> dtype);
/// amax/amin and the full max()/min() (`name` tells them apart).
Tensor amax_amin(bool is_max, const char* name, const Tensor& x, IntArrayRef dims, bool keepdim);
std::tuple<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim);
Tensor var_std(const Tensor& x, IntArrayRef dims, int64_t correction, bool keepdim, bool take_sqrt);
Tensor norm(const Tensor& x, const Scalar& p, IntArrayRef dims, bool keepdim);
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim);
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype, bool log);
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype);

// linear algebra (grad_linalg.cpp)
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& a, const Tensor& v);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha);
/// matmul's batched case built from recorded views and bmm.
Tensor matmul_batched(const Tensor& a, const Tensor& b);

// views, joins and copies (grad_views.cpp)
Tensor view(const Tensor& x, IntArrayRef shape, bool reshape);
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1, const char* name = "TransposeBackward0");
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim);
Tensor permute(const Tensor& x, IntArrayRef dims);
Tensor squeeze(const Tensor& x, std::optional<int64_t> dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor expand(const Tensor& x, IntArrayRef sizes);
Tensor alias(const Tensor& x);
Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
/// x.repeat(repeats), already computed as `result`, recorded as RepeatBackward0.
Tensor repeat(const Tensor& x, IntArrayRef repeats, const Tensor& result);
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step);
/// The diagonal view `y` of x (dims d1, d2 wrapped), recorded as DiagonalBackward0.
Tensor diagonal(const Tensor& x, const Tensor& y, int64_t offset, int64_t d1, int64_t d2);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
Tensor to(const Tensor& x, Device device, ScalarType dtype, bool non_blocking, bool copy);
Tensor clone(const Tensor& x, MemoryFormat memory_format = MemoryFormat::Preserve);
void copy_(Tensor& self, const Tensor& src, bool non_blocking);
void fill_(Tensor& self, const Scalar& value);

// selection (grad_select.cpp)
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending);
/// scatter_ of src (or of value when src is null) without reduce, or scatter_add_ (is_add).
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const Scalar* value, bool is_add);
/// Advanced indexing's gather of t's dims [b, e) at positions lin (index_ops.h), recorded.
Tensor index_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, int64_t user_dim);
/// index_put_'s write of value into t's dims [b, e) at positions lin, recorded in place.
void index_put_block(const Tensor& t, int64_t b, int64_t e, const Tensor& lin, const Tensor& value, bool accumulate,
                     int64_t user_dim);
/// masked_select of self broadcast to `shape`, at its flat positions `flat` (int64 1-D).
Tensor masked_select(const Tensor& self, const Tensor& flat, IntArrayRef shape);
/// masked_fill / masked_fill_ of value; value_tensor is the 0-dim tensor it came from, if any.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value, const Tensor* value_tensor);
void masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value, const Tensor* value_tensor);

}  // namespace ember::autograd::detail
