// CPU pooling kernels (PoolArgs), the portable direct loops of Note [Library kernels], one
// plane per task: max pooling scans each window in row-major order with libtorch's
// comparison, so values and indices are libtorch's (NaN included); adaptive average pooling
// sums libtorch's bins; the gradients add into a zeroed plane in output order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/parallel_items.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"

namespace ember::detail {

namespace {

// The first window offset i with start + i * step >= 0, and the end (exclusive) of the
// offsets that stay below `size`.
inline void window_range(int64_t start, int64_t kernel, int64_t step, int64_t size, int64_t& first, int64_t& end) {
  first = start < 0 ? (-start + step - 1) / step : 0;
  end = std::min(kernel, start >= size ? int64_t(0) : (size - start + step - 1) / step);
}

// Bits of the same width as T, for selecting without a branch.
template <class T>
using BitsOf = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <class T>
inline BitsOf<T> bits_of(T v) {
  BitsOf<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <class T>
inline T from_bits(BitsOf<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The window offsets [first, end) that land inside a dim of `size`, for each output
// position of that dim: computed once per call, not once per window (they divide).
std::vector<int64_t> window_ranges(int64_t out, int64_t stride, int64_t pad, int64_t kernel, int64_t step, int64_t size) {
  std::vector<int64_t> r(size_t(2 * out));
  for (int64_t o = 0; o < out; ++o)
    window_range(o * stride - pad, kernel, step, size, r[size_t(2 * o)], r[size_t(2 * o + 1)]);
  return r;
}

// libtorch's rule (greater, or NaN) applied without a branch: on random data the
// comparison mispredicts half the time.
template <class T>
inline void take_if_greater(T v, int64_t at, T& best, int64_t& where) {
  const bool take = (v > best) | (v != v);
  const BitsOf<T> mask = BitsOf<T>(0) - BitsOf<T>(take);
  best = from_bits<T>((bits_of(v) & mask) | (bits_of(best) & ~mask));
  const int64_t imask = -int64_t(take);
  where = (at & imask) | (where & ~imask);
}

// The baseline vector (vec.h) of T and its lane masks, which also hold in-plane positions.
template <class T>
struct VecOf;
template <>
struct VecOf<float> {
  using V = EMBER_CPU_NS::VecF;
  using M = EMBER_CPU_NS::VecI;
};
template <>
struct VecOf<double> {
  using V = EMBER_CPU_NS::VecD;
  using M = EMBER_CPU_NS::VecL;
};

template <class T>
void max_pool2d_typed(const PoolArgs& a) {
  using V = typename VecOf<T>::V;
  using M = typename VecOf<T>::M;
  using I = std::remove_reference_t<decltype(M{}[0])>;
  constexpr int kLanes = int(sizeof(V) / sizeof(T));  // windows scanned together, one per lane
  const T* in = reinterpret_cast<const T*>(a.input);
  T* out = reinterpret_cast<T*>(a.output);
  const int64_t plane_in = a.in_h * a.in_w, plane_out = a.out_h * a.out_w;
  const std::vector<int64_t> rows = window_ranges(a.out_h, a.stride_h, a.pad_h, a.kernel_h, a.dilation_h, a.in_h);
  const std::vector<int64_t> cols = window_ranges(a.out_w, a.stride_w, a.pad_w, a.kernel_w, a.dilation_w, a.in_w);
  // Output columns whose windows lie wholly inside the plane's width, [q_lo, q_hi), run a
  // lane per window; positions must fit the lanes' integers.
  int64_t q_lo = 0, q_hi = a.out_w;
  while (q_lo < a.out_w && cols[size_t(2 * q_lo)] != 0) ++q_lo;
  while (q_hi > q_lo && cols[size_t(2 * q_hi - 1)] != a.kernel_w) --q_hi;
  if (plane_in > int64_t(std::numeric_limits<I>::max())) q_hi = q_lo;
  M lane_step;
  for (int l = 0; l < kLanes; ++l) lane_step[l] = I(l * a.stride_w);
  for_each_item(a.planes, plane_out * a.kernel_h * a.kernel_w, [&](int64_t p) {
    const T* x = in + p * plane_in;
    T* y = out + p * plane_out;
    int64_t* idx = a.indices + p * plane_out;
    for (int64_t r = 0; r < a.out_h; ++r) {
      const int64_t h0 = r * a.stride_h - a.pad_h, i0 = rows[size_t(2 * r)], i1 = rows[size_t(2 * r + 1)];
      auto one = [&](int64_t q) {
        const int64_t w0 = q * a.stride_w - a.pad_w, j0 = cols[size_t(2 * q)], j1 = cols[size_t(2 * q + 1)];
        // libtorch starts from -inf at the first position inside the plane.
        T best = -std::numeric_limits<T>::infinity();
        int64_t where = (h0 + i0 * a.dilation_h) * a.in_w + w0 + j0 * a.dilation_w;
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t row = (h0 + i * a.dilation_h) * a.in_w + w0;
          for (int64_t j = j0; j < j1; ++j) take_if_greater(x[row + j * a.dilation_w], row + j * a.dilation_w, best, where);
        }
        y[r * a.out_w + q] = best;
        idx[r * a.out_w + q] = where;
      };
      int64_t q = 0;
      for (; q < q_lo; ++q) one(q);
      for (; q + kLanes <= q_hi; q += kLanes) {
        const int64_t first_col = q * a.stride_w - a.pad_w;
        V best = V{} - std::numeric_limits<T>::infinity();
        M where = lane_step + I((h0 + i0 * a.dilation_h) * a.in_w + first_col);
        for (int64_t i = i0; i < i1; ++i) {
          const int64_t row = (h0 + i * a.dilation_h) * a.in_w + first_col;
          for (int64_t j = 0; j < a.kernel_w; ++j) {
            const int64_t at = row + j * a.dilation_w;
            V v;
            for (int l = 0; l < kLanes; ++l) v[l] = x[at + l * a.stride_w];
            const M take = (v > best) | (v != v);  // libtorch's rule, per lane
            best = take ? v : best;
            where = take ? lane_step + I(at) : where;
          }
        }
        for (int l = 0; l < kLanes; ++l) {
          y[r * a.out_w + q + l] = best[l];
          idx[r * a.out_w + q + l] = int64_t(where[l]);
        }
      }
      for (; q < a.out_w; ++q) one(q);
    }
  });
}

template <class T>
void max_pool2d_backward_typed(const PoolArgs& a) {
  const T* g = reinterpret_cast<const T*>(a.input);
  T* gx = reinterpret_cast<T*>(a.output);
  const int64_t plane_in = a.in_h * a.in_w, plane_out = a.out_h * a.out_w;
  for_each_item(a.planes, plane_in + plane_out, [&](int64_t p) {
    T* dst = gx + p * plane_in;
    const T* src = g + p * plane_out;
    const int64_t* idx = a.indices + p * plane_out;
    std::fill(dst, dst + plane_in, T(0));
    // A window that holds no input position (libtorch allows some with padding and
    // dilation) has an index outside the plane: it gets no gradient.
    for (int64_t k = 0; k < plane_out; ++k)
      if (idx[k] >= 0 && idx[k] < plane_in) dst[idx[k]] += src[k];
  });
}

// libtorch's adaptive bins along one dim: [floor(o * in / out), ceil((o + 1) * in / out)).
std::vector<int64_t> adaptive_bins(int64_t in, int64_t out) {
  std::vector<int64_t> r(size_t(2 * out));
  for (int64_t o = 0; o < out; ++o) {
    r[size_t(2 * o)] = o * in / out;
    r[size_t(2 * o + 1)] = ((o + 1) * in + out - 1) / out;
  }
  return r;
}

// Per plane (split across the team): start(plane), then fn(plane, o, h0, h1, w0, w1) for
// each output element o with its bin's rows [h0, h1) and columns [w0, w1); plane is the
// plane's first input element.
template <class Start, class Fn>
void for_each_adaptive_bin(const PoolArgs& a, const Start& start, const Fn& fn) {
  const std::vector<int64_t> rows = adaptive_bins(a.in_h, a.out_h), cols = adaptive_bins(a.in_w, a.out_w);
  const int64_t plane_in = a.in_h * a.in_w, plane_out = a.out_h * a.out_w;
  for_each_item(a.planes, plane_in + plane_out, [&](int64_t p) {
    start(p * plane_in);
    for (int64_t r = 0; r < a.out_h; ++r)
      for (int64_t q = 0; q < a.out_w; ++q)
        fn(p * plane_in, p * plane_out + r * a.out_w + q, rows[size_t(2 * r)], rows[size_t(2 * r + 1)],
           cols[size_t(2 * q)], cols[size_t(2 * q + 1)]);
  });
}

template <class T>
void adaptive_avg_pool2d_typed(const PoolArgs& a) {
  const T* in = reinterpret_cast<const T*>(a.input);
  T* out = reinterpret_cast<T*>(a.output);
  auto nothing = [](int64_t) {};
  for_each_adaptive_bin(a, nothing,
                        [&](int64_t plane, int64_t o, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                          T sum = 0;
                          for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) sum += in[plane + h * a.in_w + w];
                          out[o] = sum / T(h1 - h0) / T(w1 - w0);  // libtorch's rounding
                        });
}

template <class T>
void adaptive_avg_pool2d_backward_typed(const PoolArgs& a) {
  const T* g = reinterpret_cast<const T*>(a.input);
  T* gx = reinterpret_cast<T*>(a.output);
  // Bins may overlap: each plane is zeroed, then gets each bin's share added.
  auto zero = [&](int64_t plane) { std::fill(gx + plane, gx + plane + a.in_h * a.in_w, T(0)); };
  for_each_adaptive_bin(a, zero,
                        [&](int64_t plane, int64_t o, int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
                          const T share = g[o] / T(h1 - h0) / T(w1 - w0);
                          for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) gx[plane + h * a.in_w + w] += share;
                        });
}

template <template <class> class Kernel>
void float_or_double(const PoolArgs& a) {
  if (a.dtype == kDouble)
    Kernel<double>::run(a);
  else
    Kernel<float>::run(a);
}

template <class T>
struct MaxPool {
  static void run(const PoolArgs& a) { max_pool2d_typed<T>(a); }
};
template <class T>
struct MaxPoolBackward {
  static void run(const PoolArgs& a) { max_pool2d_backward_typed<T>(a); }
};
template <class T>
struct AdaptiveAvg {
  static void run(const PoolArgs& a) { adaptive_avg_pool2d_typed<T>(a); }
};
template <class T>
struct AdaptiveAvgBackward {
  static void run(const PoolArgs& a) { adaptive_avg_pool2d_backward_typed<T>(a); }
};

}  // namespace

void register_cpu_pool_kernels() {
  const DtypeSet dtypes{kFloat, kDouble};
  register_kernel(Op::MaxPool2d, kCPU, float_or_double<MaxPool>, dtypes);
  register_kernel(Op::MaxPool2dBackward, kCPU, float_or_double<MaxPoolBackward>, dtypes);
  register_kernel(Op::AdaptiveAvgPool2d, kCPU, float_or_double<AdaptiveAvg>, dtypes);
  register_kernel(Op::AdaptiveAvgPool2dBackward, kCPU, float_or_double<AdaptiveAvgBackward>, dtypes);
}

}  // namespace ember::detail
