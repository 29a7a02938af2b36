#pragma once
/// Element access by index for loops over a tensor's elements, as libtorch's
/// TensorAccessor (Tensor::accessor<T, N>(): a view of a CPU tensor's data, sizes and
/// strides) and PackedTensorAccessor32/64 (Tensor::packed_accessor32/64<T, N>(): sizes and
/// strides copied in, so it can be passed by value to a CUDA kernel). Neither owns the data:
/// the tensor must outlive it.

#include <cstddef>
#include <cstdint>

#include "ember/array_ref.h"
#include "ember/export.h"  // EMBER_HOST_DEVICE

namespace ember {

/// How an accessor holds its data pointer (libtorch's DefaultPtrTraits / RestrictPtrTraits).
template <typename T>
struct DefaultPtrTraits {
  using PtrType = T*;
};
template <typename T>
struct RestrictPtrTraits {
  using PtrType = T* __restrict__;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessorBase {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  EMBER_HOST_DEVICE TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  IntArrayRef sizes() const { return IntArrayRef(sizes_, N); }
  IntArrayRef strides() const { return IntArrayRef(strides_, N); }
  EMBER_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  EMBER_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  EMBER_HOST_DEVICE PtrType data() { return data_; }
  EMBER_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

/// `a[i]` is the accessor of the sub-tensor at index i of the first dim; with one dim left,
/// the element itself.
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  using TensorAccessorBase<T, N, PtrTraits, index_t>::TensorAccessorBase;

  EMBER_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                                        this->strides_ + 1);
  }
  EMBER_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i, this->sizes_ + 1,
                                                        this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  using TensorAccessorBase<T, 1, PtrTraits, index_t>::TensorAccessorBase;

  EMBER_HOST_DEVICE T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  EMBER_HOST_DEVICE const T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

/// An accessor that carries its sizes and strides by value (as index_t), for device code.
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessorBase {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;

  /// From the tensor's (int64) sizes and strides; the caller has checked they fit index_t.
  GenericPackedTensorAccessorBase(PtrType data, const int64_t* sizes, const int64_t* strides) : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = index_t(sizes[i]);
      strides_[i] = index_t(strides[i]);
    }
  }
  EMBER_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  EMBER_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  EMBER_HOST_DEVICE PtrType data() { return data_; }
  EMBER_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor : public GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  using GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t>::GenericPackedTensorAccessorBase;

  /// As TensorAccessor's: a sub-accessor over this one's sizes and strides, or an element.
  EMBER_HOST_DEVICE decltype(auto) operator[](index_t i) const {
    return TensorAccessor<T, N, PtrTraits, index_t>(this->data_, this->sizes_, this->strides_)[i];
  }
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

}  // namespace ember
