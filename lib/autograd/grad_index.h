#pragma once
// Recording paths of gather, index_select and index_add_ (grad_index.cpp): a front-end
// whose input may require grad calls these after `if (EMBER_GRAD_RECORDING(x))`.

#include "autograd/meta.h"

namespace ember::autograd::detail {

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
void index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha);
void index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);

}  // namespace ember::autograd::detail
